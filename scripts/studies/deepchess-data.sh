#!/usr/bin/env bash
# How far game results follow the positions, for each way of making
# DeepChess's self-play data: 1,000 games per recipe, ingested as the
# siamese runs are (ply 10 on, no captures, 10 positions a game), then every
# pair of the whole dataset judged by a depth-3 heuristic search and the
# first 1,500 by Stockfish at depth 10 (`dchess eval --pairs`). A recipe
# whose results a strong judge cannot read from the positions caps any
# comparator trained on it (docs/results/2026-11-21-deepchess-pair-accuracy.md).
#
#   scripts/studies/deepchess-data.sh OUT_DIR [RECIPE...]
#
# RECIPE is a name below (default: all). A rerun skips finished stages.
set -euo pipefail
if [ $# -lt 1 ]; then
	echo "usage: $0 OUT_DIR [RECIPE...]" >&2
	exit 2
fi
out=$1
shift
. "$(dirname "$0")/env.sh"

declare -A recipes=(
	[h2-h1-rate3]="--a heuristic:depth=2 --b heuristic:depth=1 --random-rate 0.03"
	[h2-h1-open20]="--a heuristic:depth=2 --b heuristic:depth=1 --random-rate 0.1 --random-rate-plies 20"
	[h2-self-open20]="--a heuristic:depth=2 --random-rate 0.1 --random-rate-plies 20"
	[h3-h2-rate3]="--a heuristic:depth=3 --b heuristic:depth=2 --random-rate 0.03"
	[h2-h1-unbalanced]="--a heuristic:depth=2 --b heuristic:depth=1 --random-plies 10 --balance 0"
	[h2-self-unbalanced]="--a heuristic:depth=2 --random-plies 10 --balance 0 --random-rate 0.05 --random-rate-plies 30"
	[h3-h2-unbalanced]="--a heuristic:depth=3 --b heuristic:depth=2 --random-plies 10 --balance 0"
	[h3-self-open20]="--a heuristic:depth=3 --random-rate 0.1 --random-rate-plies 20"
	[h2-self-open10]="--a heuristic:depth=2 --random-rate 0.1 --random-rate-plies 10"
	[h2-self-open20-rate20]="--a heuristic:depth=2 --random-rate 0.2 --random-rate-plies 20"
)
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(h2-h1-rate3 h2-h1-open20 h2-self-open20 h3-h2-rate3 h2-h1-unbalanced
	h2-self-unbalanced h3-h2-unbalanced h3-self-open20 h2-self-open10 h2-self-open20-rate20)
mkdir -p "$out"
for n in "${names[@]}"; do
	args=${recipes[$n]:?unknown recipe $n}
	d=$out/$n
	# shellcheck disable=SC2086 # the recipe is a list of flags
	[ -f "$d.pgn" ] || "$dchess" selfplay $args --games 1000 --max-moves 150 --seed 21 -o "$d.pgn" --json --quiet >"$d.selfplay.json"
	[ -f "$d/manifest.json" ] || "$dchess" ingest "$d.pgn" -o "$d" --skip-captures --min-ply 10 \
		--positions-per-game 10 --seed 1 --json --quiet >"$d.ingest.json"
	[ -f "$d.heuristic.json" ] || "$dchess" eval --player heuristic:depth=3 --data "$d" --pairs --json --quiet >"$d.heuristic.json"
	[ -f "$d.stockfish.json" ] || "$dchess" eval --player "uci:$sf" --data "$d" --pairs --depth 10 --limit 1500 \
		--json --quiet >"$d.stockfish.json"
	printf '%-24s heuristic %s  stockfish %s\n' "$n" \
		"$(grep -o '"pair_accuracy": [0-9.]*' "$d.heuristic.json" | cut -d' ' -f2)" \
		"$(grep -o '"pair_accuracy": [0-9.]*' "$d.stockfish.json" | cut -d' ' -f2)"
done
