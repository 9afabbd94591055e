#!/usr/bin/env bash
# What a process of the job can send its PMIx server past the PMIx library.
# pmixev's gate reads a connection's first message (26-pmix-handshake.t);
# after it, a client's messages go to the OpenPMIx server as they are. Here
# a task writes a hand-made query message on its own connection
# (pmix_wire), then fences through the library. Three defects of the
# library let such a message write past a block of the server's heap
# (doc/admin-guide.md, "Limitations"):
#   counts: OpenPMIx 4.2 and 5.0 size an array from a count in the message
#   times the element's size, unchecked; a product that wraps makes the
#   server write the message's bytes past a block of a few bytes.
#   union: OpenPMIx 4.2 to 6.1 unpack a value whose type is a struct (an
#   info nested 40 deep, here) into the value's 24-byte union.
#   nokeys: OpenPMIx 5.0's server reads the first key of a query that has
#   none (4.2's goes through pmixev's query guard, which refuses it).
# Under Slurm's stock mpi/pmix that heap is root's slurmstepd's; under
# pmixev it is the step's own pmixev-pmixd (the job owner's). Whatever the
# library does with the message, the attacked step ends with srun in its
# time, n1's slurmstepd ends it itself with its memory bounded, and another
# user's step on n1 runs on and ends well.
. "$(dirname "$0")/lib.sh"
plan 12

wire=$(client pmix_wire)
hello=$(client pmix_hello)
other=$PMIXEV_CLUSTER_WORKDIR/32-other.out

# gone JOB: cancel JOB and wait (up to 60 s) until it holds no node.
gone() {
	for _ in $(seq 300); do
		scancel "$1" 2>/dev/null
		[ -z "$(squeue -h -j "$1" -t R,CG -o %i 2>/dev/null)" ] && return 0
		sleep 0.2
	done
	diag "job $1 still holds nodes"
}

# The last test's jobs may still be completing on n1 (Slurm 24.11's
# slurmctld takes its time): both steps below need it.
nodes_back

for kind in nokeys counts union; do
	# Another user's step on n1, wiring up while the attack runs.
	rm -f "$other"
	(other_step --mpi=pmixev -N1 -n1 -w n1 -t 1 sh -c "sleep 3; exec $hello"
	echo "$out" >"$other") &
	bystander=$!
	sleep 1
	start=$SECONDS
	PMIXEV_TEST_TIMEOUT=40 peak_rss n1 run_step --mpi=pmixev -N1 -n1 -w n1 "$wire" "$kind"
	took=$((SECONDS - start))
	[ "$rc" != 124 ] && [ "$took" -lt 35 ]
	ok $? "$kind: srun ends in ${took} s (rc $rc), never waits out its time" || show
	wait_log "$(slurmd_log n1)" "\[$job\.0\] (stepd_cleanup: )?done with (job|step)" 10
	ok $? "$kind: n1's slurmstepd ends step $job.0 itself"
	[ -n "$rss" ] && [ "$rss" -lt $((64 * 1024 + rss_slack)) ]
	ok $? "$kind: n1's slurmstepd stays within 64 MiB (peak ${rss:-?} kB)"
	wait "$bystander"
	grep -q "^pmix_hello: rank 0 of 1 on n1: ok$" "$other"
	ok $? "$kind: $PMIXEV_OTHER_USER's step on n1 runs on and ends well" ||
		sed 's/^/#   /' "$other" >&2
	[ -n "$job" ] && gone "$job"
done
nodes_back

done_testing
