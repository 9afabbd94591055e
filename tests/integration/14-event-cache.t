#!/usr/bin/env bash
# The event cache: with PMIxevEventCache=8 (per job, from the environment)
# a health check on n2 sends 20 site events. Processes registered before
# get all 20; processes registering afterwards get 8 of them, from their
# node's cache (which 8 is OpenPMIx's choice: 4.2 keeps the first 7 and the
# last of a burst within one second). Every node counts 20 cached and 12
# evicted for site@n2, and its processes read those counts with
# PMIx_Query_info ("slurm.pmixev.events"); the slurmd logs say the cache
# overflowed and what each source lost. (The time-limit warning is off:
# it would take a slot.) Normal ends (PMIx_Finalize, status 0) are not
# cached: a step of more ranks than slots ends without an eviction.
. "$(dirname "$0")/lib.sh"
plan 7

cache=$(client pmix_cache)
notify=$PMIXEV_CLUSTER_SBIN/pmixev-notify
flag=$PMIXEV_CLUSTER_WORKDIR/14-cache-sent
rm -f "$flag"
log=$PMIXEV_CLUSTER_WORKDIR/14-cache.out
step_env=(SLURM_PMIXEV_EVENT_CACHE=8 SLURM_PMIXEV_TIME_WARNING=0)
start_step "$log" n3 "overlay: connected" --mpi=pmixev -N3 -n6 -t 2 \
	"$cache" -232 n2 "$flag"
step_env=()
wait_ready pmix_cache 6
grep -Eq "PMIxevEventCache=8[ )]" "$(slurmd_log n1)"
ok $? "the job's SLURM_PMIXEV_EVENT_CACHE=8 reached the stepds"

sent=0
for i in $(seq 20); do
	on_node n2 "$notify" -232 "thermal excursion $i" >/dev/null &&
		sent=$((sent + 1))
done
[ "$sent" -eq 20 ]
ok $? "pmixev-notify on n2 sent 20 site events ($sent)"
touch "$flag"

wait "$srun_pid"
rc=$?
out=$(cat "$log")
counts='site@n2 cached 20 evicted 12 undelivered 0'
[ "$rc" -eq 0 ] &&
	[ "$(lines "^pmix_cache: rank [024] on n[1-3]: early: got 20 seq 1-20; $counts\$")" -eq 3 ]
ok $? "ranks registered before (0, 2, 4 on n1-n3) got all 20 events" || show
[ "$(lines "^pmix_cache: rank [135] on n[1-3]: late: got 8 seq [0-9,-]+; $counts\$")" -eq 3 ]
ok $? "ranks registering afterwards (1, 3, 5) got 8 of them from the cache; every node reports 20 cached, 12 evicted" ||
	show

fails=0
for n in n1 n2 n3; do
	grep -q "step $job\.0 on $n: events: the event cache is full (PMIxevEventCache=8): 8 event(s) evicted so far, the last one from site@n2" "$(slurmd_log "$n")" ||
		fails=$((fails + 1))
done
[ "$fails" -eq 0 ]
ok $? "each node's slurmd log reports the full cache, with the source of the evicted events"
wait_log "$(slurmd_log n2)" "step $job\.0 on n2: events from site@n2: 20 cached, (1[2-9]|20) evicted from the full cache, 0 undelivered"
ok $? "at step end n2's slurmd log sums up what site@n2 lost"

step_env=(SLURM_PMIXEV_EVENT_CACHE=8 SLURM_PMIXEV_TIME_WARNING=0)
run_step --mpi=pmixev -N3 -n12 "$(client pmix_hello)"
step_env=()
evicted=$(grep -c "step $job\.0 on n[1-3]: events: the event cache is full" \
	"$(slurmd_log n1)" "$(slurmd_log n2)" "$(slurmd_log n3)" | awk -F: '{ n += $NF } END { print n }')
[ "$rc" -eq 0 ] && [ "$(lines '^pmix_hello: rank [0-9]+ of 12 on n[1-3]: ok$')" -eq 12 ] &&
	[ "$(lines 'event cache is full')" -eq 0 ] && [ "$evicted" -eq 0 ]
ok $? "12 ranks end normally with 8 event slots: nothing evicted, nothing said ($evicted lines)" || show

done_testing
