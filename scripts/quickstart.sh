#!/usr/bin/env bash
# quickstart.sh - README command 1: install what is missing, build, start
# the local 3-node Slurm cluster, and run a demo job through --mpi=pmixev.
# The cluster keeps running; stop it with: tests/cluster/cluster.sh stop
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
export PMIXEV_BUILDDIR=$src/build
cluster=$src/tests/cluster/cluster.sh

bash "$src/scripts/install-deps.sh"
bash "$src/scripts/build.sh" "$PMIXEV_BUILDDIR"
bash "$cluster" start
eval "$(bash "$cluster" env)"

echo
echo "== demo: srun --mpi=pmixev -N3 -n6 (as user $PMIXEV_TEST_USER)"
runuser -u "$PMIXEV_TEST_USER" -- env SLURM_CONF="$SLURM_CONF" \
	bash -c 'cd "$1" && srun --mpi=pmixev -N3 -n6 -t 2 -l \
		bash -c "echo \"rank \$SLURM_PROCID of \$SLURM_NTASKS on \$(hostname) (job \$SLURM_JOB_ID, mpi=\$SLURM_MPI_TYPE)\""' \
	_ "$PMIXEV_CLUSTER_WORKDIR" | sort -n
job=$(squeue -h -t all -u "$PMIXEV_TEST_USER" -o %i --sort=-i | head -n1)
echo
echo "== what mpi/pmixev logged in each node's slurmstepd (job $job)"
for n in $PMIXEV_CLUSTER_NODES; do
	grep -h "mpi/pmixev: step $job\.0 on $n:" \
		"$PMIXEV_CLUSTER_DIR/log/slurmd-$n.log" | tail -n1
done
cat <<EOT

The cluster is still running. To use it:
  eval "\$(bash $cluster env)"; runuser -u \$PMIXEV_TEST_USER -- env SLURM_CONF=\$SLURM_CONF srun --mpi=pmixev -N3 hostname
Stop it with: bash $cluster stop
EOT
