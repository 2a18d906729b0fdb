#!/usr/bin/env bash
# The NNUE study's mixed-data point (issue #19, docs/results/2026-11-27-nnue-mixed-data-mirror.md): the
# curve's first K chunks (one network's games against the heuristic,
# nnue-curve.sh) plus the other kinds of data the shipped network
# was trained on and the curve lacks: a chunk of self-play between two
# depth-3 heuristic players (nnue-data.sh's default recipe, seed 1001) and
# d8pv4 (Kasparov's games and heuristic self-play, data-d8-pv4.sh). Trains
# the default recipe (configs/nnue.yaml, pairwise) on all of it, scores it on
# the curve's chunk 1 test split as the curve's points are scored, and plays
# it at depth 6 against the shipped network, or the one SHIPPED_NET names
# (docs/results/2026-11-26-nnue-data-curve.md: the round-4 network that played the chunks,
# git show ecab3d0:models/shipped/nnue.dcw): does a mix of kinds make a
# network worth shipping where more of one kind did not?
#
#   scripts/studies/nnue-mixed.sh STUDY [K [GAMES]]
#
# STUDY is nnue-curve.sh's folder (STUDY/play holds its chunks); the mixed
# datasets go to STUDY/heuristic and STUDY/d8pv4, the run to
# STUDY/play/runs/mixed-K. K defaults to 2, GAMES (of the match) to 400.
# WORKERS Stockfish processes label (default 2). Every stage resumes: a
# rerun continues labelling, training and the match where they stopped.
set -euo pipefail
if [ $# -lt 1 ]; then
	echo "usage: $0 STUDY [K [GAMES]]" >&2
	exit 2
fi
study=$1
k=${2:-2}
games=${3:-400}
here=$(dirname "$0")
. "$here/env.sh"
for i in $(seq 1 "$k"); do
	[ -f "$study/play/chunk-$i/split.json" ] || {
		echo "$0: $study/play/chunk-$i is not made yet (scripts/studies/nnue-curve.sh makes it)" >&2
		exit 1
	}
done
"$here/nnue-data.sh" "$study/heuristic" 1 5000 "${WORKERS:-2}"
"$here/data-d8-pv4.sh" "$study/d8pv4"
SHIPPED_GAMES=$games RUN_NAME=mixed-$k EXTRA_DATA="$study/heuristic/chunk-1/labelled,$study/d8pv4/labelled" \
	"$here/nnue-study.sh" "$study/play" "$k" 0
