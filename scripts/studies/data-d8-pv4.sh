#!/usr/bin/env bash
# The dataset of the evaluator and diffusion studies (docs/results/2026-11-21-evaluators-depth-8.md,
# docs/results/2026-11-21-diffusion-vs-policy.md), made with
# dchess alone: Kasparov's games and 2,000 self-play games between two
# heuristic players (the first 20 plies 10 % random), each position
# labelled by Stockfish at depth 8 with a 4-move principal variation, split
# 90/5/5 by game (4,123 games). Made on 2026-11-21 it held 317,477
# positions (3,714 train, 220 val, 189 test games); remade on 2026-11-25,
# after the heuristic's search and weights had changed its self-play games,
# 331,763 (3,719, 194, 210): the sequence families' study uses the second.
#
#   scripts/studies/data-d8-pv4.sh [OUT_DIR]     (default studies/d8pv4)
# A rerun skips the finished stages; labelling resumes from its journal.
# GAMES (default 2000) is the number of self-play games: the sequence
# curve (scripts/studies/sequence-curve.sh) makes a dataset at least twice
# as large with more of them, and MIN_POSITIONS (default 0: none) stops the
# script before the hours of labelling when the positions are fewer.
# KASPAROV_PGN replaces Kasparov's games.
set -euo pipefail
. "$(dirname "$0")/env.sh"
cd "$root"
out=${1:-studies/d8pv4}
kasparov=${KASPAROV_PGN:-../shared/data/pgn/Kasparov.pgn}
mkdir -p "$out"
[ -s "$out/selfplay.pgn" ] || "$dchess" selfplay --a heuristic:depth=2 --b heuristic:depth=3 --games "${GAMES:-2000}" \
	--random-rate 0.1 --random-rate-plies 20 --concurrency 2 --seed 7 -o "$out/selfplay.pgn"
[ -f "$out/positions/manifest.json" ] || "$dchess" ingest "$kasparov" "$out/selfplay.pgn" -o "$out/positions" --min-ply 6
positions=$("$dchess" dataset info "$out/positions" --json | sed -n 's/^  "records": \([0-9]*\),$/\1/p')
if [ "$positions" -lt "${MIN_POSITIONS:-0}" ]; then
	echo "$out/positions holds $positions positions, fewer than MIN_POSITIONS=$MIN_POSITIONS:" \
		"remove $out/selfplay.pgn and $out/positions and run again with more GAMES" >&2
	exit 1
fi
[ -f "$out/labelled/manifest.json" ] || "$dchess" label --stockfish "$sf" -i "$out/positions" -o "$out/labelled" \
	--depth 8 --pv 4 --workers 2
"$dchess" dataset split "$out/labelled" --val 0.05 --test 0.05 --seed 1
"$dchess" dataset info "$out/labelled"
