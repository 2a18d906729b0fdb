#!/usr/bin/env bash
# The NNUE study's data curve (issue #19, docs/strength.md): the default
# recipe (configs/nnue.yaml) trained on nested sets of about 1, 2 and 7.7
# million labelled positions (0.72, 1.52 and 5.2 million of them quiet, what
# the network trains on: dchess dataset info --count-quiet), each scored on
# the first chunk's test split and
# played against the heuristic at 10+0.1 (nnue-study.sh: GAMES games, two
# job-array tasks, one a core).
#
#   scripts/studies/nnue-curve.sh STUDY [GAMES]
#
# STUDY holds the datasets of models/shipped/nnue.md's recipe: STUDY/nnue
# (nnue-data.sh, chunks 1-2), STUDY/nnue-play (chunks 1-4 of the study's
# networks' own games) and STUDY/d8pv4 (data-d8-pv4.sh). The sets:
#   1m: STUDY/nnue chunks 1-2 (1,049,232 positions)
#   2m: those, STUDY/nnue-play chunks 1-4 and STUDY/d8pv4 (2,207,943; the
#       shipped network's set)
#   5m: those and STUDY/nnue-play5, made here: CHUNKS5 (default 7, for 5
#       million quiet positions in all) chunks of 20,000 games of the shipped
#       network against heuristic:depth=3, 40 positions a game, labelled at
#       depth 8 (about 780,000 positions a chunk, 526,000 of them quiet;
#       about 45 minutes of labelling with two Stockfish processes on two
#       cores, 70 on one).
# The order puts the cheap figures first: the 1m and 2m networks are trained
# and scored on the data there is (about 10 minutes each on one core), then
# the 5m set is made and its network trained and scored, and the matches
# (about 80 minutes each on two cores at 400 games) come last. Every stage
# resumes: nnue-data.sh and nnue-study.sh skip what is done and continue
# labelling, training and the match where they stopped.
set -euo pipefail
if [ $# -lt 1 ]; then
	echo "usage: $0 STUDY [GAMES]" >&2
	exit 2
fi
study=$1
games=${2:-400}
here=$(dirname "$0")
. "$here/env.sh"
chunks5=${CHUNKS5:-7}
play=$study/nnue-play/chunk-1/labelled,$study/nnue-play/chunk-2/labelled,$study/nnue-play/chunk-3/labelled,$study/nnue-play/chunk-4/labelled,$study/d8pv4/labelled
play5=$play
for k in $(seq 1 "$chunks5"); do play5=$play5,$study/nnue-play5/chunk-$k/labelled; done
curve() { # curve GAMES: the three points, trained and scored, with GAMES games each
	RUN_NAME=curve-1m "$here/nnue-study.sh" "$study/nnue" 2 "$1"
	RUN_NAME=curve-2m EXTRA_DATA=$play "$here/nnue-study.sh" "$study/nnue" 2 "$1"
	if [ "$1" -eq 0 ]; then
		SEED_BASE=3000 SELFPLAY_A="nnue:$root/models/shipped/nnue.dcw?name=nnue" SELFPLAY_B=heuristic:depth=3 \
			POSITIONS_PER_GAME=40 "$here/nnue-data.sh" "$study/nnue-play5" "$chunks5" 20000 2
	fi
	RUN_NAME=curve-5m EXTRA_DATA=$play5 "$here/nnue-study.sh" "$study/nnue" 2 "$1"
}
curve 0
curve "$games"
