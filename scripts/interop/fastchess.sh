#!/usr/bin/env bash
# Builds fastchess, the match runner TestFastchessPlaysDchess drives "dchess uci" with, and
# prints the binary's path:
#
#   FASTCHESS=$(scripts/interop/fastchess.sh) go test ./scripts/interop -run Fastchess -v
#   FASTCHESS=$(scripts/interop/fastchess.sh ~/src/fastchess) go test ./scripts/interop -run Fastchess -v
#
# The source is fastchess's tag v1.8.2-alpha, cloned from GitHub, or the folder given as the
# argument (a checkout or an unpacked snapshot; it is copied, not built in place). Needs git (for
# the clone), make and a C++17 compiler (Debian's g++). The binary goes to
# ${XDG_CACHE_HOME:-~/.cache}/dchess/fastchess/, and a later run without an argument reuses it.
set -euo pipefail

tag=v1.8.2-alpha
commit=f618e34540f94f4719ad3817950618dabe441318
out="${XDG_CACHE_HOME:-$HOME/.cache}/dchess/fastchess"
bin="$out/fastchess-$tag"

if [ $# -gt 1 ]; then
	echo "usage: $0 [FASTCHESS_SOURCE_DIR]" >&2
	exit 2
fi
if [ $# -eq 0 ] && [ -x "$bin" ]; then
	echo "$bin"
	exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ $# -eq 1 ]; then
	if [ ! -f "$1/Makefile" ] || [ ! -d "$1/app" ]; then
		echo "fastchess.sh: $1 is not a fastchess source folder (no Makefile and app/)" >&2
		exit 1
	fi
	cp -R "$1/." "$work/src"
	bin="$out/fastchess-local"
else
	git clone --quiet --depth 1 --branch "$tag" https://github.com/Disservin/fastchess "$work/src" >&2
	got=$(git -C "$work/src" rev-parse HEAD)
	if [ "$got" != "$commit" ]; then
		echo "fastchess.sh: tag $tag is commit $got, not $commit" >&2
		exit 1
	fi
fi
make -C "$work/src" -j"$(nproc)" >&2
mkdir -p "$out"
install -m 755 "$work/src/fastchess" "$bin"
echo "$bin"
