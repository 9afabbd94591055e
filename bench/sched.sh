#!/usr/bin/env bash
# bench/sched.sh [--trials N] [--out FILE] - scheduler events under
# mpi/pmixev: how much of a preemption's grace time the application keeps,
# and what watching the job costs slurmctld.
#
# On its own test cluster (PMIXEV_BENCH_CLUSTER_ID, default 7) with
# GraceTime=60 and the default PMIxevWatchInterval (5 s), once with
# proctrack/linuxproc and task/none, once with proctrack/cgroup and
# task/cgroup,task/affinity (as most sites run Slurm):
#  - N times (default 12): a 3-node step (pmix_jobev) in partition debug;
#    after a random 0-5 s, a job of partition high takes n1 and preempts
#    it. The figures are the time to the alert handled on the last of the
#    3 ranks from the moment slurmctld preempted (the end of the preempting
#    job's allocation RPC, which preempts at once, from slurmctld's log)
#    and from that job's submission, and the share of the 60 s grace time
#    left then. The step is then cancelled (the grace time is not waited
#    out).
#  - (proctrack/linuxproc only) a 1-node and a 3-node step, each watched
#    for PMIXEV_RPC_SECONDS
#    (default 60): the watcher's requests and the job user's RPCs in
#    slurmctld (sdiag), per minute. Target: equal, <= 60/interval = 12.
# Stock mpi/pmix sends no scheduler events (nothing to compare).
set -euo pipefail

TRIALS=12 BENCH_CLUSTER=7
export PMIXEV_GRACE_TIME=60
# shellcheck source=bench/trials.sh
. "$(dirname "$0")/trials.sh"
# shellcheck disable=SC1091
. "$SRC/tests/integration/lib.sh"
jobev=$(client pmix_jobev)
failed=0
rpc_seconds=${PMIXEV_RPC_SECONDS:-60}

ready() {
	for _ in $(seq 300); do
		[ "$(grep -c '^pmix_jobev: rank [0-9]*: ready$' "$1")" -ge "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

# ctld_time JOB: when slurmctld finished the allocation RPC of JOB (epoch s).
ctld_time() {
	local t
	t=$(sed -n "s/^\[\([0-9T:.-]*\)\] sched: _slurm_rpc_allocate_resources JobId=$1 .*/\1/p" \
		"$(slurmctld_log)" | head -n1)
	[ -n "$t" ] && date -d "${t/T/ }" +%s.%N
}

# trial: prints "LATENCY_MS SUBMIT_MS SHARE_PERCENT" or nothing.
trial() {
	local log=$PMIXEV_CLUSTER_WORKDIR/sched.out hlog=$PMIXEV_CLUSTER_WORKDIR/sched-high.out
	local t0 t1 last high hjob
	start_step "$log" n3 "overlay: connected" --exclusive --mpi=pmixev \
		-N3 -n3 -t 10 "$jobev" 200 >&2 || return 0
	ready "$log" 3 || return 0
	sleep "$((RANDOM % 6))"
	t0=$(date +%s.%N)
	as_user srun -v -p high --exclusive -N1 -w n1 -t 1 true >"$hlog" 2>&1 &
	high=$!
	for _ in $(seq 150); do
		[ "$(grep -c 'PREEMPT_ALERT' "$log")" -ge 3 ] && break
		sleep 0.1
	done
	last=$(sed -n 's/^pmix_jobev: .* PREEMPT_ALERT .* at \([0-9.]*\):.*/\1/p' "$log" | sort -n | tail -n1)
	scancel "$job" 2>/dev/null || true
	wait "$srun_pid" 2>/dev/null || true
	wait "$high" 2>/dev/null || true
	[ "$(grep -c 'PREEMPT_ALERT' "$log")" -ge 3 ] || return 0
	hjob=$(sed -n 's/^srun: jobid \([0-9]*\):.*/\1/p' "$hlog" | head -n1)
	t1=$(ctld_time "$hjob") || return 0
	awk -v a="$last" -v b="$t0" -v c="$t1" -v g="$PMIXEV_GRACE_TIME" 'BEGIN {
		printf "%d %d %.1f\n", (a - c) * 1000, (a - b) * 1000, 100 * (g - (a - c)) / g }'
}

user_rpcs() {
	sdiag | sed -n "s/^[[:space:]]*$PMIXEV_TEST_USER[[:space:]]*([[:space:]]*[0-9]*) count:\([0-9]*\).*/\1/p"
}

# watch NODES: requests per minute of the watcher and user RPCs per minute.
watch() {
	local log=$PMIXEV_CLUSTER_WORKDIR/sched-rpc.out r0 r1 req t0 t1
	r0=$(user_rpcs)
	t0=$(date +%s.%N)
	start_step "$log" n1 "serving" --mpi=pmixev -N"$1" -n"$1" -t 10 \
		"$jobev" "$rpc_seconds" >&2
	wait "$srun_pid" 2>/dev/null || true
	t1=$(date +%s.%N)
	r1=$(user_rpcs)
	wait_log "$(slurmd_log n1)" "step $job\\.0 on n1: watcher: [0-9]+ request" >&2 || true
	req=$(sed -n "s/.*step $job\\.0 on n1: watcher: \\([0-9]*\\) request(s) to slurmctld in \\([0-9]*\\) s.*/\\1 \\2/p" \
		"$(slurmd_log n1)" | tail -n1)
	awk -v req="${req% *}" -v secs="${req#* }" -v d="$((r1 - r0))" \
		-v t="$(awk -v a="$t1" -v b="$t0" 'BEGIN { print a - b }')" \
		'BEGIN { printf "%.1f %.1f\n", 60 * req / secs, 60 * d / t }'
}

stats() {
	printf '%s\n' "${@:2}" | sort -n | awk -v what="$1" '
		{ v[NR] = $1 }
		END {
			if (!NR) { printf "| %s | 0 | | | |\n", what; exit }
			printf "| %s | %d | %s | %s | %s |\n", what, NR, v[1], v[int((NR - 1) * 0.5) + 1], v[NR]
		}'
}

# preemptions PROCTRACK TASKPLUGIN: TRIALS trials on the cluster restarted
# with them; their rows of the table into $ROWS.
ROWS=''
preemptions() {
	local lat=() sub=() share=() r l s_ p i
	bash "$CLUSTER" stop >/dev/null 2>&1 || true
	PMIXEV_PROCTRACK=$1 PMIXEV_TASK_PLUGIN=$2 bash "$CLUSTER" start >&2
	for ((i = 1; i <= TRIALS; i++)); do
		r=$(trial)
		echo "$0: $1 preemption trial $i: ${r:-failed}" >&2
		if [ -z "$r" ]; then
			failed=$((failed + 1))
		else
			read -r l s_ p <<<"$r"
			lat+=("$l") sub+=("$s_") share+=("$p")
		fi
	done
	ROWS+=$(stats "$1: latency after slurmctld preempted (ms)" ${lat[@]+"${lat[@]}"})$'\n'
	ROWS+=$(stats "$1: latency after the preempting job's submission (ms)" ${sub[@]+"${sub[@]}"})$'\n'
	ROWS+=$(stats "$1: grace time left to the application (%)" ${share[@]+"${share[@]}"})$'\n'
}

preemptions proctrack/cgroup task/cgroup,task/affinity
preemptions proctrack/linuxproc task/none
one=$(watch 1)
three=$(watch 3)

{
	echo "# pmixev scheduler-event benchmark ($(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, PMIxevWatchInterval=5, GraceTime=$PMIXEV_GRACE_TIME)"
	echo
	echo "| preemption -> alert on the last of 3 ranks | trials | min | median | max |"
	echo "|---|---:|---:|---:|---:|"
	printf '%s' "$ROWS"
	echo
	echo "| job watched for ${rpc_seconds} s | watcher requests/min | job user's slurmctld RPCs/min (incl. srun's own) |"
	echo "|---|---:|---:|"
	echo "| 1 node | ${one% *} | ${one#* } |"
	echo "| 3 nodes | ${three% *} | ${three#* } |"
	[ "$failed" -eq 0 ] || echo "($failed trials failed)"
} | tee ${OUT:+"$OUT"}
[ "$failed" -eq 0 ]
