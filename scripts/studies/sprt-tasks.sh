# Sourced by the scripts that play a match until an SPRT decides
# (search-trial.sh, nnue-clock.sh), after env.sh and with default_seed set:
# the match's settings come from TASKS (default 2), TC (10+0.1), SEED,
# GAMES (1000) and OPENINGS (noob_2moves.epd). sprt_tasks RUNNER OUT A B plays the
# players A and B (dchess player specs) with RUNNER's `match` at $tc from
# $openings in random order ($seed, $games, no adjudication) as $tasks
# job-array tasks, one a core (taskset where it exists, GOMAXPROCS=1), the
# games journalled under OUT. The SPRT (elo0 0, elo1 10) is read every
# $every seconds; once it decides, the tasks stop and the report goes to
# OUT's folder as decided.txt. Rerun to continue from the journals. Ctrl-C,
# or kill -TERM in the background (where a shell has it ignore SIGINT),
# stops the tasks with their games kept.
# shellcheck shell=bash
tasks=${TASKS:-2}
tc=${TC:-10+0.1}
seed=${SEED:-$default_seed}
games=${GAMES:-1000}
openings=${OPENINGS:-$root/../shared/data/openings/noob_2moves.epd}
[ -f "$openings" ] || { echo "$0: no openings file $openings (set OPENINGS)" >&2; exit 2; }

sprt_tasks() {
	local runner=$1 out=$2 a=$3 b=$4
	local dir
	dir=$(dirname "$out")
	local pin=()
	command -v taskset > /dev/null && pin=(taskset -c)
	local cpus
	cpus=$(nproc)
	pids=()
	stop() {
		[ ${#pids[@]} -gt 0 ] || return 0
		kill -INT "${pids[@]}" 2> /dev/null || true # a task that already ended is no error
		wait "${pids[@]}" || true
	}
	trap 'stop; exit 130' INT TERM
	local i
	for i in $(seq 0 $((tasks - 1))); do
		local cmd=("$runner" match --a "$a" --b "$b"
			--tc "$tc" --openings "$openings" --openings-order random --seed "$seed" --games "$games"
			--shard "$i/$tasks" -o "$out")
		[ ${#pin[@]} -gt 0 ] && cmd=("${pin[@]}" $((i % cpus)) "${cmd[@]}")
		GOMAXPROCS=1 "${cmd[@]}" >> "$dir/task-$i.log" 2>&1 &
		pids+=($!)
	done
	echo "== $tasks tasks playing; progress in $dir/task-*.log"

	local report running p
	while true; do
		# Waiting on a background sleep lets the trap run at once, not after it.
		sleep "$every" &
		wait $! || true
		report=$("$runner" match merge "$out" --partial --sprt elo0=0,elo1=10 2>&1 || true)
		if grep -q "was accepted" <<< "$report"; then
			{ echo "$report"; date -u; } > "$dir/decided.txt"
			stop
			cat "$dir/decided.txt"
			return 0
		fi
		running=0
		for p in "${pids[@]}"; do kill -0 "$p" 2> /dev/null && running=1; done
		if [ $running = 0 ]; then
			wait "${pids[@]}" || true
			echo "== every task has ended without a decision (see $dir/task-*.log):"
			"$runner" match merge "$out" --sprt elo0=0,elo1=10 || "$runner" match merge "$out" --partial --sprt elo0=0,elo1=10
			return 0
		fi
	done
}
