#!/usr/bin/env bash
# Asynchronous PMIx group construction across nodes: PMIx_Group_invite and
# PMIx_Group_join are client events, relayed by pmixev like any other
# (pmixside/notify_pmix.c, inject_pmix.c); the invite watch
# (pmixside/invite_watch.c) turns the end of an invitee that has not
# answered into PMIX_GROUP_INVITE_FAILED for its inviter, and the end of
# the inviter into PMIX_GROUP_LEADER_FAILED for the invitees still waiting.
# What the library does not do (both OpenPMIx 4.2.2 and 5.0.7, client side
# only, doc/groups.md §5): return from PMIx_Group_invite unless every
# invitee accepted, and assign a context id: pinned as TODOs.
. "$(dirname "$0")/lib.sh"
plan 9

inv=$(client pmix_invite)
g="^pmix_invite: rank"
lib="OpenPMIx $PMIXEV_PMIX_VERSION"

# 5 ranks (block: 0-2 on n1, 3 on n2, 4 on n3): rank 0 invites 3 and 4,
# who accept; 1 and 2 (one on the inviter's node) are not invited.
run_step --mpi=pmixev -K0 -N3 -n5 -t 1 "$inv" --invite 3,4 --ctxid
good=0
for r in 3 4; do
	[ "$(lines "$g $r on n[23]: invited to igrp by rank 0$")" -eq 1 ] &&
		[ "$(lines "$g $r on n[23]: join igrp: (PMIX_)?SUCCESS$")" -eq 1 ] &&
		[ "$(lines "$g $r on n[23]: complete igrp: members \[0 3 4\], ctxid ")" -eq 1 ] &&
		good=$((good + 1))
done
[ "$rc" -eq 0 ] && [ "$good" -eq 2 ] &&
	[ "$(lines "$g 0 on n1: invite igrp: (PMIX_)?SUCCESS in ")" -eq 1 ]
ok $? "invite over 3 nodes: both invitees invited once, accept, and see the construct complete with members [0 3 4]; the inviter's invite succeeds ($good of 2)" ||
	show
[ "$(lines "$g [01234] on n[123]: invited: [1-9]")" -eq 0 ] &&
	[ "$(lines "$g [12] on n1: invited: 0$")" -eq 2 ]
ok $? "ranks not invited, one on the inviter's node, register for PMIX_GROUP_INVITED and get nothing" || show
[ "$(lines "$g [34] on n[23]: complete igrp: .*, ctxid [0-9]+$")" -eq 2 ]
todo "$lib's invite ignores PMIX_GROUP_ASSIGN_CONTEXT_ID (it never calls the host)" $? \
	"an invite with PMIX_GROUP_ASSIGN_CONTEXT_ID gives the members a context id" || show

# Rank 4 declines: its join succeeds, and the group never completes.
run_step --mpi=pmixev -K0 -N3 -n5 -t 1 "$inv" --invite 3,4 --decline 4
[ "$(lines "$g 4 on n3: join igrp: (PMIX_)?SUCCESS$")" -eq 1 ] &&
	[ "$(lines "$g 3 on n2: no complete in 4 s$")" -eq 1 ]
ok $? "a decline: the decliner's join succeeds, the other invitee sees no complete" || show
[ "$(lines "$g 0 on n1: invite igrp: [A-Z_-]+ in ")" -eq 1 ]
todo "$lib's invite handler ignores PMIX_GROUP_INVITE_DECLINED: the invite never returns" $? \
	"a decline ends the inviter's PMIx_Group_invite" || show

# Rank 4 is killed (SIGKILL) when invited, before it answers: the invite
# watch tells the inviter (the library's own handler listens for
# PMIX_PROC_TERMINATED, -111, which no task exit is).
run_step --mpi=pmixev -K0 -N3 -n5 -t 1 "$inv" --invite 3,4 --kill 4
[ "$(lines "$g 0 on n1: invite failed: rank 4 of igrp \(1 event\(s\)\)$")" -eq 1 ] &&
	[ "$(lines "$g 3 on n2: join igrp: (PMIX_)?SUCCESS$")" -eq 1 ]
ok $? "an invitee killed before answering: its inviter gets PMIX_GROUP_INVITE_FAILED naming it, once" || show
[ "$(lines "$g 0 on n1: invite igrp: [A-Z_-]+ in ")" -eq 1 ]
todo "$lib's invite never fails: it returns only when every invitee accepted" $? \
	"the inviter's PMIx_Group_invite returns when an invitee is killed" || show

# Rank 4 finalizes and exits 0 instead of answering: the same.
run_step --mpi=pmixev -K0 -N3 -n5 -t 1 "$inv" --invite 3,4 --exit 4
[ "$(lines "$g 0 on n1: invite failed: rank 4 of igrp \(1 event\(s\)\)$")" -eq 1 ]
ok $? "an invitee that exits cleanly without answering: its inviter gets PMIX_GROUP_INVITE_FAILED" || show

# The inviter is killed a second after inviting; the invitees wait.
run_step --mpi=pmixev -K0 -N3 -n5 -t 1 "$inv" --invite 3,4 --kill-leader
[ "$(lines "$g 3 on n2: leader failed: rank 0 of igrp$")" -eq 1 ] &&
	[ "$(lines "$g 4 on n3: leader failed: rank 0 of igrp$")" -eq 1 ] &&
	[ "$(lines "$g [12] on n1: invited: 0$")" -eq 2 ]
ok $? "the inviter killed: both invitees that wait get PMIX_GROUP_LEADER_FAILED naming it" || show

done_testing
