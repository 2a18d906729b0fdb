#!/usr/bin/env bash
# Two nnue networks on the clock
# (docs/results/2026-11-27-nnue-positions-along-the-line.md): NEW against OLD with the same dchess and search, at TC (default
# 10+0.1) from noob_2moves.epd in random order (SEED, default 25), without
# adjudication, as TASKS job-array tasks (default 2), one a core, until the
# SPRT (elo0 0, elo1 10), read every 60 s, decides; the report goes to
# DIR/decided.txt. A network replaces the shipped one only when it beats it
# here.
#
#   scripts/studies/nnue-clock.sh DIR NEW.dcw OLD.dcw
#   scripts/studies/nnue-clock.sh trials/plies4 runs/curve-4-plies4/model.dcw models/shipped/nnue.dcw
#
# The networks are copied into DIR on the first run and a rerun continues
# from the tasks' journals; one naming other weights is refused (their
# sha256 is in DIR/networks: name DIR/new.dcw and DIR/old.dcw to continue
# after a file named has been replaced). Ctrl-C, or
# kill -TERM in the background, stops the tasks with their games kept;
# `dchess match merge DIR/match --partial --sprt elo0=0,elo1=10` shows
# where the match stands meanwhile.
set -euo pipefail
if [ $# -ne 3 ]; then
	echo "usage: $0 DIR NEW.dcw OLD.dcw" >&2
	exit 2
fi
dir=$1
here=$(dirname "$0")
. "$here/env.sh"
default_seed=25 every=60
. "$here/sprt-tasks.sh"
for net in "$2" "$3"; do
	[ -f "$net" ] || { echo "$0: no network file $net" >&2; exit 2; }
done
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
sums="new $(sha256sum < "$2" | cut -c1-64)
old $(sha256sum < "$3" | cut -c1-64)"
if [ -f "$dir/networks" ]; then
	if [ "$(cat "$dir/networks")" != "$sums" ]; then
		echo "$0: $dir holds a match of other networks (sha256 in $dir/networks): name those to continue it, or use another DIR" >&2
		exit 2
	fi
else
	cp "$2" "$dir/new.dcw"
	cp "$3" "$dir/old.dcw"
	echo "$sums" > "$dir/networks"
fi

sprt_tasks "$dchess" "$dir/match" "nnue:$dir/new.dcw?name=new" "nnue:$dir/old.dcw?name=old"
