#!/usr/bin/env bash
# The nnue evaluator's cost a search node (issue #19's 150 ns goal) at two
# revisions, run alternately so that both see the same machine: ROUNDS
# rounds (default 7) of the models/nnue benchmarks UpdateEvaluate (the
# board's make and unmake, the accumulator update, the evaluation), Update
# and MakeUnmake on one core, then each benchmark's minimum and median
# ns/op, and of its CPU time a node (cpu-ns/op, where the revision's
# benchmarks report it: the time other jobs take the core away is not in
# it). The minimum is the figure to compare on a shared machine: other
# jobs only ever add time. A revision is anything git names, or "." for
# the working tree.
#
#   scripts/bench/nnue-node.sh [REV_A [REV_B]]     # defaults: HEAD and .
#   ROUNDS=11 CPU=1 scripts/bench/nnue-node.sh b43213d .
#   NETS="models/shipped/nnue.dcw /tmp/nnue-512.dcw" scripts/bench/nnue-node.sh HEAD .
#
# CPU (default 1) pins the runs to that core with taskset when it exists.
# NETS (default: the shipped network) are the networks timed, each in
# every round (paths relative to the repository's root, or absolute).
set -euo pipefail
revs=("${1:-HEAD}" "${2:-.}")
. "$(dirname "$0")/revisions.sh"
rounds=${ROUNDS:-7}
cpu=${CPU:-1}
read -r -a nets <<<"${NETS:-models/shipped/nnue.dcw}"
for k in "${!nets[@]}"; do
	case ${nets[$k]} in /*) ;; *) nets[$k]=$root/${nets[$k]} ;; esac
done
dirs=()
for i in 0 1; do
	(cd "${trees[$i]}" && go test -c -o "$work/$i.test" ./models/nnue)
	dirs+=("${trees[$i]}/models/nnue")
done
pin=()
command -v taskset >/dev/null && pin=(taskset -c "$cpu")
for r in $(seq 1 "$rounds"); do
	for net in "${nets[@]}"; do
		for i in 0 1; do
			(cd "${dirs[$i]}" && DCHESS_BENCH_NNUE=$net "${pin[@]}" "$work/$i.test" -test.run '^$' \
				-test.bench 'UpdateEvaluate|EvaluatorNode|Update$|MakeUnmake' -test.cpu 1 -test.benchtime 0.5s) |
				awk -v i="$i" -v net="$net" '/^Benchmark/ { cpu = "-"; for (f = 4; f < NF; f++) if ($(f + 1) == "cpu-ns/op") cpu = $f; print i, net, $1, $3, cpu }' >>"$work/results"
		done
	done
	echo "round $r of $rounds done" >&2
done
stat() { sort -g | awk '{ v[NR] = $1 } END { if (NR && v[1] != "-") printf "%.1f %.1f", v[1], v[int((NR + 1) / 2)]; else printf "- -" }'; }
echo "revision network benchmark min_ns median_ns min_cpu_ns median_cpu_ns (over $rounds rounds)"
for net in "${nets[@]}"; do
	for i in 0 1; do
		for b in BenchmarkUpdateEvaluate BenchmarkEvaluatorNode BenchmarkUpdate BenchmarkMakeUnmake; do
			sel() { awk -v i="$i" -v n="$net" -v b="$b" -v f="$1" '$1 == i && $2 == n && $3 == b { print $f }' "$work/results"; }
			[ -n "$(sel 4)" ] || continue
			echo "${revs[$i]} ${net#"$root"/} $b $(sel 4 | stat) $(sel 5 | stat)"
		done
	done
done
