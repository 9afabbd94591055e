#!/usr/bin/env bash
# A PMIx connection that fails its handshake must not harm the step.
# OpenPMIx 4.2 to 5.0.9 free a rank's record twice when a client's
# handshake fails after the library found the rank (no credential, a
# module it lacks, a peer gone before the answer): the namespace's next
# connection then crashed slurmstepd (SIGSEGV in
# pmix_ptl_base_connection_handler) or hung it. pmixev's gate reads every
# hello first and passes on only what the library accepts. Here the job
# owner, who may reach the server, sends each such hello for rank 0 and
# hangs up; then a real PMIx client connects as rank 0, and the step ends
# well, every client connection handed from the gate to the library.
. "$(dirname "$0")/lib.sh"
plan 9

listen_step 26
for p in $(ip netns pids "${PMIXEV_CLUSTER_NETNS_PREFIX}n1"); do
	[ "$(cat "/proc/$p/comm" 2>/dev/null)" = pmix_listen ] && rank0=$p && break
done
mapfile -t pmixenv < <(tr '\0' '\n' <"/proc/$rank0/environ" | grep '^PMIX_')
uri=$(printf '%s\n' "${pmixenv[@]}" | sed -n 's/^PMIX_SERVER_URI41=//p')
port=${uri##*:}
ns=$(printf '%s\n' "${pmixenv[@]}" | sed -n 's/^PMIX_NAMESPACE=//p')
stepd=$(stepd_pid n1)
diag "job $job; rank 0 is pid $rank0 of $ns; server $uri; stepd $stepd"
as_owner() {
	on_node n1 timeout 30 runuser -u "$PMIXEV_TEST_USER" -- \
		env -i PATH=/usr/bin:/bin PMIXEV_CLIENT_TIMEOUT=10 "$@"
}
install -m 0755 "$PMIXEV_TEST_CLIENTS/pmix_handshake" /tmp/26-pmix_handshake
install -m 0755 "$PMIXEV_TEST_CLIENTS/pmix_intrude" /tmp/26-pmix_intrude

# OpenPMIx's own listener is in the network of the step's PMIx server
# process: the only loopback listener of the stepd and its pmixev-pmixd in
# the node's network is the gate, at the port its clients were given.
pmixd=$(pgrep -P "$stepd" -x pmixev-pmixd)
mine=$(on_node n1 ss -Hltnp | grep -E "pid=($stepd|${pmixd:-none})," | grep -c "127\.0\.0\.1:")
gate=$(on_node n1 ss -Hltnp | grep -E "pid=($stepd|${pmixd:-none})," | grep -c "127\.0\.0\.1:$port ")
[ "$mine" -eq 1 ] && [ "$gate" -eq 1 ]
ok $? "the PMIx server is reached only through the gate ($mine loopback listener(s))"

sent=0
for kind in nocred badbfrops bigcred short nocred; do
	as_owner /tmp/26-pmix_handshake "$port" "$kind" "$ns" 0 >/dev/null &&
		sent=$((sent + 1))
done
[ "$sent" -eq 5 ]
ok $? "the job owner sent 5 broken hellos for rank 0"

# The namespace's next connection: where OpenPMIx crashed or hung.
out=$(as_owner "${pmixenv[@]}" /tmp/26-pmix_intrude client 2>&1)
[ $? -eq 1 ] && echo "$out" | grep -q "ACCEPTED"
ok $? "a PMIx client then connects as rank 0 and is served ($out)"
# Hellos the library takes, their peers gone before reading the answer
# (a task killed inside PMIx_Init), the second one after the first.
sent=0
for kind in vanish vanish; do
	as_owner /tmp/26-pmix_handshake "$port" "$kind" "$ns" 0 >/dev/null &&
		sent=$((sent + 1))
done
[ "$sent" -eq 2 ]
ok $? "two connections as rank 0 left without reading the server's answer"
[ -n "$stepd" ] && [ "$(stepd_pid n1)" = "$stepd" ]
ok $? "n1's slurmstepd is still the same process"
grep -q "step $job\.0 on n1: pmix gate: refusing a PMIx connection from 127\.0\.0\.1:[0-9]*: uid $(id -u "$PMIXEV_TEST_USER"): its hello has " "$(slurmd_log n1)"
ok $? "the gate logs the first bad hello's refusal at once, by name" ||
	grep "step $job\.0 on n1: pmix gate" "$(slurmd_log n1)" | sed 's/^/#   /' >&2
rm -f /tmp/26-pmix_handshake /tmp/26-pmix_intrude

touch "$flag"
wait "$srun_pid"
rc=$?
out=$(cat "$log")
# (rank 0 itself is the event's source: the library keeps it from rank 0)
[ "$rc" -eq 0 ] && [ "$(lines "^pmix_listen: rank [12] on n[23]: got 1 event\(s\) from ")" -eq 2 ]
ok $? "the step ends well: ranks 1 and 2 got the client's event (srun $rc)" || show
wait_log "$(slurmd_log n1)" "step $job\.0 on n1: pmix gate: during the step 4 connection\(s\) refused for their hello, 1 ended before it"
# One line each for the first refusals of a quiet spell, the others summed
# up (gate/gate_tally.h): 4 in all.
said=$(grep "step $job\.0 on n1: pmix gate: " "$(slurmd_log n1)" |
	awk '/refusing a PMIx connection from .*: its hello has / { n++ }
		/ connection\(s\) refused in the last / {
			sub(/.* pmix gate: /, ""); n += $1 }
		END { print n + 0 }')
[ "$said" -eq 4 ]
ok $? "the stepd sums up the refusals at the step's end (4 in its log lines: $said)" ||
	grep "step $job\.0 on n1: pmix gate" "$(slurmd_log n1)" | sed 's/^/#   /' >&2
# Every client connection the library took was handed to it: rank 0,
# the client as rank 0, the two that left (their messages do not pass
# through the gate).
wait_log "$(slurmd_log n1)" "step $job\.0 on n1: pmix gate: 4 client connection\(s\) handed to the server, 0 relayed"
ok $? "the 4 client connections were handed to the server, none relayed"

done_testing
