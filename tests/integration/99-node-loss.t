#!/usr/bin/env bash
# Node loss in a --no-kill step: every process of n3 dies at once (slurmd,
# slurmstepd, task). The survivors on n1 and n2 get one
# PMIX_EVENT_NODE_DOWN naming n3 and its rank within 1 s, and then fence
# among themselves. Then, on a fresh cluster, the same for n1, the root of
# the stepds' tree: the tree heals (n3 joins n2, the lowest node left)
# and the survivors on n2 and n3 fence through it; n2 takes over the
# scheduler-event watcher. Between the two, a group with
# NOTIFY_TERMINATION when n3 dies: its other members hear
# PMIX_GROUP_MEMBER_FAILED for rank 5, and destruct it. Runs last: it
# leaves n1's slurmd dead.
. "$(dirname "$0")/lib.sh"
plan 9

events=$(client pmix_events)
# survivors NODE N REGEX: wait (up to 30 s) until N lines of $log match
# the extended REGEX, the survivors' last words; then tell slurmctld the
# dead NODE is down, as an operator would, and let srun end. (It would
# find the node's slurmd silent itself, some 15 s later: Slurm's part,
# not pmixev's; a cancel would leave srun waiting for the dead tasks.)
survivors() {
	for _ in $(seq 300); do
		[ "$(grep -Ec -- "$3" "$log")" -ge "$2" ] && break
		sleep 0.1
	done
	scontrol update nodename="$1" state=down reason="99-node-loss: crashed"
	wait "$srun_pid"
}
log=$PMIXEV_CLUSTER_WORKDIR/99-node-loss.out
start_step "$log" n3 "overlay: connected" --no-kill --mpi=pmixev -N3 -n6 -t 2 \
	"$events" 5 nodedown
sleep 2 # everyone registered and synchronised
t0=$(date +%s.%N)
crash_node n3
survivors n3 5 '^pmix_events: rank [0-4] of 6 on n[12]: (.*: ok$|FAILED)'
out=$(cat "$log")
[ "$(nodedown_count)" -eq 5 ]
ok $? "all 5 survivors got one node-down event naming n3 and rank 5 and one process failure for rank 5, then fenced" || show
delay=$(last_event_ms "$t0")
[ -n "$delay" ] && [ "$delay" -lt 1000 ]
ok $? "the last survivor heard of it ${delay:-?} ms after n3 died (limit 1000 ms)"
grep -q "step $job\.0 on n1: overlay: lost child node 2" "$(slurmd_log n1)"
ok $? "n1's stepd logs the lost node"

bash "$CLUSTER" stop >/dev/null 2>&1
bash "$CLUSTER" start >/dev/null 2>&1
ok $? "the cluster restarts with all three nodes"

# A constructed group with NOTIFY_TERMINATION over -N3 -n6 (rank 5 on n3);
# n3 dies while the members hold it.
log=$PMIXEV_CLUSTER_WORKDIR/99-group-loss.out
start_step "$log" n3 "overlay: connected" --no-kill --mpi=pmixev -N3 -n6 -t 2 \
	"$(client pmix_group)" --ctxid --notify --watch --hold 4
for _ in $(seq 100); do
	[ "$(grep -Ec 'construct grp1: (PMIX_)?SUCCESS' "$log")" -eq 6 ] && break
	sleep 0.1
done
crash_node n3
survivors n3 5 '^pmix_group: rank [0-4] on n[12]: destruct grp1: '
out=$(cat "$log")
ev="event (GROUP-MEMBER-FAILED|PMIX_GROUP_MEMBER_FAILED) group grp1 rank 5 ctxid [0-9]+$"
[ "$(lines "^pmix_group: rank [0-4] on n[12]: $ev")" -eq 5 ] &&
	[ "$(printf '%s\n' "$out" | grep -E "^pmix_group: rank [0-4] on n[12]: $ev" | sort -u | wc -l)" -eq 5 ] &&
	[ "$(lines "^pmix_group: rank [0-4] on n[12]: destruct grp1: (PMIX_)?SUCCESS in ")" -eq 5 ]
ok $? "n3 dies under a group with NOTIFY_TERMINATION: each of the 5 other members hears GROUP_MEMBER_FAILED for rank 5 once, and destructs it" ||
	show
bash "$CLUSTER" stop >/dev/null 2>&1
bash "$CLUSTER" start >/dev/null 2>&1
ok $? "the cluster restarts with all three nodes"
log=$PMIXEV_CLUSTER_WORKDIR/99-root-loss.out
start_step "$log" n3 "overlay: connected" --no-kill --mpi=pmixev -N3 -n3 -t 2 \
	"$events" 0 nodedown
sleep 2 # everyone registered and synchronised
t0=$(date +%s.%N)
crash_node n1
survivors n1 2 '^pmix_events: rank [12] of 3 on n[23]: (.*: ok$|FAILED)'
out=$(cat "$log")
delay=$(last_event_ms "$t0")
[ "$(lines '^pmix_events: rank [12] of 3 on n[23]: got (NODE-DOWN|PMIX_EVENT_NODE_DOWN) for rank 0 \(exit -1, host n1\) after [0-9]+ ms at [0-9.]+: ok$')" -eq 2 ] &&
	[ -n "$delay" ] && [ "$delay" -lt 1000 ]
ok $? "the root n1 dies: both survivors got one node-down naming n1 and rank 0 (${delay:-?} ms), then fenced across n2 and n3" ||
	show
grep -q "step $job\.0 on n3: overlay: joining node 1 as its new parent" "$(slurmd_log n3)" &&
	grep -q "step $job\.0 on n2: overlay: node 1 is now the root of the step's tree" "$(slurmd_log n2)"
ok $? "the tree healed: n2 became its root and n3 joined it" ||
	grep -h "step $job\.0 on n[23]: overlay" "$(slurmd_log n2)" "$(slurmd_log n3)" | sed 's/^/#   /' >&2
grep -q "step $job\.0 on n2: watcher: taking over from lost node 0" "$(slurmd_log n2)"
ok $? "n2, the new root, took over watching slurmctld for the step"

done_testing
