#!/usr/bin/env bash
# A candidate nnue network from `dchess datagen` data (issue #57, items 3
# and 4): NETWORK (default the shipped network) plays itself at NODES nodes
# a move (default 1000) in tasks of the job array that datagen-quality.sh
# plays for its gen-NODES arm (env.sh, datagen_task), until the tasks hold
# RECORDS records; each task is split 90/5/5 by game. OUT may be that arm's
# folder: the tasks it played are kept and the next ones follow.
#
#   scripts/studies/nnue-datagen.sh OUT RECORDS [NODES]
#   scripts/studies/nnue-datagen.sh studies/datagen-quality/gen-1000 30000000 1000
#   TRAIN=0 scripts/studies/nnue-datagen.sh studies/mix/gen-400 17721758 400
#   WITH=studies/mix/gen-400 scripts/studies/nnue-datagen.sh studies/mix/gen-1000 7215760 1000
#
# Then a network trains on every task's train split into OUT/nnue-RUN (RUN
# default "candidate"; CONFIG default configs/nnue.yaml, with max_steps and
# decay_steps STEPS when STEPS is set), with the tasks of the folders WITH
# names (space-separated: arms this script made at other budgets with
# TRAIN=0, which stops once the tasks are made), is scored on TEST when it
# is set (a labelled dataset: Stockfish's scores on its test split, at depth 1, into
# OUT/nnue-RUN.eval.json), and plays NETWORK at 10+0.1 until the SPRT (0,
# 10) decides (nnue-clock.sh into OUT/clock-RUN; CLOCK=0 skips it).
#
# Every stage is journalled: a rerun skips the tasks, the training and the
# scores that are done, and continues an interrupted task, training run
# or match where it stopped.
set -euo pipefail
if [ $# -lt 2 ] || [ $# -gt 3 ]; then
	echo "usage: $0 OUT RECORDS [NODES]" >&2
	exit 2
fi
out=$1 want=$2 nodes=${3:-1000}
[[ $want =~ ^[1-9][0-9]*$ && $nodes =~ ^[1-9][0-9]*$ ]] ||
	{ echo "$0: RECORDS ($want) and NODES ($nodes) must be positive whole numbers" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"
network=${NETWORK:-$root/models/shipped/nnue.dcw}
[ -f "$network" ] || { echo "$0: no network file $network" >&2; exit 2; }
run=$out/nnue-${RUN:-candidate}
# An arm named in WITH must be made before, so a wrong name fails now, not after the tasks.
for arm in ${WITH:-}; do
	compgen -G "$arm/gen-[0-9][0-9][0-9][0-9]-of-1000.split.json" >/dev/null ||
		{ echo "$0: WITH names $arm, which holds no finished task" >&2; exit 2; }
done
mkdir -p "$out"

made=0 data=
for ((i = 0; i < 1000 && made < want; i++)); do
	task=$(printf '%s/gen-%04d-of-1000' "$out" "$i")
	if [ ! -f "$task/manifest.json" ]; then
		echo "== task $i: $made of $want records ($(date -u +%FT%TZ))"
		datagen_task "$out" "$nodes" "$i" "$network"
	fi
	[ -f "$task.split.json" ] || "$dchess" dataset split "$task" --val 0.05 --test 0.05 --seed 1 --json >"$task.split.json"
	made=$((made + $(records "$task")))
	data+=${data:+,}$task
done
((made >= want)) || { echo "$0: the 1000 tasks hold $made records, fewer than $want" >&2; exit 1; }
echo "== $i tasks, $made records"
[ "${TRAIN:-1}" != 0 ] || exit 0
tasks=$i
for arm in ${WITH:-}; do
	for split in "$arm"/gen-[0-9][0-9][0-9][0-9]-of-1000.split.json; do
		data+=,${split%.split.json}
		made=$((made + $(records "${split%.split.json}")))
		tasks=$((tasks + 1))
	done
done

if [ ! -f "$run/model.dcw" ]; then
	echo "== train $run on $tasks tasks, $made records ($(date -u +%FT%TZ))"
	config=${CONFIG:-$root/configs/nnue.yaml}
	if [ -n "${STEPS:-}" ]; then
		sed -e "s/^max_steps: [0-9]*/max_steps: $STEPS/" -e "s/^  decay_steps: [0-9]*/  decay_steps: $STEPS/" "$config" >"$run.yaml"
		config=$run.yaml
	fi
	train_run nnue "$data" "$run" "$config"
fi
if [ -n "${TEST:-}" ] && [ ! -f "$run.eval.json" ]; then
	"$dchess" eval --player "nnue:$run/model.dcw" --data "$TEST" --depth 1 --json --quiet >"$run.eval.json.tmp"
	mv "$run.eval.json.tmp" "$run.eval.json"
fi
if [ "${CLOCK:-1}" != 0 ]; then
	bash "$here/nnue-clock.sh" "$out/clock-${RUN:-candidate}" "$run/model.dcw" "$network"
fi
