# Sourced by the study scripts: the repository's root, the dchess binary
# (DCHESS, else bin/dchess, built when missing) and Stockfish
# (DCHESS_STOCKFISH, else the one on PATH, else /usr/games/stockfish).
# shellcheck shell=bash
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
dchess=${DCHESS:-$root/bin/dchess}
sf=${DCHESS_STOCKFISH:-$(command -v stockfish || echo /usr/games/stockfish)}
[ -x "$dchess" ] || make -C "$root" build

# train_run FAMILY DATA RUN CONFIG trains FAMILY on DATA into the run folder
# RUN with CONFIG, or, when RUN has a checkpoint, continues it (a resumed
# run keeps its own config); the JSON summary goes to RUN.train.json. The
# caller skips a run whose model.dcw exists.
train_run() {
	if compgen -G "$3/checkpoint/*.dcw" >/dev/null; then
		"$dchess" train --model "$1" --data "$2" --out "$3" --resume --json >"$3.train.json"
	else
		"$dchess" train --model "$1" --data "$2" --config "$4" --out "$3" --json >"$3.train.json"
	fi
}

# records DATASET...: the records of the datasets, from their manifests.
records() {
	local n=0 d r
	for d in "$@"; do
		r=$(grep -o '"records": [0-9]*' "$d/manifest.json" | head -1 | cut -d' ' -f2)
		n=$((n + r))
	done
	echo "$n"
}

# datagen_task DIR NODES I NETWORK plays task I of the 1000-task job array
# in which NETWORK plays itself at NODES nodes a move (GAMES_PER_TASK games a
# task, default 500; the first 16 plies 5 % random moves; generated
# openings; seed 57; WORKERS games at once, default 2) into the dataset
# DIR/gen-000I-of-1000, its JSON summary beside it. Task I has the openings
# and seeds it has in the whole array, so any set of tasks is a sample of
# one recipe.
datagen_task() {
	local task
	task=$(printf '%s/gen-%04d-of-1000' "$1" "$3")
	"$dchess" datagen --a "nnue:$4" --nodes "$2" --games $((${GAMES_PER_TASK:-500} * 1000)) --shard "$3/1000" \
		--random-rate 0.05 --random-rate-plies 16 --concurrency "${WORKERS:-2}" --seed 57 -o "$1/gen" --json >"$task.json.tmp"
	mv "$task.json.tmp" "$task.json"
}
