#!/usr/bin/env bash
# MPI_Comm_spawn under srun --mpi=pmixev (issue 29, doc/spawn.md §1.5):
# all ranks of a 3-node step spawn children of the same program, or two
# commands with MPI_Comm_spawn_multiple; parent rank 0 sends each child a
# token, each child replies, and both sides allreduce over the merged
# intercommunicator. pmixev launches the child step and serves what Open
# MPI then asks across the two steps (doc/spawn.md §1.5): the port
# exchange (PMIx_Publish/PMIx_Lookup), PMIx_Connect over both namespaces,
# each side's endpoints by direct modex, and the fences of
# MPI_Comm_disconnect. Each rank of tests/clients/mpi_spawn gives up
# after 6 s (saying where it waited), so a failure costs seconds, not
# Open MPI's 600 s lookup timeout.
. "$(dirname "$0")/lib.sh"
if [ ! -x "$PMIXEV_TEST_CLIENTS/mpi_spawn" ]; then
	echo "1..0 # SKIP the MPI programs were not built (configure found no mpicc: apt-get install libopenmpi-dev)"
	exit 0
fi
plan 4

ms=$(client mpi_spawn)
ompi_step_env
work=$PMIXEV_CLUSTER_WORKDIR
rm -f "$work"/45-*.out
# One allocation of 4 CPUs per node; each parent step on one CPU per node
# (--exact), so that the child step has room (as 44-spawn.t).
# shellcheck disable=SC2016 # expanded by the job's shell
out=$(as_user env "${step_env[@]}" salloc -N3 --ntasks-per-node=4 -t 2 bash -c '
	ms=$0 w=$1
	run() {
		local f=$1 t0=$(date +%s%N)
		shift
		SLURM_PMIXEV_TIMEOUT=5 srun --exact -N3 -n3 --mpi=pmixev \
			"$ms" --timeout 6 "$@" >"$w/45-$f.out" 2>&1
		echo "rc $? in $((($(date +%s%N) - t0) / 1000000)) ms" >>"$w/45-$f.out"
	}
	echo "job $SLURM_JOB_ID"
	run spawn --n 2
	run multiple --n 4 --multiple
' "$ms" "$work" 2>&1)
job=$(printf '%s\n' "$out" | sed -n 's/^job \([0-9]*\)$/\1/p')
f() { cat "$work/45-$1.out" 2>/dev/null; }
in_f() { f "$1" | grep -Ec -- "$2"; }
ms_of() { f "$1" | sed -n 's/^rc [0-9]* in \([0-9]*\) ms$/\1/p'; }
diag "job ${job:-?}: spawn $(ms_of spawn) ms, multiple $(ms_of multiple) ms; where they waited: $(
	cat "$work"/45-*.out 2>/dev/null | sed -n 's/^mpi_spawn: \(parent\|child\) rank .*: timed out after [0-9]* s in /\1: /p' |
		sort | uniq -c | tr -s ' \n' ' ')"

# The spawn itself: pmixev starts the child step for rank 0 of the parent.
[ -n "$job" ] && [ "$(grep -Ec "spawn: step $job\.[0-9]+ rank 0: slurm\.pmixev\.$job\.[0-9]+ is up" "$(slurmd_log n1)")" -eq 2 ]
ok $? "both spawns' PMIx_Spawn start their child step (n1's slurmd log)" ||
	{ f spawn; grep -E "spawn" "$(slurmd_log n1)" | tail -n 5; }

# Every parent rank: 2 children, rank 0 their replies, the merged
# allreduce 5; every child its token and the same sum; all exit 0.
[ "$(in_f spawn '^mpi_spawn: parent rank [0-2] of 3 on n[1-3]: 2 children, replies ok, merged sum 5 ok$')" -eq 3 ] &&
	[ "$(in_f spawn '^mpi_spawn: child rank [01] of 2 \(app -\) on n[1-3]: token 100[01] from parent ok, merged sum 5 ok$')" -eq 2 ] &&
	[ "$(in_f spawn '^rc 0 ')" -eq 1 ]
ok $? "MPI_Comm_spawn of 2 from a 3-node step: tokens and replies over the intercommunicator, the merged allreduce right on all 5 ranks, exit 0" ||
	f spawn | grep -v '^\[' | tail -n 12

[ "$(in_f multiple '^mpi_spawn: parent rank [0-2] of 3 on n[1-3]: 4 children, replies ok, merged sum 7 ok$')" -eq 3 ] &&
	[ "$(in_f multiple '^mpi_spawn: child rank [0-3] of 4 \(app a\) on n[1-3]: token 100[01] from parent ok, merged sum 7 ok$')" -eq 2 ] &&
	[ "$(in_f multiple '^mpi_spawn: child rank [0-3] of 4 \(app b\) on n[1-3]: token 100[23] from parent ok, merged sum 7 ok$')" -eq 2 ] &&
	[ "$(in_f multiple '^rc 0 ')" -eq 1 ]
ok $? "MPI_Comm_spawn_multiple of two commands (2 + 2): the same on all 7 ranks, each child in its command" ||
	f multiple | grep -v '^\[' | tail -n 12

# Whatever the outcome, a spawn that cannot complete ends the step in
# seconds: no rank is left waiting.
[ -n "$(ms_of spawn)" ] && [ "$(ms_of spawn)" -lt 12000 ] &&
	[ -n "$(ms_of multiple)" ] && [ "$(ms_of multiple)" -lt 12000 ]
ok $? "both steps end within 12 s ($(ms_of spawn) and $(ms_of multiple) ms)" || show

done_testing
