#!/usr/bin/env bash
# PMIx_Allocation_request carried out by slurmctld with the job owner's
# rights (jobmgmt/alloc.h): a new job of one node granted (its id is the
# owner's running job in squeue, cancelled when the step ends); a new
# job Slurm cannot grant (4 nodes of 3) refused or ended at its
# PMIX_TIMEOUT; one that cannot run now (every node taken) ended at its
# PMIX_TIMEOUT, cancelled; one node of the own job released (the
# job shrinks); EXTEND refused with the reason; a fabric key refused by
# name; another user cannot release nodes of the owner's job; a job that
# turns allocation requests and spawns off (SLURM_PMIXEV_ALLOC=no,
# SLURM_PMIXEV_SPAWN=no) has them refused.
. "$(dirname "$0")/lib.sh"
plan 13

al=$(client pmix_alloc)
st() { lines "^pmix_alloc: $1: [A-Z_ -]+ \[$2\] "; }
# OpenPMIx 4.2 and 5.0 clients drop an answer's data unless it is a
# success: a refusal's reason is read in the slurmd logs.
said() { cat "$PMIXEV_CLUSTER_DIR/log/slurmd-"*.log | grep -Eq -- "$1"; }

# in_alloc SALLOC_ARGS -- PMIX_ALLOC_ARGS: a one-rank step on the first
# node of a new allocation (an argument LAST: the allocation's last node);
# $out: "last NODE", the step's output, then "job J" and the job's nodes
# after the step ("after: NumNodes=N").
in_alloc() {
	local -a sa=()
	while [ "$1" != "--" ]; do sa+=("$1"); shift; done
	shift
	out=$(as_user salloc "${sa[@]}" -t 3 bash -c '
		last=$(scontrol show hostnames "$SLURM_JOB_NODELIST" | tail -n1)
		args=()
		for a in "$@"; do [ "$a" = LAST ] && a=$last; args+=("$a"); done
		echo "last $last"
		srun -N1 -n1 --mpi=pmixev "${args[@]}" 2>&1
		echo "job $SLURM_JOB_ID"
		echo "after: $(scontrol show job "$SLURM_JOB_ID" | grep -o "NumNodes=[0-9]*")"
	' bash "$al" "$@" 2>&1)
	job=$(printf '%s\n' "$out" | sed -n 's/^job \([0-9]*\)$/\1/p')
}

gone() { # gone JOB: neither pending nor running within 15 s
	for _ in $(seq 75); do
		[ -z "$(squeue -h -j "$1" -t PD,R,CG -o %i 2>/dev/null)" ] && return 0
		sleep 0.2
	done
	return 1
}

in_alloc -N2 -- --timeout 30 --reqid r1 new nodes 1 time 120
new=$(printf '%s\n' "$out" | sed -n 's/^pmix_alloc: id \([0-9]*\)$/\1/p')
[ "$(st new 0)" -eq 1 ] && [ -n "$new" ] && [ "$new" != "$job" ] &&
	[ "$(lines "^pmix_alloc: squeue: $new $PMIXEV_TEST_USER RUNNING 1$")" -eq 1 ] &&
	[ "$(lines '^pmix_alloc: nnodes 1$')" -eq 1 ] && [ "$(lines '^pmix_alloc: reqid r1$')" -eq 1 ] &&
	[ "$(lines '^pmix_alloc: time (120|2:00)$')" -eq 1 ] && gone "$new" &&
	said "allocation: step $job\.0 rank 0: new: done \(job $new"
ok $? "NEW of 1 node: job ${new:-?} runs as the owner's (squeue), answered with its id, nodes and time, cancelled when the step ends" || show

# Slurm 24.11 refuses 4 nodes of a 3-node partition at once; 22.05
# (EnforcePartLimits=NO by default there) keeps the job pending.
in_alloc -N1 -- --timeout 5 new nodes 4
t=$(printf '%s\n' "$out" | sed -n 's/^pmix_alloc: new: .* (\([0-9.]*\) s)$/\1/p')
log="step $job\.0 on n[1-3]: allocation: step $job\.0 rank 0: new refused"
{ { [ "$(st new -188)" -eq 1 ] && said "$log \(PMIx status -188\): Slurm refused the allocation: [A-Za-z]"; } ||
	{ [ "$(st new -24)" -eq 1 ] && [ "$(echo "${t:-0} >= 4.5 && ${t:-0} < 9" | bc)" = 1 ] &&
		said "$log \(PMIx status -24\): job [0-9]+ did not start within the request.s timeout \(cancelled\)"; }; } &&
	[ -z "$(squeue -h -u "$PMIXEV_TEST_USER" -n "$job.pmixev-alloc" -t PD,R -o %i)" ]
ok $? "NEW of 4 nodes (the cluster has 3): refused by Slurm (PMIX_ERR_JOB_ALLOC_FAILED) or, kept pending, PMIX_ERR_TIMEOUT at its PMIX_TIMEOUT of 5 s (${t:-?} s); logged with the cause, no job left" || show

in_alloc -N3 --exclusive -- --timeout 5 new nodes 1
t=$(printf '%s\n' "$out" | sed -n 's/^pmix_alloc: new: .* (\([0-9.]*\) s)$/\1/p')
[ "$(st new -24)" -eq 1 ] && [ "$(echo "${t:-0} >= 4.5 && ${t:-0} < 9" | bc)" = 1 ] &&
	said "allocation: step $job\.0 rank 0: new refused \(PMIx status -24\): job [0-9]+ did not start within the request.s timeout \(cancelled\)" &&
	[ -z "$(squeue -h -u "$PMIXEV_TEST_USER" -n "$job.pmixev-alloc" -t PD,R -o %i)" ]
ok $? "NEW while every node is taken: PMIX_ERR_TIMEOUT after its PMIX_TIMEOUT of 5 s (${t:-?} s), logged with the cause, the job cancelled" || show

# The same request cancelled by its id from rank 1 on another node
# (PMIx_Job_control's PMIX_JOB_CTRL_CANCEL): rank 0's request ends at once.
# shellcheck disable=SC2016 # expanded by the job's shell
out=$(as_user salloc -N3 --exclusive -t 3 bash -c '
	echo "job $SLURM_JOB_ID"
	srun -N2 -n2 --mpi=pmixev "$0" --timeout 30 --reqid wanted --cancel-after 2 new nodes 1 2>&1
' "$al" 2>&1)
job=$(printf '%s\n' "$out" | sed -n 's/^job \([0-9]*\)$/\1/p')
t=$(printf '%s\n' "$out" | sed -n 's/^pmix_alloc: new: .* (\([0-9.]*\) s)$/\1/p')
[ "$(st new -180)" -eq 1 ] && [ "$(echo "${t:-99} >= 1.5 && ${t:-99} < 10" | bc)" = 1 ] &&
	[ "$(lines '^pmix_alloc: rank 1: cancel: [A-Z_ -]+ \[0\]$')" -eq 1 ] &&
	said "allocation: step $job\.0 rank 0: new refused \(PMIx status -180\): cancelled: its PMIX_ALLOC_REQ_ID was cancelled" &&
	[ -z "$(squeue -h -u "$PMIXEV_TEST_USER" -n "$job.pmixev-alloc" -t PD,R -o %i)" ]
ok $? "NEW cancelled by PMIx_Job_control(PMIX_JOB_CTRL_CANCEL, its PMIX_ALLOC_REQ_ID) from rank 1 on another node: PMIX_ERR_JOB_CANCELED after ${t:-?} s, not 30; the job cancelled" || show

in_alloc -N2 -- --timeout 30 release nodes 1
[ "$(st release 0)" -eq 1 ] && [ "$(lines '^after: NumNodes=1$')" -eq 1 ] &&
	[ "$(lines '^pmix_alloc: nnodes 1$')" -eq 1 ] &&
	grep -q "allocation: step $job\.0 rank 0: release: done (job $job" "$(slurmd_log n1)"
ok $? "RELEASE of 1 node of the own 2-node job: the job shrinks to 1 node (scontrol), the step's node kept" || show

in_alloc -N2 -- --timeout 30 release list LAST
last=$(printf '%s\n' "$out" | sed -n 's/^last //p')
t=$(printf '%s\n' "$out" | sed -n 's/^pmix_alloc: release: .* (\([0-9.]*\) s)$/\1/p')
[ "$(st release 0)" -eq 1 ] && [ "$(lines "^pmix_alloc: rank 0: node-offline $last$")" -eq 1 ] &&
	[ "$(lines "^pmix_alloc: nodes $last$")" -eq 1 ] && [ "$(lines '^after: NumNodes=1$')" -eq 1 ] &&
	[ "$(echo "${t:-0} >= 2" | bc)" = 1 ]
ok $? "RELEASE of node $last by name: rank 0 gets PMIX_EVENT_NODE_OFFLINE for it, then after the grace (${t:-?} s) the job shrinks to 1 node" || show

run_step --mpi=pmixev -N1 -n1 -t 1 "$al" extend time 60
[ "$(st extend -47)" -eq 1 ] &&
	said "allocation: step $job\.0 rank 0: extend refused \(PMIx status -47\): Slurm lets only operators extend a running job$"
ok $? "EXTEND refused: PMIX_ERR_NOT_SUPPORTED, Slurm lets only operators extend a running job" || show

# A site that names a command (PMIxevAllocExtendCmd) lets it decide: it
# runs as the job owner with the job, the minutes and the nodes asked.
mpiconf=$(dirname "$SLURM_CONF")/mpi.conf
ext=$PMIXEV_CLUSTER_WORKDIR/extend-cmd
extlog=$PMIXEV_CLUSTER_WORKDIR/extend.log
rm -f "$extlog"
cat >"$ext" <<EOS
#!/bin/sh
echo "\$(id -un) \$*" >>"$extlog"
[ "\$2" -le 5 ] || { echo "at most 5 minutes more here"; exit 1; }
EOS
chmod 0755 "$ext"
set_conf "$mpiconf" PMIxevAllocExtendCmd "$ext"
reconfigure
run_step --mpi=pmixev -N1 -n1 -t 1 "$al" extend time 120
granted=$job
run_step --mpi=pmixev -N1 -n1 -t 1 "$al" extend time 3600
restore_conf "$mpiconf"
reconfigure
[ "$(grep -c "^$PMIXEV_TEST_USER $granted 2 0$" "$extlog" 2>/dev/null)" -eq 1 ] &&
	said "allocation: step $granted\.0 rank 0: extend: done \(job $granted"
ok $? "PMIxevAllocExtendCmd: the site's command runs as the owner ($(head -n1 "$extlog" 2>/dev/null)) and grants 2 minutes more" || show
[ "$(st extend -188)" -eq 1 ] &&
	said "allocation: step $job\.0 rank 0: extend refused \(PMIx status -188\): the site's command refused to extend job $job: $ext exited with 1: at most 5 minutes more here$"
ok $? "... and refuses 60 minutes with its own words (PMIX_ERR_JOB_ALLOC_FAILED)" || show

run_step --mpi=pmixev -N1 -n1 -t 1 "$al" new nodes 1 key pmix.alloc.net
[ "$(st new -47)" -eq 1 ] &&
	said "allocation: step $job\.0: a request from rank 0 refused \([A-Z_-]+\): pmix\.alloc\.net is not supported under Slurm$" &&
	[ -z "$(squeue -h -u "$PMIXEV_TEST_USER" -n "$job.pmixev-alloc" -o %i)" ]
ok $? "a fabric request (PMIX_ALLOC_FABRIC) refused by name, nothing asked of Slurm" || show

# A job turns the dynamic services off (PMIxevAlloc, PMIxevSpawn): root
# refuses each request, says so in the log, and asks nothing of Slurm.
step_env=(SLURM_PMIXEV_ALLOC=no)
run_step --mpi=pmixev -N1 -n1 -t 1 "$al" new nodes 1
step_env=()
[ "$(st new -47)" -eq 1 ] &&
	said "allocation: step $job\.0 rank 0: new refused \(PMIx status -47\): allocation requests are turned off for this step \(PMIxevAlloc=no\)$" &&
	[ -z "$(squeue -h -u "$PMIXEV_TEST_USER" -n "$job.pmixev-alloc" -o %i)" ]
ok $? "SLURM_PMIXEV_ALLOC=no: a NEW request is refused (PMIX_ERR_NOT_SUPPORTED), logged, no job made" || show
sp=$(client pmix_spawn)
step_env=(SLURM_PMIXEV_SPAWN=no)
run_step --mpi=pmixev -N1 -n1 -t 1 "$(client pmix_query)" spawn
noq=$(lines "^pmix_query: rank 0 on n1: pmix\.qry\.spawn = ''$")
run_step --mpi=pmixev -N1 -n1 -t 1 "$sp" --n 1 -- /bin/true
step_env=()
[ "$noq" -eq 1 ] &&
	[ "$(lines '^pmix_spawn: rank 0: spawn failed: (NOT-SUPPORTED|PMIX_ERR_NOT_SUPPORTED)$')" -eq 1 ] &&
	said "spawn: step $job\.0 rank 0 asks for a spawn: refused, PMIxevSpawn is no$"
ok $? "SLURM_PMIXEV_SPAWN=no: PMIX_QUERY_SPAWN_SUPPORT answers '', a spawn is refused (PMIX_ERR_NOT_SUPPORTED) before srun is asked, logged" || show

victim=$(as_user sbatch --parsable -N2 -t 3 -o /dev/null --wrap "sleep 300")
for _ in $(seq 100); do
	[ "$(squeue -h -j "$victim" -o %T)" = RUNNING ] && break
	sleep 0.2
done
other_step -v --mpi=pmixev -N1 -n1 -t 1 "$al" --id "$victim" release nodes 1
job=$(echo "$out" | sed -n 's/^srun: jobid \([0-9]*\):.*/\1/p' | head -n1)
[ "$(st release -23)" -eq 1 ] &&
	said "allocation: step $job\.0 rank 0: release refused \(PMIx status -23\): Slurm refused to release nodes of job $victim: (Access/permission denied|Invalid user id)" &&
	[ "$(scontrol show job "$victim" | grep -o 'NumNodes=[0-9]*')" = NumNodes=2 ] &&
	[ "$(squeue -h -j "$victim" -o %T)" = RUNNING ]
ok $? "another user's RELEASE of the owner's job: PMIX_ERR_NO_PERMISSIONS with Slurm's reason; the job keeps its 2 nodes and runs on" || show
scancel "$victim"
