#!/usr/bin/env bash
# Data made by `dchess datagen` against data labelled by Stockfish at
# depth 8, for the same CPU time (issue #57, item 1): which makes the
# better nnue network from an hour of data making?
#
#   scripts/studies/datagen-quality.sh OUT_DIR [NODES...]      (default NODES: 5000 1000)
#
# The reference, OUT_DIR/ref: one chunk of the shipped network's data
# recipe (nnue-data.sh; models/shipped/nnue.md): REF_GAMES (default
# 20,000) games of NETWORK (default the shipped network) against
# heuristic:depth=3 from seed 3001, 40 positions a game, labelled by
# Stockfish at depth 8 with 1 MB tables on WORKERS (default 2) processes,
# split 90/5/5 by game.
#
# Each budget B, OUT_DIR/gen-B: NETWORK against itself at B nodes a move
# (datagen, the first 16 plies 5 % random moves, generated openings), as
# job-array tasks of GAMES_PER_TASK games (default 500; each task i of
# 1000 has the openings and seeds it has in the whole array), played one
# after another until their CPU time reaches the reference's; each task's
# dataset split 90/5/5 by game.
#
# CPU time is user + system time of the commands and their children
# (Stockfish included), appended per finished command to DIR/cpu.log as
# "STAGE USER SYSTEM" seconds. A command that is killed leaves its CPU so
# far, sampled every 10 s, to be logged as "STAGE-interrupted" by the
# rerun, which continues from its journal: an interrupted stage loses at
# most the 10 s before the kill.
#
# Then each arm trains an nnue network (configs/nnue.yaml with max_steps and
# decay_steps STEPS, default 20000) on its train splits, scored on the
# reference's test split (Stockfish's depth-8 scores; the same positions
# for every arm; TEST names another labelled dataset) at depth 1, and each
# datagen arm's network plays the reference's at DEPTH (default 6), GAMES
# games (default 400) from noob_2moves.epd in random order (seed 9), two
# games at once. OUT_DIR/summary.tsv has one line an arm.
#
# Every stage is skipped when its output exists, and datagen, labelling,
# training and the matches continue from their journals, so the script can
# be stopped at any point and run again.
set -euo pipefail
if [ $# -lt 1 ]; then
	echo "usage: $0 OUT_DIR [NODES...]" >&2
	exit 2
fi
out=$1
shift
budgets=("$@")
[ ${#budgets[@]} -gt 0 ] || budgets=(5000 1000)
for b in "${budgets[@]}"; do
	[[ $b =~ ^[1-9][0-9]*$ ]] || { echo "$0: NODES ($b) must be positive whole numbers" >&2; exit 2; }
done
here=$(cd "$(dirname "$0")" && pwd)
. "$here/env.sh"
network=${NETWORK:-$root/models/shipped/nnue.dcw}
[ -f "$network" ] || { echo "$0: no network file $network" >&2; exit 2; }
steps=${STEPS:-20000}
tasks=1000
mkdir -p "$out"

# tree_cpu PID: the CPU seconds (user + system) that process PID and its
# descendants have used so far, those already reaped included (from
# /proc/PID/stat: after the command name, field 2 is the parent and
# fields 12-15 utime, stime, cutime and cstime in clock ticks).
tree_cpu() {
	cat /proc/[0-9]*/stat 2>/dev/null | awk -v root="$1" -v hz="$(getconf CLK_TCK)" '
		{
			pid = $1
			rest = $0
			sub(/^.*\) /, "", rest)
			split(rest, f, " ")
			parent[pid] = f[2]
			ticks[pid] = f[12] + f[13] + f[14] + f[15]
		}
		END {
			for (p in ticks) {
				q = p
				while (q != root && (q in parent) && parent[q] != q) q = parent[q]
				if (q == root) s += ticks[p]
			}
			printf "%.2f\n", s / hz
		}'
}

# timed LOG STAGE CMD...: runs CMD, then appends "STAGE USER SYSTEM", the
# CPU seconds it and its children used, to LOG (bash's `times`, whose
# second line is the children's: every process here waits for its own;
# the sampling below adds a few hundredths of a second a minute). While
# CMD runs, its CPU so far is sampled every CPU_SAMPLE seconds (default
# 10) into LOG.running, so that a run killed part way still counts: the
# next call appends that sample to LOG as "STAGE-interrupted SECONDS 0"
# before it starts.
timed() {
	local log=$1 stage=$2
	shift 2
	if [ -s "$log.running" ]; then
		cat "$log.running" >>"$log"
		rm "$log.running"
	fi
	(
		"$@" &
		pid=$! status=0 tick=0
		while kill -0 "$pid" 2>/dev/null; do
			if ((tick++ % ${CPU_SAMPLE:-10} == 0)); then
				printf '%s-interrupted %s 0\n' "$stage" "$(tree_cpu "$pid")" >"$log.running.tmp"
				mv "$log.running.tmp" "$log.running"
			fi
			sleep 1
		done
		wait "$pid" || status=$?
		# `times` writes to a file, not a pipe: in a pipe it would run in a
		# subshell of its own, whose children are none of these.
		times >"$log.times"
		exit "$status"
	)
	rm -f "$log.running"
	sed -n 2p "$log.times" | awk -v s="$stage" '
		function sec(t) { split(t, p, "m"); return p[1] * 60 + substr(p[2], 1, length(p[2]) - 1) }
		{ printf "%s %.2f %.2f\n", s, sec($1), sec($2) }' >>"$log"
	rm "$log.times"
}
# cpu_seconds LOG [FORMAT]: the CPU seconds LOG records (0 when there is
# none), printed with FORMAT (default %.0f, whole seconds).
cpu_seconds() {
	[ -f "$1" ] || { echo 0; return; }
	awk -v f="${2:-%.0f}" '{ s += $2 + $3 } END { printf f "\n", s }' "$1"
}
echo "== reference: one chunk of the shipped recipe ($(date -u +%FT%TZ))"
ref=$out/ref
mkdir -p "$ref"
if [ ! -f "$ref/chunk-1/split.json" ]; then
	timed "$ref/cpu.log" chunk-1 env SELFPLAY_A="nnue:$network" SELFPLAY_B=heuristic:depth=3 POSITIONS_PER_GAME=40 \
		LABEL_HASH=1 SEED_BASE=3000 bash "$here/nnue-data.sh" "$ref" 1 "${REF_GAMES:-20000}" "${WORKERS:-2}"
fi
ref_cpu=$(cpu_seconds "$ref/cpu.log")
ref_data=$ref/chunk-1/labelled
test_data=${TEST:-$ref_data}

arms=(ref)
declare -A data=([ref]=$ref_data)
for b in "${budgets[@]}"; do
	arm=gen-$b d=$out/gen-$b
	mkdir -p "$d"
	arms+=("$arm")
	for ((i = 0; i < tasks; i++)); do
		task=$(printf '%s/gen-%04d-of-%04d' "$d" "$i" "$tasks")
		if [ ! -f "$task/manifest.json" ]; then
			[ "$(cpu_seconds "$d/cpu.log")" -lt "$ref_cpu" ] || break
			echo "== $arm: task $i ($(cpu_seconds "$d/cpu.log") of the reference's $ref_cpu CPU seconds; $(date -u +%FT%TZ))"
			timed "$d/cpu.log" "task-$i" datagen_task "$d" "$b" "$i" "$network"
		fi
		[ -f "$task.split.json" ] || "$dchess" dataset split "$task" --val 0.05 --test 0.05 --seed 1 --json >"$task.split.json"
		data[$arm]+=${data[$arm]:+,}$task
	done
	[ -n "${data[$arm]:-}" ] || { echo "$0: the reference recorded no CPU time ($ref/cpu.log), so $arm played nothing" >&2; exit 1; }
done

for arm in "${arms[@]}"; do
	run=$out/nnue-$arm
	if [ ! -f "$run/model.dcw" ]; then
		echo "== train $arm ($(date -u +%FT%TZ))"
		sed -e "s/^max_steps: [0-9]*/max_steps: $steps/" -e "s/^  decay_steps: [0-9]*/  decay_steps: $steps/" \
			"$root/configs/nnue.yaml" >"$out/nnue.yaml"
		train_run nnue "${data[$arm]}" "$run" "$out/nnue.yaml"
	fi
	if [ ! -f "$run.eval.json" ]; then
		"$dchess" eval --player "nnue:$run/model.dcw?name=$arm" --data "$test_data" --depth 1 --json --quiet >"$run.eval.json.tmp"
		mv "$run.eval.json.tmp" "$run.eval.json"
	fi
done

for arm in "${arms[@]:1}"; do
	m=$out/match-$arm-vs-ref
	if [ ! -f "$m.json" ]; then
		"$dchess" match --a "nnue:$out/nnue-$arm/model.dcw?name=$arm" --b "nnue:$out/nnue-ref/model.dcw?name=ref" \
			--depth "${DEPTH:-6}" --games "${GAMES:-400}" --openings "$root/../shared/data/openings/noob_2moves.epd" \
			--openings-order random --seed 9 --concurrency 2 --shard 0/1 -o "$m" --json --quiet >"$m.json.tmp"
		mv "$m.json.tmp" "$m.json"
	fi
done

# One line an arm: CPU seconds, records, records per CPU second and against
# the reference's, the test MSE (all and quiet), and the match's Elo.
{
	printf 'arm\tcpu_s\trecords\trecords_per_cpu_s\tagainst_ref\ttest_mse\tquiet_mse\telo_vs_ref\n'
	ref_rate=
	for arm in "${arms[@]}"; do
		dir=$out/$arm
		cpu=$(cpu_seconds "$dir/cpu.log" %.1f)
		IFS=, read -r -a sets <<<"${data[$arm]}"
		n=$(records "${sets[@]}")
		rate=$(awk -v n="$n" -v c="$cpu" 'BEGIN { printf "%.1f", (c > 0 ? n / c : 0) }')
		ref_rate=${ref_rate:-$rate}
		against=$(awk -v r="$rate" -v f="$ref_rate" 'BEGIN { printf "%.2f", (f > 0 ? r / f : 0) }')
		# The first "mse" is every position's, the second the quiet ones'.
		mse=$(grep -o '"mse": [0-9.e+-]*' "$out/nnue-$arm.eval.json" | cut -d' ' -f2 | sed -n 1p)
		quiet=$(grep -o '"mse": [0-9.e+-]*' "$out/nnue-$arm.eval.json" | cut -d' ' -f2 | sed -n 2p)
		elo=-
		[ "$arm" = ref ] || elo=$(grep -o '"elo\(_error\)\?": [0-9.e+-]*' "$out/match-$arm-vs-ref.json" | cut -d' ' -f2 |
			sed -n 1,2p | paste -sd' ' | awk '{ printf "%+.1f +/- %.1f", $1, $2 }')
		printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$arm" "$cpu" "$n" "$rate" "$against" "${mse:--}" "${quiet:--}" "${elo:--}"
	done
} >"$out/summary.tsv"
column -t -s $'\t' "$out/summary.tsv"
