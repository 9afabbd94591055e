#!/usr/bin/env bash
# Collectives across the steps of a spawn family (issue 29, doc/spawn.md
# §5.1): a 3-node parent step spawns 2 children on n2 and n3; every
# process of both steps connects over both namespaces, exchanges a key by
# a fence that collects data, disconnects and fences without data, as
# Open MPI's MPI_Comm_spawn and MPI_Comm_disconnect do. Before that, a
# connect the children join late times out at its PMIX_TIMEOUT on every
# parent rank, and fails at once in the children.
. "$(dirname "$0")/lib.sh"
plan 13

work=$PMIXEV_CLUSTER_WORKDIR
rm -f "$work"/48-*.out
# shellcheck disable=SC2016 # expanded by the job's shell
out=$(as_user salloc -N3 --ntasks-per-node=4 -t 2 bash -c '
	echo "job $SLURM_JOB_ID"
	t0=$(date +%s%N)
	srun --exact -N3 -n3 --mpi=pmixev "$0" --host n2,n3 >"$1/48-xconn.out" 2>&1
	echo "rc $?" >>"$1/48-xconn.out"
	echo "all $(( ($(date +%s%N) - t0) / 1000000 )) ms"
	XCONN_DIE=1 srun --exact -N3 -n3 --mpi=pmixev "$0" --host n2,n3 >"$1/48-xdie.out" 2>&1
	XCONN_DIE=2 srun --exact -N3 -n3 --mpi=pmixev "$0" --host n2,n3 >"$1/48-xdie2.out" 2>&1
	XCONN_DIE=3 srun --exact -N3 -n3 --mpi=pmixev "$0" --host n2,n3 >"$1/48-xdie3.out" 2>&1
' "$(client pmix_xconn)" "$work" 2>&1)
job=$(printf '%s\n' "$out" | sed -n 's/^job \([0-9]*\)$/\1/p')
f() { cat "$work/48-xconn.out" 2>/dev/null; }
in_f() { f | grep -Ec -- "$1"; }
ms() { f | sed -n "s/^pmix_xconn: .* $1 rc=0 ms=\([0-9]*\)$/\1/p" | sort -n | tail -n 1; }
diag "job ${job:-?}: $(printf '%s\n' "$out" | grep -E '^all ') (slowest connect $(ms connect) ms, fence $(ms fence) ms, disconnect $(ms disconnect) ms, barrier $(ms barrier) ms)"

who='pmix_xconn: (parent rank [0-2]|child rank [01])'
# PMIX_ERR_TIMEOUT is -24 in both generations.
late=$(f | sed -n 's/^pmix_xconn: parent rank [0-2]: late connect rc=-24 ms=\([0-9]*\)$/\1/p')
[ -n "$job" ] && [ "$(printf '%s\n' "$late" | grep -c .)" -eq 3 ] &&
	[ "$(printf '%s\n' "$late" | awk '$1 < 1500 || $1 > 5000' | wc -l)" -eq 0 ]
ok $? "a connect the children join late fails with PMIX_ERR_TIMEOUT on every parent rank after its 2 s ($(printf '%s\n' "$late" | paste -sd " ") ms)" ||
	{ f; show; }
late=$(f | sed -n 's/^pmix_xconn: child rank [01]: late connect rc=-24 ms=\([0-9]*\)$/\1/p')
[ "$(printf '%s\n' "$late" | grep -c .)" -eq 2 ] &&
	[ "$(printf '%s\n' "$late" | awk '$1 > 1500' | wc -l)" -eq 0 ]
ok $? "... and at once in the children, who call it after ($(printf '%s\n' "$late" | paste -sd " ") ms)" || f

[ "$(in_f "^$who: connect rc=0 ms=[0-9]+$")" -eq 5 ]
ok $? "the next PMIx_Connect over both namespaces succeeds on all 3 parent and 2 child processes" ||
	{ f; show; }

[ "$(in_f "^$who: fence rc=0 ms=[0-9]+$")" -eq 5 ]
ok $? "a PMIx_Fence with PMIX_COLLECT_DATA over both namespaces succeeds everywhere" || f

# The fence hands each PMIx server its own step's data only (OpenPMIx
# files a fence's data under the namespaces with local processes, so
# another step's would be taken for this step's ranks): a rank of the
# own step has its key, nobody has a stray key of the other step, and the
# other step's key comes by direct modex.
ps="slurm\.pmixev\.$job\.0" cs="slurm\.pmixev\.$job\.[1-9][0-9]*"
[ "$(in_f "^pmix_xconn: parent rank ([0-2]): got xconn\.parent=parent-[0-2] from $ps rank [0-2]$")" -eq 3 ] &&
	[ "$(in_f "^pmix_xconn: child rank [01]: got xconn\.child=child-[01] from $cs rank [01]$")" -eq 2 ] &&
	[ "$(in_f "^$who: get xconn\.(child|parent) from ($ps|$cs) rank [0-2]: rc=-46$")" -eq 5 ]
ok $? "after the fence, each process gets its own step's keys, and no key of the other step is filed under its own step's ranks" || f

[ "$(in_f "^pmix_xconn: parent rank 0: got xconn\.child=child-0 from $cs rank 0$")" -eq 1 ] &&
	[ "$(in_f "^pmix_xconn: parent rank 1: got xconn\.child=child-1 from $cs rank 1$")" -eq 1 ] &&
	[ "$(in_f "^pmix_xconn: parent rank 2: got xconn\.child=child-0 from $cs rank 0$")" -eq 1 ] &&
	[ "$(in_f "^pmix_xconn: child rank ([01]): got xconn\.parent=parent-\1 from $ps rank \1$")" -eq 2 ]
ok $? "after the fence, each process PMIx_Gets the key a rank of the other step put (direct modex across the steps)" ||
	f | grep -E 'get xconn'

[ "$(in_f "^$who: disconnect rc=0 ms=[0-9]+$")" -eq 5 ] &&
	[ "$(in_f "^$who: barrier rc=0 ms=[0-9]+$")" -eq 5 ]
ok $? "PMIx_Disconnect and a data-less PMIx_Fence over both namespaces (MPI_Comm_disconnect) succeed everywhere" || f

[ "$(in_f '^rc 0$')" -eq 1 ]
ok $? "every process of both steps exits 0" || f

# The children's ends: to the spawner always, to the other parent ranks
# while they are connected (doc/spawn.md §5.4).
[ "$(in_f '^pmix_xconn: parent rank 0: 2 end\(s\) in the other step$')" -eq 1 ] &&
	[ "$(in_f '^pmix_xconn: parent rank [12]: 0 end\(s\) in the other step$')" -eq 2 ]
ok $? "after the disconnect, the children's ends reach their spawner only" ||
	f | grep -E 'event|rc '
fd() { cat "$work/48-xdie.out" 2>/dev/null; }
[ "$(fd | grep -Ec '^pmix_xconn: parent rank [0-2]: 2 end\(s\) in the other step$')" -eq 3 ] &&
	[ "$(fd | grep -Ec '^pmix_xconn: (parent rank [0-2]|child rank [01]): connect rc=0 ms=[0-9]+$')" -eq 5 ]
ok $? "while connected, a child killed by a signal and one ending normally: each of the 3 parent ranks (n1-n3) hears of both" ||
	fd
fd2() { cat "$work/48-xdie2.out" 2>/dev/null; }
[ "$(fd2 | grep -Ec '^pmix_xconn: child rank [01]: 1 end\(s\) in the other step$')" -eq 2 ]
ok $? "while connected, parent rank 2 killed by a signal: both children (n2, n3) hear of it" ||
	fd2
# A child step that ended (its srun's link closed) fails the connect that
# waits for it at once, not at its PMIX_TIMEOUT of 20 s.
gone=$(sed -n 's/^pmix_xconn: parent rank [0-2]: connect rc=-[0-9]* ms=\([0-9]*\)$/\1/p' "$work/48-xdie3.out")
[ "$(printf '%s\n' "$gone" | grep -c .)" -eq 3 ] &&
	[ "$(printf '%s\n' "$gone" | awk '$1 > 5000' | wc -l)" -eq 0 ]
ok $? "a connect with a child step that has ended fails on all 3 parent ranks when its srun is gone, not at its 20 s ($(printf '%s\n' "$gone" | paste -sd " ") ms)" ||
	cat "$work/48-xdie3.out"

# The node that gave up first says so; the others fail with its word.
grep -Eqh "step $job\.0 on n[1-3]: connect $job\.0:\*@$job\.[0-9]+:\* #[0-9]+ failed: no result within 2\.0 s" \
	"$(slurmd_log n1)" "$(slurmd_log n2)" "$(slurmd_log n3)"
ok $? "a parent node's slurmd log names the step, the cross-step signature and the timeout" ||
	grep -h 'connect' "$(slurmd_log n1)" "$(slurmd_log n2)" "$(slurmd_log n3)" | tail -n 5
