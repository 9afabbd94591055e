#!/usr/bin/env bash
# A silent network cut in a --no-kill step: n3's link goes down (nothing
# closes, nothing resets). The stepds' heartbeats (PMIxevHeartbeat, 200 ms)
# notice: the survivors on n1 and n2 get one PMIX_EVENT_NODE_DOWN naming
# n3 and rank 5, and one PMIX_ERR_PROC_TERM_WO_SYNC for rank 5, within 1 s
# and fence among themselves. The link then comes back and n3 rejoins the
# cluster. (Open MPI under a cut: 23-ulfm.t.)
. "$(dirname "$0")/lib.sh"
plan 4

# reachable NETNS ADDR PORT: a TCP connection from NETNS ("" for the host)
# to ADDR:PORT succeeds.
reachable() {
	local -a in=()
	[ -z "$1" ] || in=(ip netns exec "$1")
	"${in[@]}" timeout 1 bash -c ": </dev/tcp/$2/$3" 2>/dev/null
}

# wait_back: once the link is up again, until n3 and the other nodes reach
# each other (neighbour entries that failed during the cut are flushed)
# and all three nodes are idle.
wait_back() {
	local port n spec ok
	port=$(sed -n 's/^SlurmdPort=//p' "$SLURM_CONF")
	for n in $PMIXEV_CLUSTER_NODES; do
		ip -n "${PMIXEV_CLUSTER_NETNS_PREFIX}$n" neigh flush all 2>/dev/null
	done
	for _ in $(seq 100); do
		ok=1
		for spec in $PMIXEV_CLUSTER_NODE_ADDRS; do
			reachable "${PMIXEV_CLUSTER_NETNS_PREFIX}n3" "${spec#*=}" "$port" &&
				reachable "" "${spec#*=}" "$port" || ok=0
		done
		[ "$ok" = 1 ] && break
		sleep 0.1
	done
	for _ in $(seq 600); do
		[ "$(sinfo -h -t idle -o %D)" = 3 ] && return 0
		sleep 0.1
	done
	sinfo | sed 's/^/#   /' >&2
	return 1
}

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
ok $? "all 5 survivors got one node-down event naming n3 and rank 5 and one process failure for rank 5, then fenced" || show
delay=$(last_event_ms "$t0")
[ -n "$delay" ] && [ "$delay" -lt 1000 ]
ok $? "the last survivor heard of it ${delay:-?} ms after the cut (limit 1000 ms)"
grep -Eq "step $job\.0 on n1: (PROC TERMINATED WITHOUT SYNC|PMIX_ERR_PROC_TERM_WO_SYNC): rank 5 on n3 is lost with its node" "$(slurmd_log n1)"
ok $? "n1's stepd announced rank 5 lost with n3"

ip link set "$link" up
scancel "$job" 2>/dev/null
wait "$srun_pid" 2>/dev/null
wait_back
ok $? "with the link back, n3 rejoins and all three nodes are idle"

done_testing
