#!/usr/bin/env bash
# Nodes out of service: an administrator drains n2 ("ECC errors") under a
# running step, and in a second step sets n3 to FAIL ("thermal"). The
# watcher's node look sees each, and every process of the step that
# registered for PMIX_EVENT_NODE_OFFLINE gets it - naming the node, its
# state and the admin's reason - also one that registers only afterwards
# (PMIx caches it), while a default handler never sees it. The steps keep
# running (neither kills anything); resuming the node is logged.
. "$(dirname "$0")/lib.sh"
plan 13

site=$(client pmix_site)
resume() { scontrol update nodename=n2,n3 state=resume >/dev/null 2>&1; }
trap resume EXIT

# offline NODE STATE PHRASE REASON: one step, NODE set to STATE under it.
offline() {
	local node=$1 state=$2 phrase=$3 reason=$4 t0 took
	local flag=$PMIXEV_CLUSTER_WORKDIR/17-$state-seen
	local text="node $node is $phrase: $reason"

	rm -f "$flag"
	log=$PMIXEV_CLUSTER_WORKDIR/17-node-$state.out
	step_env=(SLURM_PMIXEV_WATCH_INTERVAL=1 SLURM_PMIXEV_NODE_INTERVAL=1)
	start_step "$log" n3 "overlay: connected" --mpi=pmixev -N3 -n6 -t 2 \
		"$site" -232 "$node" "$text" "$flag" \
		slurm.pmixev.node.state="$state" "slurm.pmixev.node.reason=$reason"
	step_env=()
	wait_ready pmix_site 6
	if [ "$state" = drain ]; then
		grep -q "step $job\.0 on n1: watcher: .*one look in 2 at the job's nodes" "$(slurmd_log n1)"
		ok $? "with a 1 s interval, every other look of the watcher is at the job's nodes"
	fi

	t0=$(date +%s.%N)
	scontrol update nodename="$node" state="$state" reason="$reason"
	wait_log "$(slurmd_log n1)" "step $job\.0 on n1: watcher: ${text//[()]/.}" 10
	ok $? "$state: n1's slurmd log names $node, its state and the admin's reason ($(printf %.1f "$(echo "$(date +%s.%N) - $t0" | bc)") s after scontrol)"

	resume
	wait_log "$(slurmd_log n1)" "step $job\.0 on n1: watcher: node $node is back in service" 10
	ok $? "$state: resuming $node is logged as back in service"
	touch "$flag"

	wait "$srun_pid"
	rc=$?
	out=$(cat "$log")
	pmix_site_registrants
	ok $? "$state: ranks registered before (0, 2, 4) and after (1) got one node-offline event naming $node, state $state and the reason" ||
		show
	pmix_site_defaults
	ok $? "$state: ranks with only a default handler (3, 5) never saw it" || show
	[ "$rc" -eq 0 ] && ! sinfo -h -n "$node" -o %T | grep -Eq 'drain|fail'
	ok $? "$state: the step ran to its end (rc $rc); $node is back in service ($(sinfo -h -n "$node" -o %T))"
	# The watcher looked every second until the end: a helper it started
	# after the tasks ended must not keep the step alive (under
	# proctrack/cgroup Slurm waits for the step's cgroup to empty, then
	# drains the node: "Kill task failed").
	wait_log "$(slurmd_log n1)" "\\[$job\\.0\\] .*done with (job|step)" 70 &&
		took=$(awk -v s="[$job.0]" '
			$2 == s && /exited with status/ { last = $1 }
			$2 == s && / done with (job|step)/ && !done { done = $1 }
			function t(x) { gsub(/[][]/, "", x); split(x, a, "T"); split(a[2], b, ":"); return b[1] * 3600 + b[2] * 60 + b[3] }
			END { if (last && done) printf "%.1f", t(done) - t(last) }' "$(slurmd_log n1)") &&
		[ -n "$took" ] && awk -v x="$took" 'BEGIN { exit !(x < 10) }'
	ok $? "$state: n1's slurmstepd ended ${took:-?} s after its last task (at most 10)"
}

offline n2 drain "drained (no new work)" "ECC errors"
offline n3 fail "expected to fail (no new work)" "thermal"

done_testing
