#!/usr/bin/env bash
# The sequence comparison as a curve (issue #56): policy-small,
# diffusion-small and flow-small with the board source (the best of flow's
# sources in docs/results/2026-11-26-sequence-families-20000-steps.md),
# trained on the same data with the same recipe, and the weights of each
# scored at 5,000, 10,000, 20,000, 40,000, ... steps: action accuracy on the
# test split (a_i first, the players' default) and the Lichess puzzles. The
# figures draw each score against the sequences trained on and against
# the estimated training FLOPs (`dchess plot --x samples|flops --log-x`,
# RUNS_DIR/*.png, and what plot prints in the .txt beside each), and say
# where the curves cross.
#
#   scripts/studies/sequence-curve.sh [DATA_DIR] [RUNS_DIR] [MAX_STEPS]
#       (defaults studies/d8pv4x2, studies/sequence-curve, 80000)
#
# The data: scripts/studies/data-d8-pv4.sh into DATA_DIR with GAMES
# (default 6000) self-play games, at least MIN_POSITIONS positions (default
# 663526, twice the 331,763 of the 20,000-step study; the script stops
# before labelling when there are fewer).
#
# The recipe: each family's configs/FAMILY-small.yaml (CONFIG, a printf
# pattern, names others) with three changes, so that one run observed at
# growing steps is the curve: min_lr_ratio 1 (the warm-up, then the rate
# held at lr: the small configs' cosine reaches 0 at step 20,000, after
# which nothing would move, and a point inside a cosine is not a finished
# run of that length either; these are not the 20,000-step study's
# annealed runs), patience 0 (no early stop) and epochs 1000 (MAX_STEPS,
# not the epochs, ends a run). The rate depends on the step alone, so a run
# resumed with a larger --max-steps is the run that went straight there.
#
# Points: FIRST (default 5000), doubling while below MAX_STEPS, then
# MAX_STEPS. For each run and point: train to the point (train --resume
# --max-steps), keep its last weights as RUN/weights/step-N.dcw (export
# --last), score them (LIMIT test positions, default 2000; PUZZLE_LIMIT
# puzzles, default 0: all) and append {"step":N,"test":EVAL,"puzzles":EVAL}
# (the two `dchess eval --json` outputs) to RUN/scores.jsonl, the journal
# `dchess plot --metric test.action_accuracy` reads. Every stage is
# journalled: a rerun skips the points scored, a killed training continues
# from its newest checkpoint (train writes one every 10 minutes), and a
# rerun with a larger MAX_STEPS extends the curves. PARALLEL (default 1)
# runs that many families at once, each with GOMAXPROCS=1, as
# sequence-families.sh does; FAMILIES (default "policy diffusion
# flow-board"; also flow-mask) chooses the runs to train, and the figures
# draw every run of RUNS_DIR with scores. By the FLOPs estimate a policy
# sequence (one state) costs about a sixth of a diffusion or flow one
# (four), so on that axis the curves overlap only where the policy has
# trained about six times the steps: FAMILIES=policy with a larger
# MAX_STEPS extends it alone.
# Everything runs at nice 10.
set -euo pipefail
. "$(dirname "$0")/env.sh"
cd "$root"
data_dir=${1:-studies/d8pv4x2}
runs=${2:-studies/sequence-curve}
max_steps=${3:-80000}
data=$data_dir/labelled
families=${FAMILIES:-policy diffusion flow-board}
config_pattern=${CONFIG:-configs/%s-small.yaml}
puzzles=${PUZZLES:-../shared/data/puzzles/lichess_puzzles_kagi1000.csv}
first=${FIRST:-5000}
[[ $first =~ ^[1-9][0-9]*$ && $max_steps =~ ^[1-9][0-9]*$ ]] ||
	{ echo "MAX_STEPS ($max_steps) and FIRST ($first) must be positive whole numbers" >&2; exit 2; }
dc() { nice -n 10 "$dchess" "$@"; }

GAMES=${GAMES:-6000} MIN_POSITIONS=${MIN_POSITIONS:-663526} nice -n 10 bash "$root/scripts/studies/data-d8-pv4.sh" "$data_dir"
mkdir -p "$runs"

points=()
for ((s = first; s < max_steps; s *= 2)); do points+=("$s"); done
points+=("$max_steps")

# curve_config F: writes the config run F starts from (see the recipe above).
curve_config() {
	local f=$1 out=$runs/$1.yaml src want=3
	# shellcheck disable=SC2059 # CONFIG is the pattern
	src=$(printf "$config_pattern" "${f%%-*}")
	local edits=(-e 's/^  min_lr_ratio: [0-9.e+-]*/  min_lr_ratio: 1/' -e 's/^patience: [0-9]*/patience: 0/'
		-e 's/^epochs: [0-9]*/epochs: 1000/')
	case $f in
	policy | diffusion | flow-mask) ;;
	flow-board) edits+=(-e 's/^  source: mask /  source: board/') want=4 ;;
	*) echo "FAMILIES: unknown run $f (policy, diffusion, flow-board, flow-mask)" >&2; exit 2 ;;
	esac
	sed "${edits[@]}" "$src" >"$out.tmp"
	[ "$(grep -c '^  min_lr_ratio: 1$\|^patience: 0$\|^epochs: 1000$\|^  source: board' "$out.tmp")" = "$want" ] ||
		{ echo "$src lacks a min_lr_ratio, patience, epochs or (flow-board) 'source: mask' line" >&2; exit 1; }
	mv "$out.tmp" "$out"
}

# curve F: trains, keeps and scores run F at every point not yet scored.
curve() {
	local f=$1 run=$runs/$1 model=${1%%-*} s weights result scores test puzzle
	mkdir -p "$run/weights" "$run/scores"
	for s in "${points[@]}"; do
		grep -q "^{\"step\":$s," "$run/scores.jsonl" 2>/dev/null && continue
		weights=$run/weights/step-$s.dcw
		if [ ! -f "$weights" ]; then
			echo "== train $f to step $s ($(date -u +%FT%TZ))"
			result=$run/train-$s.json
			if compgen -G "$run/checkpoint/*.dcw" >/dev/null; then
				dc train --model "$model" --data "$data" --out "$run" --max-steps "$s" --resume --json >"$result.tmp"
			else
				dc train --model "$model" --config "$runs/$f.yaml" --data "$data" --out "$run" --max-steps "$s" --json >"$result.tmp"
			fi
			mv "$result.tmp" "$result"
			grep -q "^  \"steps\": $s,$" "$result" ||
				{ echo "$run stopped at another step than $s (see $result): its weights at $s are not in its checkpoints" >&2; exit 1; }
			dc export "$run" --last -o "$weights" --quiet
		fi
		test=$run/scores/step-$s.test.json
		if [ ! -f "$test" ]; then
			echo "== score $f at step $s on the test split ($(date -u +%FT%TZ))"
			dc eval --player "$model:$weights?name=$f-$s" --data "$data" --limit "${LIMIT:-2000}" --json --quiet >"$test.tmp"
			mv "$test.tmp" "$test"
		fi
		puzzle=$run/scores/step-$s.puzzles.json
		if [ ! -f "$puzzle" ]; then
			echo "== puzzles $f at step $s ($(date -u +%FT%TZ))"
			dc eval --player "$model:$weights?name=$f-$s" --puzzles "$puzzles" --limit "${PUZZLE_LIMIT:-0}" --json --quiet >"$puzzle.tmp"
			mv "$puzzle.tmp" "$puzzle"
		fi
		# The journal is rewritten whole, so a kill never leaves half a line.
		scores=$run/scores.jsonl
		{
			cat "$scores" 2>/dev/null || true
			printf '{"step":%d,"test":%s,"puzzles":%s}\n' "$s" "$(tr -d '\n' <"$test")" "$(tr -d '\n' <"$puzzle")"
		} >"$scores.tmp"
		mv "$scores.tmp" "$scores"
	done
	echo "== $f done ($(date -u +%FT%TZ))"
}

for f in $families; do curve_config "$f"; done
parallel=${PARALLEL:-1}
pids=()
for f in $families; do
	if [ "$parallel" -le 1 ]; then
		curve "$f"
		continue
	fi
	# Polled rather than `wait -n`, which would take the exit status the
	# check below reads by pid.
	while [ "$(jobs -rp | wc -l)" -ge "$parallel" ]; do sleep 1; done
	GOMAXPROCS=1 curve "$f" &
	pids+=($!)
done
failed=0
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
[ "$failed" = 0 ] || { echo "a run failed (its lines above say why); the others ran to the end" >&2; exit 1; }

# The figures draw every run of RUNS_DIR that has scores, not only FAMILIES.
dirs=()
for f in policy diffusion flow-board flow-mask; do
	[ -s "$runs/$f/scores.jsonl" ] && dirs+=("$runs/$f")
done
for metric in test.action_accuracy puzzles.solved_rate; do
	for x in samples flops; do
		echo "== $metric against $x"
		dc plot "${dirs[@]}" --metric "$metric" --x "$x" --log-x -o "$runs/${metric//./-}-$x.png" --force |
			tee "$runs/${metric//./-}-$x.txt"
	done
done
