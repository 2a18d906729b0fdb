#!/usr/bin/env bash
# The NNUE study's data (issue #19), made with dchess alone: chunks of
# self-play games between two depth-3 heuristic players from generated
# openings (8 random plies, kept when balanced; the first 20 plies 10 %
# random moves), ingested from ply 8 on and labelled by Stockfish at depth 8.
# Each chunk is a dataset of its own (about 500,000 positions for 5,000
# games), split 90/5/5 by game, so the study can train on 1, 2, 5 ... million
# positions by naming more chunks. Quiet positions (not in check, Stockfish's
# best move not a capture) are chosen at training time (nnue's data.quiet).
#
#   scripts/studies/nnue-data.sh OUT_DIR [CHUNKS [GAMES_PER_CHUNK [WORKERS]]]
#
# Defaults: 10 chunks of 5,000 games, 1 Stockfish process. SELFPLAY_A and
# SELFPLAY_B name the players (default heuristic:depth=3 for both): a network
# playing one side puts the positions its own search steers to into the data,
# the ones a network trained on others' games misjudges most
# (docs/results/2026-11-25-nnue-own-games.md); give such chunks their own
# SEED_BASE (default 1000, chunk k plays from seed SEED_BASE + k) so their
# openings differ. POSITIONS_PER_GAME
# (default 0, every position from ply 8) labels a seeded sample of each game
# instead: more games for the same labelling time. MULTIPV (default 1)
# labels that many lines a position (label --multipv), for training on the
# positions after each line's first move (the nnue config's children).
# LABEL_HASH (default 16, Stockfish's own) is each Stockfish's table in MB;
# it is cleared for every position, so at depth 8 a 1 MB table labels
# faster with almost every score the same
# (docs/results/2026-11-28-label-hash-size.md); the data curve made since
# 2026-11-28 uses 1. A rerun skips the
# finished stages of every chunk; labelling resumes from its journal, so the
# script can be stopped at any point and run again. CHUNK_SHARD=i/n (default
# 0/1) makes only the chunks k with (k - 1) mod n = i, so n machines make
# disjoint chunks of one study (each chunk plays from its own seed); copy the
# chunk folders together afterwards.
set -euo pipefail
if [ $# -lt 1 ]; then
	echo "usage: $0 OUT_DIR [CHUNKS [GAMES_PER_CHUNK [WORKERS]]]" >&2
	exit 2
fi
out=$1
chunks=${2:-10}
games=${3:-5000}
workers=${4:-1}
shard=${CHUNK_SHARD:-0/1}
shard_i=${shard%/*} shard_n=${shard#*/}
if ! [[ $shard =~ ^[0-9]+/[0-9]+$ ]] || [ "$shard_n" -lt 1 ] || [ "$shard_i" -ge "$shard_n" ]; then
	echo "$0: CHUNK_SHARD=$shard must be i/n with 0 <= i < n" >&2
	exit 2
fi
. "$(dirname "$0")/env.sh"
mkdir -p "$out"
for k in $(seq 1 "$chunks"); do
	[ $(((k - 1) % shard_n)) -eq "$shard_i" ] || continue
	d=$out/chunk-$k
	mkdir -p "$d"
	echo "== chunk $k of $chunks: $d ($(date -u +%FT%TZ))"
	[ -s "$d/games.pgn" ] || "$dchess" selfplay --a "${SELFPLAY_A:-heuristic:depth=3}" \
		--b "${SELFPLAY_B:-${SELFPLAY_A:-heuristic:depth=3}}" --depth 3 --games "$games" --random-plies 8 \
		--random-rate 0.1 --random-rate-plies 20 --max-moves 150 --concurrency "$workers" --seed "$((${SEED_BASE:-1000} + k))" \
		-o "$d/games.pgn" --json >"$d/selfplay.json"
	[ -f "$d/positions/manifest.json" ] || "$dchess" ingest "$d/games.pgn" -o "$d/positions" --min-ply 8 \
		--positions-per-game "${POSITIONS_PER_GAME:-0}" --seed "$k" --json >"$d/ingest.json"
	[ -f "$d/labelled/manifest.json" ] || "$dchess" label --stockfish "$sf" -i "$d/positions" -o "$d/labelled" \
		--depth 8 --hash "${LABEL_HASH:-16}" --multipv "${MULTIPV:-1}" --workers "$workers" --json >"$d/label.json"
	[ -f "$d/split.json" ] || "$dchess" dataset split "$d/labelled" --val 0.05 --test 0.05 --seed 1 --json >"$d/split.json"
	"$dchess" dataset info "$d/labelled" | sed -n 1,5p # sed reads to the end: head could leave dchess a broken pipe, which pipefail makes fatal
done
