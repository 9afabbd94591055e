#!/usr/bin/env bash
# Scheduler events: the first node's stepd watches the job in slurmctld
# (through its owner helper, as the job's user) and every process of the
# step gets, as PMIx events: the time-limit warning at the lead time the
# job asked for, a new-remaining-time event when an operator extends the
# limit, suspend and resume, and the cancel. slurmctld counts the
# watcher's requests against the job's user, never root. The SPANK
# options set the lead time, the interval and the events wanted, and bad
# values are refused at submission.
. "$(dirname "$0")/lib.sh"
plan 22

jobev=$(client pmix_jobev)
# user_rpcs: slurmctld's RPC count for the test user (sdiag).
user_rpcs() {
	sdiag | sed -n "s/^[[:space:]]*$PMIXEV_TEST_USER[[:space:]]*([[:space:]]*[0-9]*) count:\([0-9]*\).*/\1/p"
}
# seen REGEX [SECONDS]: until all 3 ranks printed a line matching REGEX.
seen() {
	local i
	for ((i = 0; i < ${2:-15} * 10; i++)); do
		[ "$(grep -Ec "^pmix_jobev: rank [0-2] on n[1-3]: $1" "$log")" -ge 3 ] && return 0
		sleep 0.1
	done
	diag "not every rank got /$1/:"
	grep '^pmix_jobev' "$log" | sed 's/^/#   /' >&2
	return 1
}

rpcs0=$(user_rpcs)
log=$PMIXEV_CLUSTER_WORKDIR/15-job-events.out
step_env=(SLURM_PMIXEV_TIME_WARNING=50 SLURM_PMIXEV_WATCH_INTERVAL=1)
start_step "$log" n3 "overlay: connected" --mpi=pmixev -N3 -n3 -t 1 "$jobev" 120
step_env=()
wait_ready pmix_jobev 3

seen 'TIME_LIMIT left=(4[6-9]|50) changed=0 mode=- src=slurmctld-via-owner@n1 ' 20
ok $? "50 s before the 1-minute limit every rank got the time-limit warning (PMIX_TIME_REMAINING ~50)"

scontrol update jobid="$job" timelimit=3
seen 'TIME_LIMIT left=1[0-7][0-9] changed=1 ' 10
ok $? "an operator extends the limit to 3 minutes: every rank gets the new remaining time, marked changed"

# Slurm sends SIGTSTP, waits 2 s (24.11: suspend_grace_time), then stops
# the step (SIGSTOP; proctrack/cgroup: the freezer): every rank must have
# handled the suspend before it was stopped, i.e. within those 2 s.
t_susp=$(date +%s.%N)
scontrol suspend "$job"
sleep 3
scontrol resume "$job"
seen 'SUSPENDED ' 15 && seen 'RESUMED ' 15 &&
	late=$(sed -n 's/^pmix_jobev: rank [0-2] on n[1-3]: SUSPENDED .* at \([0-9.]*\):.*/\1/p' "$log" |
		awk -v t="$t_susp" '$1 - t >= 2 { n++ } END { print n + 0 }') &&
	[ "$late" -eq 0 ]
ok $? "scontrol suspend / resume: every rank got SUSPENDED before Slurm stopped it (within 2 s), then RESUMED" ||
	grep -E 'SUSPENDED|RESUMED' "$log" | sed "s/^/#   (suspend at $t_susp) /" >&2

# Every helper on the machine (another cluster's too): none is root's.
owners=$(ps -o user= -C pmixev-owner)
printf '%s\n' "$owners" | grep -qx "$PMIXEV_TEST_USER" &&
	! printf '%s\n' "$owners" | grep -qx root
ok $? "the owner helper runs as the job's user ($(echo $owners)), never root"
# The job's user may not trace it (a traced child cannot be reaped).
tracer=$(client ptrace_attach)
# (n1's own helper: another cluster's may run on the machine too)
out=$(as_user "$tracer" "$(pgrep -n -P "$(stepd_pid n1)" -x pmixev-owner)" 2>&1)
ok $? "the job's user cannot ptrace the owner helper ($out)"

scancel "$job"
seen 'CANCELED .*the job was cancelled' 10
ok $? "scancel: every rank got the cancel (it ignores SIGTERM, as an application saving its state would)"
wait "$srun_pid"

[ "$(grep -c "step $job\.0 on n1: watcher: asking slurmctld" "$(slurmd_log n1)")" -eq 1 ] &&
	! grep -q "step $job\.0 on n[23]: watcher" "$(slurmd_log n2)" "$(slurmd_log n3)"
ok $? "one watcher for the 3-node step, on its first node only"
wait_log "$(slurmd_log n1)" "step $job\.0 on n1: watcher: [0-9]+ request\(s\) to slurmctld in [0-9]+ s"
ok $? "n1's slurmd log says how many requests the watcher made"
requests=$(sed -n "s/.*step $job\.0 on n1: watcher: \([0-9]*\) request(s).*/\1/p" "$(slurmd_log n1)" | tail -n1)
rpcs1=$(user_rpcs)
[ -n "$requests" ] && [ "$requests" -gt 10 ] && [ $((rpcs1 - rpcs0)) -ge "$requests" ]
ok $? "slurmctld counted the watcher's ${requests:-?} requests against $PMIXEV_TEST_USER (its RPCs grew by $((${rpcs1:-0} - ${rpcs0:-0})))"

# The cost does not grow with the nodes: a 1-node and a 3-node step, each
# 8 s long, make the same number of watcher requests (within the one a look
# more or less makes), and the 3-node step fewer extra slurmctld RPCs
# (srun's own included) than half of what one more watching node would
# add (a watcher per node would add twice the 1-node step's requests).
# srun's own polls of a step that ends vary by a few either way (17 vs 14
# and 15 vs 18 seen).
declare -A made rpcs
for n in 1 3; do
	# (nodes still completing an earlier job would cost srun extra polls)
	for _ in $(seq 150); do
		[ "$(sinfo -h -t idle -o %D)" = 3 ] && break
		sleep 0.1
	done
	r0=$(user_rpcs)
	step_env=(SLURM_PMIXEV_WATCH_INTERVAL=1)
	run_step --mpi=pmixev -N$n -n$n -w "n[1-$n]" sleep 8
	step_env=()
	wait_log "$(slurmd_log n1)" "step $job\.0 on n1: watcher: [0-9]+ request\(s\)" 10
	made[$n]=$(sed -n "s/.*step $job\.0 on n1: watcher: \([0-9]*\) request(s).*/\1/p" "$(slurmd_log n1)" | tail -n1)
	rpcs[$n]=$(($(user_rpcs) - r0))
done
d_req=$((${made[1]:-0} - ${made[3]:-99})) d_rpc=$((${rpcs[3]} - ${rpcs[1]}))
[ -n "${made[1]}" ] && [ "${made[1]}" -ge 6 ] && [ "${d_req#-}" -le 1 ] &&
	[ "$d_rpc" -le $((${made[1]} / 2)) ]
ok $? "watching costs the same for 1 and 3 nodes: ${made[1]:-?} vs ${made[3]:-?} requests, ${rpcs[1]} vs ${rpcs[3]} RPCs in slurmctld (3 nodes: at most $((${made[1]:-0} / 2)) more)"

# The user's controls: SPANK options, checked at submission.
out=$(as_user srun --help 2>&1)
for o in pmixev-time-warning pmixev-watch-interval pmixev-sched-events; do
	echo "$out" | grep -q -- "--$o=" || { diag "srun --help lacks --$o"; false; }
done
ok $? "srun --help shows --pmixev-time-warning, --pmixev-watch-interval and --pmixev-sched-events"
out=$(as_user srun --pmixev-time-warning=soon --mpi=pmixev -N1 true 2>&1)
rc=$?
[ "$rc" -ne 0 ] && echo "$out" | grep -q "spank/pmixev: invalid --pmixev-time-warning=soon: expected an integer in 0..604800 seconds"
ok $? "an invalid --pmixev-time-warning is refused at submission with a clear message" || diag "$out"
out=$(as_user sbatch --pmixev-sched-events=preempt,bogus --wrap=true 2>&1)
rc=$?
[ "$rc" -ne 0 ] && echo "$out" | grep -q "invalid --pmixev-sched-events=preempt,bogus: expected all, none, or a comma list"
ok $? "sbatch refuses an unknown scheduler event name the same way" || diag "$out"

log=$PMIXEV_CLUSTER_WORKDIR/15-options.out
start_step "$log" n3 "overlay: connected" --mpi=pmixev -N3 -n3 -t 1 \
	--pmixev-time-warning=55 --pmixev-watch-interval=1 \
	--pmixev-sched-events=suspend,cancel "$jobev" 60
wait_log "$(slurmd_log n1)" "step $job\.0 on n1: watcher: the job reaches its time limit in [0-9]+ s \(not announced: the job did not ask\)" 20
sleep 1
scancel "$job"
seen 'CANCELED ' 10 && ! grep -q TIME_LIMIT "$log" &&
	grep -q "step $job\.0 on n1: watcher: asking slurmctld every 1 s (time-limit warning 55 s before the end, events 0x058;" "$(slurmd_log n1)"
ok $? "srun --pmixev-sched-events=suspend,cancel --pmixev-time-warning=55 --pmixev-watch-interval=1: the stepd uses them; the warning is not sent, the cancel is"
wait "$srun_pid"

# slurmctld away and back: the watcher backs off, logs the outage once,
# and catches up. The limit is changed right after the restart, while the
# watcher still backs off: the change is announced all the same (within
# the 60 s backoff ceiling; the ranks listen for 150 s).
log=$PMIXEV_CLUSTER_WORKDIR/15-outage.out
start_step "$log" n3 "overlay: connected" --mpi=pmixev -N3 -n3 -t 5 \
	--pmixev-watch-interval=1 "$jobev" 150
wait_ready pmix_jobev 3
# The watcher must have seen the job once: a change is news only then.
wait_log "$(slurmd_log n1)" "step $job\.0 on n1: watcher: the job reaches its time limit in" 20
bash "$CLUSTER" ctld stop >/dev/null
wait_log "$(slurmd_log n1)" "step $job\.0 on n1: watcher: no answer from slurmctld" 20
ok $? "slurmctld stops: the watcher logs the outage"
sleep 3
bash "$CLUSTER" ctld start >/dev/null
# (slurmctld may refuse updates for a moment while it recovers its state)
for _ in $(seq 50); do
	scontrol update jobid="$job" timelimit=9 2>/dev/null && break
	sleep 0.2
done
seen 'TIME_LIMIT left=[3-5][0-9][0-9] changed=1 ' 120 &&
	[ "$(grep -c "step $job\.0 on n1: watcher: no answer from slurmctld" "$(slurmd_log n1)")" -eq 1 ] &&
	grep -Eq "step $job\.0 on n1: watcher: slurmctld answers again after [0-9]+ s" "$(slurmd_log n1)"
ok $? "slurmctld back: the limit changed meanwhile reaches every rank; the outage was logged once, the recovery too" ||
	grep "step $job\.0 on n1: " "$(slurmd_log n1)" | sed 's/^/#   /' >&2
scancel "$job"
wait "$srun_pid"

# A helper stuck in a Slurm call (here: stopped) is given 30 s, then
# killed; a new one answers the next request.
log=$PMIXEV_CLUSTER_WORKDIR/15-stuck.out
start_step "$log" n3 "overlay: connected" --mpi=pmixev -N3 -n3 -t 5 \
	--pmixev-watch-interval=1 "$jobev" 90
wait_ready pmix_jobev 3
# (the helper may be between a restart and the next request: wait for it)
# (n1's own helper: another cluster's may run on the machine too)
stuck='' n1_stepd=$(stepd_pid n1)
for _ in $(seq 100); do
	stuck=$(pgrep -n -P "${n1_stepd:-1}" -x pmixev-owner) && break
	sleep 0.1
done
[ -n "$stuck" ] && kill -STOP $stuck
wait_log "$(slurmd_log n1)" "step $job\.0 on n1: owner helper: no answer in 30 s; restarting it" 40
ok $? "a stopped owner helper is given up after 30 s (pid ${stuck:-none})"
scontrol update jobid="$job" timelimit=3
seen 'TIME_LIMIT left=1[0-9][0-9] changed=1 ' 20 && ! kill -0 $stuck 2>/dev/null
ok $? "a new helper takes over: an operator's reduction of the limit (5 to 3 min) reaches every rank; the stuck one is gone"
scancel "$job"
wait "$srun_pid"

# Suspend, resume and cancel reach the ranks when Slurm signals the step
# (SIGTSTP before it stops the tasks, SIGCONT at resume, SIGCONT+SIGTERM
# at the cancel), not at the watcher's next look (here every 30 s).
log=$PMIXEV_CLUSTER_WORKDIR/15-signals.out
start_step "$log" n3 "overlay: connected" --mpi=pmixev -N3 -n3 -t 5 \
	--pmixev-watch-interval=30 "$jobev" 120
wait_ready pmix_jobev 3
wait_log "$(slurmd_log n1)" "step $job\.0 on n1: watcher: asking slurmctld" 10 >/dev/null
sleep 1
# The job's user signals its own helper 200 times in about 2 s: each
# signal asks for a look, but they are held to one per 250 ms. (n1's
# own helper: another cluster's may run on the machine too)
helper=$(pgrep -n -P "$(stepd_pid n1)" -x pmixev-owner)
rpcs0=$(user_rpcs)
t0=$EPOCHREALTIME
as_user bash -c 'for i in $(seq 200); do kill -USR1 "$0" || exit 1; sleep 0.01; done' "$helper"
sleep 0.5
flood=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%d", (b - a) * 1000 }')
rpcs=$(($(user_rpcs) - rpcs0))
[ -n "$helper" ] && [ "$rpcs" -le $((flood / 250 + 3)) ]
ok $? "200 signals to the helper in $flood ms cost slurmctld $rpcs request(s) (at most one per 250 ms)"
scontrol suspend "$job"
seen 'SUSPENDED ' 5
ok $? "with a 30 s interval, scontrol suspend reaches every rank within 5 s (Slurm's SIGTSTP)"
sleep 3
scontrol resume "$job"
seen 'RESUMED ' 5
ok $? "... and scontrol resume too (SIGCONT)"
scancel "$job"
seen 'CANCELED .*the job was cancelled' 5
ok $? "... and scancel (SIGCONT, SIGTERM)"
wait "$srun_pid"

done_testing
