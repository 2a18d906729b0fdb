#!/usr/bin/env bash
# Ingest speed and memory.
#
# Speed: the shared Kasparov games concatenated COPIES times (20 copies =
# 42,560 games) are parsed by Debian's pgn-extract (-s -o /dev/null: read,
# check every move, write nothing) and by `dchess ingest` (read, check,
# write a deduplicated dataset), back to back, RUNS times. Games/s is given
# per wall-clock second; dchess's ingest phase alone (before the dataset
# writer's closing dedupe pass) is given too, and CPU seconds (user + sys)
# of each process, which a busy shared machine disturbs less.
#
# Memory: peak RSS (/usr/bin/time -v) of `dchess ingest` over a generated
# PGN of about BIG_MB megabytes (default 1024), deleted afterwards.
#
# Usage: scripts/bench/ingest.sh [RUNS] [COPIES] [BIG_MB]
set -euo pipefail
cd "$(dirname "$0")/../.."

runs=${1:-3}
copies=${2:-20}
big_mb=${3:-1024}
pgn_extract=${PGN_EXTRACT:-/usr/games/pgn-extract}
src=${DCHESS_SHARED_DATA:-../shared/data}/pgn/Kasparov.pgn
tmp=$(mktemp -d /tmp/dchess-ingest-bench.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/dchess" ./cmd/dchess

games_in_src=$(grep -c '^\[Event ' "$src")
for _ in $(seq 1 "$copies"); do cat "$src"; done >"$tmp/games.pgn"
games=$((games_in_src * copies))
echo "input: $games games, $(du -m "$tmp/games.pgn" | cut -f1) MB ($copies copies of $src)"

# timed CMD... runs CMD and prints "wall cpu" in seconds; output in $tmp/out.
timed() {
	/usr/bin/time -f '%e %U %S' -o "$tmp/time" "$@" >"$tmp/out" 2>&1
	awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }' "$tmp/time"
}

printf '%-4s %-14s %-14s %-14s %-16s %-14s %s\n' run extract_g/s extract_cpu_s dchess_g/s dchess_ingest_g/s dchess_cpu_s ratio_wall
for i in $(seq 1 "$runs"); do
	read -r ewall ecpu < <(timed "$pgn_extract" -s -o /dev/null "$tmp/games.pgn")
	rm -rf "$tmp/ds"
	read -r dwall dcpu < <(timed "$tmp/dchess" ingest "$tmp/games.pgn" -o "$tmp/ds" --json)
	read_games=$(sed -n 's/.*"games_read": \([0-9]*\).*/\1/p' "$tmp/out")
	phase=$(sed -n 's/.*"seconds": \([0-9.e+-]*\).*/\1/p' "$tmp/out")
	if [ "$read_games" != "$games" ]; then
		echo "dchess read $read_games games, expected $games" >&2
		exit 1
	fi
	awk -v g="$games" -v ew="$ewall" -v ec="$ecpu" -v dw="$dwall" -v dc="$dcpu" -v ph="$phase" -v run="$i" 'BEGIN {
		printf "%-4s %-14d %-14.2f %-14d %-16d %-14.2f %.2f\n", run, g / ew, ec, g / dw, g / ph, dc, (g / dw) / (g / ew) }'
done

# Peak RSS over a big generated file.
copies_big=$(( (big_mb * 1024 * 1024 + $(stat -c %s "$src") - 1) / $(stat -c %s "$src") ))
for _ in $(seq 1 "$copies_big"); do cat "$src"; done >"$tmp/big.pgn"
size_mb=$(du -m "$tmp/big.pgn" | cut -f1)
rm -rf "$tmp/ds"
/usr/bin/time -v -o "$tmp/time" "$tmp/dchess" ingest "$tmp/big.pgn" -o "$tmp/ds" --json >"$tmp/out" 2>&1
rm -f "$tmp/big.pgn"
rss_kb=$(sed -n 's/.*Maximum resident set size (kbytes): \([0-9]*\).*/\1/p' "$tmp/time")
wall=$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): \(.*\)/\1/p' "$tmp/time")
big_games=$(sed -n 's/.*"games_read": \([0-9]*\).*/\1/p' "$tmp/out")
written=$(sed -n 's/.*"positions_written": \([0-9]*\).*/\1/p' "$tmp/out")
echo "big input: $size_mb MB, $big_games games, $written positions written: peak RSS $((rss_kb / 1024)) MB, wall $wall"
