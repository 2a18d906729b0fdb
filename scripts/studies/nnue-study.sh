#!/usr/bin/env bash
# The NNUE study (issue #19) on the chunks nnue-data.sh made: trains the
# nnue family on the first K chunks (configs/nnue.yaml unless CONFIG is
# set), scores it and the heuristic on the first chunk's test split with the
# same definitions, and plays it against the heuristic, the same search, at
# 10+0.1 from noob_2moves.epd (two tasks of a job array, one a core), then
# merges the tasks with an SPRT (elo0 0, elo1 10).
#
#   scripts/studies/nnue-study.sh DATA_DIR K [GAMES]
#
# DATA_DIR is nnue-data.sh's OUT_DIR; the run goes to DATA_DIR/runs/NAME,
# NAME from RUN_NAME (default nnue-K). EXTRA_DATA (comma-separated datasets,
# e.g. the chunks of a network's own games) is trained on too (RUN_NAME is
# then required).
# A rerun resumes the training from its checkpoint, skips what is done and
# continues the match's tasks where they stopped; GAMES 0 trains and scores
# without the match. SHIPPED_GAMES (default 0) first plays that many games
# against the shipped network (or the one SHIPPED_NET names) at depth 6
# (equal depth, so the evaluations alone are compared; a few minutes on two
# cores), to RUN-vs-shipped-d6.json.
set -euo pipefail
if [ $# -lt 2 ]; then
	echo "usage: $0 DATA_DIR K [GAMES]" >&2
	exit 2
fi
data=$1
k=$2
games=${3:-400}
. "$(dirname "$0")/env.sh"
config=${CONFIG:-$root/configs/nnue.yaml}
openings=${OPENINGS:-$root/../shared/data/openings/noob_2moves.epd}
list=$data/chunk-1/labelled
for i in $(seq 2 "$k"); do list=$list,$data/chunk-$i/labelled; done
run=$data/runs/${RUN_NAME:-nnue-$k}
if [ -n "${EXTRA_DATA:-}" ]; then
	list=$list,$EXTRA_DATA
	: "${RUN_NAME:?RUN_NAME names the run when EXTRA_DATA is set}"
fi
mkdir -p "$data/runs"
summary() { grep -o '"elo": [^,]*\|"elo_error": [^,]*\|"wins": [0-9]*\|"losses": [0-9]*\|"draws": [0-9]*' "$1" | sed -n 1,5p; }
[ -f "$run/model.dcw" ] || train_run nnue "$list" "$run" "$config"
for p in "nnue:$run/model.dcw" heuristic; do
	name=${p%%:*}
	out=$run.eval-$name.json
	# Written aside and moved, so that an interrupted score is redone, not skipped.
	[ -f "$out" ] || { "$dchess" eval --player "$p" --data "$data/chunk-1/labelled" --depth 1 --json --quiet >"$out.tmp" &&
		mv "$out.tmp" "$out"; }
done
if [ "${SHIPPED_GAMES:-0}" -gt 0 ]; then
	m=$run-vs-shipped-d6
	# Journalled (-o): an interrupted match continues where it stopped.
	[ -f "$m.json" ] || { "$dchess" match --a "nnue:$run/model.dcw?name=${RUN_NAME:-nnue-$k}" \
		--b "nnue:${SHIPPED_NET:-$root/models/shipped/nnue.dcw}?name=shipped" --depth 6 --games "$SHIPPED_GAMES" \
		--openings "$openings" --openings-order random --seed 9 --concurrency 2 --shard 0/1 \
		-o "$m" --json --quiet >"$m.json.tmp" && mv "$m.json.tmp" "$m.json"; }
	summary "$m.json"
fi
# The match as a job array of two tasks, one a core: a killed task continues
# where it stopped when the script runs again. GAMES 0 stops before it.
[ "$games" -gt 0 ] || exit 0
for i in 0 1; do
	"$dchess" match --a "nnue:$run/model.dcw?name=nnue" --b heuristic --tc 10+0.1 \
		--openings "$openings" --openings-order random --games "$games" \
		--shard "$i/2" -o "$run.match" --json --quiet >"$run.match-$i.json" &
done
wait
"$dchess" match merge "$run.match" --sprt elo0=0,elo1=10,alpha=0.05,beta=0.05 --json >"$run.match.json"
summary "$run.match.json"
