#!/bin/bash
# A 20,000-game match as a Slurm job array of 100 tasks, each playing its
# share of the opening pairs into $DATA/d5-d4-00ii-of-0100. Keep
# --array=0-99 and TASKS=100 together. Tasks do not stop on --sprt: the
# merge evaluates it once over all games.
#
#   jid=$(sbatch --parsable scripts/cluster/slurm-match.sh)
#   sbatch --dependency=afterok:$jid --output=d5-d4-report.txt \
#       --wrap "dchess match merge $DATA/d5-d4 --pgn $DATA/d5-d4.pgn"
#SBATCH --job-name=dchess-match
#SBATCH --array=0-99%25
#SBATCH --cpus-per-task=1
#SBATCH --mem=1G
#SBATCH --time=12:00:00
#SBATCH --requeue
#SBATCH --output=dchess-match-%a.log
set -euo pipefail
TASKS=100
DATA=${DATA:-/shared/dchess}
exec dchess match --a heuristic:depth=5 --b heuristic:depth=4 --games 20000 --tc 10+0.1 \
	--sprt elo0=0,elo1=10,alpha=0.05,beta=0.05 --shard "auto/$TASKS" -o "$DATA/d5-d4"
