#!/usr/bin/env bash
# Fault-tolerant Open MPI (ULFM) recovers under srun --mpi=pmixev: with
# OMPI_MCA_mpi_ft_enable=1 and `srun --no-kill -K0`, the ranks of
# mpi_ulfm loop on MPI_Allreduce until a process fails, then revoke,
# shrink, and complete an allreduce on the shrunk communicator, and exit
# 0 after MPI_Finalize, while srun reports the failed task. On 2 and 3
# nodes: a rank SIGKILLs itself; a whole node dies (slurmd, slurmstepd
# and tasks killed at once); a node's network is cut.
#
# pmixev gives every survivor one PMIx event per failed process
# (PMIX_ERR_PROC_ABORTED_BY_SIG for a killed rank, PMIX_ERR_PROC_TERM_WO_SYNC
# for each rank of a lost node), which is what ULFM listens for. The Open
# MPI settings the recovery needs come from pmixev_ulfm_env (lib.sh);
# doc/app-guide.md "Fault-tolerant MPI" says why each is there.
. "$(dirname "$0")/lib.sh"
if [ ! -x "$PMIXEV_TEST_CLIENTS/mpi_ulfm" ]; then
	echo "1..0 # SKIP the MPI programs were not built (configure found no mpicc: apt-get install libopenmpi-dev)"
	exit 0
fi
if ! "$PMIXEV_TEST_CLIENTS/mpi_ulfm" --have-ulfm; then
	echo "1..0 # SKIP this Open MPI ($(mpirun --version 2>/dev/null | head -n1)) is built without ULFM (MPIX_Comm_shrink): Debian 12's 4.1 has none"
	exit 0
fi
plan 8

ulfm=$(client mpi_ulfm)
ulfm_step_env

# A rank kills itself: on 2 nodes (rank 3 of 4) and on 3 nodes (rank 5 of 6).
for nodes in 2 3; do
	n=$((2 * nodes))
	victim=$((n - 1))
	run_step --mpi=pmixev --no-kill -K0 -t 2 -N"$nodes" -n"$n" \
		--ntasks-per-node=2 "$ulfm" "$victim" 200
	t0=$(ulfm_kill_time)
	ulfm_recovered "$n" "$victim" && [ "$rc" -ne 0 ] &&
		[ "$(lines "task $victim: Killed")" -ge 1 ]
	ok $? "-N$nodes -n$n: rank $victim SIGKILLs itself; the $victim survivors revoke, shrink and allreduce ($( [ -n "$t0" ] && ulfm_recovery_ms "$t0") ms), srun reports task $victim killed" ||
		show
	if [ "$nodes" = 2 ]; then
		grep -q "step $job\.0 on n1: Open MPI fault tolerance is on (OMPI_MCA_mpi_ft_enable): the tasks ignore SIGPIPE and get OMPI_MCA_coll=^han,hcoll,portals4 OMPI_MCA_mpi_add_procs_cutoff=2147483647, which the job did not set" "$(slurmd_log n1)"
		ok $? "n1's slurmd log says which Open MPI settings pmixev added for fault tolerance"
	fi
done

# A survivor's write to a crashed node's peer must fail with EPIPE, not
# kill it: the tasks of a fault-tolerant step ignore SIGPIPE, others not.
sigpipe=
for ft in 1 0; do
	mask=$(with_env OMPI_MCA_mpi_ft_enable=$ft -- srun --mpi=pmixev -N1 -n1 \
		grep '^SigIgn:' /proc/self/status 2>&1 | sed -n 's/^SigIgn:[[:space:]]*\([0-9a-f]*\)$/\1/p')
	[ -n "$mask" ] && sigpipe="$sigpipe $ft:$(((0x$mask >> 12) & 1))"
done
[ "$sigpipe" = " 1:1 0:0" ]
ok $? "tasks ignore SIGPIPE with fault tolerance on, not without (ft:ignored$sigpipe)"

# lose_node NODES HOW: a step on NODES nodes (2 ranks each) loses its last
# node, crashed (HOW=crash) or cut off (HOW=cut); the survivors recover.
lose_node() {
	local nodes=$1 how=$2 n=$(($1 * 2)) last=n$1 t0 log
	log=$PMIXEV_CLUSTER_WORKDIR/23-ulfm-$how-$nodes.out
	start_step "$log" "$last" "overlay: connected" --no-kill -K0 \
		--mpi=pmixev -N"$nodes" -n"$n" --ntasks-per-node=2 -t 2 \
		"$ulfm" -1 || return 1
	wait_ready mpi_ulfm "$n" || return 1
	t0=$(date +%s.%N)
	case $how in
	crash) crash_node "$last" ;;
	cut) ip link set "${PMIXEV_CLUSTER_VETH_PREFIX}$last" down ;;
	esac
	for _ in $(seq 300); do
		[ "$(grep -c '^mpi_ulfm: rank .*: \(ok\|FAILED\)$' "$log")" -ge $((n - 2)) ] && break
		sleep 0.1
	done
	out=$(cat "$log")
	ulfm_recovered "$n" $((n - 2)) && delay=$(ulfm_recovery_ms "$t0")
	local status=$?
	if [ "$how" = cut ]; then
		ip link set "${PMIXEV_CLUSTER_VETH_PREFIX}$last" up
	fi
	scancel "$job" 2>/dev/null
	wait "$srun_pid" 2>/dev/null
	return $status
}

delay=
lose_node 3 crash
ok $? "-N3 -n6: n3 crashes; the 4 survivors on n1 and n2 revoke, shrink and allreduce (${delay:-?} ms)" || show
delay=
lose_node 2 crash
ok $? "-N2 -n4: n2 crashes; the 2 survivors on n1 revoke, shrink and allreduce (${delay:-?} ms)" || show
# A crashed node's slurmd is gone: bring the cluster back for the cut.
bash "$CLUSTER" stop >/dev/null 2>&1
bash "$CLUSTER" start >/dev/null 2>&1 || diag "the cluster did not restart"
delay=
lose_node 3 cut
ok $? "-N3 -n6: n3's network is cut; the 4 survivors revoke, shrink and allreduce (${delay:-?} ms)" || show
delay=
bash "$CLUSTER" stop >/dev/null 2>&1
bash "$CLUSTER" start >/dev/null 2>&1 || diag "the cluster did not restart"
lose_node 2 cut
ok $? "-N2 -n4: n2's network is cut; the 2 survivors revoke, shrink and allreduce (${delay:-?} ms)" || show
bash "$CLUSTER" stop >/dev/null 2>&1
bash "$CLUSTER" start >/dev/null 2>&1 || diag "the cluster did not restart"

done_testing
