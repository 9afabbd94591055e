#!/usr/bin/env bash
# mpi.conf options and SLURM_PMIXEV_* overrides: valid values take effect;
# an invalid value is reported with file, key and value, no daemon crashes,
# and the affected steps are refused cleanly.
. "$(dirname "$0")/lib.sh"
plan 12

mpiconf=$(dirname "$SLURM_CONF")/mpi.conf
trap 'restore_conf "$mpiconf"; reconfigure' EXIT

# Valid values reach the stepd and are reported by scontrol.
set_conf "$mpiconf" PMIxevTimeout 42
set_conf "$mpiconf" PMIxevDebug 2
reconfigure
run_step --mpi=pmixev -N3 -n3 -t 1 true
ok $rc "step runs with PMIxevTimeout=42 PMIxevDebug=2 in mpi.conf" || diag "$out"
wait_log "$(slurmd_log n2)" "mpi/pmixev: step $job\.0 on n2: .*PMIxevDebug=2 PMIxevTimeout=42[ )]" 5
ok $? "the stepd uses the mpi.conf values"
wait_log "$(slurmd_log n2)" "mpi/pmixev: step $job\.0 on n2: task [0-9]+ \(local 0 of 1\) starting" 5
ok $? "PMIxevDebug=2 shows per-task debug lines at info level"
scontrol show config | grep -Eq '^PMIxevTimeout += 42$'
ok $? "scontrol show config shows PMIxevTimeout = 42" || scontrol show config | grep -i pmix | sed 's/^/# /' >&2

# A per-job environment override beats mpi.conf.
step_env=(SLURM_PMIXEV_TIMEOUT=7)
run_step --mpi=pmixev -N1 -n1 -t 1 true
wait_log "$(slurmd_log n1)" "mpi/pmixev: step $job\.0 on n1: .*PMIxevTimeout=7[ )]" 5
ok $? "SLURM_PMIXEV_TIMEOUT=7 in the job environment overrides mpi.conf"

# An invalid override is refused by srun with a message naming it.
step_env=(SLURM_PMIXEV_TIMEOUT=soon)
run_step --mpi=pmixev -N1 -n1 -t 1 true
# (rc 139 would be srun crashing: it calls client_fini(NULL) afterwards.)
[ "$rc" -ne 0 ] && [ "$rc" -ne 139 ] &&
	echo "$out" | grep -q "mpi/pmixev: .*SLURM_PMIXEV_TIMEOUT='soon': expected an integer in 1..86400 seconds"
ok $? "srun refuses SLURM_PMIXEV_TIMEOUT=soon with a clear message" || diag "$out"
step_env=()

# An invalid mpi.conf value: logged with file, key and value; daemons live on.
set_conf "$mpiconf" PMIxevTimeout banana
reconfigure
pattern="mpi/pmixev: $mpiconf: invalid value 'banana' for PMIxevTimeout: expected an integer in 1..86400 seconds"
wait_log "$(slurmctld_log)" "$pattern" 10
ok $? "slurmctld logs the invalid mpi.conf value with file, key and value"
wait_log "$(slurmd_log n3)" "$pattern" 10
ok $? "slurmd logs the invalid mpi.conf value with file, key and value"
scontrol ping | grep -q UP && [ "$(sinfo -h -t idle -o %D)" = 3 ]
ok $? "slurmctld and all three slurmd stay up"

run_step --mpi=pmixev -N3 -n3 -t 1 true
[ "$rc" -ne 0 ] && [ "$(echo "$out" | grep -c "^mpi/pmixev: step $job\.0 refused: invalid mpi.conf entry $mpiconf: PMIxevTimeout=banana")" -eq 3 ]
ok $? "a --mpi=pmixev step is refused while mpi.conf is invalid: srun fails (rc=$rc) and shows why, once per task" || diag "$out"
wait_log "$(slurmd_log n1)" "mpi/pmixev: step $job\.0 on n1: step refused: invalid mpi.conf entry $mpiconf: PMIxevTimeout=banana" 5
ok $? "the refusing stepd names the step, file, key and value"

restore_conf "$mpiconf"
reconfigure
trap - EXIT
run_step --mpi=pmixev -N3 -n3 -t 1 true
ok $rc "after fixing mpi.conf, --mpi=pmixev steps run again" || diag "$out"

done_testing
