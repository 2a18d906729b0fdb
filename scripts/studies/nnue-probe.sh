#!/usr/bin/env bash
# The NNUE study's quick probe (issue #19, docs/results/2026-11-25-nnue-own-games.md): a network
# against the heuristic with the same search at a fixed depth (no clock, so
# speed plays no part), then the positions of those games labelled by
# Stockfish and both evaluations scored on them. The second half says how
# well the network judges the positions its own search steers to, which its
# test split (positions of other players' games) does not.
#
#   scripts/studies/nnue-probe.sh MODEL.dcw OUT_PREFIX [GAMES [DEPTH]]
#
# Defaults: 40 games at depth 4 from noob_2moves.epd in random order, seed 5
# (every network meets the same openings). Writes OUT_PREFIX.match.json,
# .pgn, .positions/, .labelled/ and .eval-{nnue,heuristic}.json; a rerun
# skips what is done (labelling resumes from its journal).
set -euo pipefail
if [ $# -lt 2 ]; then
	echo "usage: $0 MODEL.dcw OUT_PREFIX [GAMES [DEPTH]]" >&2
	exit 2
fi
model=$1
out=$2
games=${3:-40}
depth=${4:-4}
. "$(dirname "$0")/env.sh"
openings=${OPENINGS:-$root/../shared/data/openings/noob_2moves.epd}
mkdir -p "$(dirname "$out")"
if [ ! -f "$out.match.json" ]; then
	"$dchess" match --a "nnue:$model?name=nnue" --b heuristic --depth "$depth" --games "$games" \
		--openings "$openings" --openings-order random --seed 5 --pgn "$out.pgn.tmp" --json --quiet >"$out.match.json.tmp"
	mv "$out.pgn.tmp" "$out.pgn"
	mv "$out.match.json.tmp" "$out.match.json"
fi
[ -f "$out.positions/manifest.json" ] || "$dchess" ingest "$out.pgn" -o "$out.positions" --quiet
[ -f "$out.labelled/manifest.json" ] || "$dchess" label --stockfish "$sf" -i "$out.positions" -o "$out.labelled" \
	--depth 8 --quiet
for p in "nnue:$model" heuristic; do
	name=${p%%:*}
	[ -f "$out.eval-$name.json" ] || "$dchess" eval --player "$p" --data "$out.labelled" --depth 1 --json --quiet \
		>"$out.eval-$name.json"
done
grep -o '"wins": [0-9]*\|"losses": [0-9]*\|"draws": [0-9]*\|"elo": [^,]*\|"elo_error": [^,]*' "$out.match.json" | tr '\n' ' '
echo
for name in nnue heuristic; do
	printf '%s on its games'"'"' quiet positions: ' "$name"
	tr -d ' \n' <"$out.eval-$name.json" | grep -o '"quiet":{[^}]*}'
done
