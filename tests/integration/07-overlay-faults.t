#!/usr/bin/env bash
# The overlay between stepds under attack and under failure:
# - forged connections to a stepd's overlay port (random bytes, an oversize
#   frame, a hello without munge credential, a valid munge credential for
#   another step) are dropped and logged, and the step runs on;
# - the job's own user cannot join the tree as a stepd (its munge
#   credential is not root's), cannot make a stepd or srun hold more than a
#   handshake's bytes before authentication, and cannot keep unauthenticated
#   connections open: they are bounded per address (the oldest goes) and
#   dropped after 5 s, counted in summary lines (34-overlay-admission.t
#   has connections from outside the step's nodes);
# - when one node's stepd dies while the others wait in a fence, the
#   survivors' fence fails with an error quickly - never a hang.
. "$(dirname "$0")/lib.sh"
plan 15

fence=$(client pmix_fence)
forge=$PMIXEV_TEST_CLIENTS/overlay_forge

# Rank 5 (alone on n3) arrives 120 s late, so ranks 0-4 on n1 and n2 wait
# in a data-less fence for the whole test.
log=$PMIXEV_CLUSTER_WORKDIR/07-fence.out
start_step "$log" n3 "overlay: connected" --mpi=pmixev -N3 -n6 -t 3 \
	"$fence" --barrier 5 120
n2log=$(slurmd_log n2)
wait_log "$n2log" "mpi/pmixev: step $job\.0 on n2: overlay: listening on " 10
addr=$(sed -n "s/.*step $job\.0 on n2: overlay: listening on \([0-9.]*:[0-9]*\),.*/\1/p" "$n2log" | tail -n1)
host=${addr%:*} port=${addr#*:}
diag "job $job; n2's overlay at $host:$port"

# From n1, a node of the step: the door reads what a node sends.
out=$(on_node n1 "$forge" "$host" "$port" random 2>&1)
ok $? "random bytes: the stepd drops the connection ($out)"
out=$(on_node n1 "$forge" "$host" "$port" oversize 2>&1)
ok $? "an oversize frame: the stepd drops the connection ($out)"
out=$(on_node n1 "$forge" "$host" "$port" nocred 2>&1)
ok $? "a hello without munge credential: dropped ($out)"
out=$(on_node n1 env MUNGE_SOCKET="$PMIXEV_MUNGE_SOCKET" "$forge" "$host" "$port" hello "$job" 999 1 2>&1)
ok $? "a munge-valid hello for another step: dropped ($out)"
# The job's owner, with a genuine munge credential for this very step.
install -m 0755 "$forge" "$PMIXEV_CLUSTER_WORKDIR/overlay_forge"
out=$(node_as "$PMIXEV_TEST_USER" n1 env MUNGE_SOCKET="$PMIXEV_MUNGE_SOCKET" ./overlay_forge "$host" "$port" hello "$job" 0 1 2>&1)
ok $? "the job's user cannot join the tree as a stepd ($out)"
out=$(node_as "$PMIXEV_TEST_USER" n1 ./overlay_forge "$host" "$port" preauth 2>&1)
ok $? "a 1 MiB frame before authentication: dropped at its header ($out)"
out=$(node_as "$PMIXEV_TEST_USER" n1 ./overlay_forge "$host" "$port" idle 12 2>&1)
echo "$out" | grep -q ": 4 refused at once, 8 dropped later, 0 still"
ok $? "idle unauthenticated connections: 8 per address (the oldest go), dropped after 5 s ($out)"
# The summary line that counts the deadlines comes up to 10 s later.
wait_log "$n2log" "step $job\.0 on n2: overlay: dropped unauthenticated connections: .*, [1-9][0-9]* without a hello within 5 s" 15 >/dev/null
uid=$(id -u "$PMIXEV_TEST_USER")
n2lines=$(grep "mpi/pmixev: step $job\.0 on n2: overlay:" "$n2log")
for cause in "bad frame: bad magic" "bad frame: payload too long" \
	"rejecting .*: munge_decode: " "rejecting .*: it belongs to step $job\.999" \
	"rejecting .*: credential of uid $uid" \
	"dropped unauthenticated connections: .* [1-9][0-9]* oldest for newer ones" \
	"dropped unauthenticated connections: .*, [1-9][0-9]* without a hello within 5 s"; do
	echo "$n2lines" | grep -Eq "$cause" || { diag "no error line: $cause"; false; }
done
ok $? "each forged connection is logged with its cause (idle ones counted) in n2's slurmd log" ||
	grep "step $job\.0 on n2" "$n2log" | tail -n 12 | sed 's/^/#   /' >&2

# srun's rendezvous port, from a task's environment.
for p in $(ip netns pids "${PMIXEV_CLUSTER_NETNS_PREFIX}n1"); do
	rdv=$(tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | sed -n 's/^SLURM_PMIXEV_RDV_PORT=//p')
	srun_host=$(tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | sed -n 's/^SLURM_SRUN_COMM_HOST=//p')
	[ -n "$rdv" ] && break
done
out=$(node_as "$PMIXEV_TEST_USER" n1 ./overlay_forge "$srun_host" "$rdv" preauth 2>&1)
ok $? "srun's rendezvous: a 1 MiB frame before authentication is dropped ($out)"
out=$(node_as "$PMIXEV_TEST_USER" n1 ./overlay_forge "$srun_host" "$rdv" idle 20 2>&1)
echo "$out" | grep -q ": 4 refused at once, 16 dropped later, 0 still"
ok $? "srun's rendezvous: idle connections bounded (16 per address, the oldest go) and dropped after 5 s ($out)"

squeue -h -s -j "$job" -o '%i %T' 2>/dev/null | grep -q "^$job\.0"
ok $? "the step is still running after the forged connections"

# Kill n3's slurmstepd of this step while the others wait in the fence.
stepd=$(stepd_pid n3)
[ -n "$stepd" ] && kill -9 "$stepd"
t0=$SECONDS
for _ in $(seq 300); do
	[ "$(grep -c '^pmix_fence: rank [0-4] of 6 on n[12]: barrier: ' "$log")" -ge 5 ] && break
	sleep 0.1
done
elapsed=$((SECONDS - t0))
[ "$(grep -c '^pmix_fence: rank [0-4] of 6 on n[12]: barrier: FAILED$' "$log")" -eq 5 ]
ok $? "after n3's stepd died, all 5 survivors' fences ended in failure (in ${elapsed} s)" ||
	sed 's/^/#   /' "$log" >&2
[ "$elapsed" -le 10 ]
ok $? "the survivors learned it within 10 s (PMIxevTimeout is 300 s): ${elapsed} s"
told=$(grep -c '^pmix_fence: rank [0-4]: PMIx_Fence (no data): ' "$log")
defect=$(pmix_defect fence-status)
[ "$told" -eq 5 ]
todo "$defect" $? "PMIx_Fence returned an error to all 5 survivors (to $told)"
grep -q "step $job\.0 on n1: overlay: lost child node 2" "$(slurmd_log n1)"
ok $? "n1's stepd logs the lost node"

scancel "$job" 2>/dev/null
kill "$srun_pid" 2>/dev/null
wait "$srun_pid" 2>/dev/null
# Leave the nodes idle for the next test.
for _ in $(seq 200); do
	[ "$(sinfo -h -t idle -o %D)" = 3 ] && break
	sleep 0.1
done
done_testing
