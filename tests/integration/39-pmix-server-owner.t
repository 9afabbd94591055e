#!/usr/bin/env bash
# Each node's PMIx server runs in pmixev-pmixd, a child
# of slurmstepd with the job owner's identity, in a network of its own
# (which has no way to slurmctld: its requests stay with the owner helper,
# doc/pmix-server-as-owner.md §3f), without new privileges, not dumpable. Clients wire up through it as
# before (the attacks through the library: 32-pmix-wire.t). The job's user
# cannot trace it; killing it mid-fence or mid-query, or stopping it,
# ends the step at once with a clear line; a missing program fails the
# step at once with its path and the cause.
. "$(dirname "$0")/lib.sh"
plan 16

prog=$PMIXEV_CLUSTER_PROGRAMS/pmixev-pmixd
aside=$PMIXEV_CLUSTER_PROGRAMS/.pmixev-pmixd.aside
trap '[ -e "$aside" ] && mv -f "$aside" "$prog"' EXIT
uid=$(id -u "$PMIXEV_TEST_USER")

# pmixd_of STEPD_PID: the pid of that slurmstepd's pmixev-pmixd, if any.
pmixd_of() { pgrep -P "$1" -x pmixev-pmixd; }

step_env=(SLURM_PMIXEV_DEBUG=1)
run_step --mpi=pmixev -N3 -n6 "$(client pmix_hello)"
step_env=()
[ "$rc" -eq 0 ] && [ "$(lines '^pmix_hello: rank [0-5] of 6 on n[1-3]: ok$')" -eq 6 ]
ok $? "6 ranks on 3 nodes wire up through pmixev-pmixd" || show
grep -q "step $job\.0 on n2: PMIx server process $prog started as uid $uid" "$(slurmd_log n2)"
ok $? "n2's stepd started it ($prog) as the job owner (uid $uid)"

run_step --mpi=pmixev -N3 -n6 "$(client mpi_ring)"
[ "$rc" -eq 0 ] && [ "$(lines '^mpi_ring: rank 0 of 6 on n1: 10 laps ok$')" -ge 1 ]
ok $? "an Open MPI ring runs" || show

# The process itself, during a step that waits for a flag.
log=$PMIXEV_CLUSTER_WORKDIR/owner-job.out
listen_step owner
sd=$(stepd_pid n1)
pd=$(pmixd_of "$sd")
st=/proc/$pd/status
[ -n "$pd" ] && [ "$(awk '/^Uid:/ { print $2 $3 $4 $5 }' "$st")" = "$uid$uid$uid$uid" ] &&
	grep -q '^NoNewPrivs:[[:space:]]*1' "$st" &&
	[ "$(readlink "/proc/$pd/ns/net")" != "$(readlink "/proc/$sd/ns/net")" ]
ok $? "pmixev-pmixd (pid ${pd:-none}) runs as uid $uid in a network of its own, no new privileges" ||
	diag "stepd $sd: $(ls -l /proc/$pd/ns/net 2>&1)"
# squeue as the owner from the process's network and, the control, from
# its stepd's: there libslurm cannot resolve slurmctld's address, and a
# socket there has no route to it (ENETUNREACH).
squeue_from() {
	nsenter -t "$1" -n -m -r -w -- runuser -u "$PMIXEV_TEST_USER" -- \
		env -i PATH=/usr/bin:/bin SLURM_CONF="$SLURM_CONF" \
		timeout -k 5 60 squeue -h -o %i -j "$job" 2>&1
}
mine=$(squeue_from "$pd")
mine_rc=$?
[ "$mine_rc" -ne 0 ] && [ "$(squeue_from "$sd")" = "$job" ]
ok $? "from its network the owner cannot reach slurmctld; from the stepd's it can" ||
	diag "rc $mine_rc: $(printf '%s\n' "$mine" | tail -n 3)"
! runuser -u "$PMIXEV_TEST_USER" -- cat "/proc/$pd/environ" >/dev/null 2>&1
ok $? "it is not dumpable: the job's user cannot read its memory"
# Its own rank (same uid, dumpable) is the control: the user may trace it.
tracer=$(client ptrace_attach)
rk=$(pgrep -n -u "$PMIXEV_TEST_USER" -x pmix_listen)
out=$(as_user "$tracer" "$pd" 2>&1)
[ $? -eq 0 ] && [ "$(lines ': PTRACE_(SEIZE|ATTACH) refused: Operation not permitted$')" -eq 2 ] &&
	! as_user "$tracer" "$rk" >/dev/null 2>&1
ok $? "the job's user cannot trace it (PTRACE_SEIZE, PTRACE_ATTACH: EPERM), only its rank (pid $rk)" ||
	diag "$out"
# scancel --signal may name any signal, and under proctrack/linuxproc (or
# cgroup v2) slurmstepd's children get it: pmixev's own processes ignore
# every one that would end them (QUIT, VTALRM, PROF, the first real-time
# one: bits 3, 26, 27, 34 of SigIgn).
ignores_step_signals() {
	local m
	m=$(awk '/^SigIgn:/ { print $2 }' "/proc/$1/status" 2>/dev/null) && [ -n "$m" ] &&
		for b in 3 26 27 34; do (((16#$m >> (b - 1)) & 1)) || return 1; done
}
sg=$(pgrep -P "$sd" -x pmixev-signer)
ow=$(pgrep -P "$sd" -x pmixev-owner)
ignores_step_signals "$pd" && ignores_step_signals "$sg" && ignores_step_signals "$ow"
ok $? "pmixev-pmixd, pmixev-signer and pmixev-owner ignore what scancel --signal may send (pids ${pd:-none} ${sg:-none} ${ow:-none})"
touch "$flag"
wait "$srun_pid"
ok $? "the step ends well" || sed 's/^/#   /' "$log" >&2

# The job's user kills the PMIx server process of n2 in the middle of a
# fence loop: srun ends at once, non-zero, saying so; n2's stepd lives.
log=$PMIXEV_CLUSTER_WORKDIR/owner-kill.out
start_step "$log" n2 "overlay: connected" --mpi=pmixev -N3 -n3 -t 2 \
	"$(client pmix_fence)" --loop 200000
sd=$(stepd_pid n2)
sleep 1
pd=$(pmixd_of "$sd")
t0=$(date +%s%N)
runuser -u "$PMIXEV_TEST_USER" -- kill -9 "$pd"
wait "$srun_pid"
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
[ "$rc" -ne 0 ] && [ "$ms" -lt 5000 ] && grep -q "PMIx server process ended" "$log"
ok $? "its PMIx server killed by the user: srun ends in $ms ms (rc $rc) and says why" ||
	sed 's/^/#   /' "$log" >&2 | tail -n 20
kill -0 "$sd" 2>/dev/null || wait_log "$(slurmd_log n2)" "\[$job\.0\] (stepd_cleanup: )?done with (job|step)" 10
ok $? "n2's slurmstepd ended the step itself"

# The job's user stops n2's PMIx server process (SIGSTOP) in the middle
# of a fence loop: root sees it stopped on two looks 250 ms apart, kills
# it, and the kill's path does the rest; srun says it was stopped.
log=$PMIXEV_CLUSTER_WORKDIR/owner-stop.out
start_step "$log" n2 "overlay: connected" --mpi=pmixev -N3 -n3 -t 2 \
	"$(client pmix_fence)" --loop 200000
sd=$(stepd_pid n2)
sleep 1
pd=$(pmixd_of "$sd")
t0=$(date +%s%N)
runuser -u "$PMIXEV_TEST_USER" -- kill -STOP "$pd"
wait "$srun_pid"
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
out=$(cat "$log")
[ "$rc" -ne 0 ] && [ "$ms" -lt 5000 ] &&
	[ "$(lines "step $job\.0 on n2: the PMIx server process \(pid $pd\) was stopped \(signal 19, ")" -eq 1 ] &&
	[ "$(lines "step $job\.0( on n2|: node 1): the PMIx server process ended \(.*it was stopped \(signal 19, .*\), so root killed it")" -ge 1 ] &&
	[ "$(lines '^srun: error: n2: task 1: (Killed|Exited with exit code 1)$')" -eq 1 ] &&
	[ "$(lines '^srun: error: n[13]: task [02]: Exited with exit code 1$')" -eq 2 ]
ok $? "its PMIx server stopped by the user: n2's task ends, n1's and n3's fences fail, srun ends in $ms ms (rc $rc), saying it was stopped" ||
	tail -n 20 "$log" | sed 's/^/#   /' >&2
kill -0 "$sd" 2>/dev/null || wait_log "$(slurmd_log n2)" "\[$job\.0\] (stepd_cleanup: )?done with (job|step)" 10
ok $? "n2's slurmstepd ended the step itself"

# The job's user kills n2's PMIx server process while every rank asks
# for the step's process table (each node's stepd answers for its own
# tasks) again and again for 5 s. OpenPMIx's client (4.2, 5.0.7) never returns
# from a query in flight when its server dies: root kills n2's tasks. The
# others' queries are answered (n2's part once it ended: partly) and their
# closing fence fails at once (the lines they print may be cut when srun
# ends the step at the killed tasks; OpenPMIx 5.0 tells only one process
# per node that its fence failed, see doc/admin-guide.md, Limitations).
log=$PMIXEV_CLUSTER_WORKDIR/owner-query.out
start_step "$log" n2 "overlay: connected" --mpi=pmixev -N3 -n6 \
	--ntasks-per-node=2 -t 2 "$(client pmix_query)" --for 5000 --fence ptable
sd=$(stepd_pid n2)
pd=$(pmixd_of "$sd")
wait_ready pmix_query 6
t0=$(date +%s%N)
runuser -u "$PMIXEV_TEST_USER" -- kill -9 "$pd"
wait "$srun_pid"
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
out=$(cat "$log")
q='^pmix_query: rank [0145] on n[13]:'
ans='(PMIX_)?SUCCESS|PARTIAL SUCCESS|PMIX_ERR_PARTIAL_SUCCESS'
[ "$rc" -ne 0 ] && [ "$ms" -lt 4000 ] &&
	[ "$(lines "step $job\.0( on n2|: node 1): the PMIx server process ended \(.*\): this node's tasks lose their PMIx server; those that still run in 0\.25 s are killed")" -ge 1 ] &&
	[ "$(lines '^srun: error: n2: tasks? [23](-3)?: (Killed|Exited with exit code 1)$')" -ge 1 ] &&
	[ "$(lines "$q [0-9]+ queries, the last ($ans) in [0-9]+ ms$")" -ge 1 ] &&
	[ "$(lines "$q [0-9]+ queries, the last ")" -eq "$(lines "$q [0-9]+ queries, the last ($ans) ")" ] &&
	[ "$(lines "$q fence ")" -eq "$(lines "$q fence [A-Z_ -]+ in [0-9]{1,3} ms$")" ] &&
	[ "$(lines "$q fence ")" -gt "$(lines "$q fence (PMIX_)?SUCCESS ")" ]
ok $? "killed mid-query: n2's tasks are killed, the others' queries are answered and their fence fails at once; srun ends in $ms ms (rc $rc)" ||
	tail -n 30 "$log" | sed 's/^/#   /' >&2
kill -0 "$sd" 2>/dev/null || wait_log "$(slurmd_log n2)" "\[$job\.0\] (stepd_cleanup: )?done with (job|step)" 10
ok $? "n2's slurmstepd ended the step itself"

mv "$prog" "$aside"
run_step --mpi=pmixev -N1 -n1 -w n1 "$(client pmix_hello)"
[ "$rc" -ne 0 ] &&
	[ "$(lines "^mpi/pmixev: step $job\.0 refused: the PMIx server process did not start: [^ ]*/pmixev-pmixd: .*exec failed as uid $uid: No such file or directory \(looked for it in: $PMIXEV_CLUSTER_PLUGINS/pmixev-pmixd, ")" -ge 1 ] &&
	[ "$(lines "no READY: Connection timed out")" -eq 0 ]
ok $? "a missing pmixev-pmixd: the step fails at once with the path and the cause" || show
mv "$aside" "$prog"

done_testing
