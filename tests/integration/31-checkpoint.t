#!/usr/bin/env bash
# PMIX_JOB_CTRL_CHECKPOINT of the own step (jobmgmt/ckpt.h): the request
# reaches the target ranks on every node by event or by signal, and the
# requester hears back once every target completed; a rank that never
# completes makes it time out, saying how far it got; PMIX_JOB_CTRL_CANCEL
# with the request's PMIX_JOB_CTRL_ID ends it at once. PMIX_JOB_CTRL_
# PREEMPTIBLE marks the job in its Slurm comment (the user's words kept),
# as the owner, and queries answer it.
. "$(dirname "$0")/lib.sh"
plan 8

ck=$(client pmix_ckpt)
done_re="^pmix_ckpt: rank 0: checkpoint: (PMIX_)?SUCCESS"

run_step --mpi=pmixev -N3 --ntasks-per-node=2 -t 1 "$ck" c1
[ "$rc" -eq 0 ] && [ "$(lines "$done_re")" -eq 1 ] &&
	[ "$(lines "^pmix_ckpt: rank [0-5]: checkpoint c1 by event$")" -eq 6 ] &&
	[ "$(lines "^pmix_ckpt: rank [0-5]: checkpoint c1 written: (PMIX_)?SUCCESS$")" -eq 6 ] &&
	[ "$(lines "^pmix_ckpt: rank [0-5]: done$")" -eq 6 ] &&
	grep -Eq "step $job\.0 on n1: job control: checkpoint 'c1': 6 of 6 rank\(s\) completed: (PMIX_)?SUCCESS" "$(slurmd_log n1)"
ok $? "checkpoint by event: the 6 ranks on n1-n3 get PMIX_JCTRL_CHECKPOINT, and rank 0 hears SUCCESS once all completed" || show

run_step --mpi=pmixev -N3 --ntasks-per-node=2 -t 1 "$ck" --rank 4 --method --signal 12 c2
[ "$rc" -eq 0 ] && [ "$(lines "$done_re")" -eq 1 ] &&
	[ "$(lines "^pmix_ckpt: rank 4: checkpoint c2 by signal$")" -eq 1 ] &&
	[ "$(lines "^pmix_ckpt: rank [0-9]: checkpoint c2 by")" -eq 1 ] &&
	grep -Eq "step $job\.0 on n1: job control: checkpoint 'c2': 1 of 1 rank\(s\) completed: (PMIX_)?SUCCESS" "$(slurmd_log n1)"
ok $? "checkpoint by SIGUSR2 (in a PMIX_JOB_CTRL_CHECKPOINT_METHOD array) of rank 4 (on n3) only: it alone is signalled, and completes" || show

run_step --mpi=pmixev -N3 -n3 -t 1 "$ck" --silent 2 --timeout 3 c3
took=$(printf '%s\n' "$out" | sed -n 's/^pmix_ckpt: rank 0: checkpoint: .* (\([0-9.]*\) s)$/\1/p')
[ "$rc" -eq 0 ] && [ "$(lines "^pmix_ckpt: rank 0: checkpoint: (PMIX_ERR_TIMEOUT|TIMEOUT)")" -eq 1 ] &&
	grep -q "step $job\.0 on n1: job control: rank 0: checkpoint the tasks of step $job\.0: refused: 2 of 3 rank(s) completed" "$(slurmd_log n1)" &&
	[ "$(echo "${took:-0} >= 2.9 && ${took:-0} < 6" | bc)" = 1 ]
ok $? "rank 2 never completes: PMIX_ERR_TIMEOUT after the request's 3 s (${took:-?} s), with 2 of 3 completed" || show

run_step --mpi=pmixev -N3 -n3 -t 1 "$ck" --silent 1 --timeout 30 --cancel-after 2 c4
took=$(printf '%s\n' "$out" | sed -n 's/^pmix_ckpt: rank 0: checkpoint: .* (\([0-9.]*\) s)$/\1/p')
[ "$rc" -eq 0 ] && [ "$(lines "^pmix_ckpt: rank 0: cancel: (PMIX_)?SUCCESS$")" -eq 1 ] &&
	[ "$(lines "^pmix_ckpt: rank 0: checkpoint: (PMIX_ERR_JOB_CANCELED|JOB-CANCELED|.*CANCEL)")" -eq 1 ] &&
	[ "$(echo "${took:-99} < 10" | bc)" = 1 ] &&
	grep -q "step $job\.0 on n1: job control: rank 0: cancel 'req-c4': 1 request(s) in progress in the step cancelled (0 node(s) did not answer)" "$(slurmd_log n1)"
ok $? "PMIX_JOB_CTRL_CANCEL of request req-c4 ends the waiting checkpoint at once (${took:-?} s, not 30)" || show

# The cancel from rank 2 on n3, of rank 0's request on n1; then once more:
# nothing left to cancel.
run_step --mpi=pmixev -N3 -n3 -t 1 "$ck" --silent 1 --timeout 30 --cancel-after 2 --cancel-by 2 c6
took=$(printf '%s\n' "$out" | sed -n 's/^pmix_ckpt: rank 0: checkpoint: .* (\([0-9.]*\) s)$/\1/p')
[ "$rc" -eq 0 ] && [ "$(lines "^pmix_ckpt: rank 2: cancel: (PMIX_)?SUCCESS$")" -eq 1 ] &&
	[ "$(lines "^pmix_ckpt: rank 0: checkpoint: (PMIX_ERR_JOB_CANCELED|JOB-CANCELED|.*CANCEL)")" -eq 1 ] &&
	[ "$(echo "${took:-99} < 10" | bc)" = 1 ] &&
	grep -q "step $job\.0 on n3: job control: rank 2: cancel 'req-c6': 1 request(s) in progress in the step cancelled (0 node(s) did not answer)" "$(slurmd_log n3)"
a=$?
run_step --mpi=pmixev -N3 -n3 -t 1 "$ck" --rank 0 --timeout 30 --cancel-after 2 --cancel-by 2 c7
[ "$a" -eq 0 ] && [ "$(lines "^pmix_ckpt: rank 2: cancel: (NOT-FOUND|PMIX_ERR_NOT_FOUND)$")" -eq 1 ] &&
	[ "$(lines "^pmix_ckpt: rank 0: checkpoint: (PMIX_)?SUCCESS")" -eq 1 ]
ok $? "a cancel from another node (rank 2 on n3) ends rank 0's checkpoint on n1 at once (${took:-?} s); one with nothing in progress: not found" || show

# Another step's processes: not through Slurm, refused.
out=$(as_user salloc -N1 -t 1 bash -c '
	srun --overlap --mpi=pmixev -n1 sleep 20 &
	sleep 2
	srun --overlap --mpi=pmixev -n1 "$1" --timeout 2 \
		--nspace "slurm.pmixev.$SLURM_JOB_ID.0" c5 2>&1
	kill %1' _ "$ck" 2>&1)
[ "$(lines "^pmix_ckpt: rank 0: checkpoint: (PMIX_ERR_NOT_SUPPORTED|NOT-SUPPORTED)")" -eq 1 ] &&
	cat "$(slurmd_log n1)" "$(slurmd_log n2)" "$(slurmd_log n3)" |
	grep -q "job control: a request from rank 0 refused (.*): checkpoint: the own step's processes only"
ok $? "a checkpoint of another step's processes is refused with PMIX_ERR_NOT_SUPPORTED and logged" || show

jc=$(client pmix_jobctl)
qy=$(client pmix_query)
batch=$(as_user sbatch --parsable -N1 -t 3 -o /dev/null --comment "my run" --wrap "sleep 300")
for _ in $(seq 100); do
	[ "$(squeue -h -j "$batch" -t R -o %i)" = "$batch" ] && break
	sleep 0.2
done
# Its node: the first free one, n1 unless an earlier job still ends there.
bnode=$(squeue -h -j "$batch" -o %N)
# The job's comment (Slurm 24.11's slurmctld sometimes answers scontrol
# late: asked again, up to 5 times).
comment() {
	local c i
	for i in 1 2 3 4 5; do
		c=$(scontrol show job "$batch" 2>/dev/null) &&
			printf '%s\n' "$c" | grep -q '^ *Comment=' && break
		sleep 1
	done
	printf '%s\n' "$c" | sed -n 's/^ *Comment=\(.*[^ ]\) *$/\1/p'
}
# A step in the batch job; a step slurmctld lost is run once more.
in_job() {
	run_step --jobid="$batch" --overlap --mpi=pmixev -N1 -n1 "$@"
	printf '%s\n' "$out"
}
out=$(in_job "$jc" preemptible yes)
yes_comment=$(comment)
out+=$'\n'$(in_job "$qy" preemptible)
[ "$(lines "^pmix_jobctl: rank 0: preemptible: (PMIX_)?SUCCESS ")" -eq 1 ] &&
	[ "$yes_comment" = "my run pmixev:preemptible" ] &&
	[ "$(lines "^pmix_query: rank 0 on $bnode: pmix.jctrl.preempt = true$")" -eq 1 ] &&
	grep -q "job control: rank 0: preemptible on job $batch: done" "$(slurmd_log "$bnode")" &&
	grep -q "_slurm_rpc_update_job: complete JobId=$batch uid=$(id -u "$PMIXEV_TEST_USER") " "$(slurmctld_log)" &&
	! grep -q "_slurm_rpc_update_job: complete JobId=$batch uid=0 " "$(slurmctld_log)"
ok $? "PMIX_JOB_CTRL_PREEMPTIBLE: the job's comment becomes '$yes_comment' (set as the owner), and a query answers true" || show

out=$(in_job "$jc" preemptible no)
no_comment=$(comment)
out+=$'\n'$(in_job "$qy" preemptible)
[ "$(lines "^pmix_jobctl: rank 0: preemptible: (PMIX_)?SUCCESS ")" -eq 1 ] &&
	[ "$no_comment" = "my run" ] &&
	[ "$(lines "^pmix_query: rank 0 on $bnode: pmix.jctrl.preempt = false$")" -eq 1 ]
ok $? "preemptible false takes the mark off again: '$no_comment'" || show
scancel "$batch"

done_testing
