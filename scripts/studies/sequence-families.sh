#!/usr/bin/env bash
# The comparison of the sequence families (issues #5 and #20;
# docs/results/2026-11-26-sequence-families-20000-steps.md):
# configs/policy-small.yaml, configs/diffusion-small.yaml and
# configs/flow-small.yaml with each source (mask, board) are the same
# transformer (width 64, 2 blocks) trained on the same labelled positions
# (scripts/studies/data-d8-pv4.sh, Stockfish's 4-move lines) for the same
# number of optimizer steps. Then, for each: action accuracy and the imagined
# lines on the test split (the decoding-steps sweep for diffusion and flow,
# with milliseconds per move), the shared Lichess puzzles, and a round robin
# at 100 ms a move with heuristic and random as anchors, then the learned
# players' round robin again with repetition=avoid.
#
#   scripts/studies/sequence-families.sh [DATA_DIR] [RUNS_DIR] [STEPS]
#       (defaults studies/d8pv4/labelled, studies/sequence, 20000)
#
# The sequence players are scored on the test split with both decoding
# orders and (flow) both samplers (variants below), on the puzzles and in
# the round robin with their defaults; the runs' validation accuracy curves go to
# RUNS/val_action_accuracy.png. Every stage is journalled: a training run
# continues from its newest checkpoint (train --resume) and finished
# evaluations and the finished tournament are skipped, so the script can be
# stopped at any point and run again (the round robin continues from its
# journal beside tournament.pgn). FAMILIES (default "policy diffusion
# flow-mask flow-board"; also flow-board-squares) chooses which runs to
# train and score; give another RUNS_DIR to keep the plot and round robin
# of a subset apart. PARALLEL
# (default 1) trains that many runs at once, each with GOMAXPROCS=1: one
# core trains this small transformer as fast as two do (193 and 194
# samples/s, the entry above), so on a machine of N cores PARALLEL=N
# trains N runs in the time of one.
set -euo pipefail
. "$(dirname "$0")/env.sh"
cd "$root"
data=${1:-studies/d8pv4/labelled}
runs=${2:-studies/sequence}
steps=${3:-20000}
families=${FAMILIES:-policy diffusion flow-mask flow-board}
puzzles=${PUZZLES:-../shared/data/puzzles/lichess_puzzles_kagi1000.csv}
openings=${OPENINGS:-../shared/data/openings/noob_2moves.epd}
mkdir -p "$runs"

# config NAME: the config a run trains with; flow's board source differs
# from configs/flow-small.yaml in its source alone, flow-board-squares in
# its source and action_squares (docs/training.md).
config() {
	case $1 in
	flow-mask) echo configs/flow-small.yaml ;;
	flow-board)
		sed 's/^  source: mask /  source: board/' configs/flow-small.yaml >"$runs/flow-board.yaml"
		grep -q '^  source: board' "$runs/flow-board.yaml" || { echo "flow-small.yaml has no 'source: mask' line" >&2; exit 1; }
		echo "$runs/flow-board.yaml" ;;
	flow-board-squares)
		sed -e 's/^  source: mask /  source: board/' -e 's/^  action_squares: false /  action_squares: true /' \
			configs/flow-small.yaml >"$runs/flow-board-squares.yaml"
		[ "$(grep -c '^  source: board\|^  action_squares: true' "$runs/flow-board-squares.yaml")" = 2 ] ||
			{ echo "flow-small.yaml has no 'source: mask' or 'action_squares: false' line" >&2; exit 1; }
		echo "$runs/flow-board-squares.yaml" ;;
	*) echo "configs/$1-small.yaml" ;;
	esac
}
# spec F [SETTINGS]: run F's player, named after the run.
spec() { echo "${1%%-*}:$runs/$1/model.dcw?name=$1${2:+&$2}"; }
# variants F: the player settings F is scored with on the test split ("-"
# the defaults), named in full so that a file keeps its meaning when a
# default changes: both decoding orders, and flow's stochastic sampler
# (docs/flow.md, "When a_i is decided").
variants() {
	case $1 in
	diffusion) echo "order=action-first order=joint" ;;
	flow-*) echo "order=action-first order=joint order=joint&sampler=stochastic" ;;
	*) echo "-" ;;
	esac
}

# train F: one run, resumed from its checkpoint when it has one; its JSON
# summary is written when it ends, so a killed run is not taken for done.
train() {
	local f=$1 run=$runs/$1
	echo "== train $f ($(date -u +%FT%TZ))"
	if compgen -G "$run/checkpoint/*.dcw" >/dev/null; then
		"$dchess" train --model "${f%%-*}" --data "$data" --out "$run" --max-steps "$steps" --resume --json >"$run.train.json.tmp"
	else
		"$dchess" train --model "${f%%-*}" --config "$(config "$f")" --data "$data" --out "$run" \
			--max-steps "$steps" --json >"$run.train.json.tmp"
	fi
	mv "$run.train.json.tmp" "$run.train.json"
	echo "== trained $f ($(date -u +%FT%TZ))"
}
parallel=${PARALLEL:-1}
for f in $families; do
	[ -f "$runs/$f/model.dcw" ] && [ -f "$runs/$f.train.json" ] && continue
	if [ "$parallel" -le 1 ]; then
		train "$f"
		continue
	fi
	while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do wait -n; done
	GOMAXPROCS=1 train "$f" &
done
while [ "$(jobs -rp | wc -l)" -gt 0 ]; do wait -n; done
trained=()
for f in $families; do trained+=("$runs/$f"); done
"$dchess" plot "${trained[@]}" --metric val_action_accuracy -o "$runs/val_action_accuracy.png" --force
for f in $families; do
	for v in $(variants "$f"); do
		settings=${v#-}
		out=$runs/$f.eval${settings:+.${settings//[=&]/-}}.json
		[ -f "$out" ] && continue
		echo "== score $f ${settings:-(defaults)} on the test split ($(date -u +%FT%TZ))"
		sweep=()
		[ "$f" = policy ] || sweep=(--steps 1,2,5,10,20)
		"$dchess" eval --player "$(spec "$f" "$settings")" --data "$data" --limit "${LIMIT:-500}" "${sweep[@]}" --json --quiet >"$out.tmp"
		mv "$out.tmp" "$out"
	done
	out=$runs/$f.puzzles.json
	if [ ! -f "$out" ]; then
		echo "== puzzles $f ($(date -u +%FT%TZ))"
		"$dchess" eval --player "$(spec "$f")" --puzzles "$puzzles" --limit "${PUZZLE_LIMIT:-0}" --json --quiet >"$out.tmp"
		mv "$out.tmp" "$out"
	fi
done
players=heuristic,random
for f in $families; do players=$players,$(spec "$f"); done
out=$runs/tournament.json
if [ ! -f "$out" ]; then
	echo "== round robin ($(date -u +%FT%TZ))"
	"$dchess" tournament --players "$players" --games-per-pair "${GAMES_PER_PAIR:-20}" --movetime "${MOVETIME:-100}" \
		--openings "$openings" \
		--openings-order random --seed 1 --max-moves 200 --pgn "$runs/tournament.pgn" --json >"$out.tmp"
	mv "$out.tmp" "$out"
fi
# The learned players again with repetition=avoid, anchored on random: with
# the default, most of their games end in threefold repetition.
players=random
for f in $families; do players=$players,$(spec "$f" repetition=avoid); done
out=$runs/tournament-avoid.json
if [ ! -f "$out" ]; then
	echo "== round robin with repetition=avoid ($(date -u +%FT%TZ))"
	"$dchess" tournament --players "$players" --anchor random=0 --games-per-pair "${GAMES_PER_PAIR:-20}" \
		--movetime "${MOVETIME:-100}" --openings "$openings" --openings-order random --seed 1 --max-moves 200 \
		--pgn "$runs/tournament-avoid.pgn" --json >"$out.tmp"
	mv "$out.tmp" "$out"
fi
