#!/usr/bin/env bash
# Search speed: dchess bench (alpha-beta + heuristic evaluator, one thread)
# and Stockfish's own bench on one thread, run back to back. Nodes/s is
# given twice: per wall-clock second (what each program prints) and per
# CPU second of the process (user + sys), which a busy shared machine
# disturbs far less. Usage: scripts/bench/search.sh [RUNS]
set -euo pipefail
cd "$(dirname "$0")/../.."

runs=${1:-3}
stockfish=${DCHESS_STOCKFISH:-/usr/games/stockfish}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/dchess" ./cmd/dchess

# cpu_seconds CMD... runs CMD with its output in $tmp/out and prints user+sys seconds.
cpu_seconds() {
	local TIMEFORMAT='%U %S'
	{ time "$@" >"$tmp/out" 2>&1; } 2>"$tmp/time"
	awk '{ printf "%.3f", $1 + $2 }' "$tmp/time"
}

printf '%-4s %-9s %-12s %-12s %-12s %-12s %-9s %s\n' run nodes dchess_nps dchess_cpu sf_nps sf_cpu cpu_ratio signature
for i in $(seq 1 "$runs"); do
	# GOMAXPROCS=1 keeps the garbage collector on the search's core, as
	# Stockfish's one search thread has it.
	cpu=$(GOMAXPROCS=1 cpu_seconds "$tmp/dchess" bench --json)
	nodes=$(sed -n 's/.*"nodes": \([0-9]*\).*/\1/p' "$tmp/out")
	nps=$(sed -n 's/.*"nodes_per_second": \([0-9]*\).*/\1/p' "$tmp/out")
	sig=$(sed -n 's/.*"signature": "\(.*\)".*/\1/p' "$tmp/out")
	dcpu=$(awk -v n="$nodes" -v c="$cpu" 'BEGIN { printf "%d", n / c }')
	sf_nps=n/a sf_cpu=n/a ratio=n/a
	if [ -x "$stockfish" ]; then
		# bench <hash MB> <threads> <depth>
		cpu=$(cpu_seconds "$stockfish" bench 16 1 13)
		sf_nodes=$(sed -n 's/^Nodes searched *: *\([0-9]*\).*/\1/p' "$tmp/out")
		sf_nps=$(sed -n 's/^Nodes\/second *: *\([0-9]*\).*/\1/p' "$tmp/out")
		sf_cpu=$(awk -v n="$sf_nodes" -v c="$cpu" 'BEGIN { printf "%d", n / c }')
		ratio=$(awk -v a="$dcpu" -v b="$sf_cpu" 'BEGIN { printf "%.2f", a / b }')
	fi
	printf '%-4s %-9s %-12s %-12s %-12s %-12s %-9s %s\n' "$i" "$nodes" "$nps" "$dcpu" "$sf_nps" "$sf_cpu" "$ratio" "$sig"
done
