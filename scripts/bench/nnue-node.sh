#!/usr/bin/env bash
# The nnue evaluator's cost a search node (issue #19's 150 ns goal) at two
# revisions, run alternately so that both see the same machine: ROUNDS
# rounds (default 7) of the models/nnue benchmarks UpdateEvaluate (the
# board's make and unmake, the accumulator update, the evaluation), Update
# and MakeUnmake on one core, then each benchmark's minimum and median
# ns/op. The minimum is the figure to compare on a shared machine: other
# jobs only ever add time. A revision is anything git names, or "." for
# the working tree.
#
#   scripts/bench/nnue-node.sh [REV_A [REV_B]]     # defaults: HEAD and .
#   ROUNDS=11 CPU=1 scripts/bench/nnue-node.sh b43213d .
#
# CPU (default 1) pins the runs to that core with taskset when it exists.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
revs=("${1:-HEAD}" "${2:-.}")
rounds=${ROUNDS:-7}
cpu=${CPU:-1}
work=$(mktemp -d)
trap 'for w in "$work"/tree-*; do [ -d "$w" ] && git -C "$root" worktree remove --force "$w"; done; rm -rf "$work"' EXIT
dirs=()
for i in 0 1; do
	rev=${revs[$i]}
	src=$root
	if [ "$rev" != "." ]; then
		src=$work/tree-$i
		git -C "$root" worktree add -f --detach "$src" "$rev" -q
	fi
	(cd "$src" && go test -c -o "$work/$i.test" ./models/nnue)
	dirs+=("$src/models/nnue") # the benchmarks read ../shipped/nnue.dcw
done
pin=()
command -v taskset >/dev/null && pin=(taskset -c "$cpu")
for r in $(seq 1 "$rounds"); do
	for i in 0 1; do
		(cd "${dirs[$i]}" && "${pin[@]}" "$work/$i.test" -test.run '^$' -test.bench 'UpdateEvaluate|EvaluatorNode|Update$|MakeUnmake' \
			-test.cpu 1 -test.benchtime 0.5s) | awk -v i="$i" '/^Benchmark/ { print i, $1, $3 }' >>"$work/results"
	done
	echo "round $r of $rounds done" >&2
done
echo "revision benchmark min_ns median_ns (over $rounds rounds)"
for i in 0 1; do
	for b in BenchmarkUpdateEvaluate BenchmarkEvaluatorNode BenchmarkUpdate BenchmarkMakeUnmake; do
		awk -v i="$i" -v b="$b" '$1 == i && $2 == b { print $3 }' "$work/results" | sort -g |
			awk -v rev="${revs[$i]}" -v b="$b" '{ v[NR] = $1 } END { if (NR) printf "%s %s %.1f %.1f\n", rev, b, v[1], v[int((NR + 1) / 2)] }'
	done
done
