#!/usr/bin/env bash
# DeepChess from a set of games: the positions of GAMES.pgn ingested as
# DeepChess reads them (from ply 10, no captures, 10 positions a game),
# split 90/5/5 by game, Pos2Vec (configs/autoencoder-small.yaml, 3 epochs a
# layer), then the siamese comparator with its towers from Pos2Vec
# (configs/siamese-small.yaml, 30 epochs, early stopping), scored on the
# pairs of the test split's games, which training never saw. JUDGES, a
# space-separated list of player specs, are scored on the same pairs: a
# spec ending in @DEPTH is a searching player or UCI engine comparing its
# search scores at that depth (eval --pairs), one without is a comparator
# (a siamese network); JUDGE_LIMIT (default 0: all) caps their pairs.
#
#   scripts/studies/siamese-games.sh OUT_DIR SEED GAMES.pgn...
#   JUDGES="heuristic@4 heuristic@8 siamese:models/shipped/siamese.dcw" scripts/studies/siamese-games.sh OUT 1 a.pgn b.pgn
#
# NAME (default games) names the outputs: OUT_DIR/NAME (the dataset),
# OUT_DIR/ae-NAME, OUT_DIR/siamese-NAME-sSEED and their .eval.json files.
# POS2VEC, a Pos2Vec run folder, starts the towers from it instead of
# training ae-NAME, so that two sets of games can be compared on the
# comparator alone, with the same Pos2Vec beneath.
# SEED is the siamese run's seed; the data and Pos2Vec are the same for
# every seed. Every stage is skipped when its output exists and a training
# run continues from its newest checkpoint, so the script can be stopped at
# any point and run again.
set -euo pipefail
if [ $# -lt 3 ]; then
	echo "usage: $0 OUT_DIR SEED GAMES.pgn..." >&2
	exit 2
fi
out=$1 seed=$2
shift 2
[[ $seed =~ ^[0-9]+$ ]] || { echo "$0: SEED ($seed) must be a whole number" >&2; exit 2; }
. "$(dirname "$0")/env.sh"
name=${NAME:-games}
pos2vec=${POS2VEC:-$out/ae-$name}
# A POS2VEC named must exist before the ingest, not after it.
[ -z "${POS2VEC:-}" ] || [ -f "$pos2vec/model.dcw" ] || { echo "$0: no Pos2Vec weights $pos2vec/model.dcw" >&2; exit 2; }
data=$out/$name
mkdir -p "$out"

echo "== ingest and split ($(date -u +%FT%TZ))"
[ -f "$data/manifest.json" ] || "$dchess" ingest "$@" -o "$data" --skip-captures \
	--min-ply 10 --positions-per-game 10 --seed 1 --json >"$data.ingest.json"
[ -f "$data.split.json" ] || "$dchess" dataset split "$data" --val 0.05 --test 0.05 --seed 1 --json >"$data.split.json"

train() { # FAMILY RUN ARGS...
	local family=$1 run=$2
	shift 2
	[ -f "$run/model.dcw" ] && return
	if compgen -G "$run/checkpoint/*.dcw" >/dev/null; then
		"$dchess" train --model "$family" --data "$data" --out "$run" --resume
	else
		"$dchess" train --model "$family" --data "$data" --out "$run" "$@"
	fi
}
if [ -z "${POS2VEC:-}" ]; then
	echo "== Pos2Vec ($(date -u +%FT%TZ))"
	train autoencoder "$pos2vec" --config "$root/configs/autoencoder-small.yaml" --epochs 3
fi
echo "== siamese ($(date -u +%FT%TZ))"
siamese=$out/siamese-$name-s$seed
train siamese "$siamese" --config "$root/configs/siamese-small.yaml" --epochs 30 --init "$pos2vec" --seed "$seed"

echo "== test pairs ($(date -u +%FT%TZ))"
if [ ! -f "$siamese.eval.json" ]; then
	"$dchess" eval --player "siamese:$siamese/model.dcw" --data "$data" --json --quiet >"$siamese.eval.json.tmp"
	mv "$siamese.eval.json.tmp" "$siamese.eval.json"
fi
accuracy() { grep -o '"pair_accuracy": [0-9.]*' "$1" | cut -d' ' -f2; }
printf '%-48s %s\n' "siamese-$name-s$seed" "$(accuracy "$siamese.eval.json")"
for judge in ${JUDGES:-}; do
	spec=$judge args=()
	if [[ $judge == *@* ]]; then
		spec=${judge%@*}
		args=(--pairs --depth "${judge##*@}")
	fi
	f=$out/$name-judge-$(printf %s "$judge" | tr -c 'A-Za-z0-9.=@-' _).eval.json
	if [ ! -f "$f" ]; then
		"$dchess" eval --player "$spec" --data "$data" "${args[@]}" --limit "${JUDGE_LIMIT:-0}" --json --quiet >"$f.tmp"
		mv "$f.tmp" "$f"
	fi
	printf '%-48s %s\n' "$judge" "$(accuracy "$f")"
done
