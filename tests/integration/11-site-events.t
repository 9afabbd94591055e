#!/usr/bin/env bash
# Site events: a node health check runs pmixev-notify (root only) on n2;
# every process of the step that registered for the code gets the event
# naming n2 with its text - also one that registers only afterwards (PMIx
# caches it) - while a default handler never sees it. A non-root caller is
# refused.
. "$(dirname "$0")/lib.sh"
plan 5

site=$(client pmix_site)
notify=$PMIXEV_CLUSTER_SBIN/pmixev-notify
flag=$PMIXEV_CLUSTER_WORKDIR/11-site-sent
text="ECC errors on DIMM 3"
rm -f "$flag"
log=$PMIXEV_CLUSTER_WORKDIR/11-site.out
start_step "$log" n3 "overlay: connected" --mpi=pmixev -N3 -n6 -t 2 \
	"$site" -232 n2 "$text" "$flag"
wait_ready pmix_site 6

install -m 0755 "$notify" "$PMIXEV_CLUSTER_WORKDIR/pmixev-notify"
out=$(as_user ./pmixev-notify -232 "$text" 2>&1)
rc=$?
[ "$rc" -ne 0 ] && echo "$out" | grep -q "only root may send site events"
ok $? "pmixev-notify refuses a non-root caller with a clear message ($out)"

out=$(on_node n2 "$notify" -232 $text 2>&1)
ok $? "root's pmixev-notify on n2 reaches the step ($out)"
grep -q "step $job\.0 on n2: site event -232: $text" "$(slurmd_log n2)"
ok $? "n2's slurmd log records the site event"
touch "$flag"

wait "$srun_pid"
rc=$?
out=$(cat "$log")
pmix_site_registrants
ok $? "ranks registered before (0, 2, 4) and after (1) the event got it (one distinct event), naming n2 with its text" ||
	show
pmix_site_defaults && [ "$rc" -eq 0 ]
ok $? "ranks with only a default handler (3, 5) never saw it; the step ended cleanly" ||
	show

done_testing
