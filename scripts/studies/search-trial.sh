#!/usr/bin/env bash
# A search change on trial (the search entries of docs/results/): dchess built at two git
# revisions, NEW and OLD, plays the same player (PLAYER, default the shipped
# network) through UCI on both sides, at TC (default 10+0.1) from
# noob_2moves.epd in random order (SEED, default 22), without adjudication,
# as TASKS job-array tasks (default 2), one a core. The SPRT (elo0 0, elo1
# 10) is read every 20 s; once it decides, both tasks stop and the report
# goes to DIR/decided.txt. A change lands only if it accepts H1.
#
#   scripts/studies/search-trial.sh DIR NEW OLD
#   scripts/studies/search-trial.sh trials/clock20 study/clock20 main
#
# Resumable: run it again with the same arguments and the tasks continue from
# their journals. The revisions are resolved to commits on the first run
# (DIR/revisions); a rerun naming other commits is refused, so one trial
# never mixes builds (continue with the commits, not a branch that moved).
# Ctrl-C, or kill -TERM when it runs in the background (where a shell has it
# ignore SIGINT), stops the tasks with their games kept.
set -euo pipefail
if [ $# -ne 3 ]; then
	echo "usage: $0 DIR NEW OLD   (NEW and OLD are git revisions, e.g. study/clock20 main)" >&2
	exit 2
fi
dir=$1
here=$(dirname "$0")
. "$here/env.sh"
default_seed=22 every=20
. "$here/sprt-tasks.sh"
new=$(git -C "$root" rev-parse --verify --quiet "$2^{commit}") || { echo "$0: $2 is not a revision of $root" >&2; exit 2; }
old=$(git -C "$root" rev-parse --verify --quiet "$3^{commit}") || { echo "$0: $3 is not a revision of $root" >&2; exit 2; }
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
revisions="new $new
old $old"
if [ -f "$dir/revisions" ]; then
	if [ "$(cat "$dir/revisions")" != "$revisions" ]; then
		echo "$0: $dir holds a trial of other commits ($(tr '\n' ' ' < "$dir/revisions")): name those to continue it, or use another DIR" >&2
		exit 2
	fi
else
	echo "$revisions" > "$dir/revisions"
fi

# The network is copied once, so that both builds and every rerun play the same weights.
if [ -z "${PLAYER:-}" ]; then
	[ -f "$dir/net.dcw" ] || cp "${NETWORK:-$root/models/shipped/nnue.dcw}" "$dir/net.dcw"
	PLAYER="nnue:$dir/net.dcw"
fi
for side in new old; do
	commit=$new
	[ "$side" = old ] && commit=$old
	if [ ! -x "$dir/dchess-$side" ]; then
		echo "== building $side at $commit"
		src=$(mktemp -d "$dir/src-$side.XXXXXX")
		git -C "$root" archive "$commit" | tar -x -C "$src"
		(cd "$src" && go build -o "$dir/dchess-$side.tmp" ./cmd/dchess)
		mv "$dir/dchess-$side.tmp" "$dir/dchess-$side"
		rm -rf "$src"
	fi
	printf '#!/bin/sh\nexec %q uci --quiet --player %q\n' "$dir/dchess-$side" "$PLAYER" > "$dir/$side.sh"
	chmod +x "$dir/$side.sh"
done

sprt_tasks "$dir/dchess-old" "$dir/trial" "uci:$dir/new.sh?name=new-${new:0:7}" "uci:$dir/old.sh?name=old-${old:0:7}"
