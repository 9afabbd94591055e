#!/usr/bin/env bash
# Direct modex across the steps of a spawn family (issue 29, doc/spawn.md
# §5.2): a rank PMIx_Get's a key that a rank of another step put, with no
# fence across the steps; its node's stepd asks the node that hosts that
# rank, through the sruns, and the answer comes back the same way.
. "$(dirname "$0")/lib.sh"
plan 7

work=$PMIXEV_CLUSTER_WORKDIR
rm -f "$work"/48-*.out
# One allocation of 4 CPUs per node; the parent on one CPU per node
# (--exact), so that the child step has room on n2 and n3.
# shellcheck disable=SC2016 # expanded by the job's shell
out=$(as_user salloc -N3 --ntasks-per-node=4 -t 2 bash -c '
	echo "job $SLURM_JOB_ID"
	srun --exact -N3 -n3 --mpi=pmixev "$0" --host n2,n3 >"$1/48-xdmx.out" 2>&1
	echo "rc $?" >>"$1/48-xdmx.out"
' "$(client pmix_xdmx)" "$work" 2>&1)
job=$(printf '%s\n' "$out" | sed -n 's/^job \([0-9]*\)$/\1/p')
f() { cat "$work/48-xdmx.out" 2>/dev/null; }
in_f() { f | grep -Ec -- "$1"; }
ps="slurm\.pmixev\.$job\.0"
cs="slurm\.pmixev\.$job\.[1-9][0-9]*"
diag "job ${job:-?}: $(f | grep -E ' in [0-9]+ ms$| after ' | sed 's/^pmix_xdmx: //' | tr '\n' ';')"

# Each parent rank (n1, n2, n3) gets the key of a child on another node:
# the value names the child's namespace, rank and node.
got() { # SIDE OTHER-NSPACE-RE: "MYHOST NS RANK VALUE-NS VALUE-RANK VALUE-HOST"
	f | grep -E "^pmix_xdmx: $1 rank [0-9]+ on n[1-3] got $2 rank [0-9]+: $2:[0-9]+@n[1-3] in [0-9]+ ms$" |
		sed -E 's/^.* on (n[1-3]) got (\S+) rank ([0-9]+): (\S+):([0-9]+)@(n[1-3]) in .*/\1 \2 \3 \4 \5 \6/' |
		awk '$1 != $6 && $2 == $4 && $3 == $5' | wc -l
}
[ -n "$job" ] && [ "$(got parent "$cs")" -eq 3 ]
ok $? "every parent rank gets the key a child on another node put (PMIx_Get, no fence across the steps)" ||
	{ f; show; }

# Each child gets the key of a parent rank on another node.
[ -n "$job" ] && [ "$(got child "$ps")" -eq 2 ]
ok $? "every child gets the key a parent rank on another node put" || f

# A rank beyond the other step's size: an error at once, both ways.
[ "$(f | grep -E "^pmix_xdmx: (parent rank 0 beyond of $cs rank 2|child rank 0 beyond of $ps rank 3): " |
	grep -Ev ': SUCCESS in ' | awk '$NF == "ms" && $(NF-1) < 2000' | wc -l)" -eq 2 ]
ok $? "a PMIx_Get of a rank beyond the other step's size fails at once" ||
	f | grep beyond

# A key nobody put: an error within its PMIX_TIMEOUT (2 s), not a hang.
[ "$(f | grep -E "^pmix_xdmx: (parent rank 0 none of $cs|child rank 0 none of $ps) rank 0: " |
	grep -Ev ': SUCCESS in ' | awk '$NF == "ms" && $(NF-1) < 5000' | wc -l)" -eq 2 ]
ok $? "a PMIx_Get of a key nobody put fails within its PMIX_TIMEOUT, both ways" ||
	f | grep none

[ "$(in_f '^pmix_xdmx: parent rank [12]: child job size 2 after [0-9]+ ms$')" -eq 2 ] &&
	[ "$(in_f '^rc 0$')" -eq 1 ]
ok $? "the parent ranks that did not spawn find the child namespace; both steps exit 0" || f

# Ranks 1 and 2 ask for the child's PMIX_JOB_SIZE while rank 0 spawns.
# OpenPMIx 4 asks the host for a namespace it does not know: O holds the
# request until the namespace is registered and answers it with no data,
# and the library serves the registered job data (doc/spawn.md §11 q1).
# OpenPMIx 5 answers PMIX_ERR_NOT_FOUND itself at once.
case $PMIXEV_PMIX_VERSION in
4.*) early="job size 2: SUCCESS in [0-9]+ ms" ;;
*) early="job size -1: (PMIX_ERR_NOT_FOUND|NOT-FOUND) in [0-9]{1,3} ms" ;;
esac
[ "$(in_f "^pmix_xdmx: parent rank [12]: early $cs $early$")" -eq 2 ]
ok $? "a PMIx_Get of the child's job data before its namespace is here: OpenPMIx $PMIXEV_PMIX_VERSION's answer (4: held, then the data; 5: not found)" ||
	f | grep early

# No stepd dropped a frame of the other step, nor logged an error of it.
! cat "$(slurmd_log n1)" "$(slurmd_log n2)" "$(slurmd_log n3)" |
	grep -E "step $job\.[0-9]+" | grep -Eq "direct modex: .*(dropping|cannot|did not answer)"
ok $? "no stepd dropped or failed a cross-step direct modex frame" ||
	grep -hE "direct modex" "$(slurmd_log n1)" "$(slurmd_log n2)" "$(slurmd_log n3)" | tail -n 10
