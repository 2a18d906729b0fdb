#!/usr/bin/env bash
# Labelled positions per CPU second of `dchess datagen` at two revisions,
# against `dchess label --depth 8` on positions of the same games (issue
# #57's measure of data making).
#
# Each round runs, for each node budget in NODES (default "400 1000 5000"),
# `datagen --a SPEC --games GAMES --nodes N --concurrency 1` (SPEC default
# the shipped nnue network, GAMES default 40, 5 % random moves in the
# first 16 plies, seed 57) with each revision's binary, the two
# alternating, then `label --depth 8 --workers 1` of the first GAMES/10
# games' positions with Stockfish. CPU time is user + system of dchess and
# its engines (/usr/bin/time), which other jobs on a shared machine
# disturb less than the wall clock. The table gives each run's stored
# records per CPU second and that rate over label's in the same round;
# medians over ROUNDS rounds (default 3) close it. The two revisions must
# write the same dataset (the same seed plays the same games), which the
# script checks.
#
#   scripts/bench/datagen.sh [REV_A [REV_B]]        # defaults: HEAD and .
#   ROUNDS=5 NODES="400 1000" scripts/bench/datagen.sh b7c1a2e .
#
# A revision is anything git names, or "." for the working tree.
set -euo pipefail
revs=("${1:-HEAD}" "${2:-.}")
. "$(dirname "$0")/revisions.sh"
rounds=${ROUNDS:-3}
read -r -a budgets <<<"${NODES:-400 1000 5000}"
games=${GAMES:-40}
spec=${SPEC:-nnue:$root/models/shipped/nnue.dcw}
stockfish=${STOCKFISH:-${DCHESS_STOCKFISH:-$(command -v stockfish || echo /usr/games/stockfish)}}
for i in 0 1; do
	(cd "${trees[$i]}" && go build -o "$work/dchess-$i" ./cmd/dchess)
done
cd "$work"

# timed CMD... runs CMD with its stdout in out.json and prints its CPU
# seconds (user + system, children included).
timed() {
	/usr/bin/time -f '%U %S' -o time "$@" >out.json
	awk '{ printf "%.3f\n", $1 + $2 }' time
}
field() { sed -n "s/.*\"$1\": \([0-9.e+-]*\).*/\1/p" out.json | head -n 1; }

echo "datagen $spec, $games games a run, concurrency 1; label: Stockfish depth 8, 1 worker; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-5s %-8s %-6s %-8s %-8s %-10s %s\n' round rev nodes records cpu_s records/cpu_s against_label
for r in $(seq 1 "$rounds"); do
	for n in "${budgets[@]}"; do
		for i in 0 1; do
			rm -rf "gen-$i-$n" "gen-$i-$n.pgn"
			cpu=$(timed "./dchess-$i" datagen --a "$spec" --games "$games" --nodes "$n" --random-rate 0.05 \
				--random-rate-plies 16 --concurrency 1 --seed 57 -o "gen-$i-$n" --json --quiet)
			echo "$r ${revs[$i]} $n $(field records) $cpu" >>gen.rows
		done
		if ! cmp -s "gen-0-$n/shard-00000.rec" "gen-1-$n/shard-00000.rec"; then
			echo "$0: the two revisions wrote different datasets at $n nodes" >&2
			exit 1
		fi
	done
	rm -rf in lab
	"./dchess-0" ingest "gen-0-${budgets[0]}.pgn" -o in --max-games $((games / 10 > 0 ? games / 10 : 1)) --quiet >/dev/null
	cpu=$(timed "./dchess-0" label --stockfish "$stockfish" -i in -o lab --depth 8 --workers 1 --json --quiet)
	label=$(awk -v n="$(field labelled)" -v c="$cpu" 'BEGIN { printf "%.1f", n / c }')
	awk -v r="$r" -v l="$label" '$1 == r { printf "%-5s %-8s %-6s %-8s %-8s %-10.1f %.2f\n", $1, $2, $3, $4, $5, $4 / $5, $4 / $5 / l }' gen.rows
	printf '%-5s %-8s %-6s %-8s %-8s %-10s %s\n' "$r" label 8 "$(field labelled)" "$cpu" "$label" 1
	awk -v r="$r" -v l="$label" '$1 == r { print $2, $3, $4 / $5 / l }' gen.rows >>ratios
done
echo "median over $rounds rounds of records/cpu_s against label's:"
for i in 0 1; do
	for n in "${budgets[@]}"; do
		awk -v rev="${revs[$i]}" -v n="$n" '$1 == rev && $2 == n { print $3 }' ratios | sort -g |
			awk -v rev="${revs[$i]}" -v n="$n" '{ v[NR] = $1 } END { printf "%-8s %-6s %.2f\n", rev, n, v[int((NR + 1) / 2)] }'
	done
done
