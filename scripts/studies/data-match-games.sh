#!/usr/bin/env bash
# The second dataset the heuristic's weights are fitted to: the positions of
# the heuristic's own match games (the A/B matches and the Stockfish gauntlets
# of the record's search entries, docs/results/, written by dchess match --pgn), each labelled by
# Stockfish at depth 8 with a 4-move principal variation, split 90/5/5 by
# game. These are the positions the player actually reaches and misjudges,
# which the first dataset's shallow self-play games reach rarely.
#
#   scripts/studies/data-match-games.sh OUT_DIR GAMES.pgn...
#
# With the 2,072 games recorded there: 238,506 positions.
# A rerun skips the finished stages; labelling resumes from its journal.
set -euo pipefail
if [ $# -lt 2 ]; then
	echo "usage: $0 OUT_DIR GAMES.pgn..." >&2
	exit 2
fi
out=$1
shift
. "$(dirname "$0")/env.sh"
mkdir -p "$out"
[ -f "$out/positions/manifest.json" ] || "$dchess" ingest "$@" -o "$out/positions" --min-ply 6
[ -f "$out/labelled/manifest.json" ] || "$dchess" label --stockfish "$sf" -i "$out/positions" -o "$out/labelled" \
	--depth 8 --pv 4 --workers 2
"$dchess" dataset split "$out/labelled" --val 0.05 --test 0.05 --seed 1
"$dchess" dataset info "$out/labelled"
