#!/usr/bin/env bash
# PMIx Groups across the nodes of a step (pmixside/group_pmix.c,
# wireup/group.c): construct and destruct as collectives of the nodes
# hosting members; the membership (OpenPMIx 5), one context id for all
# members, unique across the job's steps and prefixed by the step; the
# members' data readable without a fence, and each member's
# PMIX_GROUP_LOCAL_CID qualified by the context id (what Open MPI 5 reads);
# sparse and one-node groups, non-blocking constructs, 50 at once; a
# group id that is a namespace refused; PMIX_TIMEOUT enforced by the host;
# a member that ends aborts a construct (unless the group is optional)
# and makes a destruct partly successful; a member that notifies
# PMIX_GROUP_CONSTRUCT_ABORT aborts it for every member at once; members told of a member's end
# (NOTIFY_TERMINATION) and of the leader's; the group queries (number,
# names, membership, local range) answered from node 0's registry of live
# groups.
. "$(dirname "$0")/lib.sh"
plan 17

grp=$(client pmix_group)
g="^pmix_group: rank [0-5] on n[1-3]"

# 6 ranks (block: 0-3 on n1, 4 on n2, 5 on n3), a context id, group info,
# each rank's put read by the member half the group away.
run_step --mpi=pmixev -N3 -n6 -t 1 "$grp" --ctxid --put --info
ctx=$(printf '%s\n' "$out" | sed -En 's/.*construct grp1: (PMIX_)?SUCCESS in .*, ctxid ([0-9]*)$/\2/p' | sort -u)
members='0 members \[\]'
case $PMIXEV_PMIX_VERSION in 4.*) ;; *) members='6 members \[0 1 2 3 4 5\]' ;; esac
good=0
for r in 0 1 2 3 4 5; do
	p=$(((r + 3) % 6))
	[ "$(lines "^pmix_group: rank $r on n[1-3]: construct grp1: (PMIX_)?SUCCESS in [0-9.]+ ms, $members, ctxid $ctx$")" -eq 1 ] &&
		[ "$(lines "^pmix_group: rank $r on n[1-3]: get grp.key of rank $p: 'r$p'$")" -eq 1 ] &&
		[ "$(lines "^pmix_group: rank $r on n[1-3]: local cid of rank $p: $((1000 + p))$")" -eq 1 ] &&
		[ "$(lines "^pmix_group: rank $r on n[1-3]: destruct grp1: (PMIX_)?SUCCESS")" -eq 1 ] &&
		good=$((good + 1))
done
[ "$rc" -eq 0 ] && [ "$good" -eq 6 ] && [ "$(printf '%s\n' "$ctx" | wc -l)" -eq 1 ] &&
	[ "$ctx" = $(((0 + 1) << 32 | 1)) ]
ok $? "construct over 3 nodes: one context id (step 0's first, $ctx), $(echo "$members" | tr -d '\\'), each member reads another's put and local cid without a fence, destruct ($good of 6)" ||
	show

# Sparse (ranks 1 on n1 and 4 on n2; n3 hosts none) and non-blocking;
# one node (n1 only), with and without a context id.
run_step --mpi=pmixev -N3 -n6 -t 1 "$grp" --nb --ctxid --members 1,4
a=$(lines "$g: construct grp1: (PMIX_)?SUCCESS .*, ctxid [0-9]+$")
run_step --mpi=pmixev -N3 -n6 -t 1 "$grp" --members 0-3 --ctxid
b=$(lines "$g: construct grp1: (PMIX_)?SUCCESS .*, ctxid [0-9]+$")
run_step --mpi=pmixev -N3 -n6 -t 1 "$grp" --members 0-3
[ "$a" -eq 2 ] && [ "$b" -eq 4 ] &&
	[ "$(lines "$g: construct grp1: (PMIX_)?SUCCESS .*, ctxid none$")" -eq 4 ] &&
	[ "$(lines "$g: destruct grp1: (PMIX_)?SUCCESS")" -eq 4 ] && [ "$rc" -eq 0 ]
ok $? "a sparse group (2 of 3 nodes, non-blocking) and a one-node group, with and without a context id ($a of 2, $b of 4)" ||
	show

# Every rank constructs each of 50 groups it is in at once (group i: every
# rank but i mod 6), then destructs them: all complete, distinct ids.
run_step --mpi=pmixev -N3 -n6 -t 1 "$grp" --groups 50
good=0
for r in 0 1 2 3 4 5; do
	n=$((50 - (50 - r + 5) / 6))
	[ "$(lines "^pmix_group: rank $r on n[1-3]: groups: $n of $n constructed, $n distinct ctxids, $n destructed$")" -eq 1 ] &&
		good=$((good + 1))
done
[ "$rc" -eq 0 ] && [ "$good" -eq 6 ]
ok $? "50 concurrent groups over overlapping members: every one constructed with its own context id and destructed ($good of 6 ranks)" ||
	show

# Two steps of one job: each issues from its own prefix.
out=$(as_user salloc -N3 -n6 -t 1 bash -c "srun --mpi=pmixev -n6 $grp --ctxid && srun --mpi=pmixev -n6 $grp --ctxid" 2>&1)
ids=$(printf '%s\n' "$out" | sed -En 's/.*construct grp1: (PMIX_)?SUCCESS in .*, ctxid ([0-9]*)$/\2/p' | sort -u | tr '\n' ' ')
[ "$(lines "$g: construct grp1: (PMIX_)?SUCCESS")" -eq 12 ] &&
	[ "$ids" = "$((1 << 32 | 1)) $((2 << 32 | 1)) " ]
ok $? "two steps of one job get distinct context ids, each with its step's prefix ($ids)" || diag "$out"

# A group id that names a namespace is refused on every rank.
run_step --mpi=pmixev -N3 -n6 -t 1 "$grp" --ctxid --id slurm.pmixev.1.0
[ "$(lines "$g: construct slurm.pmixev.1.0: (BAD-PARAM|PMIX_ERR_BAD_PARAM) ")" -eq 6 ] &&
	[ "$(lines "slurmstepd-n[1-3]: error: .* group construct: slurm.pmixev.1.0 refused: a group id that is empty, too long or a namespace")" -ge 1 ]
ok $? "a group id that is a Slurm namespace: bad parameter on all six ranks, said in the log" || show

# PMIX_TIMEOUT 1 s while rank 5 (n3) arrives 3 s late: the others fail
# within the timeout (OpenPMIx 4.2: half a second sooner, before the
# library's own timer), and so does rank 5 when it comes.
run_step --mpi=pmixev -N3 -n6 -t 1 "$grp" --timeout 1 --sleep 5:3
late=$(printf '%s\n' "$out" | sed -n 's/.*rank [0-4] on .*construct grp1: \(TIMEOUT\|PMIX_ERR_TIMEOUT\) in \([0-9]*\)\..*/\2/p' | sort -n | tail -n1)
[ "$(lines "$g: construct grp1: (TIMEOUT|PMIX_ERR_TIMEOUT) in ")" -eq 6 ] && [ "${late:-9999}" -lt 1500 ]
ok $? "PMIX_TIMEOUT 1 s with a member 3 s late: every member fails with a timeout (the slowest of the others in ${late:-?} ms)" ||
	show

# A member that ends: rank 2 (alone on n3) exits before the construct,
# rank 5 after it; the others neither hang nor wait out a timeout. (Under
# load rank 2 may end before n3's stepd joined the others: it joins all
# the same with the hello it signed at its start.)
run_step --mpi=pmixev -K0 -N3 -n3 -t 1 "$grp" --die 2 --ctxid
slow=$(printf '%s\n' "$out" | sed -En 's/.*construct grp1: (GROUP-CONSTRUCT-ABORT|PMIX_GROUP_CONSTRUCT_ABORT) in ([0-9]+)\..*/\2/p' | sort -n | tail -n1)
[ "$(lines "^pmix_group: rank [01] on n[12]: construct grp1: (GROUP-CONSTRUCT-ABORT|PMIX_GROUP_CONSTRUCT_ABORT) in ")" -eq 2 ] &&
	[ "${slow:-9999}" -lt 2000 ] &&
	[ "$(lines "slurmstepd-n[12]: error: .* group construct 0-2#grp1 #1 failed: its member rank 2 ended")" -ge 1 ]
ok $? "a member that exits before the construct: the others' construct is aborted (PMIX_GROUP_CONSTRUCT_ABORT) at once (slowest ${slow:-?} ms), said in the log" ||
	show
run_step --mpi=pmixev -K0 -N3 -n6 -t 1 "$grp" --die-after 5 --ctxid
[ "$(lines "$g: construct grp1: (PMIX_)?SUCCESS ")" -eq 6 ] &&
	[ "$(lines "^pmix_group: rank [0-4] on n[12]: destruct grp1: (PARTIAL SUCCESS|PMIX_ERR_PARTIAL_SUCCESS) in [0-9.]+ ms$")" -eq 5 ]
ok $? "a member that exits after the construct: the others' destruct ends at once, partly successful" || show

# A member aborts the construct in flight (RFC0033: it notifies
# PMIX_GROUP_CONSTRUCT_ABORT with PMIX_GROUP_ID) while rank 5 (n3) is 2 s
# late: rank 3 (n1, with three node mates) from PMIx_Group_construct_nb,
# half a second after its call; every member returns
# PMIX_GROUP_CONSTRUCT_ABORT at once, rank 5 as soon as it calls, long
# before PMIX_TIMEOUT (10 s: within half of it, as a 2 s late member
# would otherwise let it succeed), and every other member still gets the
# event.
# Then rank 5 aborts from a second thread while blocked in
# PMIx_Group_construct, rank 4 (n2) late.
ga=$(client pmix_group_abort)
abort_re='(GROUP-CONSTRUCT-ABORT|PMIX_GROUP_CONSTRUCT_ABORT)'
# slowest R...: the longest construct among the ranks R (a regex class).
slowest() {
	printf '%s\n' "$out" | sed -En "s/^pmix_group_abort: rank $1 on n[1-3]: construct grp1: $abort_re in ([0-9]+)\..*/\2/p" |
		sort -n | tail -n1
}
run_step --mpi=pmixev -N3 -n6 -t 1 "$ga" --abort 3 --late 5:2 --watch
s1=$(slowest '[0-4]') l1=$(slowest 5)
[ "$rc" -eq 0 ] && [ "$(lines "^pmix_group_abort: rank [0-5] on n[1-3]: construct grp1: $abort_re in ")" -eq 6 ] &&
	[ "$(lines "^pmix_group_abort: rank 3 on n1: notify abort grp1: (PMIX_)?SUCCESS$")" -eq 1 ] &&
	[ "$(printf '%s\n' "$out" | grep -E "^pmix_group_abort: rank [0-245] on n[1-3]: event $abort_re from rank 3 group grp1$" | sort -u | wc -l)" -eq 5 ] &&
	[ "${s1:-99999}" -lt 5000 ] && [ "${l1:-99999}" -lt 1000 ]
ok $? "a member aborts the construct (non-blocking, then notifies PMIX_GROUP_CONSTRUCT_ABORT): all six get PMIX_GROUP_CONSTRUCT_ABORT (slowest of the early ${s1:-?} ms, the late one ${l1:-?} ms), the others the event too, the step ends with 0" ||
	show
run_step --mpi=pmixev -N3 -n6 -t 1 "$ga" --abort 5 --thread --late 4:2
s2=$(slowest '[0-35]')
[ "$rc" -eq 0 ] && [ "$(lines "^pmix_group_abort: rank [0-5] on n[1-3]: construct grp1: $abort_re in ")" -eq 6 ] &&
	[ "${s2:-99999}" -lt 5000 ]
ok $? "a member blocked in PMIx_Group_construct aborts it from a second thread: all six get PMIX_GROUP_CONSTRUCT_ABORT (slowest of the early ${s2:-?} ms)" ||
	show

# PMIX_GROUP_OPTIONAL: rank 2 (alone on n3) exits a second after the
# others called; they complete without it (OpenPMIx 5: membership 0 and
# 1) and destruct successfully.
run_step --mpi=pmixev -K0 -N3 -n3 -t 1 "$grp" --sleep 2:1 --die 2 --ctxid --optional
members='0 members \[\]'
case $PMIXEV_PMIX_VERSION in 4.*) ;; *) members='2 members \[0 1\]' ;; esac
[ "$(lines "^pmix_group: rank [01] on n[12]: construct grp1: (PMIX_)?SUCCESS in [0-9.]+ ms, $members, ctxid [0-9]+$")" -eq 2 ] &&
	[ "$(lines "^pmix_group: rank [01] on n[12]: destruct grp1: (PMIX_)?SUCCESS in ")" -eq 2 ]
ok $? "an optional group whose member exits during the construct: the others construct it without that member ($(echo "$members" | tr -d '\\')) and destruct it" ||
	show

# PMIX_GROUP_NOTIFY_TERMINATION: rank 5 (n3) exits after the construct;
# every other member hears PMIX_GROUP_MEMBER_FAILED once, with the group's
# id and context id, and the destruct succeeds. With rank 4 (alone on n2)
# declared leader, only the leader hears it.
run_step --mpi=pmixev -K0 -N3 -n6 -t 1 "$grp" --ctxid --notify --die-after 5 --watch
ctx=$(printf '%s\n' "$out" | sed -En 's/.*construct grp1: (PMIX_)?SUCCESS in .*, ctxid ([0-9]*)$/\2/p' | sort -u)
ev="event (GROUP-MEMBER-FAILED|PMIX_GROUP_MEMBER_FAILED) group grp1 rank 5 ctxid $ctx$"
n_all=$(lines "^pmix_group: rank [0-4] on n[12]: $ev")
n_each=$(printf '%s\n' "$out" | grep -E "^pmix_group: rank [0-4] on n[12]: $ev" | sort -u | wc -l)
[ "$n_all" -eq 5 ] && [ "$n_each" -eq 5 ] && [ "$(lines "event ")" -eq 5 ] &&
	[ "$(lines "^pmix_group: rank [0-4] on n[12]: destruct grp1: (PMIX_)?SUCCESS in ")" -eq 5 ]
one=$?
run_step --mpi=pmixev -K0 -N3 -n6 -t 1 "$grp" --ctxid --notify --leader 4 --die-after 5 --watch
[ "$one" -eq 0 ] && [ "$(lines "event ")" -eq 1 ] &&
	[ "$(lines "^pmix_group: rank 4 on n2: event (GROUP-MEMBER-FAILED|PMIX_GROUP_MEMBER_FAILED) group grp1 rank 5 ctxid [0-9]+$")" -eq 1 ]
ok $? "a member of a group with NOTIFY_TERMINATION exits: each other member hears GROUP_MEMBER_FAILED once ($n_all events to 5 members), only the leader when one is declared; the destruct succeeds" ||
	show

# The declared leader (rank 4, alone on n2) is killed after the
# construct: every other member hears PMIX_GROUP_LEADER_FAILED once; the
# destruct is partly successful (no NOTIFY_TERMINATION).
run_step --mpi=pmixev -K0 -N3 -n6 -t 1 "$grp" --ctxid --leader 4 --die-after 4 --kill --watch
ev="event (GROUP-LEADER-FAILED|PMIX_GROUP_LEADER_FAILED) group grp1 rank 4 ctxid [0-9]+$"
[ "$(lines "^pmix_group: rank [0-35] on n[13]: $ev")" -eq 5 ] &&
	[ "$(printf '%s\n' "$out" | grep -E "^pmix_group: rank [0-35] on n[13]: $ev" | sort -u | wc -l)" -eq 5 ] &&
	[ "$(lines "event ")" -eq 5 ] &&
	[ "$(lines "^pmix_group: rank [0-35] on n[13]: destruct grp1: (PARTIAL SUCCESS|PMIX_ERR_PARTIAL_SUCCESS) in ")" -eq 5 ]
ok $? "the declared leader is killed: each other member hears GROUP_LEADER_FAILED once; the destruct is partly successful" ||
	show

# The host serves group construct and destruct.
query=$(client pmix_query)
step_env=(PMIXEV_CLIENT_TIMEOUT=10)
run_step --mpi=pmixev -N1 -n1 -t 1 "$query" --attrs PMIx_Group_construct
step_env=()
defect=$(pmix_defect attr-query)
out_q=$out
[ "$(lines '^pmix_query: rank 0 on n1: .*PMIX_GROUP_ASSIGN_CONTEXT_ID')" -eq 1 ] &&
	[ "$(lines '^pmix_query: rank 0 on n1: .*PMIX_GROUP_NOTIFY_TERMINATION')" -eq 1 ] &&
	[ "$(lines '^pmix_query: rank 0 on n1: .*PMIX_GROUP_OPTIONAL')" -eq 1 ]
todo "$defect" $? "PMIX_QUERY_ATTRIBUTE_SUPPORT lists the group directives pmixev serves" || show

# Stock mpi/pmix, for the record: no group support across nodes. (One
# rank per node: with several, OpenPMIx 5.0.7 answers only the last local
# caller of a construct its host does not serve; the others wait forever.)
out=$(as_user srun --mpi=pmix -N3 -n3 -t 1 "$grp" --ctxid 2>&1)
n=$(printf '%s\n' "$out" | grep -Ec ': construct grp1: (NOT-SUPPORTED|PMIX_ERR_NOT_SUPPORTED)')
[ "$n" -eq 3 ]
ok $? "stock --mpi=pmix refuses the same construct on every node (not supported: $n of 3)" || diag "$out_q" "$out"

# The group queries (node 0 keeps the live groups): each rank, on each
# node, asks the number and names (an id shared by two disjoint groups
# listed once), the members of an id (the union for the shared one), of
# an unknown id (not found); a destructed group is gone; PMIX_RANGE_LOCAL
# keeps the groups with a member on the asker's node (n2 hosts rank 4,
# which is in "qa" only).
gq=$(client pmix_group_query)
gs='(PMIX_)?SUCCESS'
run_step --mpi=pmixev -N3 -n6 -t 1 "$gq"
good=0
for r in 0 1 2 3 4 5; do
	p="^pmix_group_query: rank $r on n[1-3]:"
	[ "$(lines "$p groups: $gs 3: qa qb qd$")" -eq 1 ] &&
		[ "$(lines "$p members qb: $gs 0 5$")" -eq 1 ] &&
		[ "$(lines "$p members qd: $gs 1 5$")" -eq 1 ] &&
		[ "$(lines "$p members nosuch: (NOT-FOUND|PMIX_ERR_NOT_FOUND)$")" -eq 1 ] &&
		[ "$(lines "$p after destruct groups: $gs 2: qa qd$")" -eq 1 ] &&
		good=$((good + 1))
done
[ "$rc" -eq 0 ] && [ "$good" -eq 6 ]
ok $? "group queries on every node: 3 groups by name (an id shared by two disjoint groups once), the members of an id (their union), an unknown id not found, a destructed group gone ($good of 6 ranks)" ||
	show
[ "$(lines "^pmix_group_query: rank [0-35] on n[13]: local groups: $gs 3: qa qb qd$")" -eq 5 ] &&
	[ "$(lines "^pmix_group_query: rank 4 on n2: local groups: $gs 1: qa$")" -eq 1 ]
ok $? "group queries with PMIX_RANGE_LOCAL: only the groups with a member on the asker's node (n2: qa alone)" || show

done_testing
