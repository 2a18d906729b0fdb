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
