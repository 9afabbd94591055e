#!/usr/bin/env bash
# What a process of the job can send its PMIx server past the PMIx library.
# pmixev's gate reads a connection's first message (26-pmix-handshake.t);
# after it, a client's messages go to the OpenPMIx server inside slurmstepd
# (root) as they are, as under Slurm's stock mpi/pmix. Here a task writes
# a hand-made query message on its own connection (pmix_wire), then fences
# through the library: the step must end well, its stepd ending it. Three
# defects of the library make that fail today (TAP TODOs; README,
# "Limitations"):
#   counts: OpenPMIx 4.2 and 5.0 size an array from a count in the message
#   times the element's size, unchecked, and unpack a 32-bit copy of the
#   count into it: a count whose product wraps makes slurmstepd write the
#   message's own bytes past a block of a few bytes (glibc then aborts it
#   with "malloc(): invalid size").
#   union: OpenPMIx 4.2 to 6.1 unpack a value whose type is a struct (an
#   info, here, nested 40 deep) into the value's 24-byte union: each level
#   writes about 520 bytes further past the qualifier's block.
#   nokeys: OpenPMIx 5.0's server reads the first key of a query that has
#   none (4.2's goes through pmixev's query guard, which refuses it).
. "$(dirname "$0")/lib.sh"
plan 6

wire=$(client pmix_wire)

# gone JOB: cancel JOB and wait (up to 60 s) until it holds no node.
gone() {
	for _ in $(seq 300); do
		scancel "$1" 2>/dev/null
		[ -z "$(squeue -h -j "$1" -t R,CG -o %i 2>/dev/null)" ] && return 0
		sleep 0.2
	done
	diag "job $1 still holds nodes"
}

for kind in nokeys counts union; do
	defect=$(pmix_defect "wire-$kind")
	PMIXEV_TEST_TIMEOUT=20 run_step --mpi=pmixev -N1 -n1 -w n1 "$wire" "$kind"
	[ "$rc" -eq 0 ] && [ "$(lines "^pmix_wire: rank 0: $kind: the server answers a fence after it$")" -eq 1 ]
	todo "$defect" $? "$kind: the task's fence after its message is answered and srun ends well (srun $rc)" || show
	wait_log "$(slurmd_log n1)" "\[$job\.0\] done with job" 5
	todo "$defect" $? "$kind: n1's slurmstepd ends step $job.0 itself"
	[ -n "$job" ] && gone "$job"
done
nodes_back

done_testing
