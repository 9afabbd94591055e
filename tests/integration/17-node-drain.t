#!/usr/bin/env bash
# Node drain: an administrator drains n2, a node of a running step, for
# "ECC errors". The watcher's node look sees it and every process of the
# step that registered for PMIX_EVENT_NODE_OFFLINE gets it - naming n2,
# its state and the admin's reason - also one that registers only
# afterwards (PMIx caches it), while a default handler never sees it. The
# step keeps running (a drain kills nothing); resuming the node is logged.
. "$(dirname "$0")/lib.sh"
plan 6

site=$(client pmix_site)
flag=$PMIXEV_CLUSTER_WORKDIR/17-drain-seen
reason="ECC errors"
rm -f "$flag"
resume_n2() { scontrol update nodename=n2 state=resume >/dev/null 2>&1; }
trap resume_n2 EXIT
log=$PMIXEV_CLUSTER_WORKDIR/17-node-drain.out
step_env=(SLURM_PMIXEV_WATCH_INTERVAL=1 SLURM_PMIXEV_NODE_INTERVAL=1)
start_step "$log" n3 "overlay: connected" --mpi=pmixev -N3 -n6 -t 2 \
	"$site" -232 n2 "node n2 is drained (no new work): $reason" "$flag" \
	slurm.pmixev.node.state=drain "slurm.pmixev.node.reason=$reason"
step_env=()
wait_ready pmix_site 6
grep -q "step $job\.0 on n1: watcher: .*one look in 2 at the job's nodes" "$(slurmd_log n1)"
ok $? "with a 1 s interval, every other look of the watcher is at the job's nodes"

t0=$(date +%s.%N)
scontrol update nodename=n2 state=drain reason="$reason"
wait_log "$(slurmd_log n1)" "step $job\.0 on n1: watcher: node n2 is drained \(no new work\): $reason" 10
ok $? "n1's slurmd log names the drained node and the admin's reason ($(printf %.1f "$(echo "$(date +%s.%N) - $t0" | bc)") s after the drain)"

resume_n2
wait_log "$(slurmd_log n1)" "step $job\.0 on n1: watcher: node n2 is back in service" 10
ok $? "resuming n2 is logged as back in service"
touch "$flag"

wait "$srun_pid"
rc=$?
out=$(cat "$log")
pmix_site_registrants
ok $? "ranks registered before (0, 2, 4) and after (1) the drain got one node-offline event naming n2, state drain and the reason" ||
	show
pmix_site_defaults
ok $? "ranks with only a default handler (3, 5) never saw it" || show
[ "$rc" -eq 0 ] && [ "$(sinfo -h -n n2 -o %T)" != "drained" ]
ok $? "the step ran to its end on the drained node (rc $rc); n2 is back in service ($(sinfo -h -n n2 -o %T))"

done_testing
