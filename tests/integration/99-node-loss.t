#!/usr/bin/env bash
# Node loss in a --no-kill step: every process of n3 dies at once (slurmd,
# slurmstepd, task). The survivors on n1 and n2 get one
# PMIX_EVENT_NODE_DOWN naming n3 and its rank within 1 s, and then fence
# among themselves. Runs last: it leaves n3's slurmd dead.
. "$(dirname "$0")/lib.sh"
plan 3

events=$(client pmix_events)
log=$PMIXEV_CLUSTER_WORKDIR/99-node-loss.out
start_step "$log" n3 "overlay: connected" --no-kill --mpi=pmixev -N3 -n6 -t 2 \
	"$events" 5 nodedown
sleep 2 # everyone registered and synchronised
t0=$(date +%s.%N)
for p in $(ip netns pids "${PMIXEV_CLUSTER_NETNS_PREFIX}n3"); do
	kill -9 "$p" 2>/dev/null
done
wait "$srun_pid"
rc=$?
out=$(cat "$log")
[ "$(nodedown_count)" -eq 5 ]
ok $? "all 5 survivors got one node-down event naming n3 and rank 5, then fenced" || show
delay=$(last_event_ms "$t0")
[ -n "$delay" ] && [ "$delay" -lt 1000 ]
ok $? "the last survivor heard of it ${delay:-?} ms after n3 died (limit 1000 ms)"
grep -q "step $job\.0 on n1: overlay: lost child node 2" "$(slurmd_log n1)"
ok $? "n1's stepd logs the lost node"

done_testing
