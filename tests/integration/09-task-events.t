#!/usr/bin/env bash
# When a task ends, every surviving rank on every node gets exactly one
# PMIx event naming it, with the most specific code (doc/app-guide.md
# "Task exit events"), its exit code and host; the step keeps running and the
# survivors can still fence. Rank 5 (alone on n3) ends; ranks 0-4 on n1
# and n2 watch.
. "$(dirname "$0")/lib.sh"
plan 4

events=$(client pmix_events)

# mode, expected code as PMIx prints it (regex: OpenPMIx 4.2's name, or
# 5's), expected exit code
for spec in "kill (PROC-ABORTED-BY-SIG|PMIX_ERR_PROC_ABORTED_BY_SIG) 9" \
	"exit3 (PROC-EXIT-NONZERO-TERM|PMIX_ERR_EXIT_NONZERO_TERM) 3" \
	"nofinalize (PROC[[:space:]]TERMINATED[[:space:]]WITHOUT[[:space:]]SYNC|PMIX_ERR_PROC_TERM_WO_SYNC) 0" \
	"ok (PROC[[:space:]]TERMINATED|PMIX_EVENT_PROC_TERMINATED) 0"; do
	read -r mode code exit_code <<<"$spec"
	run_step --mpi=pmixev -N3 -n6 -t 2 "$events" 5 "$mode"
	n=$(lines "^pmix_events: rank [0-4] of 6 on n[12]: got $code for rank 5 \(exit $exit_code, host n3\) after -?[0-9]+ ms at [0-9.]+: ok$")
	[ "$n" -eq 5 ]
	ok $? "rank 5 $mode: all 5 survivors on n1 and n2 got one ${code//\[\[:space:\]\]/ } (exit $exit_code) and fenced afterwards" ||
		show
done

done_testing
