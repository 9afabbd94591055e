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
echo "== demo: a PMIx program wires up across n1, n2, n3 through --mpi=pmixev"
echo "   (srun --mpi=pmixev -N3 -n6 pmix_hello, as user $PMIXEV_TEST_USER)"
install -m 0755 "$PMIXEV_BUILDDIR/tests/clients/pmix_hello" \
	"$PMIXEV_CLUSTER_WORKDIR/pmix_hello"
runuser -u "$PMIXEV_TEST_USER" -- env SLURM_CONF="$SLURM_CONF" \
	bash -c 'cd "$1" && srun --mpi=pmixev -N3 -n6 -t 2 ./pmix_hello' \
	_ "$PMIXEV_CLUSTER_WORKDIR" | sort -t' ' -k3n
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
