#!/usr/bin/env bash
# Who may knock at the overlay's doors (a stepd's overlay port, srun's
# rendezvous port), and where srun's table may send root's stepds:
# - another user who fills both doors with idle connections from a node of
#   the step does not stop the step: a full door closes its oldest
#   unauthenticated connection for the new one, which may be genuine;
# - a connection from outside the step's nodes is closed at once, before
#   any read, and counted in a summary line (never a line each);
# - a table that gives a node an address not its own (slurm.conf) is
#   refused by the stepds, and the step fails instead of hanging.
. "$(dirname "$0")/lib.sh"
plan 9

fence=$(client pmix_fence)
forge=./overlay_forge
install -m 0755 "$PMIXEV_TEST_CLIENTS/overlay_forge" "$PMIXEV_CLUSTER_WORKDIR/overlay_forge"
other=$PMIXEV_OTHER_USER

# n3's slurmd is stopped while the step starts: n1 and n2's stepds wait at
# srun's rendezvous for n3's, with their doors open.
slurmd3=$(cat "$PMIXEV_CLUSTER_DIR/pids/slurmd-n3.pid")
kill -STOP "$slurmd3"
trap 'kill -CONT "$slurmd3" 2>/dev/null' EXIT
log=$PMIXEV_CLUSTER_WORKDIR/34-fence.out
started=$SECONDS
start_step "$log" n1 "overlay: listening on" --mpi=pmixev -N3 -n3 -t 2 "$fence" --data
n1log=$(slurmd_log n1) n2log=$(slurmd_log n2)
wait_log "$n2log" "step $job\.0 on n2: overlay: listening on " 10
n1addr=$(sed -n "s/.*step $job\.0 on n1: overlay: listening on \([0-9.]*:[0-9]*\),.*/\1/p" "$n1log" | tail -n1)
n2addr=$(sed -n "s/.*step $job\.0 on n2: overlay: listening on \([0-9.]*:[0-9]*\),.*/\1/p" "$n2log" | tail -n1)
for _ in $(seq 50); do
	for p in $(ip netns pids "${PMIXEV_CLUSTER_NETNS_PREFIX}n1"); do
		rdv=$(tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | sed -n 's/^SLURM_PMIXEV_RDV_PORT=//p')
		srun_host=$(tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | sed -n 's/^SLURM_SRUN_COMM_HOST=//p')
		[ -n "$rdv" ] && break 2
	done
	sleep 0.1
done
diag "job $job: n1's overlay at $n1addr, n2's at $n2addr, srun's rendezvous at $srun_host:$rdv"

# (b) From outside the step's nodes (the machine's own address on the
# cluster's bridge): closed at once, counted.
out=$(runuser -u "$other" -- "$PMIXEV_CLUSTER_WORKDIR/overlay_forge" "${n2addr%:*}" "${n2addr#*:}" idle 6 2>&1)
echo "$out" | grep -q ": 6 refused at once, 0 dropped later"
ok $? "a stepd's overlay port closes connections from outside the step's nodes at once ($out)"
out=$(runuser -u "$other" -- "$PMIXEV_CLUSTER_WORKDIR/overlay_forge" "$srun_host" "$rdv" idle 6 2>&1)
echo "$out" | grep -q ": 6 refused at once, 0 dropped later"
ok $? "srun's rendezvous port closes connections from outside the step's nodes at once ($out)"

# (a) The other user, on n3, holds the per-address quota of both doors
# n3's stepd will knock at (srun's: 16, its parent n1's: 8) full of idle
# connections; then n3's slurmd goes on.
node_as "$other" n3 "$forge" "$srun_host" "$rdv" hold 16 14 >"$PMIXEV_CLUSTER_WORKDIR/34-hold-rdv.out" 2>&1 &
hold1=$!
node_as "$other" n3 "$forge" "${n1addr%:*}" "${n1addr#*:}" hold 8 14 >"$PMIXEV_CLUSTER_WORKDIR/34-hold-n1.out" 2>&1 &
hold2=$!
sleep 1.5
kill -CONT "$slurmd3"
for _ in $(seq 600); do
	kill -0 "$srun_pid" 2>/dev/null || break
	sleep 0.1
done
wait "$srun_pid"
rc=$?
elapsed=$((SECONDS - started))
wait "$hold1" "$hold2"
diag "attacker: $(cat "$PMIXEV_CLUSTER_WORKDIR/34-hold-rdv.out") (rendezvous); $(cat "$PMIXEV_CLUSTER_WORKDIR/34-hold-n1.out") (n1)"
[ "$rc" = 0 ] && [ "$(grep -c '^pmix_fence: rank [0-2] of 3 on n[1-3]: data: ok$' "$log")" = 3 ]
ok $? "with both doors full of another user's idle connections, the step wires up and completes (rc $rc)" ||
	sed 's/^/#   /' "$log" >&2
[ "$elapsed" -le 45 ]
ok $? "... within 45 s (PMIxevTimeout is 300 s): ${elapsed} s"
grep -q "step $job\.0 on n1: overlay: dropped unauthenticated connections: .* [1-9][0-9]* oldest for newer ones" "$n1log"
ok $? "n1's stepd closed the oldest idle connections for newer ones, and says so in a summary"
grep -q "step $job\.0 on n2: overlay: dropped unauthenticated connections: 6 from outside the step's nodes" "$n2log"
ok $? "n2's stepd counts the connections from outside the step's nodes in a summary"
n=$(grep -c "unauthenticated\|refusing\|dropping" "$log")
[ "$n" -le 6 ]
ok $? "srun's output has no line per dropped connection ($n lines about them)" ||
	grep "unauthenticated\|refusing\|dropping" "$log" | head -n 10 | sed 's/^/#   /' >&2
kill -CONT "$slurmd3" 2>/dev/null
trap - EXIT

# (c) The job's user forges srun's table: a preloaded shim rewrites the
# table srun signs (tests/clients/forge_table.c), so that node 1's entry
# points at srun's own host, which is no node. Root's stepds must not dial
# it, and the step must end (its fence fails) instead of hanging.
install -m 0644 "$PMIXEV_TEST_CLIENTS/.libs/forge_table.so" "$PMIXEV_CLUSTER_WORKDIR/forge_table.so"
step_env=(LD_PRELOAD="$PMIXEV_CLUSTER_WORKDIR/forge_table.so" PMIXEV_FORGE_HOST="$srun_host")
started=$SECONDS
run_step --mpi=pmixev -N3 -n3 -t 1 "$fence" --data
elapsed=$((SECONDS - started))
step_env=()
printf '%s\n' "$out" | grep -q "^forge_table: node 1 is now at $srun_host:"
ok $? "srun signed a table whose node 1 is at $srun_host (job $job)"
refused=0
for n in n1 n2 n3; do
	grep -q "step $job\.0 on $n: overlay: refusing srun's address table: it gives node 1 the address $srun_host:[0-9]*, which is not that node's" "$(slurmd_log "$n")" &&
		refused=$((refused + 1))
done
[ "$refused" = 3 ] && [ "$rc" != 0 ] && [ "$elapsed" -le 40 ]
ok $? "every stepd refused the forged table and the step failed (rc $rc) in ${elapsed} s" ||
	printf '%s\n' "$out" | grep -v "^srun: debug" | tail -n 15 | sed 's/^/#   /' >&2
done_testing
