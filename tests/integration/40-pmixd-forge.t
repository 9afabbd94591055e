#!/usr/bin/env bash
# Root trusts nothing the step's PMIx server process sends: it runs the
# job's code on the job's word. A hostile stand-in (tests/clients/
# pmixd_forge), put in pmixev-pmixd's place (beside mpi_pmixev.so, or
# where the package installed it) where only root writes (a job cannot choose it), attacks root from every node of a
# step, an attack per node (forge.plan):
#   malformed frames (bad magic, 4 GiB announced, a type only root sends,
#   a rank outside the step, a count of a million): root closes that
#   node's channel with the cause, says it on srun, and ends the step;
#   job control of another step's tasks: refused with the cause;
#   floods of queries, job-control requests, direct-modex requests nobody
#   answers, and 60 KiB events for every node: every request is answered
#   (many over their budget), the events root cannot relay are counted;
#   group constructs: one whose id names another step's namespace closes
#   the channel; 4000 of 4 KiB each that no other node joins are all
#   answered, beyond PMIxevFenceMax at once; 100000 aborts of them from
#   the other member node leave its channel open;
#   spawns: 200 at once, of more processes than the job holds: 8 passed to
#   srun (which Slurm refuses), the others refused at once, all answered;
#   an NSPACE_ADDED for a namespace root never sent closes the channel;
#   dying before READY: the step is refused with the cause.
# After each, every node's slurmstepd ends the step itself within 64 MiB.
. "$(dirname "$0")/lib.sh"
plan 21

prog=$PMIXEV_CLUSTER_PROGRAMS/pmixev-pmixd
aside=$PMIXEV_CLUSTER_PROGRAMS/.pmixev-pmixd.aside
planf=$PMIXEV_CLUSTER_PROGRAMS/forge.plan
restore() {
	[ -e "$aside" ] && mv -f "$aside" "$prog"
	rm -f "$planf"
}
trap restore EXIT
mv "$prog" "$aside"
install -m 0755 "$PMIXEV_TEST_CLIENTS/pmixd_forge" "$prog"

# forge "ATTACKS" SECONDS SRUN-ARGS...: a 3-node step of `sleep SECONDS`
# with the stand-in making ATTACKS (one per node); sets out, rc, job,
# took (s), rss (peak kB of the nodes' slurmstepds), ended (nodes whose
# slurmstepd ended the step), log1..log3 (each node's slurmd lines of
# the step).
forge() {
	local attacks=$1 secs=$2 n t0
	shift 2
	echo "$attacks" >"$planf"
	t0=$SECONDS
	PMIXEV_TEST_TIMEOUT=90 peak_rss "n1 n2 n3" run_step --mpi=pmixev -N3 -n3 -t 2 "$@" sleep "$secs"
	took=$((SECONDS - t0))
	ended=0
	for n in 1 2 3; do
		wait_log "$(slurmd_log n$n)" "\[$job\.0\] (stepd_cleanup: )?done with (job|step)" 15 &&
			ended=$((ended + 1))
		printf -v "log$n" '%s' "$(grep -F "step $job.0 on n$n: " "$(slurmd_log n$n)")"
	done
}

# ended NODE-LOG REASON: the node's root closed the channel for REASON,
# and srun says it.
ended() {
	printf '%s\n' "$1" | grep -q "the PMIx server process ended ($2;" &&
		[ "$(lines "^srun: error: .*the PMIx server process ended \($2;")" -ge 1 ]
}

# bounded: every node's slurmstepd ended the step itself, the largest
# stayed within 64 MiB, and srun ended in time.
bounded() {
	[ "$ended" -eq 3 ] && [ "${rss:-0}" -gt 0 ] && [ "$rss" -lt $((64 * 1024 + rss_slack)) ] &&
		[ "$rc" != 124 ] && [ "$took" -lt 40 ]
}

forge "garbage oversize wrongside" 2
ended "$log1" "bad magic" && ended "$log2" "payload too long" &&
	ended "$log3" "message type of the other side"
ok $? "a bad magic, 4 GiB announced, a START from the owner side: each node's root closes its channel and says why, on srun too" ||
	{ show; printf '%s\n' "$log1" "$log2" "$log3" | tail -n 20 | sed 's/^/#   /' >&2; }
bounded
ok $? "... srun ends in ${took} s (rc $rc), slurmstepds within 64 MiB (peak ${rss:-?} kB)"

forge "badrank count othertasks" 3
ended "$log1" "a malformed CLIENT_STATE message" && ended "$log2" "a malformed QUERY message"
ok $? "a rank outside the step, a count of a million: refused as malformed, said with the type" ||
	{ show; printf '%s\n' "$log1" "$log2" | tail -n 20 | sed 's/^/#   /' >&2; }
printf '%s\n' "$log3" | grep -q "job control: rank [0-9]*: kill refused: the pmix side asks for tasks of another step" &&
	printf '%s\n' "$log3" | grep -q "forge: JOBCTL answered .*tasks of another step" &&
	! printf '%s\n' "$log3" | grep -q "the PMIx server process ended ("
ok $? "killing another step's tasks: refused with the cause, the channel stays" ||
	printf '%s\n' "$log3" | tail -n 20 | sed 's/^/#   /' >&2
bounded
ok $? "... srun ends in ${took} s (rc $rc), slurmstepds within 64 MiB (peak ${rss:-?} kB)"

forge "floodmodex floodquery floodctl" 5
printf '%s\n' "$log1" | grep -Eq "forge: floodmodex: 6000 sent, 6000 answered, [1-9][0-9]* over budget" &&
	printf '%s\n' "$log1" | grep -q "the PMIx server process has 4096 DMODEX requests in flight, its budget" &&
	printf '%s\n' "$log1" | grep -Eq "DMODEX requests: [0-9]+ refused over the budget of 4096"
ok $? "6000 direct-modex requests nobody answers: every one answered, beyond 4096 in flight over budget" ||
	printf '%s\n' "$log1" | grep -E "forge|budget|modex" | tail -n 20 | sed 's/^/#   /' >&2
printf '%s\n' "$log2" | grep -Eq "forge: floodquery: 4000 sent, 4000 answered" &&
	printf '%s\n' "$log3" | grep -Eq "forge: floodctl: 1000 sent, 1000 answered, [1-9][0-9]* over budget"
ok $? "4000 queries of every node's task table, 1000 job-control requests at once: every one answered" ||
	printf '%s\n' "$log2" "$log3" | grep -E "forge|budget|flight" | tail -n 20 | sed 's/^/#   /' >&2
[ "$rc" -eq 0 ]
ok $? "... and the step's tasks run to their end (rc $rc)" || show
bounded
ok $? "... srun ends in ${took} s, slurmstepds within 64 MiB (peak ${rss:-?} kB)"

forge "idle floodmodex floodmodex" 4
printf '%s\n' "$log1" | grep -q "direct modex: the PMIx server process leaves 4096 requests of other nodes unanswered" &&
	printf '%s\n' "$log1" | grep -Eq "direct modex: [0-9]+ request\(s\) of other nodes refused" &&
	printf '%s\n' "$log2" "$log3" | grep -Ec "forge: floodmodex: 6000 sent, 6000 answered" | grep -qx 2
ok $? "two nodes' requests to a server that never answers: it holds 4096, the rest fail at once, all answered" ||
	printf '%s\n' "$log1" "$log2" "$log3" | grep -E "forge|modex" | tail -n 20 | sed 's/^/#   /' >&2
bounded
ok $? "... srun ends in ${took} s (rc $rc), slurmstepds within 64 MiB (peak ${rss:-?} kB)"

forge "floodgroup floodabort badgroup" 5
ended "$log3" "a malformed GROUP message" &&
	printf '%s\n' "$log1" | grep -Eq "forge: floodgroup: 4000 sent, 4000 answered, [1-9][0-9]* over budget" &&
	printf '%s\n' "$log1" | grep -q "group construct 0-1#g[0-9]* #1 refused: 1024 collective(s) in flight on this node"
ok $? "a group id that names another step: refused as malformed; 4000 constructs another node never joins: every one answered, beyond 1024 in flight at once" ||
	printf '%s\n' "$log1" "$log3" | grep -E "forge|group|GROUP|flight" | tail -n 20 | sed 's/^/#   /' >&2
printf '%s\n' "$log2" | grep -q "forge: floodabort: 100000 sent" &&
	! printf '%s\n' "$log2" | grep -q "the PMIx server process ended ("
ok $? "100000 aborts of those constructs from the other member node, which holds none: the channel stays" ||
	printf '%s\n' "$log2" | grep -E "forge|group|GROUP" | tail -n 20 | sed 's/^/#   /' >&2
bounded
ok $? "... srun ends in ${took} s (rc $rc), slurmstepds within 64 MiB (peak ${rss:-?} kB)"

step_env=(SLURM_PMIXEV_OVERLAY_MAX=1)
forge "floodnotify idle" 3
step_env=()
printf '%s\n' "$log1" | grep -Eq "forge: floodnotify: 4000 sent" &&
	printf '%s\n' "$log1" | grep -Eq "events: an event from rank@0 did not reach all its processes: not relayed to every node: over PMIxevOverlayMax"
ok $? "4000 events of 60 KiB for every node over a 1 MiB overlay budget: those not relayed are counted" ||
	printf '%s\n' "$log1" | grep -E "forge|event|overlay" | tail -n 20 | sed 's/^/#   /' >&2
bounded && [ "$rc" -eq 0 ]
ok $? "... srun ends in ${took} s (rc $rc), slurmstepds within 64 MiB (peak ${rss:-?} kB)"

forge "floodspawn idle idle" 4
printf '%s\n' "$log1" | grep -Eq "forge: floodspawn: 200 sent, 200 answered, 19[2-9] over budget" &&
	[ "$(printf '%s\n' "$log1" | grep -c "spawn: step $job\.0 rank 0: failed (PMIx status -29): srun: error: Unable to create step")" -ge 1 ]
ok $? "200 spawns at once: at most 8 in flight on the node (passed to srun, refused by Slurm), the others refused at once, every one answered" ||
	printf '%s\n' "$log1" | grep -E "forge|spawn" | tail -n 20 | sed 's/^/#   /' >&2
bounded && [ "$rc" -eq 0 ]
ok $? "... srun ends in ${took} s (rc $rc), slurmstepds within 64 MiB (peak ${rss:-?} kB)"

forge "unasked idle idle" 2
ended "$log1" "a malformed NSPACE_ADDED message" && bounded
ok $? "an acknowledgement of a namespace root never sent: n1's root closes its channel and says why; srun ends in ${took} s, slurmstepds within 64 MiB" ||
	{ show; printf '%s\n' "$log1" | tail -n 20 | sed 's/^/#   /' >&2; }

forge "crash" 1
[ "$rc" -ne 0 ] && [ "$(lines "^mpi/pmixev: step $job\.0 refused: the PMIx server process did not start: .*killed by signal 11 \(Segmentation fault\)")" -eq 3 ] &&
	[ "$ended" -eq 3 ]
ok $? "a process that dies before READY: the step is refused with the cause, every slurmstepd ends it itself" ||
	{ show; diag "$ended of 3 slurmstepds ended the step"; }

restore
run_step --mpi=pmixev -N3 -n3 "$(client pmix_hello)"
[ "$rc" -eq 0 ] && [ "$(lines '^pmix_hello: rank [0-2] of 3 on n[1-3]: ok$')" -eq 3 ]
ok $? "the real program put back: the next step wires up" || show

done_testing
