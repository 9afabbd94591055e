#!/usr/bin/env bash
# Slurm's stock mpi/pmix works on the test cluster (it is the performance
# baseline): a PMIx client wires up across the three nodes.
#
# Stock mpi/pmix 22.05 sometimes fails its own direct-connection handshake
# ("Munge decode failed: Unauthorized credential for client UID=<job uid>":
# it decodes a root-only credential in a thread of a slurmstepd that has
# already switched its euid to the job owner). That is Slurm's bug, not
# this cluster's, so the run is retried; each retry is reported.
. "$(dirname "$0")/lib.sh"
plan 2

hello=$(client pmix_hello)
for attempt in 1 2 3; do
	out=$(as_user srun --mpi=pmix -N3 -n6 -t 1 "$hello" 2>&1) && break
	diag "stock --mpi=pmix attempt $attempt failed:" "$out"
done
ok $? "srun --mpi=pmix -N3 -n6 pmix_hello exits 0" || diag "$out"
[ "$(echo "$out" | grep -c ': ok$')" -eq 6 ] &&
	[ "$(echo "$out" | sed -n 's/.* on \(n[0-9]\): ok$/\1/p' | sort -u | tr '\n' ' ')" = "n1 n2 n3 " ]
ok $? "all six ranks on n1, n2 and n3 exchanged data through the fence" || diag "$out"

done_testing
