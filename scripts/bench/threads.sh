#!/usr/bin/env bash
# Lazy SMP speed: dchess bench on 1 thread and on N (default 2), run
# alternately so a change in the machine's load hits both alike. Prints
# each run's nodes/s and the ratio of N threads to 1, with the CPU the
# process got per wall-clock second (user + sys / real): near N the
# threads had N cores, well below it the machine was busy and the ratio
# says more about the load than about the search. cpu_ratio compares
# nodes per CPU second instead: near 1 the threads lose nothing to each
# other (table, caches, start and stop), so on N free cores nodes/s
# would grow about N-fold.
# Usage: scripts/bench/threads.sh [RUNS] [THREADS] [DEPTH]
set -euo pipefail
cd "$(dirname "$0")/../.."

runs=${1:-3}
threads=${2:-2}
depth=${3:-11}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/dchess" ./cmd/dchess

# run THREADS prints "NPS CPU_PER_WALL" of one bench.
run() {
	local TIMEFORMAT='%R %U %S'
	{ time "$tmp/dchess" bench --json --depth "$depth" --threads "$1" >"$tmp/out" 2>/dev/null; } 2>"$tmp/time"
	local nps
	nps=$(sed -n 's/.*"nodes_per_second": \([0-9]*\).*/\1/p' "$tmp/out")
	awk -v n="$nps" '{ printf "%d %.2f\n", n, ($2 + $3) / $1 }' "$tmp/time"
}

printf '%-4s %-12s %-8s %-12s %-8s %-6s %s\n' run nps_1 cpu_1 "nps_$threads" "cpu_$threads" ratio cpu_ratio
for i in $(seq 1 "$runs"); do
	read -r one cpu1 < <(run 1)
	read -r many cpun < <(run "$threads")
	ratio=$(awk -v a="$many" -v b="$one" 'BEGIN { printf "%.2f", a / b }')
	cpu_ratio=$(awk -v a="$many" -v ca="$cpun" -v b="$one" -v cb="$cpu1" 'BEGIN { printf "%.2f", (a / ca) / (b / cb) }')
	printf '%-4s %-12s %-8s %-12s %-8s %-6s %s\n' "$i" "$one" "$cpu1" "$many" "$cpun" "$ratio" "$cpu_ratio"
done
