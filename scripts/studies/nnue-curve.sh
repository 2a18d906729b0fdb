#!/usr/bin/env bash
# The NNUE study's data curve (issue #19, docs/results/2026-11-26-nnue-data-curve.md): does more data
# of one kind still help? The default recipe (configs/nnue.yaml, pairwise
# since fb91edc) trained on the first 2, 4 and 10 chunks of a network's
# own games (NETWORK, default the shipped one) against
# heuristic:depth=3 (about 1.05, 2.1 and 5.3 million quiet positions, what
# the network trains on), each scored on the first chunk's test split and
# played against the heuristic at 10+0.1 (nnue-study.sh: GAMES games, two
# job-array tasks, one a core).
#
#   scripts/studies/nnue-curve.sh STUDY [GAMES]
#
# STUDY/play holds the chunks (nnue-data.sh): 20,000 games each, from seed
# 3000 + k, 40 positions a game, labelled by Stockfish at depth 8 with
# WORKERS processes (default 2): about 780,000 positions a chunk, 526,000
# of them quiet; 20 minutes of self-play and 70 of labelling on one core.
# The order puts the cheap figures first: each point is trained and scored
# as soon as its chunks are made (about 20 minutes of training on one core)
# and played at depth 6 against the network that played its games (GAMES
# games, minutes),
# the matches (about 80 minutes each on two cores at 400 games) come last.
# Every stage resumes: nnue-data.sh and nnue-study.sh skip what is done and
# continue labelling, training and the match where they stopped.
set -euo pipefail
if [ $# -lt 1 ]; then
	echo "usage: $0 STUDY [GAMES]" >&2
	exit 2
fi
study=$1
games=${2:-400}
here=$(dirname "$0")
. "$here/env.sh"
play=$study/play
# The network that plays the chunks' games. One network for the whole curve,
# so that its chunks are of one kind: the curve of docs/results/2026-11-26-nnue-data-curve.md was
# played by the round-4 network, shipped until d158908
# (git show ecab3d0:models/shipped/nnue.dcw > round4.dcw; NETWORK=round4.dcw).
network=${NETWORK:-$root/models/shipped/nnue.dcw}
points="2 4 10"
for k in $points; do
	SEED_BASE=3000 SELFPLAY_A="nnue:$network?name=nnue" SELFPLAY_B=heuristic:depth=3 \
		POSITIONS_PER_GAME=40 "$here/nnue-data.sh" "$play" "$k" 20000 "${WORKERS:-2}"
	SHIPPED_NET=$network SHIPPED_GAMES=$games RUN_NAME=curve-$k "$here/nnue-study.sh" "$play" "$k" 0
done
for k in $points; do
	RUN_NAME=curve-$k "$here/nnue-study.sh" "$play" "$k" "$games"
done
