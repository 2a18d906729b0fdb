#!/usr/bin/env bash
# The DeepChess recipe that reached issue #6's goal of 95 % test pair
# accuracy (docs/results/2026-11-21-deepchess-pair-accuracy.md), the one the shipped
# siamese weights come from (models/shipped/siamese.md): 46,000 games of the
# depth-3 heuristic against itself, a random move 10 % of the time in the
# first 20 plies (two runs, one a core), 10 positions a game from ply 10
# without captures, split 90/5/5 by game, Pos2Vec 3 epochs a layer, then the
# siamese network with its towers from Pos2Vec, early stopping; last, the
# test split's pairs judged by the network (the stages after the self-play
# are siamese-games.sh's, with NAME h3).
#
#   scripts/studies/siamese-h3.sh OUT_DIR [SEED]
#
# SEED (default 1) is the siamese run's seed: the data and Pos2Vec are the
# same for every seed. Every stage is skipped when its output exists and a training run
# continues from its newest checkpoint, so the script can be stopped at any
# point and run again. GAMES_A and GAMES_B (30,000 and 16,000) shrink the
# self-play for a trial run.
set -euo pipefail
if [ $# -lt 1 ]; then
	echo "usage: $0 OUT_DIR [SEED]" >&2
	exit 2
fi
out=$1
seed=${2:-1}
. "$(dirname "$0")/env.sh"
mkdir -p "$out"

selfplay() { # GAMES SEED OUT
	[ -f "$3" ] || "$dchess" selfplay --a heuristic:depth=3 --random-rate 0.1 --random-rate-plies 20 --max-moves 150 \
		--games "$1" --seed "$2" -o "$3" --json >"$3.json"
}
echo "== self-play ($(date -u +%FT%TZ))"
selfplay "${GAMES_A:-30000}" 31 "$out/h3a.pgn" &
a=$!
selfplay "${GAMES_B:-16000}" 32 "$out/h3b.pgn" &
b=$!
wait "$a"
wait "$b"

NAME=h3 bash "$(dirname "$0")/siamese-games.sh" "$out" "$seed" "$out/h3a.pgn" "$out/h3b.pgn"
