#!/usr/bin/env bash
# Labelling throughput of `dchess label` against raw Stockfish.
#
# N positions (default 2000: the first N of the shared noob_2moves.epd
# openings) are labelled at depth DEPTH (default 8) with 2 workers by
# `dchess label`, and by scripts/bench/labelraw, which drives two Stockfish
# processes directly over pipes with the same per-position protocol
# (ucinewgame, isready, position, go depth D; Threads=1, Hash=16) and no
# parsing, journal or dataset. The two run back to back, RUNS times.
#
# dchess is timed two ways: the whole command's wall time (engine start,
# reading the input, writing the output dataset) and its labelling phase
# alone (positions_per_second of --json); ratio uses the whole command and
# phase_ratio the labelling phase, both against the raw driver's search
# phase. Since other work on a shared machine makes wall-clock rates swing,
# positions per CPU second (the driver or dchess plus its Stockfish
# processes, from /usr/bin/time) are given too; cpu_ratio is dchess's over
# raw's. Medians of the runs close the table.
#
# Usage: scripts/bench/label.sh [RUNS] [N] [DEPTH]
set -euo pipefail
cd "$(dirname "$0")/../.."

runs=${1:-3}
n=${2:-2000}
depth=${3:-8}
stockfish=${STOCKFISH:-/usr/games/stockfish}
epd=${EPD:-${DCHESS_SHARED_DATA:-../shared/data}/openings/noob_2moves.epd}
tmp=$(mktemp -d /tmp/dchess-label-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/dchess" ./cmd/dchess
go build -o "$tmp/labelraw" ./scripts/bench/labelraw
"$tmp/labelraw" input -epd "$epd" -n "$n" -o "$tmp/in"
echo "input: $n positions of $epd, depth $depth, 2 workers, $(nproc) cores"

# timed CMD... runs CMD with its output in $tmp/out and prints "wall cpu"
# in seconds; cpu counts the process and its engines (user + sys).
timed() {
	/usr/bin/time -f '%e %U %S' -o "$tmp/time" "$@" >"$tmp/out"
	awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }' "$tmp/time"
}
printf '%-4s %-10s %-12s %-12s %-8s %-12s %-14s %-16s %s\n' \
	run raw_pos/s dchess_pos/s phase_pos/s ratio phase_ratio raw_pos/cpu_s dchess_pos/cpu_s cpu_ratio
for i in $(seq 1 "$runs"); do
	read -r _ rcpu < <(timed "$tmp/labelraw" raw -stockfish "$stockfish" -epd "$epd" -n "$n" -workers 2 -depth "$depth")
	raw=$(sed -n 's/.*"positions_per_second": \([0-9.]*\).*/\1/p' "$tmp/out")
	rm -rf "$tmp/out.ds"
	read -r dwall dcpu < <(timed "$tmp/dchess" label --stockfish "$stockfish" -i "$tmp/in" -o "$tmp/out.ds" --depth "$depth" --workers 2 --json)
	phase=$(sed -n 's/.*"positions_per_second": \([0-9.e+-]*\).*/\1/p' "$tmp/out")
	labelled=$(sed -n 's/.*"labelled": \([0-9]*\).*/\1/p' "$tmp/out")
	if [ "$labelled" != "$n" ]; then
		echo "dchess labelled $labelled positions, expected $n" >&2
		exit 1
	fi
	awk -v n="$n" -v raw="$raw" -v rc="$rcpu" -v dw="$dwall" -v dc="$dcpu" -v ph="$phase" -v run="$i" 'BEGIN {
		printf "%-4s %-10.1f %-12.1f %-12.1f %-8.3f %-12.3f %-14.1f %-16.1f %.3f\n",
			run, raw, n / dw, ph, (n / dw) / raw, ph / raw, n / rc, n / dc, rc / dc }' | tee -a "$tmp/rows"
done
# Medians of the two ratios: a shared machine makes single runs swing.
for col in 5 6 9; do sort -n -k$col "$tmp/rows" | awk -v c=$col '{ v[NR] = $c } END { printf "%s ", v[int((NR + 1) / 2)] }'; done |
	awk '{ printf "median ratios: whole command %s, labelling phase %s, CPU %s\n", $1, $2, $3 }'
