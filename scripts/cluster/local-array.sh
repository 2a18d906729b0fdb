#!/usr/bin/env bash
# Runs N tasks of a dchess job array as local processes, each with its task
# index in the environment variable a batch system would set, to try the
# sharded flow on one machine before a cluster.
#
# Usage: scripts/cluster/local-array.sh [-p PARALLEL] [-e VAR] N COMMAND [ARGS...]
#
#   N         tasks 0..N-1; COMMAND should say --shard auto/N
#   -p        at most PARALLEL tasks at once (default: all N)
#   -e        the index variable (default JOB_COMPLETION_INDEX, as Kubernetes;
#             SLURM_ARRAY_TASK_ID, AWS_BATCH_JOB_ARRAY_INDEX, BATCH_TASK_INDEX)
#
# Each task's output lines are prefixed with [i]. The script exits 0 when
# every task succeeded, and otherwise names the failed ones; run it again to
# rerun them (finished tasks skip, killed ones continue).
#
# Example:
#   scripts/cluster/local-array.sh 2 dchess label --stockfish /usr/games/stockfish \
#       -i data/games -o data/labels --depth 8 --workers 1 --shard auto/2
#   dchess dataset merge data/labels -o data/labels-all
set -euo pipefail

parallel=0
var=JOB_COMPLETION_INDEX
while getopts "p:e:" opt; do
	case $opt in
	p) parallel=$OPTARG ;;
	e) var=$OPTARG ;;
	*) sed -n '6,12p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
if [ $# -lt 2 ] || ! [[ $1 =~ ^[1-9][0-9]*$ ]]; then
	echo "usage: $0 [-p PARALLEL] [-e VAR] N COMMAND [ARGS...]" >&2
	exit 2
fi
case $var in
JOB_COMPLETION_INDEX | SLURM_ARRAY_TASK_ID | AWS_BATCH_JOB_ARRAY_INDEX | BATCH_TASK_INDEX) ;;
*) echo "$0: -e $var is not a variable dchess reads (JOB_COMPLETION_INDEX, SLURM_ARRAY_TASK_ID, AWS_BATCH_JOB_ARRAY_INDEX, BATCH_TASK_INDEX)" >&2; exit 2 ;;
esac
n=$1
shift
if [ "$parallel" -le 0 ] || [ "$parallel" -gt "$n" ]; then
	parallel=$n
fi

declare -A task_of # pid -> task index
failed=()
running=0

# reap waits for one task to end and records a failure.
reap() {
	local pid status=0
	wait -n -p pid || status=$?
	if [ "$status" -ne 0 ]; then
		failed+=("${task_of[$pid]}")
		echo "[${task_of[$pid]}] exit status $status" >&2
	fi
	unset "task_of[$pid]"
	running=$((running - 1))
}

for ((i = 0; i < n; i++)); do
	while [ "$running" -ge "$parallel" ]; do
		reap
	done
	# Only this task's index variable is set, as on a cluster node.
	(
		unset JOB_COMPLETION_INDEX SLURM_ARRAY_TASK_ID AWS_BATCH_JOB_ARRAY_INDEX BATCH_TASK_INDEX
		export "$var=$i"
		"$@" 2>&1 | sed -u "s/^/[$i] /"
		exit "${PIPESTATUS[0]}"
	) &
	task_of[$!]=$i
	running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
	reap
done
if [ ${#failed[@]} -gt 0 ]; then
	mapfile -t sorted < <(printf '%s\n' "${failed[@]}" | sort -n)
	echo "$0: ${#failed[@]} of $n tasks failed: ${sorted[*]}" >&2
	exit 1
fi
