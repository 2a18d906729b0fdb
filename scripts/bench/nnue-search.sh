#!/usr/bin/env bash
# The nnue player's search speed against the heuristic's: dchess bench at
# DEPTH (default 8) with the heuristic and with each of NETS in turn,
# ROUNDS rounds (default 5) on one core, then each evaluator's node count
# and best nodes/s, per wall-clock second of the search (what bench
# prints) and per CPU second of the search (the process's user + sys time
# less that of the same command at depth 1, which is the start and the
# network's load: a busy shared machine disturbs it far less), and its
# ratio to the heuristic's.
#
#   NETS="models/shipped/nnue.dcw /tmp/nnue-512.dcw" scripts/bench/nnue-search.sh
#
# CPU (default 1) pins the runs to that core with taskset when it exists.
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${ROUNDS:-5}
depth=${DEPTH:-8}
read -r -a nets <<<"${NETS:-models/shipped/nnue.dcw}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/dchess" ./cmd/dchess
pin=()
command -v taskset >/dev/null && pin=(taskset -c "${CPU:-1}")

# cpu_seconds ARGS... runs dchess bench ARGS with its output in $tmp/out and prints user+sys seconds.
cpu_seconds() {
	local TIMEFORMAT='%U %S'
	{ time GOMAXPROCS=1 "${pin[@]}" "$tmp/dchess" bench --json "$@" >"$tmp/out" 2>&1; } 2>"$tmp/time"
	awk '{ printf "%.3f", $1 + $2 }' "$tmp/time"
}

evals=(heuristic "${nets[@]}")
for r in $(seq 1 "$rounds"); do
	for e in "${evals[@]}"; do
		args=()
		[ "$e" = heuristic ] || args=(--eval "nnue:$e")
		start=$(cpu_seconds --depth 1 "${args[@]}")
		cpu=$(cpu_seconds --depth "$depth" "${args[@]}")
		nodes=$(sed -n 's/.*"nodes": \([0-9]*\).*/\1/p' "$tmp/out")
		nps=$(sed -n 's/.*"nodes_per_second": \([0-9]*\).*/\1/p' "$tmp/out")
		echo "$e $nodes $nps $(awk -v n="$nodes" -v c="$cpu" -v s="$start" 'BEGIN { printf "%d", n / (c - s) }')" >>"$tmp/results"
	done
	echo "round $r of $rounds done" >&2
done
best() { awk -v e="$1" -v f="$2" '$1 == e { if ($f > m) m = $f } END { print m }' "$tmp/results"; }
h_nps=$(best heuristic 3) h_cpu=$(best heuristic 4)
echo "evaluator nodes best_nps ratio best_cpu_nps ratio (over $rounds rounds, depth $depth)"
for e in "${evals[@]}"; do
	nps=$(best "$e" 3) cpu=$(best "$e" 4)
	echo "$e $(best "$e" 2) $nps $(awk -v a="$nps" -v b="$h_nps" 'BEGIN { printf "%.2f", a / b }') $cpu $(awk -v a="$cpu" -v b="$h_cpu" 'BEGIN { printf "%.2f", a / b }')"
done
