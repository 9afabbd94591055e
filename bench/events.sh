#!/usr/bin/env bash
# bench/events.sh [--trials N] [--out FILE] - how fast the survivors of a
# task's death hear of it through PMIx under mpi/pmixev.
#
# On its own test cluster (PMIXEV_BENCH_CLUSTER_ID, default 5), inside one
# allocation of the three nodes, N times (default 200): srun --mpi=pmixev
# -N3 -n6 pmix_events 5 kill (2 ranks per node). Rank 5 (on n3) SIGKILLs
# itself right after a synchronising fence; each of the 5 survivors on n1,
# n2 and n3 times from the end of that fence to its handler running (so
# the figure includes slurmstepd noticing the death; a survivor whose
# handler ran before its own fence returned counts as 0 ms). Prints
# p50/p99/max over all survivor samples. Then the client notify fan-out
# (see below), and once the same on 1 node under stock mpi/pmix (which
# relays nothing between nodes).
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
# namespace in each of three layouts, interleaved: 3 nodes with 2 ranks
# each, 3 nodes with 4+1+1 (the sender and 3 receivers on the first), both
# relayed by pmixev between the stepds, and 1 node, where the PMIx server
# library delivers to its own clients and pmixev relays nothing: the ceiling
# OpenPMIx itself sets on this machine. A run's rate is events / (time
# until the slowest of the 5 receivers has them all). Its CPU per event:
# the sender's and each receiver's own (getrusage, all threads: their PMIx
# library and kernel work), the rest of the machine's busy time over the
# run (/proc/stat: the stepds' PMIx servers, pmixev's relay, srun, the
# daemons), and the busiest single thread of the step's processes (/proc
# of every thread, sampled every 0.1 s): on nodes with cores to spare that
# thread bounds the rate.

# An awk function: the median of v[1..n] (sorts v in place).
awk_median='
function median(v, n,   i, j, x) {
	for (i = 2; i <= n; i++) {
		x = v[i]
		for (j = i - 1; j >= 1 && v[j] > x; j--) v[j + 1] = v[j]
		v[j + 1] = x
	}
	return v[int((n - 1) / 2) + 1]
}'

# busy_ms: CPU time all cores spent busy since boot, in ms.
busy_ms() {
	awk '/^cpu / { print int(($2 + $3 + $4 + $7 + $8 + $9) * 1000 / hz) }' \
		hz="$(getconf CLK_TCK)" /proc/stat
}

# step_pids: "pid kind" for the allocation's slurmstepds ("stepd") and
# pmix_flood processes ("client") in the cluster's network namespaces, and
# the PMIx servers those stepds started ("pmixd", in a network of their
# own).
step_pids() {
	local p c n stepds=' '
	for p in $(pgrep -f "^slurmstepd: \[$job\.[0-9]+\]\$|/pmix_flood " || true); do
		c=''
		read -r -d '' c 2>/dev/null <"/proc/$p/cmdline" || [[ -n $c ]] || continue
		for n in $PMIXEV_CLUSTER_NODES; do
			[[ /proc/$p/ns/net -ef /run/netns/$PMIXEV_CLUSTER_NETNS_PREFIX$n ]] || continue
			case $c in
			slurmstepd:*) echo "$p stepd" && stepds+="$p " ;;
			*) echo "$p client" ;;
			esac
		done
	done
	for p in $(pgrep -x pmixev-pmixd || true); do
		n=$(awk '/^PPid:/ { print $2 }' "/proc/$p/status" 2>/dev/null) || continue
		if [[ $stepds == *" $n "* ]]; then echo "$p pmixd"; fi
	done
}

# sample_threads STOP: every 0.1 s until the file STOP exists, a line
# "tid kind ticks" for each thread of the step's processes (3 stepds,
# their 3 PMIx servers, 6 clients; looked up until all are there, so the
# samples stay cheap).
sample_threads() {
	local stop=$1 pids='' p kind t st
	until [ -e "$stop" ]; do
		[ "$(wc -l <<<"$pids")" -ge 12 ] || pids=$(step_pids)
		while read -r p kind; do
			for t in /proc/"$p"/task/[0-9]*; do
				read -r st 2>/dev/null <"$t/stat" || continue
				# shellcheck disable=SC2086 # split the fields after "(comm) "
				set -- ${st##*) }
				echo "${t##*/} $kind $((${12} + ${13}))"
			done
		done <<<"$pids"
		sleep 0.1
	done
}

# flood MPI SRUN-ARGS...: one run; prints "rate sender_us receiver_us
# rest_us busiest_us busiest_kind" (per event; receiver_us the median of
# the 5) or, when the run failed, nothing, and adds its output to
# $flood_tmp.failed.MPI.
flood() {
	local mpi=$1 out b0 b1 sampler
	shift
	rm -f "$flood_tmp.stop"
	sample_threads "$flood_tmp.stop" >"$flood_tmp.threads" &
	sampler=$!
	b0=$(busy_ms)
	out=$(as_user timeout 120 srun --jobid="$job" --mpi="$mpi" "$@" \
		./pmix_flood "$FLOOD_EVENTS" 500 2>&1 || true)
	b1=$(busy_ms)
	touch "$flood_tmp.stop"
	wait "$sampler" || true
	if [ "$(printf '%s\n' "$out" | grep -c ": got $FLOOD_EVENTS of $FLOOD_EVENTS in .*: ok$")" -ne 5 ]; then
		printf '%s\n' "srun $*:" "$out" >>"$flood_tmp.failed.$mpi"
		return 0
	fi
	{
		printf '%s\n' "$out"
		sed 's/^/thread /' "$flood_tmp.threads"
	} | awk -v n="$FLOOD_EVENTS" -v busy=$((b1 - b0)) -v hz="$(getconf CLK_TCK)" "$awk_median"'
		/: got [0-9]+ of [0-9]+ in [0-9]+ ms: ok$/ { v = $(NF - 2) + 0; if (v > ms) ms = v }
		/: rank 0: sent [0-9]+ in [0-9]+ ms, cpu [0-9]+ ms$/ { snd = $(NF - 1) + 0; sent = 1 }
		/: rank [1-9][0-9]*: cpu [0-9]+ ms$/ { rcv[++r] = $(NF - 1) + 0; all += rcv[r] }
		$1 == "thread" {
			if (!($2 in first)) first[$2] = $4
			last[$2] = $4; kind[$2] = $3
		}
		END {
			if (!ms || !sent || r != 5) exit
			top = -1
			for (t in last)
				if (last[t] - first[t] > top) { top = last[t] - first[t]; who = kind[t] }
			printf "%d %.1f %.1f %.1f %.1f %s\n", n * 1000 / ms, snd * 1000 / n,
				median(rcv, r) * 1000 / n, (busy - snd - all) * 1000 / n,
				top * 1e6 / hz / n, who
		}'
}
read -r n1 n2 n3 <<<"$PMIXEV_CLUSTER_NODES"
f2=$(mktemp) f4=$(mktemp) f1=$(mktemp) fs=$(mktemp)
flood_tmp=$(mktemp)
for ((i = 1; i <= FLOOD_RUNS; i++)); do
	flood pmixev -N3 -n6 --ntasks-per-node=2 >>"$f2"
	flood pmixev -n6 -m arbitrary -w "$n1,$n1,$n1,$n1,$n2,$n3" >>"$f4"
	flood pmixev -N1 -n6 >>"$f1"
done
# Stock mpi/pmix, once: it relays nothing between nodes, so 1 node.
flood pmix -N1 -n6 >>"$fs"
stock_why=$(grep -s -m1 -E 'error|Killed|CANCELLED' "$flood_tmp.failed.pmix" | cut -c1-160 || true)
scancel "$job" 2>/dev/null || true

report=$(sort -n "$samples" | awk -v trials="$TRIALS" -v failed="$failed" '
	{ v[NR] = $1 < 0 ? 0 : $1 }
	END {
		if (!NR) { print "no samples"; exit 1 }
		p50 = v[int((NR - 1) * 0.50) + 1]; p99 = v[int((NR - 1) * 0.99) + 1]
		printf "| metric | samples | p50 | p99 | max |\n|---|---:|---:|---:|---:|\n"
		printf "| task death -> PMIx handler on every survivor (ms) | %d (%d trials, %d failed) | %d | %d | %d |\n", NR, trials, failed, p50, p99, v[NR]
	}')
# flood_rows LABEL FILE [cost]: the table row - the median, min and max
# rate and the median CPU costs - or, with "cost", what the costs add up
# to at 20000 events/s.
flood_rows() {
	sort -n "$2" | awk -v label="$1" -v runs="$FLOOD_RUNS" -v what="${3:-row}" \
		-v cores="$(nproc)" "$awk_median"'
		function med(c,   i, v) {
			for (i = 1; i <= NR; i++) v[i] = col[c, i]
			return median(v, NR)
		}
		{ for (c = 1; c <= 5; c++) col[c, NR] = $c; kinds[$6] = 1 }
		END {
			if (what == "cost") {
				if (!NR) exit
				printf "At the costs of the first row, 20000 events/s would take %.1f cores, %.1f of them in the six PMIx clients alone (this machine has %d); ", \
					0.02 * (med(2) + 5 * med(3) + med(4)), 0.02 * (med(2) + 5 * med(3)), cores
				printf "on nodes with cores to spare, its busiest thread would allow at most %d events/s.\n", 1e6 / med(5)
				exit
			}
			if (!NR) { printf "| %s | 0 of %d | | | | | | |\n", label, runs; exit }
			k = ""
			for (w in kinds) k = k (k == "" ? "" : ", ") w
			printf "| %s | %d of %d | %d | %d | %d | %.0f / %.0f / %.0f | %.0f (%s): at most %d/s |\n", label, NR, runs,
				med(1), col[1, 1], col[1, NR], med(2), med(3), med(4), med(5), k, 1e6 / med(5)
		}'
}
flood=$(
	echo "| client notify fan-out, -n6 | runs ok | events/s reaching all 5 other ranks (median) | min | max | CPU per event, us: sender / each receiver / rest (median) | busiest thread, us per event (its process) |"
	echo "|---|---:|---:|---:|---:|---|---|"
	flood_rows "3 nodes, 2+2+2 (pmixev relays)" "$f2"
	flood_rows "3 nodes, 4+1+1 (pmixev relays)" "$f4"
	flood_rows "1 node (OpenPMIx alone: no relay)" "$f1"
	FLOOD_RUNS=1 flood_rows "stock --mpi=pmix, 1 node" "$fs"
	echo
	flood_rows "" "$f2" cost
	[ -s "$fs" ] || printf '\nStock failed: `%s`\n' "${stock_why:-no output}"
	if [ -s "$flood_tmp.failed.pmixev" ]; then
		printf '\nFailed pmixev runs (what they printed besides ok lines):\n\n'
		grep -v -e ': ok$' -e ': cpu [0-9]* ms$' -e ', cpu [0-9]* ms$' "$flood_tmp.failed.pmixev" |
			head -n 40 | sed 's/^/    /'
	fi
)
flood_failed=$((3 * FLOOD_RUNS - $(cat "$f2" "$f4" "$f1" | wc -l)))
rm -f "$samples" "$f2" "$f4" "$f1" "$fs" "$flood_tmp" "$flood_tmp".*
{
	echo "# pmixev event benchmark ($(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores)"
	echo
	echo "$report"
	echo
	echo "$flood"
} | tee ${OUT:+"$OUT"}
[ "$failed" -eq 0 ] && [ "$flood_failed" -eq 0 ]
