#!/usr/bin/env bash
# The plugins load where Slurm loads them: srun lists mpi/pmixev; the SPANK
# plugin loads in srun, sbatch and salloc; both load in slurmctld/slurmd
# without errors.
. "$(dirname "$0")/lib.sh"
plan 6

out=$(as_user srun --mpi=list 2>&1)
echo "$out" | grep -Eqx '[[:space:]]*pmixev'
ok $? "srun --mpi=list lists pmixev" || diag "$out"

echo "$out" | grep -Eqx '[[:space:]]*pmix'
ok $? "srun --mpi=list still lists the stock pmix plugin"

out=$(as_user srun -v -N1 -t 1 true 2>&1)
echo "$out" | grep -q 'spank/pmixev: loaded'
ok $? "SPANK plugin loads in srun" || diag "$out"

out=$(as_user sbatch -v -N1 -t 1 --wrap true 2>&1)
echo "$out" | grep -q 'spank/pmixev: loaded'
ok $? "SPANK plugin loads in sbatch" || diag "$out"

out=$(as_user salloc -v -N1 -t 1 true 2>&1)
echo "$out" | grep -q 'spank/pmixev: loaded'
ok $? "SPANK plugin loads in salloc" || diag "$out"

bad=$(grep -h -iE 'pmixev' "$(slurmctld_log)" "$PMIXEV_CLUSTER_DIR"/log/slurmd-*.log |
	grep -iE 'plugin_load|incompatible|undefined symbol|load specified plugin|dlopen|spank.*fail' ||
	true)
[ -z "$bad" ]
ok $? "no plugin load errors in slurmctld and slurmd logs" || diag "$bad"

done_testing
