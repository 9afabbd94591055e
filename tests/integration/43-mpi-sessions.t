#!/usr/bin/env bash
# MPI-4 Sessions of Open MPI 5 under srun --mpi=pmixev: MPI_Session_init
# lists the step's process sets (slurm://app/0 beside Open MPI's own),
# MPI_Comm_create_from_group builds a communicator from mpi://WORLD, and
# MPI_Intercomm_create_from_groups joins the two
# halves of it; allreduces over both are right. Open MPI 5 builds each of
# them with a PMIx group construct that asks the host for a context id
# (pmixside/group_pmix.c, wireup/group.c). Stock mpi/pmix cannot.
. "$(dirname "$0")/lib.sh"
if [ ! -x "$PMIXEV_TEST_CLIENTS/mpi_sessions" ]; then
	echo "1..0 # SKIP the MPI programs were not built (configure found no mpicc: apt-get install libopenmpi-dev)"
	exit 0
fi
if ! "$PMIXEV_TEST_CLIENTS/mpi_sessions" --have-sessions 2>/dev/null; then
	echo "1..0 # SKIP this Open MPI ($(mpirun --version 2>/dev/null | head -n1)) has no MPI-4 Sessions: Debian 12's 4.1 has none"
	exit 0
fi
plan 4

ses=$(client mpi_sessions)
ompi_step_env
# ob1: the PML whose communicators may have extended context ids (ucx's
# may not, and Open MPI then never asks PMIx for one).
step_env+=(OMPI_MCA_pml=ob1)

# check N PSET: every rank of -N3 -nN gets the right sums.
check() {
	local n=$1 pset=$2 half=$(($1 / 2)) lo hi
	lo=$((half * (half - 1) / 2)) hi=$(((n * (n - 1) / 2) - lo))
	run_step --mpi=pmixev -N3 -n"$n" -t 2 "$ses" --pset "$pset"
	[ "$rc" -eq 0 ] &&
		[ "$(lines "^mpi_sessions: rank [0-9]+ of $n on n[1-3]: psets .*slurm://app/0")" -eq "$n" ] &&
		[ "$(lines "^mpi_sessions: rank [0-9]+ of $n on n[1-3]: world sum $((n * (n - 1) / 2)) ok$")" -eq "$n" ] &&
		[ "$(lines "^mpi_sessions: rank [0-9]+ of $n on n[1-3]: intercomm sum ($lo|$hi) ok$")" -eq "$n" ]
}

check 6 mpi://WORLD
ok $? "-N3 -n6: a communicator from mpi://WORLD and an intercommunicator between its halves, allreduces right on every rank" || show
# Open MPI 5.0.7 lists slurm://app/0, then builds its group with
# PMIX_VALUE_UNLOAD writing each rank's set name's length into the group's
# member counter (ompi/instance/instance.c:1242-1275@v5.0.7, still in
# v5.0.9), and MPI_Comm_create_from_group fails on that group before any
# PMIx call: its own defect, not the host's. Recorded; mpi://WORLD is the
# same ranks.
check 6 slurm://app/0
todo "Open MPI 5.0.7 overwrites a process-set group's member count with the set name's length (instance.c:1261)" $? \
	"-N3 -n6: the same from the step's process set slurm://app/0" || show
check 24 mpi://WORLD
ok $? "-N3 -n24: the same with 8 ranks per node" || show

# Stock mpi/pmix, for the record: the construct is refused.
out=$(as_user env "${step_env[@]}" srun --mpi=pmix -N3 -n3 -t 1 "$ses" 2>&1)
[ "$(printf '%s\n' "$out" | grep -c 'world sum 3 ok')" -eq 0 ]
ok $? "stock --mpi=pmix: no communicator from a group" || diag "$out"

done_testing
