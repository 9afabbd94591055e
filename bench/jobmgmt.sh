#!/usr/bin/env bash
# bench/jobmgmt.sh [--trials N] [--out FILE] - job management under
# mpi/pmixev against what a job does without it, side by side in one run.
#
# On its own test cluster (PMIXEV_BENCH_CLUSTER_ID, default 6):
#  - query burst: all 24 ranks of a -N3 -n24 step ask PMIx_Query_info for
#    the job's status and time remaining N times each (default 100, with
#    PMIX_QUERY_REFRESH_CACHE): the median of the ranks' median time per
#    query, and the job user's slurmctld RPCs (sdiag) during the step;
#    at the end of the run (it can overrun slurmctld) the same 24 ranks
#    (--mpi=none) run `squeue -j JOB -o "%T %L"` N times each: time per
#    call, failed calls and RPCs.
#  - job control: rank 0 of a -N3 -n3 step signals (SIGUSR1) all ranks of
#    its step N times through PMIx_Job_control: median and p99 time per
#    request; against `scancel --signal=USR1 JOB.0` run N times by the
#    job's user beside the step (what a job does without PMIx job control;
#    stock mpi/pmix answers NOT-SUPPORTED).
#  - kill another step: in one allocation, N times a 3-node `sleep` step is
#    started and a 1-task step kills it through PMIx_Job_control (the
#    request's time as the client measures it); then N times the same with
#    `scancel JOB.STEP` (the command's time).
set -euo pipefail

TRIALS=100 BENCH_CLUSTER=6
# shellcheck source=bench/trials.sh
. "$(dirname "$0")/trials.sh"
# shellcheck disable=SC1091
. "$SRC/tests/integration/lib.sh"
query=$(client pmix_query)
jc=$(client pmix_jobctl)
n=$TRIALS

user_rpcs() {
	sdiag | sed -n "s/^[[:space:]]*$PMIXEV_TEST_USER[[:space:]]*([[:space:]]*[0-9]*) count:\([0-9]*\).*/\1/p"
}

median() { sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }

# Query burst through PMIx.
r0=$(user_rpcs)
run_step --mpi=pmixev -N3 -n24 -t 5 "$query" --repeat "$n" jobstatus remaining || true
r1=$(user_rpcs)
pmix_us=$(printf '%s\n' "$out" | sed -n 's/.*queries, median \([0-9]*\) us.*/\1/p' | median)
pmix_ranks=$(printf '%s\n' "$out" | grep -c 'queries, median' || true)
pmix_rpcs=$((${r1:-0} - ${r0:-0}))

# Job control: rank 0 signals its 3-node step n times.
run_step --mpi=pmixev -N3 -n3 -t 5 "$jc" --repeat "$n" --linger 60 signal 10 || true
jc_line=$(printf '%s\n' "$out" | grep -m1 'requests, median' || true)
jc_med=$(printf '%s\n' "$jc_line" | sed -n 's/.*median \([0-9]*\) us.*/\1/p')
jc_p99=$(printf '%s\n' "$jc_line" | sed -n 's/.*p99 \([0-9]*\) us.*/\1/p')
jc_got=$(printf '%s\n' "$out" | grep -c "got $n signals" || true)

# scancel --signal from beside the step, n times.
log=$PMIXEV_CLUSTER_WORKDIR/jobmgmt-scancel.out
start_step "$log" n3 "overlay: connected" --mpi=pmixev -N3 -n3 -t 5 \
	"$jc" --repeat "$n" --linger 120 none || true
times=$(as_user bash -c '
	for _ in $(seq "$2"); do
		t0=$(date +%s%N)
		scancel --signal=USR1 "$1.0" 2>/dev/null &&
			echo $(( ($(date +%s%N) - t0) / 1000 ))
	done' _ "$job" "$n" | sort -n || true)
sc_med=$(printf '%s\n' "$times" | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }')
sc_p99=$(printf '%s\n' "$times" | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR * 99 + 99) / 100)] }')
sc_n=$(printf '%s\n' "$times" | grep -c . || true)
scancel "$job" 2>/dev/null || true
wait "$srun_pid" 2>/dev/null || true

# Kill another step of the job, N times each way, in one allocation (a
# few minutes: more than as_user's default limit). The two ways take
# turns, so that a slurmctld that slows down (Slurm 24.11.5 on 2 cores)
# slows both alike, and both get their share of the time.
kill_times=$(PMIXEV_TEST_TIMEOUT=1800 as_user salloc -N3 -t 30 bash -c '
	jc=$1 n=$2
	running() { squeue -h -s -j "$SLURM_JOB_ID" -o %i -t R | grep -v "\.\(extern\|interactive\|batch\)$" | sort -t. -k2 -n | tail -n1; }
	for _ in $(seq "$n"); do
		for how in pmix scancel; do
			# Within the 30 min the allocation and the timeout give.
			[ "$SECONDS" -lt 1750 ] || break 2
			srun --overlap --mpi=none -N3 -n3 sleep 60 >/dev/null 2>&1 &
			s=$!
			step=
			for _ in $(seq 200); do
				step=$(running)
				[ -n "$step" ] && [ "$step" != "${last:-}" ] && break
				step=
				sleep 0.05
			done
			if [ -z "$step" ]; then # slurmctld lost the step: next
				kill "$s" 2>/dev/null
				wait "$s" 2>/dev/null
				continue
			fi
			last=$step
			if [ "$how" = pmix ]; then
				srun --overlap --mpi=pmixev -N1 -n1 "$jc" --repeat 1 \
					--nspace "slurm.pmixev.$step" kill 2>/dev/null |
					sed -n "s/.*requests, median \([0-9]*\) us.*/pmix \1/p"
			else
				t0=$(date +%s%N)
				scancel "$step" && echo "scancel $(( ($(date +%s%N) - t0) / 1000 ))"
			fi
			wait "$s" 2>/dev/null
		done
	done' _ "$jc" "$n" 2>/dev/null || true)

# The same ranks asking squeue: last, since 24 ranks of squeue overrun
# Slurm 24.11's slurmctld on 2 cores and what ran after them inherited it.
r0=$(user_rpcs)
PMIXEV_TEST_TIMEOUT=900 run_step --mpi=none -N3 -n24 -t 14 bash -c '
	t0=$(date +%s%N) failed=0
	for _ in $(seq "$1"); do
		squeue -h -j "$SLURM_JOB_ID" -o "%T %L" >/dev/null 2>&1 || failed=$((failed + 1))
	done
	echo "squeue: $(( ($(date +%s%N) - t0) / 1000 / $1 )) us, $failed failed"' _ "$n" || true
r1=$(user_rpcs)
sq_us=$(printf '%s\n' "$out" | sed -n 's/^squeue: \([0-9]*\) us, .*/\1/p' | median)
sq_ranks=$(printf '%s\n' "$out" | grep -c '^squeue: ' || true)
sq_failed=$(printf '%s\n' "$out" | sed -n 's/^squeue: .* us, \([0-9]*\) failed$/\1/p' |
	awk '{ s += $1 } END { print s + 0 }')
sq_rpcs=$((${r1:-0} - ${r0:-0}))

pct() { awk -v p="$1" '{ v[NR] = $1 } END { if (NR) print v[int((NR * p + 99) / 100)] }'; }
kp=$(printf '%s\n' "$kill_times" | sed -n 's/^pmix //p' | sort -n)
ks=$(printf '%s\n' "$kill_times" | sed -n 's/^scancel //p' | sort -n)
kp_n=$(printf '%s\n' "$kp" | grep -c . || true)
ks_n=$(printf '%s\n' "$ks" | grep -c . || true)

{
	echo "# pmixev job-management benchmark ($(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, $n requests each)"
	echo
	echo "| query burst, -N3 -n24, job status + time remaining | ranks done | time per query (median of ranks' medians, us) | failed | slurmctld RPCs of the user |"
	echo "|---|---:|---:|---:|---:|"
	echo "| PMIx_Query_info (pmixev, refresh) | $pmix_ranks/24 | ${pmix_us:-FAIL} | $((24 * n - pmix_ranks * n)) | $pmix_rpcs |"
	echo "| squeue -j JOB -o '%T %L' | $sq_ranks/24 | ${sq_us:-FAIL} | $sq_failed | $sq_rpcs |"
	echo
	echo "| signal all ranks of a -N3 -n3 step | median (us) | p99 (us) | ranks that got every signal / commands that succeeded |"
	echo "|---|---:|---:|---:|"
	echo "| PMIx_Job_control SIGNAL (pmixev) | ${jc_med:-FAIL} | ${jc_p99:-FAIL} | $jc_got/3 |"
	echo "| scancel --signal=USR1 JOB.0 | ${sc_med:-FAIL} | ${sc_p99:-FAIL} | $sc_n/$n |"
	echo
	echo "| kill another step of the job (-N3 -n3 sleep) | done | median (us) | p99 (us) |"
	echo "|---|---:|---:|---:|"
	echo "| PMIx_Job_control KILL (pmixev) | $kp_n/$n | $(printf '%s\n' "$kp" | pct 50) | $(printf '%s\n' "$kp" | pct 99) |"
	echo "| scancel JOB.STEP | $ks_n/$n | $(printf '%s\n' "$ks" | pct 50) | $(printf '%s\n' "$ks" | pct 99) |"
} | tee ${OUT:+"$OUT"}
[ -n "$pmix_us" ] && [ -n "$jc_med" ]
