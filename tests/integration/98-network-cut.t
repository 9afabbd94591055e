#!/usr/bin/env bash
# A silent network cut in a --no-kill step: n3's link goes down (nothing
# closes, nothing resets). The stepds' heartbeats (PMIxevHeartbeat, 200 ms)
# notice: the survivors on n1 and n2 get one PMIX_EVENT_NODE_DOWN naming
# n3 and rank 5 within 1 s and fence among themselves. The link then comes
# back and n3 rejoins the cluster.
. "$(dirname "$0")/lib.sh"
plan 3

events=$(client pmix_events)
link=${PMIXEV_CLUSTER_VETH_PREFIX}n3
log=$PMIXEV_CLUSTER_WORKDIR/98-network-cut.out
start_step "$log" n3 "overlay: connected" --no-kill --mpi=pmixev -N3 -n6 -t 2 \
	"$events" 5 nodedown
sleep 2 # everyone registered and synchronised
t0=$(date +%s.%N)
ip link set "$link" down
for _ in $(seq 200); do
	[ "$(grep -c '^pmix_events: rank [0-4] of 6 on n[12]: ' "$log")" -ge 5 ] && break
	sleep 0.1
done
out=$(cat "$log")
[ "$(nodedown_count)" -eq 5 ]
ok $? "all 5 survivors got one node-down event naming n3 and rank 5, then fenced" || show
delay=$(last_event_ms "$t0")
[ -n "$delay" ] && [ "$delay" -lt 1000 ]
ok $? "the last survivor heard of it ${delay:-?} ms after the cut (limit 1000 ms)"

ip link set "$link" up
scancel "$job" 2>/dev/null
wait "$srun_pid" 2>/dev/null
for _ in $(seq 600); do
	[ "$(sinfo -h -t idle -o %D)" = 3 ] && break
	sleep 0.1
done
[ "$(sinfo -h -t idle -o %D)" = 3 ]
ok $? "with the link back, n3 rejoins and all three nodes are idle" ||
	sinfo | sed 's/^/#   /' >&2

done_testing
