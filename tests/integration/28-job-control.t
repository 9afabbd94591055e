#!/usr/bin/env bash
# PMIx_Job_control carried out by slurmctld with the job owner's rights
# (jobmgmt/jobctl.h): a signal to every rank of the own step on three nodes,
# to one rank, pause and resume of one rank, the kill of one rank (by the
# stepds: jobmgmt/tasksig.h),
# the kill of another step of the same job, its pause and resume (SIGSTOP,
# SIGCONT through Slurm), the cancel of another job of
# the owner, the requeue of a batch job (and Slurm's refusal for a job
# that is not one); another user's step is refused
# everything against the owner's job, which runs on untouched; with
# slurmctld down a request with PMIX_TIMEOUT fails cleanly in time; a
# node lost while the stepds resume every rank ends the request at once.
. "$(dirname "$0")/lib.sh"
plan 14

jc=$(client pmix_jobctl)
q="^pmix_jobctl: rank [0-9]+"

run_step --mpi=pmixev -N3 -n3 -t 1 "$jc" --linger 20 signal 10
[ "$rc" -eq 0 ] && [ "$(lines "^pmix_jobctl: rank 0: signal: (SUCCESS|PMIX_SUCCESS) ")" -eq 1 ] &&
	[ "$(lines "$q got signal 10$")" -eq 3 ] &&
	grep -q "step $job\.0 on n1: job control: rank 0: signal step $job\.0: done" "$(slurmd_log n1)" &&
	grep -q "step $job\.0 on n1: job control: 1 request(s) carried out through slurmctld, 0 of them refused or failed" "$(slurmd_log n1)"
ok $? "rank 0 signals its step: SIGUSR1 reaches every rank on n1-n3 through Slurm; the stepd logs it and sums it up" || show

# Asked from n3 (its stepd's helper asks slurmctld): TERMINATE, SIGTERM.
run_step --mpi=pmixev -N3 -n3 -t 1 "$jc" --by 2 --linger 20 term
[ "$(lines "^pmix_jobctl: rank 2: term: (SUCCESS|PMIX_SUCCESS) ")" -eq 1 ] &&
	[ "$(lines "$q got signal 15$")" -eq 3 ] && [ "$(lines "$q: done$")" -eq 3 ] &&
	grep -q "step $job\.0 on n3: job control: rank 2: terminate step $job\.0: done" "$(slurmd_log n3)"
ok $? "rank 2 on n3 terminates its step: SIGTERM reaches every rank on n1-n3 through Slurm, asked and logged by n3's stepd" || show

run_step --mpi=pmixev -N3 -n3 -t 1 "$jc" --rank 1 --linger 3 signal 10
[ "$(lines "^pmix_jobctl: rank 0: signal: (SUCCESS|PMIX_SUCCESS) ")" -eq 1 ] &&
	[ "$(lines "^pmix_jobctl: rank 1 got signal 10$")" -eq 1 ] &&
	[ "$(lines "$q got signal")" -eq 1 ] &&
	grep -q "step $job\.0 on n1: job control: rank 0: signal rank 1: done" "$(slurmd_log n1)"
ok $? "a single rank as target: SIGUSR1 reaches rank 1 on n2 only (its stepd signals it), logged" || show

run_step --mpi=pmixev -N3 -n3 -t 1 "$jc" --rank 1 --linger 5 pause 2
stall() { printf '%s\n' "$out" | sed -n "s/^pmix_jobctl: rank $1: longest stall \([0-9.]*\) s$/\1/p"; }
[ "$(lines "^pmix_jobctl: rank 0: pause: (SUCCESS|PMIX_SUCCESS) ")" -eq 1 ] &&
	[ "$(lines "^pmix_jobctl: rank 0: resume: (SUCCESS|PMIX_SUCCESS)$")" -eq 1 ] &&
	[ "$(lines "$q: done$")" -eq 3 ] &&
	[ "$(echo "$(stall 1) >= 1.5" | bc)" = 1 ] && [ "$(echo "$(stall 2) < 1.0" | bc)" = 1 ] &&
	grep -q "step $job\.0 on n1: job control: rank 0: pause rank 1: done" "$(slurmd_log n1)"
ok $? "PMIX_JOB_CTRL_PAUSE stops rank 1 (stalled $(stall 1) s), RESUME 2 s later lets it go on; rank 2 ran on ($(stall 2) s)" || show

run_step --mpi=pmixev -N3 -n3 -t 1 "$jc" --rank 2 --linger 3 kill
[ "$(lines "^pmix_jobctl: rank 0: kill: (SUCCESS|PMIX_SUCCESS) ")" -eq 1 ] &&
	[ "$(lines "^pmix_jobctl: rank [01]: done$")" -eq 2 ] && [ "$(lines "^pmix_jobctl: rank 2: done$")" -eq 0 ]
ok $? "PMIX_JOB_CTRL_KILL of rank 2 (on n3): it ends at once, ranks 0 and 1 finish" || show

# two_steps LINGER NODE ACTION...: in an allocation of n1-n3, step 0 (3
# ranks, lingering LINGER s) and, once its ranks are up, step 1 on NODE
# asking ACTION of step 0; $out: step 1's output, "step 0 ended N s
# later", "ranks done: N" and step 0's output prefixed "step 0: ".
two_steps() {
	out=$(as_user salloc -N3 -t 2 bash -c '
	linger=$1 node=$2 jc=$3
	shift 3
	: >step0.out # not the last call'"'"'s "up" lines
	srun --overlap --mpi=pmixev -N3 -n3 "$jc" --linger "$linger" none >step0.out 2>&1 &
	s0=$!
	for t in $(seq 60); do
		[ "$(grep -c ": up$" step0.out)" -eq 3 ] && break
		sleep 0.5
	done
	srun --overlap --mpi=pmixev -N1 -n1 -w "$node" "$jc" --nspace "slurm.pmixev.$SLURM_JOB_ID.0" "$@"
	start=$(date +%s)
	wait "$s0"
	echo "step 0 ended $(($(date +%s) - start)) s later"
	echo "ranks done: $(grep -c ": done$" step0.out)"
	sed "s/^/step 0: /" step0.out' _ "$1" "$2" "$jc" "${@:3}" 2>&1)
}

# Another step of the same job: step 1 kills step 0.
two_steps 60 n1 kill
[ "$(lines "^pmix_jobctl: rank 0: kill: (SUCCESS|PMIX_SUCCESS) ")" -eq 1 ] &&
	[ "$(lines "^step 0 ended [0-9] s later$")" -eq 1 ] &&
	[ "$(lines "^ranks done: 0$")" -eq 1 ]
ok $? "a step kills another step of its job: it ends at once, none of its ranks finishes" || show

# Another step of the same job paused (through Slurm: SIGSTOP) and resumed.
two_steps 8 n1 pause 2
stalls=$(printf '%s\n' "$out" | sed -n 's/^step 0: pmix_jobctl: rank [0-9]: longest stall \([0-9.]*\) s$/\1/p' | tr '\n' ' ' | sed 's/ $//')
[ "$(lines "^pmix_jobctl: rank 0: pause: (SUCCESS|PMIX_SUCCESS) ")" -eq 1 ] &&
	[ "$(lines "^pmix_jobctl: rank 0: resume: (SUCCESS|PMIX_SUCCESS)$")" -eq 1 ] &&
	[ "$(for s in $stalls; do echo "$s >= 1.5" | bc; done | grep -c 1)" -eq 3 ]
ok $? "a step pauses another step of its job (SIGSTOP through Slurm) and resumes it 2 s later: its 3 ranks stalled ($stalls s)" || show

# Another step of the same job signalled (through Slurm: SIGUSR2).
two_steps 30 n2 signal 12
[ "$(lines "^pmix_jobctl: rank 0: signal: (SUCCESS|PMIX_SUCCESS) ")" -eq 1 ] &&
	[ "$(lines "^step 0: pmix_jobctl: rank [0-2] got signal 12$")" -eq 3 ] &&
	[ "$(lines "^ranks done: 3$")" -eq 1 ]
ok $? "a step on n2 signals another step of its job: SIGUSR2 reaches its 3 ranks, which go on and finish" || show

# Another job of the owner, cancelled; a batch job requeued.
other=$(as_user sbatch --parsable -N1 -t 3 -o /dev/null --wrap "sleep 300")
batch=$(as_user sbatch --parsable -N1 -t 3 -o /dev/null --requeue --wrap "sleep 300")
for _ in $(seq 100); do
	[ "$(squeue -h -j "$other,$batch" -t R -o %i | wc -l)" -eq 2 ] && break
	sleep 0.2
done
run_step --mpi=pmixev -N1 -n1 -t 1 "$jc" --nspace "$other" kill
# Slurm 24.11 shows it COMPLETING until its node's slurmd is done.
for _ in $(seq 50); do
	state=$(scontrol show job "$other" | grep -o 'JobState=[A-Z]*')
	[ "$state" = JobState=COMPLETING ] || break
	sleep 0.2
done
[ "$(lines "^pmix_jobctl: rank 0: kill: (SUCCESS|PMIX_SUCCESS) ")" -eq 1 ] &&
	[ "$state" = JobState=CANCELLED ]
ok $? "a step cancels another job of its owner ($state)" || show

run_step --mpi=pmixev -N1 -n1 -t 1 "$jc" --nspace "$batch" restart
for _ in $(seq 50); do
	restarts=$(scontrol show job "$batch" | grep -o 'Restarts=[0-9]*')
	[ "$restarts" = Restarts=1 ] && break
	sleep 0.2
done
# (Slurm 24.11's slurmctld now and then answers a requeue after srun's
# MessageTimeout, having carried it out: then the request is unreachable.)
[ "$(lines "^pmix_jobctl: rank 0: restart: (SUCCESS|PMIX_SUCCESS|PMIX_ERR_UNREACH|UNREACHABLE) ")" -eq 1 ] &&
	[ "$restarts" = Restarts=1 ]
ok $? "PMIX_JOB_CTRL_RESTART requeues a batch job of the owner ($restarts; $(lines "restart: (SUCCESS|PMIX_SUCCESS) ") answered in time)" ||
	show

run_step --mpi=pmixev -N1 -n1 -w n1 -t 1 "$jc" restart
if [ "$(lines "^pmix_jobctl: rank 0: restart: (PMIX_ERR_UNREACH|UNREACHABLE) ")" -eq 1 ]; then
	# A busy slurmctld (Slurm 24.11 on 2 cores) timed out: said, once more.
	diag "slurmctld did not answer the requeue in time; once more"
	run_step --mpi=pmixev -N1 -n1 -w n1 -t 1 "$jc" restart
fi
[ "$(lines "^pmix_jobctl: rank 0: restart: (NOT-SUPPORTED|PMIX_ERR_NOT_SUPPORTED) ")" -eq 1 ] &&
	grep -q "step $job\.0 on n1: job control: rank 0: restart (requeue) job $job: refused: Only batch jobs" "$(slurmd_log n1)"
ok $? "... but Slurm refuses to requeue an srun job: not supported, with Slurm's reason in the log" || show

# Another user against the owner's running job (a step: sleep 299).
victim=$(as_user sbatch --parsable -N1 -t 3 -o /dev/null --wrap "srun sleep 299")
for _ in $(seq 100); do
	[ "$(squeue -h -s -j "$victim" -o %i | grep -c "^$victim\.0$")" -eq 1 ] && break
	sleep 0.2
done
other_step --mpi=pmixev -N1 -n1 -t 1 "$jc" --nspace "$victim" \
	kill term signal 10 restart pause preemptible yes
refused=$(lines "^pmix_jobctl: rank 0: [a-z]+: (NO-PERMISSIONS|PMIX_ERR_NO_PERMISSIONS) ")
stopped=$(ps -eo stat=,args= | grep -c '^T.* sleep 299$')
# (Slurm 24.11 refuses the comment update for preemptible with "Invalid
# user id")
[ "$refused" -eq 6 ] &&
	[ "$(cat "$PMIXEV_CLUSTER_DIR/log/slurmd-"*.log | grep -Ec "job control: rank 0: .* job $victim: refused: (Access/permission denied|Invalid user id)")" -ge 6 ] &&
	[ "$(scontrol show job "$victim" | grep -o 'JobState=[A-Z]*')" = JobState=RUNNING ] &&
	[ "$(scontrol show job "$victim" | grep -o 'Restarts=[0-9]*')" = Restarts=0 ] &&
	! scontrol show job "$victim" | grep -q 'pmixev:preemptible' &&
	[ "$(squeue -h -s -j "$victim" -o %i | grep -c "^$victim\.0$")" -eq 1 ] && [ "$stopped" -eq 0 ]
ok $? "another user's step: kill, terminate, signal, requeue, pause and preemptible of the owner's job refused by Slurm (PMIX_ERR_NO_PERMISSIONS: $refused of 6, logged with Slurm's reason); it runs on, its step neither ended nor stopped ($stopped stopped)" ||
	show
scancel "$other" "$batch" "$victim"

# n3's stepd frozen (SIGSTOP) just before rank 0 resumes every rank of
# the step (the stepds signal them) with PMIX_TIMEOUT 30: heartbeats every
# 1 s declare n3 lost some 4 s later, and the request, which waits on n3,
# ends then (n1's and n2's ranks resumed, n3's not: partial success), not
# at its timeout.
gate=$PMIXEV_CLUSTER_WORKDIR/28-lost-gate
log=$PMIXEV_CLUSTER_WORKDIR/28-lost.out
rm -f "$gate"
step_env=(SLURM_PMIXEV_HEARTBEAT=1000)
start_step "$log" n3 "overlay: connected" --mpi=pmixev -N3 -n3 -t 2 \
	"$jc" --gate "$gate" --timeout 30 --linger 60 resume
step_env=()
for _ in $(seq 300); do
	[ "$(grep -c '^pmix_jobctl: rank [0-2]: up$' "$log")" -eq 3 ] && break
	sleep 0.1
done
stepd=$(stepd_pid n3)
[ -n "$stepd" ] && kill -STOP "$stepd"
touch "$gate"
for _ in $(seq 400); do
	grep -q '^pmix_jobctl: rank 0: resume: ' "$log" && break
	sleep 0.1
done
out=$(cat "$log")
took=$(printf '%s\n' "$out" | sed -n 's/^pmix_jobctl: rank 0: resume: .* (\([0-9.]*\) s)$/\1/p')
[ "$(lines '^pmix_jobctl: rank 0: resume: (PMIX_ERR_PARTIAL_SUCCESS|PARTIAL[ -]SUCCESS) ')" -eq 1 ] &&
	[ "$(echo "${took:-99} < 10" | bc)" = 1 ] &&
	grep -q "step $job\.0 on n1: job control: rank 0: resume the tasks of step $job\.0: refused: 2 task(s) signalled, 1 not: No route to host" "$(slurmd_log n1)"
ok $? "n3 lost while rank 0 resumes every rank: partial success ${took:-?} s later, once n3 is declared lost, not at PMIX_TIMEOUT 30 s" ||
	{ show; grep "step $job\.0 on n1: job control" "$(slurmd_log n1)" | sed 's/^/#   /' >&2; }
[ -n "$stepd" ] && kill -9 "$stepd"
scancel "$job" 2>/dev/null
wait "$srun_pid" 2>/dev/null
for _ in $(seq 200); do
	[ "$(sinfo -h -t idle -o %D)" = 3 ] && break
	sleep 0.1
done

# slurmctld down: PMIX_TIMEOUT=1 bounds each wait. The owner helper spends
# about 4 s on the kill (libslurm retries the connection); the requests
# behind it have timed out for the caller by the time the helper gets to
# them, and are not sent to slurmctld at all. slurmctld comes back once
# the rank has its 4 answers and the stepd has logged what became of the
# 4 requests, while the rank lingers: a step that ends with slurmctld
# down has its completion retried by the stepd only 60 s later.
flag=$PMIXEV_CLUSTER_WORKDIR/28-ctld-down
log=$PMIXEV_CLUSTER_WORKDIR/28-ctld-down.out
rm -f "$flag"
start_step "$log" n1 "serving" --mpi=pmixev -N1 -n1 -w n1 -t 2 \
	bash -c 'while [ ! -e "$1" ]; do sleep 0.1; done; shift; exec "$@"' \
	_ "$flag" "$jc" --timeout 1 --linger 30 --nspace "$victim" kill restart preemptible yes signal 10
bash "$CLUSTER" ctld stop >/dev/null
touch "$flag"
for _ in $(seq 300); do
	[ "$(grep -Ec '^pmix_jobctl: rank 0: (kill|restart|preemptible|signal): ' "$log")" -ge 4 ] &&
		[ "$(grep -Ec "step $job\.0 on n1: job control: rank 0: (kill|restart \(requeue\)|preemptible on|signal) job $victim: " "$(slurmd_log n1)")" -ge 4 ] &&
		break
	sleep 0.1
done
ctld_back "$job"
wait "$srun_pid"
out=$(cat "$log")
late=$(grep -c "step $job\.0 on n1: job control: rank 0: .* job $victim: refused: not sent: its PMIX_TIMEOUT passed" "$(slurmd_log n1)")
[ "$(lines "^pmix_jobctl: rank 0: (kill|restart|preemptible|signal): (TIMEOUT|PMIX_ERR_TIMEOUT|UNREACHABLE|PMIX_ERR_UNREACH|ERROR|PMIX_ERROR) \([01]\.[0-9] s\)$")" -eq 4 ] &&
	[ "$late" -ge 1 ]
ok $? "slurmctld down: kill, restart, preemptible and signal each fail cleanly within their PMIX_TIMEOUT of 1 s; $late of the requests behind the kill were never sent" ||
	{ show; grep "step $job\.0 on n1: job control" "$(slurmd_log n1)" | sed 's/^/#   /' >&2; }

done_testing
