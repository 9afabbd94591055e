#!/usr/bin/env bash
# bench/nodeloss.sh [--trials N] [--out FILE] - how fast the survivors of a
# lost node hear of it through PMIx under mpi/pmixev.
#
# On its own test cluster (PMIXEV_BENCH_CLUSTER_ID, default 6), N times
# (default 20) each of: a crash (every process of n3 - slurmd, slurmstepd,
# task - killed at once; the cluster is then restarted) and a silent
# network cut (n3's link set down, later up again). Each trial is
# srun --no-kill --mpi=pmixev -N3 -n6 pmix_events 5 nodedown; the figure is
# the time from the kill or cut to the last of the 5 survivors on n1 and n2
# running its PMIX_EVENT_NODE_DOWN handler. Prints median and max per kind.
# Stock mpi/pmix sends no node-down event (nothing to compare).
set -euo pipefail

TRIALS=20 BENCH_CLUSTER=6
# shellcheck source=bench/trials.sh
. "$(dirname "$0")/trials.sh"
# shellcheck disable=SC1091
. "$SRC/tests/integration/lib.sh"
link=${PMIXEV_CLUSTER_VETH_PREFIX}n3
crash=() cut=() failed=0

# trial KIND: one step, n3 lost by KIND; prints the delay in ms or nothing.
trial() {
	local kind=$1 log=$PMIXEV_CLUSTER_WORKDIR/nodeloss.out t0
	events=$(client pmix_events)
	start_step "$log" n3 "overlay: connected" --no-kill --mpi=pmixev \
		-N3 -n6 -t 2 "$events" 5 nodedown >&2 || return 0
	sleep 2 # everyone registered and synchronised
	t0=$(date +%s.%N)
	if [ "$kind" = crash ]; then
		crash_node n3
	else
		ip link set "$link" down
	fi
	for _ in $(seq 100); do
		[ "$(grep -c '^pmix_events: rank [0-4] of 6 on n[12]: ' "$log")" -ge 5 ] && break
		sleep 0.1
	done
	out=$(cat "$log")
	[ "$(nodedown_count)" -ne 5 ] || last_event_ms "$t0"
	if [ "$kind" = crash ]; then
		wait "$srun_pid" 2>/dev/null || true
		bash "$CLUSTER" start >/dev/null 2>&1
	else
		ip link set "$link" up
		scancel "$job" 2>/dev/null || true
		wait "$srun_pid" 2>/dev/null || true
		for _ in $(seq 600); do
			[ "$(sinfo -h -t idle -o %D)" = 3 ] && break
			sleep 0.1
		done
	fi
}

for ((i = 1; i <= TRIALS; i++)); do
	for kind in crash cut; do
		d=$(trial "$kind")
		echo "$0: $kind trial $i: ${d:-failed}${d:+ ms}" >&2
		if [ -z "$d" ]; then
			failed=$((failed + 1))
		elif [ "$kind" = crash ]; then
			crash+=("$d")
		else
			cut+=("$d")
		fi
	done
done

row() {
	printf '%s\n' "${@:2}" | sort -n | awk -v what="$1" '
		{ v[NR] = $1 }
		END {
			if (!NR) { printf "| %s | 0 | | |\n", what; exit }
			printf "| %s | %d | %d | %d |\n", what, NR, v[int((NR - 1) * 0.5) + 1], v[NR]
		}'
}
{
	echo "# pmixev node-loss benchmark ($(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores)"
	echo
	echo "| loss of n3 -> NODE_DOWN handler on the last of 5 survivors (ms) | trials | median | max |"
	echo "|---|---:|---:|---:|"
	row "crash (all of n3's processes killed)" ${crash[@]+"${crash[@]}"}
	row "silent network cut (heartbeats, PMIxevHeartbeat=200 ms)" ${cut[@]+"${cut[@]}"}
	[ "$failed" -eq 0 ] || echo "($failed trials failed)"
} | tee ${OUT:+"$OUT"}
[ "$failed" -eq 0 ]
