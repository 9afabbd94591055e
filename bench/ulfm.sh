#!/usr/bin/env bash
# bench/ulfm.sh [--trials N] [--out FILE] - fault-tolerant Open MPI (ULFM)
# recovering from a killed rank under srun: mpi/pmixev beside Slurm's stock
# mpi/pmix, in the same run.
#
# On its own test cluster (PMIXEV_BENCH_CLUSTER_ID, default 8), N times
# (default 15) on 2 nodes (-n4) and on 3 nodes (-n6), 2 ranks per node:
# srun --no-kill -K0 mpi_ulfm LAST (tests/clients/mpi_ulfm.c) with the
# Open MPI settings of ulfm_step_env (tests/integration/lib.sh). The last
# rank SIGKILLs itself inside an MPI_Allreduce loop; a trial counts as
# recovered when every survivor saw the failure, revoked, shrank and
# completed an allreduce on the shrunk communicator. The figure is the time
# from the kill to the last survivor's allreduce on the shrunk
# communicator. Needs an Open MPI with ULFM (Debian 13's): on Debian 12 run
# it through scripts/newer-slurm.sh --bench ulfm.sh.
set -euo pipefail

TRIALS=15 BENCH_CLUSTER=8
# shellcheck source=bench/trials.sh
. "$(dirname "$0")/trials.sh"
# shellcheck disable=SC1091
. "$SRC/tests/integration/lib.sh"
if ! "$PMIXEV_TEST_CLIENTS/mpi_ulfm" --have-ulfm; then
	echo "$0: this Open MPI has no ULFM (Debian 12's 4.1): run it with scripts/newer-slurm.sh --bench ulfm.sh" >&2
	exit 2
fi
ulfm=$(client mpi_ulfm)
ulfm_step_env

# trial MPI NODES: one step; prints the recovery time in ms, or nothing.
trial() {
	local mpi=$1 nodes=$2 n=$(($2 * 2)) t0
	run_step --mpi="$mpi" --no-kill -K0 -t 2 -N"$nodes" -n"$n" \
		--ntasks-per-node=2 "$ulfm" $((n - 1)) 200
	t0=$(ulfm_kill_time)
	[ -n "$t0" ] && ulfm_recovered "$n" $((n - 1)) || return 0
	ulfm_recovery_ms "$t0"
}

declare -A times count
for ((i = 1; i <= TRIALS; i++)); do
	for nodes in 2 3; do
		for mpi in pmixev pmix; do
			d=$(trial "$mpi" "$nodes")
			echo "$0: $mpi -N$nodes trial $i: ${d:-not recovered}${d:+ ms}" >&2
			[ -n "$d" ] || continue
			times[$mpi.$nodes]+="$d "
			count[$mpi.$nodes]=$((${count[$mpi.$nodes]:-0} + 1))
		done
	done
done

row() {
	local key=$1 what=$2
	# shellcheck disable=SC2086 # one number per word
	printf '%s\n' ${times[$key]:-} | sort -n | awk -v what="$what" -v n="$TRIALS" '
		NF { v[++k] = $1 }
		END {
			if (!k) { printf "| %s | 0/%d | | |\n", what, n; exit }
			printf "| %s | %d/%d | %d | %d |\n", what, k, n, v[int((k - 1) * 0.5) + 1], v[k]
		}'
}
{
	echo "# pmixev ULFM recovery benchmark ($(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, $(srun --version), $(mpirun --version 2>/dev/null | head -n1))"
	echo
	echo "| launch | recovered | median ms | max ms |"
	echo "|---|---:|---:|---:|"
	for nodes in 2 3; do
		row "pmixev.$nodes" "srun --mpi=pmixev -N$nodes -n$((nodes * 2))"
		row "pmix.$nodes" "srun --mpi=pmix (stock) -N$nodes -n$((nodes * 2))"
	done
	echo
	echo "Settings: ${step_env[*]}"
} | tee ${OUT:+"$OUT"}
