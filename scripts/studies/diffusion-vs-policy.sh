#!/usr/bin/env bash
# docs/strength.md's comparison of issue #5: configs/diffusion-small.yaml
# against configs/policy-small.yaml (same width, depth and learning rate) on
# the same labelled positions (scripts/studies/data-d8-pv4.sh, Stockfish's
# 4-move lines), each for the same number of steps; then action accuracy on
# the test split, the T sweep, the shared Lichess puzzles, and matches
# against each other, heuristic and random.
#
#   scripts/studies/diffusion-vs-policy.sh [DATA_DIR] [RUNS_DIR] [STEPS]
#       (defaults studies/d8pv4/labelled, studies/runs, 4000)
# Build with `make build TAGS=openblas` first for about twice the training
# speed. An interrupted training continues with --resume.
set -euo pipefail
. "$(dirname "$0")/env.sh"
cd "$root"
data=${1:-studies/d8pv4/labelled}
runs=${2:-studies/runs}
steps=${3:-4000}
puzzles=${PUZZLES:-../shared/data/puzzles/lichess_puzzles_kagi1000.csv}
mkdir -p "$runs"

for model in policy diffusion; do
	run=$runs/$model-small
	if [ -d "$run/checkpoint" ]; then
		"$dchess" train --model $model --data "$data" --out "$run" --max-steps "$steps" --resume
	else
		"$dchess" train --model $model --config configs/$model-small.yaml --data "$data" --out "$run" --max-steps "$steps"
	fi
done
policy="policy:$runs/policy-small/model.dcw"
diffusion="diffusion:$runs/diffusion-small/model.dcw"
"$dchess" eval --player "$policy" --data "$data" --limit 2000
"$dchess" eval --player "$diffusion" --data "$data" --limit 2000 --steps 1,2,5,10,20
"$dchess" eval --player "$policy" --puzzles "$puzzles"
"$dchess" eval --player "$diffusion" --puzzles "$puzzles"
for opponent in "$policy" heuristic random; do
	"$dchess" match --a "$diffusion" --b "$opponent" --games 20 --movetime 100 \
		--openings ../shared/data/openings/noob_2moves.epd --openings-order random --seed 1 --max-moves 200
done
for opponent in heuristic random; do
	"$dchess" match --a "$policy" --b "$opponent" --games 20 --movetime 100 \
		--openings ../shared/data/openings/noob_2moves.epd --openings-order random --seed 1 --max-moves 200
done
