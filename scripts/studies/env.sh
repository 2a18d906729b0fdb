# Sourced by the study scripts: the repository's root, the dchess binary
# (DCHESS, else bin/dchess, built when missing) and Stockfish
# (DCHESS_STOCKFISH, else the one on PATH, else /usr/games/stockfish).
# shellcheck shell=bash
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
dchess=${DCHESS:-$root/bin/dchess}
sf=${DCHESS_STOCKFISH:-$(command -v stockfish || echo /usr/games/stockfish)}
[ -x "$dchess" ] || make -C "$root" build
