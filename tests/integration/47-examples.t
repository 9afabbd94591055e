#!/usr/bin/env bash
# The examples for application developers (examples/README.md) do what
# their header comments say, run as their srun lines run them:
# preempt_checkpoint checkpoints inside the preemption grace time and
# exits 0, starts from its checkpoint the next time (then is cancelled
# with scancel and checkpoints again), and in a batch job that Slurm would
# requeue has the job requeued once all ranks saved theirs; time_left
# learns its time remaining, that an operator moved its limit, and wraps
# up at the warning; ulfm_survivor, a fault-tolerant Open MPI program,
# outlives a killed rank (Open MPI 5 only); in signal_ranks one rank
# signals the others, which log to syslog through PMIx.
. "$(dirname "$0")/lib.sh"
plan 10

# example NAME: the built example, copied where the test user can run it.
example() {
	install -m 0755 "$PMIXEV_EXAMPLES/$1" "$PMIXEV_CLUSTER_WORKDIR/$1" &&
		echo "./$1"
}
# secs_since T0: seconds (with ms) from T0 (date +%s.%N) to now.
secs_since() { awk -v a="$(date +%s.%N)" -v b="$1" 'BEGIN { printf "%.1f", a - b }'; }
# started N REGEX: until $log has N lines "rank R: " followed by the
# extended REGEX (30 s).
started() {
	local n
	for _ in $(seq 300); do
		n=$(grep -Ecs "^rank [0-9]+: $2" "$log")
		[ "${n:-0}" -ge "$1" ] && return 0
		sleep 0.1
	done
	return 1
}
# ckpt_steps: the steps ranks 0-2 wrote into their checkpoint files, as
# each printed it ("?" where the file is missing or says otherwise).
ckpt_steps() {
	local r f p
	for r in 0 1 2; do
		f=$(cat "$PMIXEV_CLUSTER_WORKDIR/ckpt.$r" 2>/dev/null)
		p=$(sed -n "s/^rank $r: checkpoint ckpt\.$r written at step \([0-9]*\)$/\1/p" "$log")
		if [ -n "$f" ] && [ "$f" = "$p" ]; then printf '%s ' "$f"; else printf '? '; fi
	done
}
# saved STEPS: STEPS (from ckpt_steps) has a checkpoint past step 0 for
# each of the 3 ranks.
saved() { [[ $1 =~ ^([1-9][0-9]*\ ){3}$ ]]; }
# went_on BEFORE AFTER: each rank started at its step in BEFORE and
# saved a later one in AFTER.
went_on() {
	local -a b a
	local r
	read -ra b <<<"$1"
	read -ra a <<<"$2"
	for r in 0 1 2; do
		grep -q "^rank $r: starting at step ${b[r]}\$" "$log" &&
			[ "${a[r]}" -gt "${b[r]}" ] || return 1
	done
}

# Preemption (the test cluster: partition high preempts debug after a
# GraceTime of 10 s, PreemptMode=CANCEL).
ck=$(example preempt_checkpoint)
rm -f "$PMIXEV_CLUSTER_WORKDIR"/ckpt.*
log=$PMIXEV_CLUSTER_WORKDIR/47-preempt.out
start_step "$log" n3 "overlay: connected" --mpi=pmixev -N3 -n3 -t 5 "$ck" ckpt &&
	started 3 'starting at step 0$'
sleep 1
t0=$(date +%s.%N)
as_user srun -p high --exclusive -N1 -w n1 -t 1 hostname >/dev/null 2>&1 &
high_pid=$!
wait "$srun_pid"
rc=$? took=$(secs_since "$t0") steps=$(ckpt_steps)
[ "$rc" -eq 0 ] && [ "$(echo "$took < 9" | bc)" = 1 ] &&
	[ "$(grep -Ec '^rank [0-2]: preempted \(cancel\), (8|9|10) s of grace time left$' "$log")" -eq 3 ] &&
	saved "$steps"
ok $? "preempt_checkpoint, preempted: every rank heard of it with 8-10 s of grace left, wrote its checkpoint (steps ${steps% }) and srun exited 0 ${took} s after the preempting job came" ||
	sed 's/^/#   /' "$log" >&2
wait "$high_pid"
ok $? "the preempting job ran"

# The same srun line again: it goes on from the checkpoints; scancel.
before=$steps
log=$PMIXEV_CLUSTER_WORKDIR/47-cancel.out
start_step "$log" n3 "overlay: connected" --mpi=pmixev -N3 -n3 -t 5 "$ck" ckpt &&
	started 3 'starting at step'
sleep 1
t0=$(date +%s.%N)
scancel "$job"
wait "$srun_pid"
rc=$? took=$(secs_since "$t0") steps=$(ckpt_steps)
[ "$rc" -eq 0 ] && [ "$(echo "$took < 5" | bc)" = 1 ] &&
	[ "$(grep -c '^rank [0-2]: the job was cancelled$' "$log")" -eq 3 ] &&
	saved "$steps" && went_on "$before" "$steps"
ok $? "run again, each rank starts where it was (steps ${before% }); scancel: every rank wrote its checkpoint (steps ${steps% }) and srun exited 0 ${took} s later, within KillWait (5 s)" ||
	sed 's/^/#   /' "$log" >&2

# A batch job in partition requeue (PreemptMode=REQUEUE): after the
# checkpoints rank 0 asks Slurm to requeue the job.
printf '#!/bin/bash\nexec srun --mpi=pmixev %s ckpt\n' "$ck" >"$PMIXEV_CLUSTER_WORKDIR/47-batch.sh"
chmod 755 "$PMIXEV_CLUSTER_WORKDIR/47-batch.sh"
log=$PMIXEV_CLUSTER_WORKDIR/47-requeue.out
rm -f "$log" "$PMIXEV_CLUSTER_WORKDIR"/ckpt.*
bjob=$(as_user sbatch --parsable -p requeue --requeue --exclusive -N3 -n3 -t 5 -o "$log" ./47-batch.sh)
started 3 'starting at step 0$'
sleep 1
as_user srun -p high --exclusive -N1 -w n1 -t 1 hostname >/dev/null 2>&1 &
high_pid=$!
for _ in $(seq 100); do
	[ "$(squeue -h -j "$bjob" -o %T)" = PENDING ] && break
	sleep 0.1
done
steps=$(ckpt_steps)
[ "$(grep -c '^rank [0-2]: preempted (requeue), ' "$log")" -eq 3 ] &&
	saved "$steps" &&
	grep -Eq '^rank 0: requeue: (PMIX_)?SUCCESS$' "$log" &&
	scontrol show job "$bjob" | grep -q 'JobState=PENDING .*' &&
	scontrol show job "$bjob" | grep -q ' Restarts=1 '
ok $? "preempt_checkpoint in a batch job of partition requeue: all ranks checkpointed (steps ${steps% }), rank 0 had Slurm requeue the job: pending again" ||
	{ sed 's/^/#   /' "$log" >&2; scontrol show job "$bjob" | sed 's/^/#   /' >&2; }
scancel "$bjob"
wait "$high_pid"

# Time left: 2 minutes, warned 58 s before the end; an operator cuts the
# limit to 1 minute.
log=$PMIXEV_CLUSTER_WORKDIR/47-time.out
start_step "$log" n3 "overlay: connected" --mpi=pmixev -N3 -n3 -t 2 \
	--pmixev-time-warning=58 --pmixev-watch-interval=1 "$(example time_left)" 58 &&
	started 3 '[0-9]+ s left$' &&
	[ "$(grep -Ec '^rank [0-2]: (11[0-9]|120) s left$' "$log")" -eq 3 ]
ok $? "time_left: every rank learnt the time left ($(sed -n 's/^rank 0: \([0-9]*\) s left$/\1 s/p' "$log") of 2 min)" ||
	sed 's/^/#   /' "$log" >&2
scontrol update jobid="$job" timelimit=1
wait "$srun_pid"
rc=$?
[ "$rc" -eq 0 ] &&
	[ "$(grep -Ec '^rank [0-2]: the time limit moved: [4-5][0-9] s left$' "$log")" -eq 3 ] &&
	[ "$(grep -Ec '^rank [0-2]: [4-5][0-9] s left: wrapping up$' "$log")" -eq 3 ]
ok $? "scontrol update timelimit=1: every rank heard the limit moved to within its 58 s, wrapped up and exited 0" ||
	sed 's/^/#   /' "$log" >&2

# Fault-tolerant Open MPI: rank 5 of 6 dies, the 5 others finish.
if [ -x "$PMIXEV_EXAMPLES/ulfm_survivor" ]; then
	ulfm_step_env
	run_step --mpi=pmixev --no-kill -K0 -t 1 -N3 -n6 "$(example ulfm_survivor)" 5
	step_env=()
	[ "$rc" -ne 0 ] && [ "$(lines '^rank 5: dying in round 30$')" -eq 1 ] &&
		[ "$(lines 'task 5: Killed')" -ge 1 ] &&
		[ "$(lines '^rank [0-4]: a rank failed; 5 ranks go on from round 30$')" -eq 5 ] &&
		[ "$(lines '^rank [0-4]: 100 rounds done, sum 5 on 5 ranks$')" -eq 5 ]
	ok $? "ulfm_survivor: rank 5 dies in round 30; the 5 survivors shrink, go on and finish; srun reports task 5 killed" ||
		show
else
	ok 0 "ulfm_survivor # SKIP not built: this Open MPI has no ULFM"
fi

# Signals and syslog.
syslog_listen
uid=$(id -u "$PMIXEV_TEST_USER")
run_step --mpi=pmixev -N3 -n3 "$(example signal_ranks)"
[ "$rc" -eq 0 ] && [ "$(lines '^rank 0: signalled 2 worker\(s\) to stop: (PMIX_)?SUCCESS$')" -eq 1 ] &&
	[ "$(lines '^rank [12] on n[23]: got SIGUSR1, stopping$')" -eq 2 ]
ok $? "signal_ranks: rank 0 signals ranks 1 and 2 (on n2, n3) through PMIx; both got SIGUSR1 and stopped" || show
syslog_has "^<13>.* pmixev\[[0-9]+\]: step $job\.0 rank 1 \(uid $uid\): rank 1 on n2: got SIGUSR1, stopping$" &&
	syslog_has "^<13>.* pmixev\[[0-9]+\]: step $job\.0 rank 2 \(uid $uid\): rank 2 on n3: got SIGUSR1, stopping$"
ok $? "each worker's line is in syslog (facility user, priority notice: <13>)" ||
	sed 's/^/#   /' "$syslog" >&2
syslog_has "^<13>.* pmixev\[[0-9]+\]: step $job\.0 rank 0 \(uid $uid\): signalled 2 worker\(s\) to stop: (PMIX_)?SUCCESS$"
ok $? "rank 0's outcome is in syslog too (PMIX_LOG_GLOBAL_SYSLOG)" ||
	sed 's/^/#   /' "$syslog" >&2

done_testing
