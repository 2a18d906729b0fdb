#!/usr/bin/env bash
# The evaluator study of docs/results/2026-11-21-evaluators-depth-8.md (issue #4): the material-only baseline,
# the thesis ANN and CNN and the two -wide configs trained on the same
# labelled positions (scripts/studies/data-d8-pv4.sh), scored on the test
# split (eval --data: static evaluation against Stockfish), then rated in
# round robins at 50 ms a move and at depth 2, with random anchored at 0.
#
#   scripts/studies/evaluators.sh [DATA_DIR] [RUNS_DIR]
#       (defaults studies/d8pv4/labelled and studies/runs)
# Finished trainings are kept; an interrupted one continues with --resume.
set -euo pipefail
. "$(dirname "$0")/env.sh"
cd "$root"
data=${1:-studies/d8pv4/labelled}
runs=${2:-studies/runs}
mkdir -p "$runs"

train() { # NAME FAMILY CONFIG
	if [ -f "$runs/$1/model.dcw" ]; then return; fi
	if [ -d "$runs/$1/checkpoint" ]; then
		"$dchess" train --model "$2" --data "$data" --out "$runs/$1" --resume
	else
		"$dchess" train --model "$2" --config "configs/$3.yaml" --data "$data" --out "$runs/$1"
	fi
}
train material ann material
train ann ann ann
train cnn cnn cnn
train ann-wide ann ann-wide
train cnn-wide cnn cnn-wide

players=(heuristic)
for run in material ann cnn ann-wide cnn-wide; do
	family=ann
	case $run in cnn*) family=cnn ;; esac
	players+=("$family:$runs/$run/model.dcw?name=$run")
done
for p in "${players[@]}"; do
	"$dchess" eval --player "$p" --data "$data" --depth 1 --quiet
done
list=random
for p in "${players[@]}"; do list+=",$p"; done
# Equal time (speed counts), then equal depth (evaluation alone).
# A finished tournament's PGN is in place; a stopped one continues from its journal.
for limit in "--movetime 50" "--depth 2"; do
	pgn=$runs/evaluators-$(tr ' ' - <<<"${limit#--}").pgn
	[ -f "$pgn" ] && continue
	# shellcheck disable=SC2086 # the limit is a flag and its value
	"$dchess" tournament --players "$list" --anchor random=0 --games-per-pair 10 $limit \
		--openings ../shared/data/openings/noob_2moves.epd --openings-order random --seed 1 \
		--max-moves 200 --pgn "$pgn"
done
