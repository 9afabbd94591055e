#!/usr/bin/env bash
# RFC0018 handler ordering end to end: rank 0 notifies an event to its
# namespace; on every other rank - on n1 through the PMIx library, on n2
# and n3 through slurmstepd's injection - the handlers registered first,
# prepend, single-code, append, multi-code, default and last run in that
# order, once each, and each sees the results of the ones before it.
# OpenPMIx 4.2.2 and 5.0.7 refuse BEFORE/AFTER a named handler and accept a
# duplicate name (doc/app-guide.md "Event handler order"); the test records what the
# library answered so a library that fixes this shows up here.
. "$(dirname "$0")/lib.sh"
plan 2

order=$(client pmix_order)
run_step --mpi=pmixev -N3 -n6 -t 2 "$order" 0
want='first,prepend,single,append,multi,default,last'
[ "$rc" -eq 0 ] &&
	[ "$(lines "^pmix_order: rank [1-5] of 6 on n[1-3]: $want; .*: ok$")" -eq 5 ] &&
	[ "$(nodes_of "^pmix_order: rank [1-5] of 6 on n[1-3]: $want; .*: ok$")" = "n1 n2 n3 " ]
ok $? "ranks 1-5 on n1, n2 and n3 ran their handlers in the order $want, each seeing its predecessors' results" ||
	show
lib=$(printf '%s\n' "$out" | sed -n 's/^pmix_order: rank 1 of 6 on n1: [^;]*; BEFORE\/AFTER\/DUP: \([^:]*\): ok$/\1/p')
# OpenPMIx 5 spells the same answers PMIX_ERR_EVENT_REGISTRATION, PMIX_SUCCESS.
[ "$(echo "$lib" | sed 's/PMIX_ERR_//g; s/PMIX_//g; y/_/-/')" = "EVENT-REGISTRATION/EVENT-REGISTRATION/SUCCESS" ]
ok $? "libpmix answers BEFORE/AFTER/duplicate-name as documented (got '$lib')" || show

done_testing
