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
# survivor samples. Then 5 times each, interleaved: rank 0 of -N3 -n6 and
# of -N1 -n6 sends 20000 events to its namespace (pmix_flood, at most 64
# unacknowledged); reports the rate at which they reach all 5 other ranks
# and the CPU each event costs, and once the same on 1 node under stock
# mpi/pmix (which relays nothing between nodes).
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
# namespace, on 3 nodes (pmixev relays between the stepds) and, interleaved,
# on 1 node (the PMIx server library delivers to its own clients; no relay):
# the second is the ceiling OpenPMIx itself sets on this machine. A run's
# rate is events / (time until the slowest of the 5 receivers has them
# all). Its CPU per event: the sender's and each receiver's own (getrusage,
# all threads: their PMIx library and kernel work), and the rest of the
# machine's busy time over the run (/proc/stat: the stepds' PMIx servers,
# pmixev's relay, srun, the daemons).

# busy_ms: CPU time all cores spent busy since boot, in ms.
busy_ms() {
	awk '/^cpu / { print int(($2 + $3 + $4 + $7 + $8 + $9) * 1000 / hz) }' \
		hz="$(getconf CLK_TCK)" /proc/stat
}

# flood MPI NODES: one run; prints "rate sender_us receiver_us rest_us"
# (per event; receiver_us the median of the 5) or, when the run failed,
# nothing, and keeps its output in $flood_fail.
flood() {
	local out b0 b1
	b0=$(busy_ms)
	out=$(as_user timeout 120 srun --jobid="$job" --mpi="$1" -N"$2" -n6 \
		./pmix_flood "$FLOOD_EVENTS" 2>&1 || true)
	b1=$(busy_ms)
	if [ "$(printf '%s\n' "$out" | grep -c ": got $FLOOD_EVENTS of $FLOOD_EVENTS in .*: ok$")" -ne 5 ]; then
		printf '%s\n' "$out" >"$flood_fail"
		return 0
	fi
	printf '%s\n' "$out" | awk -v n="$FLOOD_EVENTS" -v busy=$((b1 - b0)) '
		/: got [0-9]+ of [0-9]+ in [0-9]+ ms: ok$/ { v = $(NF - 2) + 0; if (v > ms) ms = v }
		/: rank 0: sent [0-9]+ in [0-9]+ ms, cpu [0-9]+ ms$/ { snd = $(NF - 1) + 0; sent = 1 }
		/: rank [1-9][0-9]*: cpu [0-9]+ ms$/ { rcv[++r] = $(NF - 1) + 0; all += rcv[r] }
		END {
			if (!ms || !sent || r != 5) exit
			for (i = 2; i <= r; i++) {
				x = rcv[i]
				for (j = i - 1; j >= 1 && rcv[j] > x; j--) rcv[j + 1] = rcv[j]
				rcv[j + 1] = x
			}
			printf "%d %.1f %.1f %.1f\n", n * 1000 / ms, snd * 1000 / n,
				rcv[3] * 1000 / n, (busy - snd - all) * 1000 / n
		}'
}
f3=$(mktemp) f1=$(mktemp) fs=$(mktemp) flood_fail=$(mktemp)
for ((i = 1; i <= FLOOD_RUNS; i++)); do
	flood pmixev 3 >>"$f3"
	flood pmixev 1 >>"$f1"
done
# Stock mpi/pmix, once: it relays nothing between nodes, so 1 node.
: >"$flood_fail"
flood pmix 1 >>"$fs"
stock_why=$(grep -m1 -E 'error|Killed|CANCELLED' "$flood_fail" | cut -c1-160 || true)
scancel "$job" 2>/dev/null || true

report=$(sort -n "$samples" | awk -v trials="$TRIALS" -v failed="$failed" '
	{ v[NR] = $1 < 0 ? 0 : $1 }
	END {
		if (!NR) { print "no samples"; exit 1 }
		p50 = v[int((NR - 1) * 0.50) + 1]; p99 = v[int((NR - 1) * 0.99) + 1]
		printf "| metric | samples | p50 | p99 | max |\n|---|---:|---:|---:|---:|\n"
		printf "| task death -> PMIx handler on every survivor (ms) | %d (%d trials, %d failed) | %d | %d | %d |\n", NR, trials, failed, p50, p99, v[NR]
	}')
# flood_rows LABEL FILE: the median, min and max of each column.
# flood_rows LABEL FILE [cost]: the table row - the median, min and max
# rate and the median CPU costs - or, with "cost", what those medians add
# up to at 20000 events/s.
flood_rows() {
	sort -n "$2" | awk -v label="$1" -v runs="$FLOOD_RUNS" -v what="${3:-row}" \
		-v cores="$(nproc)" '
		function med(c,   i, j, x, v) {
			for (i = 1; i <= NR; i++) v[i] = col[c, i]
			for (i = 2; i <= NR; i++) {
				x = v[i]
				for (j = i - 1; j >= 1 && v[j] > x; j--) v[j + 1] = v[j]
				v[j + 1] = x
			}
			return v[int((NR - 1) / 2) + 1]
		}
		{ for (c = 1; c <= 4; c++) col[c, NR] = $c }
		END {
			if (what == "cost") {
				if (!NR) exit
				printf "At these costs 20000 events/s would take %.1f cores, %.1f of them in the six PMIx clients alone (this machine has %d).\n",
					0.02 * (med(2) + 5 * med(3) + med(4)), 0.02 * (med(2) + 5 * med(3)), cores
				exit
			}
			if (!NR) { printf "| %s | 0 of %d | | | | |\n", label, runs; exit }
			printf "| %s | %d of %d | %d | %d | %d | %.0f / %.0f / %.0f |\n", label, NR, runs,
				med(1), col[1, 1], col[1, NR], med(2), med(3), med(4)
		}'
}
flood=$(
	echo "| client notify fan-out, -n6 | runs ok | events/s reaching all 5 other ranks (median) | min | max | CPU per event, us: sender / each receiver / rest (median) |"
	echo "|---|---:|---:|---:|---:|---|"
	flood_rows "3 nodes (pmixev relays)" "$f3"
	flood_rows "1 node (OpenPMIx alone: no relay)" "$f1"
	FLOOD_RUNS=1 flood_rows "stock --mpi=pmix, 1 node" "$fs"
	echo
	flood_rows "" "$f3" cost
	[ -s "$fs" ] || printf '\nStock failed: `%s`\n' "${stock_why:-no output}"
)
flood_failed=$((2 * FLOOD_RUNS - $(cat "$f3" "$f1" | wc -l)))
rm -f "$samples" "$f3" "$f1" "$fs" "$flood_fail"
{
	echo "# pmixev event benchmark ($(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores)"
	echo
	echo "$report"
	echo
	echo "$flood"
} | tee ${OUT:+"$OUT"}
[ "$failed" -eq 0 ] && [ "$flood_failed" -eq 0 ]
