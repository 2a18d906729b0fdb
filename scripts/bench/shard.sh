#!/usr/bin/env bash
# Sharding (issue 7): labelling speed of two local tasks against one task,
# the fixed start-up cost of a task, and the merge time of 1,000 shards.
#
# 1. N positions (default 2000, the first N of the shared noob_2moves.epd)
#    are labelled at depth DEPTH (default 8) by one task with --workers 1
#    (--shard 0/1) and by two tasks with --workers 1 each, run as local
#    processes by scripts/cluster/local-array.sh (--shard auto/2); speedup
#    is the one task's wall time over the two tasks', whole commands
#    included (engine start, input scan, bench signature, output). RUNS
#    times each. Other work on a shared machine takes cores from the two
#    tasks, so the CPU seconds of each side (dchess and its Stockfish
#    processes, user + sys) are printed too: cpu_ratio near 1 says the two
#    tasks do no more work than one, and the wall speedup on two free
#    cores is then bounded by the larger task's share of the positions.
# 2. Start-up overhead: the wall time of a task that owns about one
#    position (--shard i/N), on the N-position input and on the positions
#    of the shared master games (about 170,000 records, so the scan of the
#    input that picks a task's positions shows); median of 5 tasks each.
# 3. Merge: dchess dataset merge of the two-task output;
#    BenchmarkMergeShards1000 of package dataset (1,000 generated label
#    shards, 100,000 records) and of search/match (1,000 generated match
#    tasks, 20,000 games, report and PGN).
#
# Usage: scripts/bench/shard.sh [RUNS] [N] [DEPTH]
set -euo pipefail
cd "$(dirname "$0")/../.."

runs=${1:-3}
n=${2:-2000}
depth=${3:-8}
stockfish=${STOCKFISH:-/usr/games/stockfish}
data=${DCHESS_SHARED_DATA:-../shared/data}
tmp=$(mktemp -d /tmp/dchess-shard-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/dchess" ./cmd/dchess
go build -o "$tmp/labelraw" ./scripts/bench/labelraw
"$tmp/labelraw" input -epd "$data/openings/noob_2moves.epd" -n "$n" -o "$tmp/in"
echo "input: $n positions, depth $depth, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"

# timed CMD... prints "wall cpu" of CMD in seconds; cpu counts CMD and
# every process it waited for (user + sys).
timed() {
	/usr/bin/time -f '%e %U %S' -o "$tmp/time" "$@" >/dev/null
	awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }' "$tmp/time"
}

# wall CMD... prints the wall time of CMD in seconds.
wall() {
	local start end
	start=$(date +%s.%N)
	"$@" >/dev/null
	end=$(date +%s.%N)
	awk -v s="$start" -v e="$end" 'BEGIN { printf "%.3f\n", e - s }'
}
label() { "$tmp/dchess" label --stockfish "$stockfish" --depth "$depth" --workers 1 -q "$@"; }

printf '%-4s %-11s %-11s %-8s %-10s %-10s %-9s %s\n' run one_wall_s two_wall_s speedup one_cpu_s two_cpu_s cpu_ratio load
for i in $(seq 1 "$runs"); do
	rm -rf "$tmp"/one-* "$tmp"/two-*
	read -r one onecpu < <(timed "$tmp/dchess" label --stockfish "$stockfish" --depth "$depth" --workers 1 -q \
		-i "$tmp/in" -o "$tmp/one" --shard 0/1)
	read -r two twocpu < <(timed scripts/cluster/local-array.sh 2 "$tmp/dchess" label --stockfish "$stockfish" --depth "$depth" \
		--workers 1 -q -i "$tmp/in" -o "$tmp/two" --shard auto/2)
	awk -v r="$i" -v a="$one" -v b="$two" -v ac="$onecpu" -v bc="$twocpu" -v l="$(cut -d' ' -f1 /proc/loadavg)" 'BEGIN {
		printf "%-4s %-11.3f %-11.3f %-8.3f %-10.3f %-10.3f %-9.3f %s\n", r, a, b, a / b, ac, bc, bc / ac, l }' | tee -a "$tmp/rows"
done
sort -n -k4 "$tmp/rows" | awk '{ v[NR] = $4 } END { printf "median speedup: %s\n", v[int((NR + 1) / 2)] }'
largest=$("$tmp/dchess" dataset info "$tmp/two-0000-of-0002" --json | sed -n 's/^  "records": \([0-9]*\).*/\1/p')
echo "task 0 of 2 owns $largest of $n positions, task 1 $((n - largest))"

"$tmp/dchess" ingest -q "$data"/pgn/*.pgn -o "$tmp/big" >/dev/null
big=$("$tmp/dchess" dataset info "$tmp/big" --json | sed -n 's/^  "records": \([0-9]*\).*/\1/p')
for input in in big; do
	tasks=$n
	[ "$input" = big ] && tasks=$big
	for i in 1 2 3 4 5; do
		wall label -i "$tmp/$input" -o "$tmp/overhead-$input-$i" --shard "$i/$tasks"
	done | sort -n | awk -v what="$input" -v recs="$tasks" '{ v[NR] = $1 } END { printf "start-up of a task owning ~1 of %s records: median %.3f s (min %.3f, max %.3f)\n", recs, v[3], v[1], v[5] }'
done

echo "merge of 2 tasks, $n records: $(wall "$tmp/dchess" dataset merge "$tmp/two" -o "$tmp/merged") s"
for pkg in ./dataset ./search/match; do
	echo "$pkg: $(go test "$pkg" -run '^$' -bench 'MergeShards1000$' -benchtime 3x | grep Benchmark)"
done
