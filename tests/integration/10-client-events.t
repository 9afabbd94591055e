#!/usr/bin/env bash
# A client's PMIx_Notify_event reaches exactly the processes of its range,
# on every node, once each: pmixev relays it along the stepd tree and each
# node's PMIx server delivers it with the original source and range.
# Under a burst of 5000 events every receiver still gets every one. Bad
# input (an unknown code, an event with 5000 infos) is refused cleanly.
. "$(dirname "$0")/lib.sh"
plan 8

notify=$(client pmix_notify)

for spec in "0 namespace" "0 session" "0 global" "0 custom:2,5" "5 custom:1,4"; do
	read -r sender range <<<"$spec"
	run_step --mpi=pmixev -N3 -n6 -t 2 "$notify" "$sender" "$range"
	[ "$rc" -eq 0 ] && [ "$(lines '^pmix_notify: rank [0-5] of 6 on n[1-3]: got [01], expected [01]: ok$')" -eq 6 ]
	ok $? "rank $sender notifies range $range: each of the 6 ranks on n1-n3 got it once if in range, else never" ||
		show
done

run_step --mpi=pmixev -N3 -n6 -t 2 "$notify" 0 namespace bad
[ "$rc" -eq 0 ] && [ "$(lines '^pmix_notify: rank [0-5] of 6 on n[1-3]: got 1, expected 1: ok$')" -eq 6 ]
ok $? "after an unknown code and an event with 5000 infos from rank 0, its real event still reaches each of the 6 ranks once" ||
	show
node=$(printf '%s\n' "$out" | sed -n 's/^pmix_notify: rank 0 of 6 on \(n[0-9]\):.*/\1/p')
grep -Eq "step $job\.0 on $node: events: an event from rank@0 did not reach all its processes: it carries [0-9]+ infos, more than 4096: not relayed to the other nodes" "$(slurmd_log "${node:-n1}")"
ok $? "the sender's slurmd log (${node:-?}) says why the 5000-info event stayed on its node"

flood=$(client pmix_flood)
run_step --mpi=pmixev -N3 -n6 -t 2 "$flood" 5000
[ "$rc" -eq 0 ] && [ "$(lines '^pmix_flood: rank [1-5] of 6 on n[1-3]: got 5000 of 5000 in [0-9]+ ms: ok$')" -eq 5 ]
ok $? "rank 0 sends 5000 events back to back: all 5 other ranks on n1-n3 got every one" ||
	show

done_testing
