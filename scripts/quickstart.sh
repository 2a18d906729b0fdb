#!/usr/bin/env bash
# The quickstart: one path through dchess on data it makes itself.
#   games (heuristic self-play) -> ingest -> label with Stockfish -> split -> train the thesis CNN
#   -> a tournament of random, heuristic and the CNN -> ratings with error bars.
# Re-running skips the stages whose output is already there. Everything goes to ./quickstart/.
set -euo pipefail
cd "$(dirname "$0")/.."

BIN=${BIN:-bin/dchess}
OUT=${QUICKSTART_DIR:-quickstart}
GAMES=${QUICKSTART_GAMES:-200}
MATCH_GAMES=${QUICKSTART_MATCH_GAMES:-20}

stockfish=${DCHESS_STOCKFISH:-}
if [ -z "$stockfish" ]; then
	stockfish=$(command -v stockfish || true)
	[ -n "$stockfish" ] || { [ -x /usr/games/stockfish ] && stockfish=/usr/games/stockfish; } || true
fi
if [ -z "$stockfish" ]; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		echo "quickstart: installing Stockfish with apt-get" >&2
		apt-get update -qq && apt-get install -y -qq stockfish >/dev/null
		stockfish=/usr/games/stockfish
	else
		echo "quickstart: Stockfish not found; install it (sudo apt-get install stockfish) or set DCHESS_STOCKFISH" >&2
		exit 1
	fi
fi

mkdir -p "$OUT"
step() { printf '\n== %s\n' "$*" >&2; }

if [ ! -s "$OUT/games.pgn" ]; then
	# Two depths so the colour-swapped game of each opening is a different game.
	step "games: $GAMES games of heuristic:depth=2 against heuristic:depth=3 from random 6-ply openings"
	"$BIN" match --a heuristic:depth=2 --b heuristic:depth=3 --games "$GAMES" \
		--random-plies 6 --seed 1 --concurrency 2 --pgn "$OUT/games.pgn.tmp" --quiet >/dev/null
	mv "$OUT/games.pgn.tmp" "$OUT/games.pgn"
fi

if [ ! -f "$OUT/positions/manifest.json" ]; then
	step "ingest the games"
	"$BIN" ingest "$OUT/games.pgn" -o "$OUT/positions" --min-ply 4
fi

if [ ! -f "$OUT/labelled/manifest.json" ]; then
	step "label every position with Stockfish ($stockfish) at depth 6"
	"$BIN" label --stockfish "$stockfish" -i "$OUT/positions" -o "$OUT/labelled" --depth 6 --pv 4
	"$BIN" dataset split "$OUT/labelled" --val 0.1 --test 0.1 --seed 1
fi
"$BIN" dataset info "$OUT/labelled"

if [ ! -f "$OUT/runs/cnn/model.dcw" ]; then
	step "train the thesis CNN"
	"$BIN" train --model cnn --data "$OUT/labelled" --out "$OUT/runs/cnn" --epochs 8
fi

step "tournament: random, heuristic at depths 1 and 2, and the CNN at depth 2 (random anchored at 0)"
"$BIN" tournament --players "random,heuristic:depth=1,cnn:$OUT/runs/cnn/model.dcw?depth=2&name=cnn,heuristic:depth=2" \
	--anchor random=0 --games-per-pair "$MATCH_GAMES" --random-plies 4 --seed 2 --concurrency 2 \
	--pgn "$OUT/tournament.pgn" | tee "$OUT/tournament.txt"
echo "quickstart: done; everything is in $OUT/" >&2
