#!/usr/bin/env bash
# Preemption and requeue as PMIx events. The test cluster preempts jobs of
# partitions "debug" (PreemptMode=CANCEL) and "requeue" (REQUEUE) for jobs
# of partition "high", after a GraceTime of 10 s. Every rank of a running
# pmixev job gets PMIX_JCTRL_PREEMPT_ALERT with the grace time left and
# what Slurm will do, well before the kill; a requeued batch job's ranks
# then get the requeue event. An operator's scontrol requeue, too.
. "$(dirname "$0")/lib.sh"
plan 8

jobev=$(client pmix_jobev)
# seen FILE REGEX [SECONDS]: until all 3 ranks printed a line matching REGEX.
seen() {
	local i
	for ((i = 0; i < ${3:-15} * 10; i++)); do
		[ "$(cat "$1" 2>/dev/null | grep -Ec "^pmix_jobev: rank [0-2] on n[1-3]: $2")" -ge 3 ] && return 0
		sleep 0.1
	done
	diag "not every rank got /$2/:"
	grep '^pmix_jobev' "$1" | sed 's/^/#   /' >&2
	return 1
}
ready() {
	for _ in $(seq 300); do
		[ "$(cat "$1" 2>/dev/null | grep -c '^pmix_jobev: rank [0-9]*: ready$')" -ge 3 ] && return 0
		sleep 0.1
	done
	return 1
}
# preempt_n1: a job in partition high that needs n1 for itself.
preempt_n1() {
	as_user srun -p high --exclusive -N1 -w n1 -t 1 hostname >/dev/null 2>&1 &
	high_pid=$!
}

# CANCEL: an interactive step in the default partition. It looks at the
# job only every 30 s: the alert comes from Slurm's SIGTERM at preemption.
log=$PMIXEV_CLUSTER_WORKDIR/16-cancel.out
step_env=(SLURM_PMIXEV_WATCH_INTERVAL=30)
start_step "$log" n3 "overlay: connected" --exclusive --mpi=pmixev -N3 -n3 -t 5 "$jobev" 60
step_env=()
ready "$log"
t0=$(date +%s.%N)
preempt_n1
seen "$log" 'PREEMPT_ALERT left=(8|9|10) changed=0 mode=cancel src=slurmctld-via-owner@n1 ' 10
ok $? "a job of partition high preempts the step: every rank got the alert, 8-10 s of the 10 s grace time left, mode cancel"
last=$(sed -n 's/^pmix_jobev: .* PREEMPT_ALERT .* at \([0-9.]*\):.*/\1/p' "$log" | sort -n | tail -n1)
delay=$(awk -v a="$last" -v b="$t0" 'BEGIN { printf "%d", (a - b) * 1000 }')
[ "$delay" -lt 5000 ] && grep -Eq "step $job\.0 on n1: watcher: the owner helper says the step got signal 1[58] \\(the owner's word\\): looking at the job now" "$(slurmd_log n1)"
ok $? "the alert follows Slurm's signal to the step, not the 30 s look: last rank ${delay} ms after the preempting job was submitted"
wait "$srun_pid"
seen "$log" 'JOB_END .*was preempted' 1
ok $? "after the grace time the step is killed; the ranks heard the job was preempted"
wait "$high_pid"
ok $? "the preempting job ran"

# REQUEUE: a batch job in partition requeue.
log=$PMIXEV_CLUSTER_WORKDIR/16-requeue.out
printf '#!/bin/bash\nexec srun --mpi=pmixev ./pmix_jobev 60\n' >"$PMIXEV_CLUSTER_WORKDIR/16-batch.sh"
chmod 755 "$PMIXEV_CLUSTER_WORKDIR/16-batch.sh"
rm -f "$log"
bjob=$(with_env SLURM_PMIXEV_WATCH_INTERVAL=1 -- sbatch --parsable -p requeue --requeue --exclusive \
	-N3 -n3 -t 5 -o "$log" ./16-batch.sh)
ready "$log"
preempt_n1
seen "$log" 'PREEMPT_ALERT left=(8|9|10) changed=0 mode=requeue ' 10 &&
	seen "$log" 'REQUEUED .*requeued' 45
ok $? "a requeueable batch job: every rank got the alert (mode requeue), then the requeue event before the kill"
wait "$high_pid"
scancel "$bjob"

# An operator requeues a running batch job.
log=$PMIXEV_CLUSTER_WORKDIR/16-scontrol.out
rm -f "$log"
bjob=$(with_env SLURM_PMIXEV_WATCH_INTERVAL=1 -- sbatch --parsable -p requeue --requeue \
	-N3 -n3 -t 5 -o "$log" ./16-batch.sh)
ready "$log"
scontrol requeue "$bjob"
seen "$log" 'REQUEUED ' 10
ok $? "scontrol requeue: every rank got the requeue event"
scancel "$bjob"
for _ in $(seq 300); do
	[ -z "$(squeue -h -o %i)" ] && break
	sleep 0.1
done
[ -z "$(squeue -h -o %i)" ]
ok $? "no job left behind"
! grep -q "PREEMPT_ALERT" "$PMIXEV_CLUSTER_WORKDIR/16-scontrol.out"
ok $? "no preemption alert where there was no preemption"

done_testing
