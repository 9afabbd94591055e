#!/usr/bin/env bash
# bench/events.sh [--trials N] [--out FILE] - how fast the survivors of a
# task's death hear of it through PMIx under mpi/pmixev.
#
# On its own test cluster (PMIXEV_BENCH_CLUSTER_ID, default 5), inside one
# allocation of the three nodes, N times (default 200): srun --mpi=pmixev
# -N3 -n6 pmix_events 5 kill. Rank 5 (alone on n3) SIGKILLs itself right
# after a synchronising fence; each of the 5 survivors on n1 and n2 times
# from the end of that fence to its handler running (so the figure
# includes slurmstepd noticing the death; a survivor whose handler ran
# before its own fence returned counts as 0 ms). Prints p50/p99/max over all
# survivor samples. Stock mpi/pmix sends no such event (nothing to compare).
set -euo pipefail

SRC=$(cd "$(dirname "$0")/.." && pwd)
: "${PMIXEV_BUILDDIR:=$SRC/build}"
export PMIXEV_BUILDDIR PMIXEV_CLUSTER_ID=${PMIXEV_BENCH_CLUSTER_ID:-5}
CLUSTER=$SRC/tests/cluster/cluster.sh
TRIALS=200 OUT=''
while [ $# -gt 0 ]; do
	case $1 in
	--trials) TRIALS=$2; shift 2 ;;
	--out) OUT=$2; shift 2 ;;
	*) echo "usage: $0 [--trials N] [--out FILE]" >&2; exit 2 ;;
	esac
done
[ "$PMIXEV_CLUSTER_ID" != 0 ] || { echo "$0: cluster 0 is the tests'" >&2; exit 2; }

cleanup() { bash "$CLUSTER" stop >/dev/null 2>&1 || true; }
trap cleanup EXIT
bash "$CLUSTER" start >&2
eval "$(bash "$CLUSTER" env)"
install -m 0755 "$PMIXEV_BUILDDIR/tests/clients/pmix_events" "$PMIXEV_CLUSTER_WORKDIR/"
as_user() {
	runuser -u "$PMIXEV_TEST_USER" -- env -i PATH=/usr/bin:/bin LANG=C \
		SLURM_CONF="$SLURM_CONF" PMIX_EVENTS_SETTLE_MS=100 \
		bash -c 'cd "$0" && exec "$@"' "$PMIXEV_CLUSTER_WORKDIR" "$@"
}
job=$(as_user salloc -N3 --exclusive --no-shell -t 30 2>&1 |
	sed -n 's/.*Granted job allocation \([0-9]*\).*/\1/p')
[ -n "$job" ] || { echo "$0: no allocation" >&2; exit 1; }

samples=$(mktemp)
failed=0
for ((i = 1; i <= TRIALS; i++)); do
	out=$(as_user timeout 60 srun --jobid="$job" --mpi=pmixev -N3 -n6 \
		./pmix_events 5 kill 2>&1 || true)
	n=$(printf '%s\n' "$out" | grep -c 'got PROC-ABORTED-BY-SIG for rank 5 .*: ok$' || true)
	if [ "$n" -ne 5 ]; then
		failed=$((failed + 1))
		continue
	fi
	printf '%s\n' "$out" | sed -n 's/.* after \(-\{0,1\}[0-9]*\) ms at .*: ok$/\1/p' >>"$samples"
done
scancel "$job" 2>/dev/null || true

report=$(sort -n "$samples" | awk -v trials="$TRIALS" -v failed="$failed" '
	{ v[NR] = $1 < 0 ? 0 : $1 }
	END {
		if (!NR) { print "no samples"; exit 1 }
		p50 = v[int((NR - 1) * 0.50) + 1]; p99 = v[int((NR - 1) * 0.99) + 1]
		printf "| metric | samples | p50 | p99 | max |\n|---|---:|---:|---:|---:|\n"
		printf "| task death -> PMIx handler on every survivor (ms) | %d (%d trials, %d failed) | %d | %d | %d |\n", NR, trials, failed, p50, p99, v[NR]
	}')
rm -f "$samples"
{
	echo "# pmixev event benchmark ($(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores)"
	echo
	echo "$report"
} | tee ${OUT:+"$OUT"}
[ "$failed" -eq 0 ]
