#!/usr/bin/env bash
# Who may talk to a step's PMIx server. OpenPMIx listens on loopback TCP
# and believes the uid a client or tool claims; the port is no secret
# (/proc/net/tcp). A second unprivileged user on the node, given the
# server's URI and a program that claims the job owner's uid, tries to
# attach as a PMIx tool and to connect as one of the step's ranks (its
# PMIX_* environment copied); both are refused (the connection is shut
# down before the library serves it) and logged, no rank sees the
# intruder's event, and the job owner's own tools still attach.
. "$(dirname "$0")/lib.sh"
plan 8

listen_step 19
uid=$(id -u "$PMIXEV_TEST_USER") gid=$(id -g "$PMIXEV_TEST_USER")
other=$(id -u "$PMIXEV_OTHER_USER")
# rank 0 (on n1) and its PMIx environment: what an intruder would need
for p in $(ip netns pids "${PMIXEV_CLUSTER_NETNS_PREFIX}n1"); do
	[ "$(cat "/proc/$p/comm" 2>/dev/null)" = pmix_listen ] && rank0=$p && break
done
mapfile -t pmixenv < <(tr '\0' '\n' <"/proc/$rank0/environ" | grep '^PMIX_')
uri=$(printf '%s\n' "${pmixenv[@]}" | sed -n 's/^PMIX_SERVER_URI41=//p')
diag "job $job; rank 0 is pid $rank0; server $uri"
on_n1() {
	on_node n1 timeout 30 "$@"
}
as_other() {
	on_n1 runuser -u "$PMIXEV_OTHER_USER" -- env -i PATH=/usr/bin:/bin \
		PMIXEV_CLIENT_TIMEOUT=10 PMIXEV_FAKE_UID="$uid" PMIXEV_FAKE_GID="$gid" "$@"
}
install -m 0755 "$PMIXEV_TEST_CLIENTS/pmix_intrude" /tmp/19-pmix_intrude

out=$(as_other /tmp/19-pmix_intrude tool "$uri" 2>&1)
ok $? "another user cannot attach as a tool claiming the owner's uid ($out)"
out=$(as_other "${pmixenv[@]}" /tmp/19-pmix_intrude client 2>&1)
ok $? "another user cannot connect as rank 0 claiming the owner's uid ($out)"
grep -q "step $job\.0 on n1: pmix gate: refusing a PMIx connection from 127\.0\.0\.1:[0-9]*: its process runs as uid $other," "$(slurmd_log n1)"
ok $? "n1's stepd logs the first refusal at once with the intruder's real uid" ||
	grep "step $job\.0 on n1" "$(slurmd_log n1)" | tail -n 8 | sed 's/^/#   /' >&2

# The owner's own tool, claiming nothing, still attaches.
out=$(on_n1 runuser -u "$PMIXEV_TEST_USER" -- env -i PATH=/usr/bin:/bin \
	PMIXEV_CLIENT_TIMEOUT=10 /tmp/19-pmix_intrude tool "$uri" 2>&1)
[ $? -eq 1 ] && echo "$out" | grep -q "ACCEPTED: event injection"
ok $? "the job owner's tool attaches and injects its event ($out)"
rm -f /tmp/19-pmix_intrude

touch "$flag"
wait "$srun_pid"
out=$(cat "$log")
[ "$(lines "^pmix_listen: rank [0-2] on n[1-3]: got 1 event\(s\) from ")" -eq 3 ]
ok $? "each rank got exactly one event: the owner's, none of the intruder's" || show
[ "$(lines "^pmix_listen: rank [0-2] on n[1-3]: got 1 event\(s\) from slurm\.pmixev\.$job\.0\.tool\.0\.[0-9]+\$")" -eq 3 ]
ok $? "... and it came from the owner's tool" || show
# srun can return before the stepd's end of step: wait for its summary.
wait_log "$(slurmd_log n1)" "step $job\.0 on n1: pmix gate: 2 connection\(s\) of other users refused during the step"
ok $? "the stepd sums up the refusals at the step's end"
# The second within 10 s of the first: summed up, not a line of its own.
grep -Eq "step $job\.0 on n1: pmix gate: 1 connection\(s\) refused in the last 10 s, from uid\(s\) $other; the last from 127\.0\.0\.1:[0-9]+: its process runs as uid $other," "$(slurmd_log n1)"
ok $? "... and logs the second in a summary naming the intruder's uid" ||
	grep "step $job\.0 on n1: pmix gate" "$(slurmd_log n1)" | sed 's/^/#   /' >&2

done_testing
