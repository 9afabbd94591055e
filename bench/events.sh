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
# survivor samples. Then 5 times: rank 0 of -N3 -n6 sends 20000 events to
# its namespace (pmix_flood, at most 64 unacknowledged); reports the rate
# at which they reach all 5 other ranks. Stock mpi/pmix sends no such
# events and relays none between nodes (nothing to compare).
set -euo pipefail

TRIALS=200 BENCH_CLUSTER=5 FLOOD_RUNS=5 FLOOD_EVENTS=20000
# shellcheck source=bench/trials.sh
. "$(dirname "$0")/trials.sh"
eval "$(bash "$CLUSTER" env)"
for c in pmix_events pmix_flood; do
	install -m 0755 "$PMIXEV_BUILDDIR/tests/clients/$c" "$PMIXEV_CLUSTER_WORKDIR/"
done
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

# Fan-out: FLOOD_RUNS runs of rank 0 notifying FLOOD_EVENTS events to the
# namespace; a run's rate is events / (time until the slowest of the 5
# receivers has them all).
rates=$(mktemp)
flood_failed=0
for ((i = 1; i <= FLOOD_RUNS; i++)); do
	out=$(as_user timeout 120 srun --jobid="$job" --mpi=pmixev -N3 -n6 \
		./pmix_flood "$FLOOD_EVENTS" 2>&1 || true)
	ms=$(printf '%s\n' "$out" |
		sed -n "s/.*: got $FLOOD_EVENTS of $FLOOD_EVENTS in \([0-9]*\) ms: ok$/\1/p" |
		sort -n | tail -n1)
	if [ "$(printf '%s\n' "$out" | grep -c ": got $FLOOD_EVENTS of $FLOOD_EVENTS in .*: ok$")" -ne 5 ] || [ -z "$ms" ]; then
		flood_failed=$((flood_failed + 1))
		continue
	fi
	echo $((FLOOD_EVENTS * 1000 / (ms > 0 ? ms : 1))) >>"$rates"
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
flood=$(sort -n "$rates" | awk -v runs="$FLOOD_RUNS" -v failed="$flood_failed" '
	{ v[NR] = $1 }
	END {
		printf "| metric | runs | median | min | max |\n|---|---:|---:|---:|---:|\n"
		if (!NR) { printf "| client notify fan-out (events/s) | 0 (%d failed) | | | |\n", failed; exit }
		m = v[int((NR - 1) * 0.5) + 1]
		printf "| client notify fan-out: events/s reaching all 5 other ranks | %d (%d failed) | %d | %d | %d |\n", NR, failed, m, v[1], v[NR]
		printf "| same, deliveries/s (events x 5 receivers) | | %d | %d | %d |\n", 5 * m, 5 * v[1], 5 * v[NR]
	}')
rm -f "$samples" "$rates"
{
	echo "# pmixev event benchmark ($(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores)"
	echo
	echo "$report"
	echo
	echo "$flood"
} | tee ${OUT:+"$OUT"}
[ "$failed" -eq 0 ] && [ "$flood_failed" -eq 0 ]
