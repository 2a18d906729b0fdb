#!/bin/bash
# Labels $DATA/games as a Slurm job array of 64 tasks. Slurm sets
# SLURM_ARRAY_TASK_ID and --shard auto/64 reads it; it must count from 0,
# so keep --array=0-63 and TASKS=64 together. Task i writes
# $DATA/labels-00ii-of-0064; a requeued or resubmitted task continues from
# its journal, and one that finished exits at once.
#
#   jid=$(sbatch --parsable scripts/cluster/slurm-label.sh)
#   sbatch --dependency=afterok:$jid --wrap "dchess dataset merge $DATA/labels -o $DATA/labels-all"
#
# To rerun failed tasks only: sbatch --array=3,17 scripts/cluster/slurm-label.sh
# (TASKS stays 64: it is the job's size, not this submission's). Another
# size is set at submission, both together:
#   TASKS=4 sbatch --array=0-3 scripts/cluster/slurm-label.sh
# scripts/cluster/slurm-test.sh runs this file so on a one-machine Slurm.
#SBATCH --job-name=dchess-label
#SBATCH --array=0-63%16
#SBATCH --cpus-per-task=2
#SBATCH --mem=2G
#SBATCH --time=12:00:00
#SBATCH --requeue
#SBATCH --output=dchess-label-%a.log
set -euo pipefail
TASKS=${TASKS:-64}
DATA=${DATA:-/shared/dchess}
STOCKFISH=${STOCKFISH:-/usr/games/stockfish}
DEPTH=${DEPTH:-12}
exec dchess label --stockfish "$STOCKFISH" -i "$DATA/games" -o "$DATA/labels" \
	--depth "$DEPTH" --workers "${SLURM_CPUS_PER_TASK:-1}" --shard "auto/$TASKS" --json
