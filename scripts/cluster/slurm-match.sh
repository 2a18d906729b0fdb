#!/bin/bash
# A 20,000-game match as a Slurm job array of 100 tasks, each playing its
# share of the opening pairs into $DATA/d5-d4-00ii-of-0100. Keep
# --array=0-99 and TASKS=100 together. Tasks do not stop on --sprt: the
# merge evaluates it once over all games.
#
#   jid=$(sbatch --parsable scripts/cluster/slurm-match.sh)
#   sbatch --dependency=afterok:$jid --output=d5-d4-report.txt \
#       --wrap "dchess match merge $DATA/d5-d4 --pgn $DATA/d5-d4.pgn"
#
# The variables below change the match at submission; TASKS and --array
# go together: TASKS=4 GAMES=8 sbatch --array=0-3 scripts/cluster/slurm-match.sh
# (scripts/cluster/slurm-test.sh runs it so on a one-machine Slurm).
#SBATCH --job-name=dchess-match
#SBATCH --array=0-99%25
#SBATCH --cpus-per-task=1
#SBATCH --mem=1G
#SBATCH --time=12:00:00
#SBATCH --requeue
#SBATCH --output=dchess-match-%a.log
set -euo pipefail
TASKS=${TASKS:-100}
DATA=${DATA:-/shared/dchess}
NAME=${NAME:-d5-d4}
PLAYER_A=${PLAYER_A:-heuristic:depth=5}
PLAYER_B=${PLAYER_B:-heuristic:depth=4}
GAMES=${GAMES:-20000}
# Flags, split on spaces: the limit and any adjudication.
LIMITS=${LIMITS:---tc 10+0.1}
# shellcheck disable=SC2086
exec dchess match --a "$PLAYER_A" --b "$PLAYER_B" --games "$GAMES" $LIMITS \
	--sprt elo0=0,elo1=10,alpha=0.05,beta=0.05 --shard "auto/$TASKS" -o "$DATA/$NAME"
