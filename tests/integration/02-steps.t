#!/usr/bin/env bash
# Steps launched through mpi/pmixev run on every node as the job user, and
# each node's slurmstepd logs the plugin (with the step id) - selected with
# --mpi=pmixev and with MpiDefault=pmixev.
. "$(dirname "$0")/lib.sh"
plan 11


# logged_on_all_nodes JOB: every node's slurmd log has the mpi and SPANK
# lines of step JOB.0.
logged_on_all_nodes() {
	local n rc=0
	for n in $PMIXEV_CLUSTER_NODES; do
		wait_log "$(slurmd_log "$n")" \
			"mpi/pmixev: step $1\.0 on $n: serving [0-9]+ of [0-9]+ task\(s\), node [0-2] of 3" 5 || rc=1
		wait_log "$(slurmd_log "$n")" \
			"spank/pmixev: step $1\.0 on $n: loaded in slurmstepd" 5 || rc=1
	done
	return $rc
}

run_step --mpi=pmixev -N3 -n6 -t 1 true
ok $rc "srun --mpi=pmixev -N3 -n6 true exits 0" || diag "$out"
[ -n "$job" ]
ok $? "srun -v reports the job id ($job)"
logged_on_all_nodes "$job"
ok $? "each node's slurmd log shows mpi/pmixev and spank/pmixev in step $job.0"

uid=$(id -u "$PMIXEV_TEST_USER")
out=$(as_user srun --mpi=pmixev -N3 -n6 -t 1 -l bash -c 'echo "$(hostname) $(id -u) $SLURM_MPI_TYPE"' 2>&1)
[ "$(echo "$out" | awk '{print $2}' | sort -u | tr '\n' ' ')" = "n1 n2 n3 " ] &&
	[ "$(echo "$out" | wc -l)" -eq 6 ]
ok $? "six tasks ran, on n1, n2 and n3" || diag "$out"
[ "$(echo "$out" | awk '{print $3}' | sort -u)" = "$uid" ]
ok $? "tasks run as the unprivileged test user (uid $uid)" || diag "$out"
[ "$(echo "$out" | awk '{print $4}' | sort -u)" = "pmixev" ]
ok $? "tasks see SLURM_MPI_TYPE=pmixev" || diag "$out"

# MpiDefault=pmixev: no --mpi needed.
trap 'restore_conf "$SLURM_CONF"; reconfigure' EXIT
set_conf "$SLURM_CONF" MpiDefault pmixev
reconfigure
run_step -N3 -n6 -t 1 true
ok $rc "with MpiDefault=pmixev, srun without --mpi exits 0" || diag "$out"
logged_on_all_nodes "$job"
ok $? "with MpiDefault=pmixev, each node's slurmstepd ran mpi/pmixev (step $job.0)"
restore_conf "$SLURM_CONF"
reconfigure
trap - EXIT

run_step -N3 -n3 -t 1 true
! grep -q "mpi/pmixev: step $job\.0" "$(slurmd_log n1)"
ok $? "after restoring MpiDefault=none, steps no longer use mpi/pmixev"

# Inside an allocation (salloc, sbatch) Slurm 23.02+'s srun puts
# SLURM_JOB_UID=0 in the step's environment; the owner comes from
# slurmstepd (through the SPANK plugin), never from that environment.
hello=$(client pmix_hello)
out=$(as_user salloc -N3 -n6 -t 1 srun --mpi=pmixev -N3 -n6 "$hello" 2>&1)
rc=$?
[ "$rc" -eq 0 ] && [ "$(lines '^pmix_hello: rank [0-5] of 6 on n[1-3]: ok$')" -eq 6 ]
ok $? "a step inside salloc wires up as the job's user (uid $uid)" || diag "$out"
alloc=$(echo "$out" | sed -n 's/^salloc: Granted job allocation \([0-9]*\).*/\1/p' | head -n1)
grep -Eq "step ${alloc:-x}\.0 on n1: serving 6 of 6 task\(s\)|step ${alloc:-x}\.0 on n1: serving [0-9]+ of 6" "$(slurmd_log n1)" &&
	! grep -q "step ${alloc:-x}\.0 on n[1-3]: .*refused" "$(slurmd_log n1)" "$(slurmd_log n2)" "$(slurmd_log n3)"
ok $? "... its stepds served it and refused nothing (job ${alloc:-?})"

done_testing
