#!/usr/bin/env bash
# Runs the job-array path on a real Slurm, on this one machine: installs
# Debian's munge and Slurm (slurm-wlm 22.05) when missing, starts munged,
# slurmctld and slurmd on loopback with a private configuration (nothing in
# /etc changes), then for slurm-label.sh and for slurm-match.sh:
#
#   1. runs the job once unsharded, as the reference;
#   2. submits the job file as a 4-task array and cancels one task while it
#      runs, after it has journalled some work;
#   3. checks that the merge refuses and names the missing task;
#   4. resubmits that task alone, checks it continued from its journal;
#   5. checks that the merge equals the reference: the same record files
#      byte for byte for the labels, the same JSON report for the match.
#
# The daemons are stopped at the end, also on failure or Ctrl-C; every wait
# has a time limit (SLURM_TEST_WAIT seconds, default 180).
#
# To give the cancel a window, the tasks' engines pause before each search
# (a wrapper that sleeps before passing on "go"): Stockfish 0.5 s, the
# match's UCI player 0.25 s, so a task runs for seconds after its first
# journal line even when scontrol answers slowly on a loaded machine (at
# 0.2 s and 0.05 s a task once finished before the cancel reached it). The
# searches and so the results are unchanged.
#
# Usage (as root): scripts/cluster/slurm-test.sh [DCHESS_BINARY]
#   default binary: bin/dchess (make slurm-test builds it and runs this)
#   KEEP=1 keeps the work folder (data, logs, Slurm's logs) for a look.
set -euo pipefail

repo=$(cd "$(dirname "$0")/../.." && pwd)
dchess=$(realpath "${1:-$repo/bin/dchess}")
wait_limit=${SLURM_TEST_WAIT:-180}
started=$SECONDS

say() { echo "slurm-test: $*" >&2; }
die() {
	say "FAILED: $*"
	exit 1
}

[ "$(id -u)" = 0 ] || die "run as root: it installs packages and starts munged, slurmctld and slurmd"
[ -x "$dchess" ] || die "no dchess binary at $dchess (make build)"
stockfish=${DCHESS_STOCKFISH:-$(command -v stockfish || echo /usr/games/stockfish)}
[ -x "$stockfish" ] || die "Stockfish not found (apt-get install stockfish or set DCHESS_STOCKFISH)"

need=()
for p in munge slurmctld slurmd slurm-client; do
	dpkg -s "$p" >/dev/null 2>&1 || need+=("$p")
done
if [ ${#need[@]} -gt 0 ]; then
	say "installing ${need[*]}"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

# munged checks that every folder above its socket is searchable by all.
work=$(mktemp -d /tmp/dchess-slurm.XXXXXX)
chmod 755 "$work"
export SLURM_CONF=$work/slurm.conf
mkdir -p "$work/munge" "$work/state" "$work/spool" "$work/log" "$work/data" "$work/submit" "$work/bin"
ln -s "$dchess" "$work/bin/dchess"
export PATH=$work/bin:$PATH

pids=() # daemons this script started
stop_daemons() {
	local status=$?
	set +e
	if [ -f "$work/slurmctld.pid" ]; then
		timeout 20 scancel --full --quiet --user=root 2>/dev/null
		sleep 1
	fi
	for f in "$work/slurmd.pid" "$work/slurmctld.pid" "$work/munge/munged.pid"; do
		[ -s "$f" ] && pids+=("$(cat "$f")")
	done
	for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
	for pid in "${pids[@]}"; do
		for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
		kill -0 "$pid" 2>/dev/null && { say "daemon $pid did not stop: killing it"; kill -9 "$pid"; }
	done
	if [ "$status" -ne 0 ]; then
		for f in "$work"/munge/munged.log "$work"/log/*.log "$work"/submit/*.log; do
			[ -f "$f" ] && { echo "--- $f (last lines)" >&2; tail -n 15 "$f" >&2; }
		done
	fi
	if [ "${KEEP:-}" = 1 ]; then say "kept $work"; else rm -rf "$work"; fi
	say "daemons stopped; $((SECONDS - started)) s in all"
	exit "$status"
}
trap stop_daemons EXIT
trap 'exit 130' INT TERM

# wait_for DESCRIPTION COMMAND...: polls COMMAND until it succeeds.
wait_for() {
	local what=$1 deadline=$((SECONDS + wait_limit))
	shift
	until "$@"; do
		[ "$SECONDS" -lt "$deadline" ] || die "timed out after ${wait_limit}s waiting for $what"
		sleep 0.2
	done
}

# --- munge, with its own key and socket
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chown -R munge:munge "$work/munge"
chmod 600 "$work/munge/munge.key"
runuser -u munge -- munged --socket="$work/munge/munge.sock" --key-file="$work/munge/munge.key" \
	--log-file="$work/munge/munged.log" --pid-file="$work/munge/munged.pid" --seed-file="$work/munge/munged.seed" ||
	die "munged did not start: $(tail -n 3 "$work/munge/munged.log" 2>/dev/null)"
munge -S "$work/munge/munge.sock" -n | unmunge -S "$work/munge/munge.sock" >/dev/null || die "munge credentials do not round-trip"

# --- Slurm: one node, this machine, on loopback. No cgroups (proctrack/linuxproc,
# task/none), so it runs in a container without systemd. At least 2 CPUs are
# declared, as slurm-label.sh asks for 2 per task.
host=$(hostname -s)
cpus=$(nproc)
[ "$cpus" -ge 2 ] || cpus=2
mem_mb=$(($(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 * 9 / 10))
cat >"$SLURM_CONF" <<EOF
ClusterName=dchesstest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=${SLURM_TEST_PORT:-16817}
SlurmdPort=$((${SLURM_TEST_PORT:-16817} + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$work/munge/munge.sock
CredType=cred/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
MinJobAge=600
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
slurmctld || die "slurmctld did not start (see $work/log/slurmctld.log)"
slurmd || die "slurmd did not start (see $work/log/slurmd.log)"
node_idle() { sinfo -h -N -o %T 2>/dev/null | grep -qx idle; }
wait_for "the node to be idle" node_idle
say "Slurm is up: $(sinfo -h -o '%P %a %D %T %c cpus')"

# task_state JOB TASK: the array task's JobState (RUNNING, COMPLETED, CANCELLED, ...).
task_state() {
	scontrol -o show job "$1_$2" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | head -n 1 | cut -d= -f2
}
# job_over JOB: no task of JOB is pending or running.
job_over() { [ -z "$(squeue -h -j "$1" 2>/dev/null)" ]; }
# running_with_journal JOB TASK JOURNAL: the task runs and has journalled work;
# one that ended already leaves nothing to cancel midway.
running_with_journal() {
	local state
	state=$(task_state "$1" "$2")
	case $state in
	COMPLETED | FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY) die "job $1 task $2 ended ($state) before it could be cancelled midway" ;;
	esac
	[ "$state" = RUNNING ] && [ -s "$3" ]
}
# check_states JOB WANT...: the tasks' states, in task order.
check_states() {
	local job=$1 i=0 state
	shift
	for want in "$@"; do
		state=$(task_state "$job" "$i")
		[ "$state" = "$want" ] || die "job $job task $i is $state, want $want"
		i=$((i + 1))
	done
}
# submit JOBFILE SLURM_OPTIONS...: submits from $work/submit (the tasks' logs
# land there) with the variables the caller set, and prints the job id.
submit() {
	local file=$1
	shift
	(cd "$work/submit" && sbatch --parsable "$@" "$file") | cut -d';' -f1
}
# slow NAME DELAY COMMAND...: a UCI engine that pauses DELAY s before each search.
slow() {
	local file=$work/bin/$1 delay=$2
	shift 2
	cat >"$file" <<EOF
#!/bin/bash
while IFS= read -r line; do
	case \$line in go*) sleep $delay ;; esac
	printf '%s\n' "\$line"
done | exec $(printf '%q ' "$@")
EOF
	chmod +x "$file"
	echo "$file"
}
run() { timeout "$wait_limit" "$@" || die "$* failed or timed out"; }

# cancel_and_resubmit WHAT JOBFILE TASK_OUTPUT JOURNAL RESUMED MERGE...: submits
# JOBFILE as 4 tasks, cancels task $cancelled once JOURNAL has work in it, checks
# that MERGE fails naming TASK_OUTPUT (the task's folder), resubmits the task
# alone and checks that its log has RESUMED (an extended regexp).
cancel_and_resubmit() {
	local what=$1 file=$2 out=$3 journal=$4 resumed=$5 jid log
	shift 5
	log=$work/submit/dchess-$what-$cancelled.log # the job files' --output
	jid=$(submit "$file" --array=0-3)
	say "$what: job $jid, 4 tasks; cancelling task $cancelled once it has journalled work"
	wait_for "$what task $cancelled to run and journal" running_with_journal "$jid" "$cancelled" "$journal"
	scancel "${jid}_$cancelled"
	wait_for "$what job $jid to end" job_over "$jid"
	check_states "$jid" COMPLETED CANCELLED COMPLETED COMPLETED
	[ ! -e "$out/manifest.json" ] || die "the cancelled $what task finished before it was cancelled"
	if "$@" >/dev/null 2>"$work/merge.err"; then
		die "$* succeeded with task $cancelled missing"
	fi
	grep -qF "$(basename "$out")" "$work/merge.err" || die "$* did not name the missing task: $(cat "$work/merge.err")"
	say "$what: the merge refused: $(head -n 1 "$work/merge.err")"
	jid=$(submit "$file" --array="$cancelled")
	wait_for "$what job $jid to end" job_over "$jid"
	[ "$(task_state "$jid" "$cancelled")" = COMPLETED ] || die "resubmitted $what task: $(task_state "$jid" "$cancelled")"
	grep -Eq "$resumed" "$log" || die "the resubmitted $what task did not continue from its journal: $(cat "$log")"
}

data=$work/data
cancelled=1

# --- labels: 48 positions of 6 self-played games, Stockfish depth 4
run dchess -q selfplay --a heuristic:depth=1 --b random --games 6 --depth 1 --max-moves 40 -o "$data/games.pgn" >/dev/null
run dchess -q ingest "$data/games.pgn" -o "$data/games" --positions-per-game 8 >/dev/null
run dchess -q label --stockfish "$stockfish" -i "$data/games" -o "$data/whole" --depth 4 --workers 1 --shard 0/1 >/dev/null
slow_sf=$(slow slow-stockfish 0.5 "$stockfish")
export TASKS=4 DATA=$data DEPTH=4 STOCKFISH=$slow_sf
out=$data/labels-000$cancelled-of-0004
cancel_and_resubmit label "$repo/scripts/cluster/slurm-label.sh" "$out" "$out.partial/labels.journal" '"resumed": [1-9]' \
	dchess -q dataset merge "$data/labels" -o "$data/labels-all"
run dchess -q dataset merge "$data/labels" -o "$data/labels-all" >/dev/null
want=$(cd "$data/whole-0000-of-0001" && ls ./*.rec)
got=$(cd "$data/labels-all" && ls ./*.rec)
[ "$want" = "$got" ] || die "merged record files ($got) are not the unsharded run's ($want)"
for f in $want; do
	cmp "$data/whole-0000-of-0001/$f" "$data/labels-all/$f" || die "merged labels differ from the unsharded run"
done
say "label: the resubmitted task continued from its journal; the merge equals the unsharded run, file for file"
unset TASKS DATA DEPTH STOCKFISH

# --- match: 8 games of a UCI heuristic against random, depth 2
slow_player=$(slow slow-dchess 0.25 "$dchess" uci --player heuristic:depth=2)
export TASKS=4 DATA=$data NAME=m GAMES=8 PLAYER_A="uci:$slow_player?name=heuristic" PLAYER_B=random \
	LIMITS="--depth 2 --max-moves 30 --seed 3"
# shellcheck disable=SC2086
run dchess -q match --a "$PLAYER_A" --b "$PLAYER_B" --games "$GAMES" $LIMITS \
	--sprt elo0=0,elo1=10,alpha=0.05,beta=0.05 --concurrency 2 --json >"$work/whole-match.json"
out=$data/m-000$cancelled-of-0004
cancel_and_resubmit match "$repo/scripts/cluster/slurm-match.sh" "$out" "$out/journal.jsonl" \
	'\([1-9][0-9]* continued from a stopped run\)' dchess -q match merge "$data/m"
run dchess -q match merge "$data/m" --json >"$work/merged-match.json"
diff "$work/whole-match.json" "$work/merged-match.json" >&2 || die "match merge's report differs from the unsharded run's"
say "match: the resubmitted task continued from its journal; the merged report equals the unsharded run's"
say "PASS"
