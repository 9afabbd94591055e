#!/usr/bin/env bash
# bench/run.sh - compare mpi/pmixev with Slurm's stock mpi/pmix on a private
# local 3-node test cluster: PMIx wire-up wall time, data-less fence latency
# and slurmstepd peak RSS.  Prints a Markdown table; see bench/README.md.
#
# Run as root from anywhere: bench/run.sh [--quick] [--out FILE]
set -euo pipefail

SCRIPT_NAME=$(basename "$0")
readonly SCRIPT_NAME
BENCH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly BENCH
readonly SRC=${BENCH%/*}
readonly CLUSTER=$SRC/tests/cluster/cluster.sh

readonly TYPES=(pmixev pmix)       # pmix = Slurm's stock mpi/pmix plugin
readonly WIREUP_SIZES=(6 24 96 192) # tasks, always on 3 nodes
readonly NODE_CORES=64             # per node: -n192 is 64 tasks a node
readonly STORES=(hash shmem)       # PMIxevGds values, with --stores
readonly FENCE_SIZE=6
readonly RSS_SIZE=24
readonly NNODES=3
readonly MAX_HANGS=2 # runs killed by the timeout before a (type, metric, size) is skipped

say() { printf '%s: %s\n' "$SCRIPT_NAME" "$*" >&2; }
die() { printf '%s: error: %s\n' "$SCRIPT_NAME" "$*" >&2; exit 1; }

usage() {
	cat <<EOF
usage: $SCRIPT_NAME [--quick] [--reps N] [--stores | --fences] [--out FILE]

  --quick     3 repetitions and 200 fences (about 30 s)
  --reps N    repetitions per measurement (default 10, --quick 3)
  --stores    wire-up also with each PMIxevGds store (${STORES[*]}),
              set per job (SLURM_PMIXEV_GDS), interleaved with the rest
  --fences    only the fence rows (for a fence comparison with many
              repetitions; wire-up and memory are not measured)
  --out FILE  also write the Markdown report to FILE

environment:
  PMIXEV_BUILDDIR          build tree with the plugins (default $SRC/build)
  PMIXEV_BENCH_CLUSTER_ID  test cluster id to start and stop, 1..9 (default 3);
                           never 0, the id the integration tests use
  PMIXEV_BENCH_TIMEOUT     seconds before one srun is killed (default 30)

A run that fails (srun exit status, or not every rank printed its "ok" line)
is reported as FAIL, not timed.  Exit status: 1 when any pmixev run failed
or the allocation became unusable, else 0 (failed stock runs are reported
and warned about).
EOF
}

# ------------------------------------------------------------- arguments

QUICK=0 REPS='' OUT='' BY_STORE=0 FENCES_ONLY=0
while (($# > 0)); do
	case $1 in
	--quick) QUICK=1 ;;
	--reps)
		[[ ${2:-} =~ ^[1-9][0-9]*$ ]] || die "--reps needs a positive integer"
		REPS=$2
		shift
		;;
	--stores) BY_STORE=1 ;;
	--fences) FENCES_ONLY=1 ;;
	--out)
		[[ -n ${2:-} ]] || die "--out needs a file name"
		OUT=$2
		shift
		;;
	-h | --help) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
	shift
done
if ((QUICK)); then
	REPS=${REPS:-3} FENCES=200
else
	REPS=${REPS:-10} FENCES=1000
fi
((BY_STORE && FENCES_ONLY)) && die "--stores and --fences exclude each other"
readonly QUICK REPS FENCES BY_STORE FENCES_ONLY
# Wire-up's types: with --stores, pmixev once per store ("pmixev:STORE").
WIREUP_TYPES=("${TYPES[@]}")
if ((BY_STORE)); then
	WIREUP_TYPES=()
	for t in "${STORES[@]}"; do WIREUP_TYPES+=("pmixev:$t"); done
	WIREUP_TYPES+=(pmix)
fi
readonly WIREUP_TYPES
if [[ -n $OUT ]]; then
	OUT=$(realpath -m -- "$OUT")
	: >"$OUT" || die "cannot write $OUT"
fi
readonly OUT
readonly TIMEOUT=${PMIXEV_BENCH_TIMEOUT:-30}
[[ $TIMEOUT =~ ^[1-9][0-9]*$ ]] || die "PMIXEV_BENCH_TIMEOUT must be a positive integer"

[[ $(id -u) == 0 ]] || die "must run as root (the test cluster uses network namespaces)"

# ------------------------------------------------------------- the cluster

# Our own cluster, whatever the caller's shell says: a shell that did
# `eval "$(cluster.sh env)"` for cluster 0 must not lead us to its state dir.
readonly ID=${PMIXEV_BENCH_CLUSTER_ID:-3}
[[ $ID =~ ^[1-9]$ ]] || die "PMIXEV_BENCH_CLUSTER_ID must be 1..9 (0 is the integration tests' cluster)"
unset PMIXEV_CLUSTER_DIR PMIXEV_MPI_CONF PMIXEV_SLURM_CONF_EXTRA PMIXEV_MPI_DEFAULT \
	SLURM_JOB_ID SLURM_JOBID SLURM_STEP_ID SLURM_CONF
# The bench's own mpi.conf lines, if any (e.g. "PMIxevServer=owner").
[[ -n ${PMIXEV_BENCH_MPI_CONF:-} ]] && export PMIXEV_MPI_CONF=$PMIXEV_BENCH_MPI_CONF
export PMIXEV_CLUSTER_ID=$ID
# More cores than the machine's (task/none binds nothing): -n192 on 3 nodes.
export PMIXEV_NODE_CORES=$NODE_CORES
export PMIXEV_BUILDDIR=${PMIXEV_BUILDDIR:-$SRC/build}
[[ -r $PMIXEV_BUILDDIR/tests/cluster/build.env ]] ||
	die "no build in $PMIXEV_BUILDDIR (run scripts/build.sh first, or set PMIXEV_BUILDDIR)"

EXIT_STATUS=0 JOB='' TMP='' SNAP='' STARTED=0 SAMPLER='' ABORT='' PLUGIN_ID='?'
cleanup() {
	local rc=$?
	trap - EXIT INT TERM
	[[ -n $SAMPLER ]] && kill "$SAMPLER" 2>/dev/null
	[[ -n $JOB ]] && scancel "$JOB" 2>/dev/null
	((STARTED)) && { bash "$CLUSTER" stop >&2 || true; }
	[[ -n $TMP ]] && rm -rf "$TMP"
	exit $((rc ? rc : EXIT_STATUS))
}
trap cleanup EXIT
# Say where an unexpected failure stopped the script (set -e is silent).
set -E
trap 'say "error: line $LINENO: \"$BASH_COMMAND\" failed (exit $?)"' ERR
trap 'exit 130' INT
trap 'exit 143' TERM

# wait_stable FILE: wait (up to 60 s) until FILE has not changed for 3 s, so
# that a copy is not taken while a build in the same tree is writing it.
wait_stable() {
	local i
	for ((i = 0; i < 60; i++)); do
		(($(date +%s) - $(stat -c %Y "$1") >= 3)) && return 0
		sleep 1
	done
	die "$1 keeps changing (a build is running?)"
}

# Measure a snapshot of the build: copies of the plugins and the clients,
# with a build.env of our own for cluster.sh, which would otherwise link the
# build's files and pick up a rebuild in the middle of a run.
snapshot_build() {
	local SLURM_SYS_PLUGINDIR='' PMIXEV_MPI_PLUGIN='' PMIXEV_SPANK_PLUGIN='' PMIXEV_TEST_CLIENTS='' f
	local PMIXEV_PMIXD_BUILT='' PMIXEV_OWNER_HELPER_BUILT='' PMIXEV_PMIX_GUARD_BUILT=
	# shellcheck source=/dev/null
	. "$PMIXEV_BUILDDIR/tests/cluster/build.env"
	TMP=$(mktemp -d)
	chmod 0755 "$TMP"
	SNAP=$TMP/build
	install -d -m 0755 "$SNAP/plugins" "$SNAP/tests/cluster" "$SNAP/tests/clients"
	for f in "$PMIXEV_MPI_PLUGIN" "$PMIXEV_SPANK_PLUGIN"; do
		[[ -r $f ]] || die "plugin not built: $f"
		wait_stable "$f"
		install -m 0755 "$f" "$SNAP/plugins/"
	done
	# The step's PMIx server process, the owner helper, the query guard.
	for f in "$PMIXEV_PMIXD_BUILT" "$PMIXEV_OWNER_HELPER_BUILT" "$PMIXEV_PMIX_GUARD_BUILT"; do
		[[ -n $f && -r $f ]] || continue
		wait_stable "$f"
		install -m 0755 "$f" "$SNAP/plugins/"
	done
	for f in pmix_hello pmix_fence; do
		f=${PMIXEV_TEST_CLIENTS:-$PMIXEV_BUILDDIR/tests/clients}/$f
		[[ -x $f ]] || die "client not built: $f"
		wait_stable "$f"
		install -m 0755 "$f" "$SNAP/tests/clients/"
	done
	{
		echo "# bench/run.sh: snapshot of $PMIXEV_BUILDDIR"
		printf '%s=%q\n' SLURM_SYS_PLUGINDIR "$SLURM_SYS_PLUGINDIR" \
			PMIXEV_MPI_PLUGIN "$SNAP/plugins/${PMIXEV_MPI_PLUGIN##*/}" \
			PMIXEV_SPANK_PLUGIN "$SNAP/plugins/${PMIXEV_SPANK_PLUGIN##*/}" \
			PMIXEV_TEST_CLIENTS "$SNAP/tests/clients"
		for f in PMIXEV_PMIXD_BUILT PMIXEV_OWNER_HELPER_BUILT PMIXEV_PMIX_GUARD_BUILT; do
			if [[ -n ${!f} && -r $SNAP/plugins/${!f##*/} ]]; then
				printf '%s=%q\n' "$f" "$SNAP/plugins/${!f##*/}"
			fi
		done
	} >"$SNAP/tests/cluster/build.env"
	PLUGIN_ID="mpi_pmixev.so $(date -u -r "$PMIXEV_MPI_PLUGIN" '+%Y-%m-%d %H:%M UTC'), sha256 $(sha256sum "$PMIXEV_MPI_PLUGIN" | cut -c1-12)"
	export PMIXEV_BUILDDIR=$SNAP
}

start_cluster() {
	say "starting test cluster $ID"
	STARTED=1
	bash "$CLUSTER" start >&2
	eval "$(bash "$CLUSTER" env)"
	# RUNS: binaries and per-run output, owned by the test user (srun runs
	# as that user); kept after the run for a look at failures.
	RUNS=$PMIXEV_CLUSTER_WORKDIR/bench
	rm -rf "$RUNS"
	install -d -m 0755 -o "$PMIXEV_TEST_USER" -g "$(id -gn "$PMIXEV_TEST_USER")" "$RUNS" "$RUNS/out"
}

# as_user [NAME=VALUE...] CMD...: run CMD as the unprivileged test user with
# a clean environment (as tests/integration/lib.sh does).
as_user() {
	runuser -u "$PMIXEV_TEST_USER" -- env -i PATH=/usr/local/bin:/usr/bin:/bin \
		HOME="$PMIXEV_CLUSTER_WORKDIR" LANG=C SLURM_CONF="$SLURM_CONF" "$@"
}

# ------------------------------------------------------------- the clients

# The integration tests' clients, from the build snapshot: pmix_hello
# (wire-up) and pmix_fence --loop (fence latency).
build_clients() {
	local c
	for c in pmix_hello pmix_fence; do
		[[ -x $SNAP/tests/clients/$c ]] ||
			die "no tests/clients/$c in the build: run make first"
		install -m 0755 "$SNAP/tests/clients/$c" "$RUNS/"
	done
}

# ------------------------------------------------------------- one allocation

# All steps run in ONE allocation of the three nodes (salloc --no-shell, then
# srun --jobid=J): a new job per run would add slurmctld scheduling and
# job-completion latency (back-to-back jobs sometimes wait 1-3 s for the
# previous one to leave COMPLETING, see shared/notes/local-cluster.md) to
# every sample.  Inside an allocation an srun is only step creation, launch,
# the run itself and step completion, which is what users see.  --exclusive
# gives the job all NODE_CORES cores of each node, enough for -n192.
allocate() {
	local out
	out=$(as_user salloc -N"$NNODES" --exclusive -t 30 -J pmixev-bench --no-shell 2>&1) ||
		die "salloc failed: $out"
	JOB=$(sed -n 's/.*Granted job allocation \([0-9]*\).*/\1/p' <<<"$out")
	[[ -n $JOB ]] || die "no job id in salloc output: $out"
	say "allocation: job $JOB on $NNODES nodes"
}

# Cancel steps of our job still there after a failed srun, so that the
# next step finds its cores free.
reap_steps() {
	local s='' i
	for ((i = 0; i < 100; i++)); do
		s=$(squeue -h -s -j "$JOB" -o %i 2>/dev/null | grep -E "^$JOB\.[0-9]+$" || true)
		[[ -z $s ]] && return 0
		# shellcheck disable=SC2086
		((i == 0)) && scancel $s 2>/dev/null
		sleep 0.1
	done
	ABORT="step(s) $s of job $JOB could not be cancelled (left by a crashed srun, or a hung slurmd or slurmstepd?); every later step would wait for their cores"
	say "error: $ABORT"
}

# step LOG [NAME=VALUE...] -- SRUN-ARGS...: one srun in the allocation as the
# test user, stdout+stderr to $RUNS/out/LOG.  Sets RC and USEC (wall time of
# srun alone, taken inside the user's shell: runuser's start-up is excluded).
step() {
	local log=$RUNS/out/$1 envs=() res
	shift
	while [[ $1 != -- ]]; do envs+=("$1"); shift; done
	shift
	# shellcheck disable=SC2016 # expanded by the user's shell
	res=$(as_user "${envs[@]}" bash -c '
		cd "$1" || exit 97
		log=$2 to=$3
		shift 3
		t0=$EPOCHREALTIME
		timeout -k 5 "$to" srun "$@" >"$log" 2>&1
		rc=$?
		t1=$EPOCHREALTIME
		echo "$rc $((10#${t1/[.,]/} - 10#${t0/[.,]/}))"' \
		_ "$RUNS" "$log" "$TIMEOUT" --jobid="$JOB" "$@") || true
	read -r RC USEC <<<"$res"
	[[ ${RC:-} =~ ^[0-9]+$ && ${USEC:-} =~ ^[0-9]+$ ]] || { RC=98 USEC=0; }
	# A failed srun may leave its step behind (killed, or crashed in the mpi
	# plugin's pre-launch): clear it before the next step needs the cores.
	if ((RC != 0)); then reap_steps; fi
	return 0
}

# check_ranks PROG NTASKS LOG: did every rank 0..NTASKS-1 of a job of that
# size print its "PROG: rank R of N on HOST: ... ok" line, on all nodes?
# Prints "OK" (for pmix_fence: then each rank's median_us, one a line) or
# "FAIL reason".  A client that fell back to a PMIx singleton (no server)
# says "rank 0 of 1" and fails here.
check_ranks() {
	awk -v prog="$1:" -v n="$2" -v nodes="$NNODES" '
	$1 == prog && $2 == "rank" && $4 == "of" && $6 == "on" {
		if ($NF != "ok") { bad = bad ? bad : "rank " $3 ": " $NF; next }
		if ($5 != n) { bad = bad ? bad : "rank " $3 " sees a job of " $5 " (expected " n ")"; next }
		if ($3 !~ /^[0-9]+$/ || $3 >= n || seen[$3]++) { bad = bad ? bad : "bad or repeated rank " $3; next }
		got++
		h = $7; sub(/:$/, "", h); hosts[h] = 1
		for (i = 8; i < NF; i++) if ($i == "median_us") med[got] = $(i + 1)
	}
	END {
		for (h in hosts) nh++
		if (!bad && got != n) bad = got + 0 " of " n " ranks reported ok"
		if (!bad && nh != nodes) bad = "ranks ran on " nh + 0 " nodes, expected " nodes
		if (bad) { print "FAIL " bad; exit }
		print "OK"
		for (i = 1; i <= got; i++) if (i in med) print med[i]
	}' "$3"
}

# Why a run failed, in one line: the checker's reason, srun's exit status and
# the first error line of the output (else its first line that is not "ok").
fail_reason() {
	local why=$1 log=$2 first
	[[ $why == OK* ]] && why='every rank printed ok'
	first=$(grep -i -m1 'error' "$log" 2>/dev/null || grep -v -m1 ' ok$' "$log" 2>/dev/null || true)
	case $RC in
	124 | 137) why="killed after ${TIMEOUT}s; $why" ;;
	0) ;;
	*) why="srun exit $RC; $why" ;;
	esac
	printf '%s%s' "$why" "${first:+; output: ${first:0:160}}"
}

# ------------------------------------------------------------- measurements

ABORTED_IN='' rep=0
RESULTS='' # lines "metric size type OK value", "... FAIL", "... SKIP"
declare -A FAILS=() WHY=() HANGS=() # per "metric/size/type": counts, first reason
record() { RESULTS+="$1 $2 $3 $4 ${5:-}"$'\n'; }

# skip METRIC SIZE TYPE: stop repeating a run that hung until the timeout
# MAX_HANGS times (that would cost TIMEOUT seconds per repetition).  Runs
# that fail fast are repeated: the table counts their failures.
skip() {
	local k="$1/$2/$3"
	((${HANGS[$k]:-0} >= MAX_HANGS)) || return 1
	record "$1" "$2" "$3" SKIP
}
failed() {
	local k="$1/$2/$3"
	FAILS[$k]=$((${FAILS[$k]:-0} + 1))
	WHY[$k]=${WHY[$k]:-$4}
	((RC == 124 || RC == 137)) && HANGS[$k]=$((${HANGS[$k]:-0} + 1))
	record "$1" "$2" "$3" FAIL
	say "  $3 $1 n=$2: FAIL: $4"
}

wireup() { # TYPE NTASKS REP; TYPE pmix, pmixev or pmixev:STORE
	local t=$1 n=$2 log=wireup-${1/:/-}-$2-$3.out chk envs=()
	skip wireup "$n" "$t" && return 0
	[[ $t == *:* ]] && envs=(SLURM_PMIXEV_GDS="${t#*:}")
	step "$log" "${envs[@]}" -- --mpi="${t%%:*}" -N"$NNODES" -n"$n" ./pmix_hello
	chk=$(check_ranks pmix_hello "$n" "$RUNS/out/$log" 2>/dev/null) || true
	if ((RC == 0)) && [[ $chk == OK ]]; then
		record wireup "$n" "$t" OK "$USEC"
		say "  $t wireup n=$n: $((USEC / 1000)) ms"
	else
		failed wireup "$n" "$t" "$(fail_reason "${chk#FAIL }" "$RUNS/out/$log")"
	fi
}

# fence TYPE REP [METRIC NAME=VALUE...]: FENCES data-less fences; the value
# is the median over ranks of each rank's median per-fence time.
fence() {
	local t=$1 rep=$2 metric=${3:-fence} n=$FENCE_SIZE log chk v
	shift $(($# < 3 ? $# : 3))
	log=$metric-$t-$rep.out
	skip "$metric" "$n" "$t" && return 0
	step "$log" "$@" -- --mpi="$t" -N"$NNODES" -n"$n" ./pmix_fence --loop "$FENCES"
	chk=$(check_ranks pmix_fence "$n" "$RUNS/out/$log" 2>/dev/null) || true
	if ((RC == 0)) && [[ ${chk%%$'\n'*} == OK ]]; then
		v=$(tail -n +2 <<<"$chk" | stats | cut -d' ' -f1)
		record "$metric" "$n" "$t" OK "$v"
		say "  $t $metric n=$n: $v us/fence"
	else
		failed "$metric" "$n" "$t" "$(fail_reason "${chk#FAIL }" "$RUNS/out/$log")"
	fi
}

# Peak RSS of each node's slurmstepd for the step: VmHWM of the processes
# named "slurmstepd: [JOB.STEP]" inside each node's network namespace (other
# clusters on this machine have steps with the same names), plus that of
# its PMIx server process (pmixev-pmixd, PMIxevServer=owner: in a network
# of its own, found as the stepd's child), sampled every 0.1 s until $1
# exists, max over samples (VmHWM only grows).  Prints "node kB" lines.
# vmhwm /proc/PID: its VmHWM in kB, or 0.
vmhwm() {
	local k v
	while read -r k v _; do
		[[ $k == VmHWM: ]] && { echo "$v"; return; }
	done 2>/dev/null <"$1/status"
	echo 0
}

# pmixd_vmhwm PID: VmHWM of PID's pmixev-pmixd child, or 0.
pmixd_vmhwm() {
	local q c
	for q in /proc/[0-9]*; do
		read -r c 2>/dev/null <"$q/comm" || continue
		[[ $c == pmixev-pmixd ]] || continue
		read -r _ _ _ c _ 2>/dev/null <"$q/stat" || continue
		[[ $c == "$1" ]] && { vmhwm "$q"; return; }
	done
	echo 0
}

sample_stepd_hwm() {
	local stop=$1 p c v n k
	local -A hwm=()
	while :; do
		for p in /proc/[0-9]*; do
			c=''
			read -r -d '' c 2>/dev/null <"$p/cmdline" || [[ -n $c ]] || continue
			[[ $c =~ ^slurmstepd:\ \[$JOB\.[0-9]+\]$ ]] || continue
			for n in $PMIXEV_CLUSTER_NODES; do
				[[ $p/ns/net -ef /run/netns/$PMIXEV_CLUSTER_NETNS_PREFIX$n ]] || continue
				v=$(($(vmhwm "$p") + $(pmixd_vmhwm "${p#/proc/}")))
				((v > ${hwm[$n]:-0})) && hwm[$n]=$v
			done
		done
		# stop when told, or when the run is gone (its temp dir removed)
		[[ -e $stop || ! -d ${stop%/*} ]] && break
		sleep 0.1
	done
	for n in "${!hwm[@]}"; do printf '%s %s\n' "$n" "${hwm[$n]}"; done
}

# rss TYPE REP: the -n24 wire-up step; each task sleeps 1 s after
# PMIx_Finalize so that the stepds are sampled after all of the PMIx work.
rss() {
	local t=$1 n=$RSS_SIZE log=rss-$1-$2.out chk sampler hwm max nodes
	skip rss "$n" "$t" && return 0
	rm -f "$TMP/stop"
	sample_stepd_hwm "$TMP/stop" >"$TMP/hwm" &
	sampler=$! SAMPLER=$!
	# shellcheck disable=SC2016 # expanded by the task's shell
	step "$log" -- --mpi="$t" -N"$NNODES" -n"$n" \
		/bin/sh -c '"$0"; rc=$?; sleep 1; exit $rc' ./pmix_hello
	touch "$TMP/stop"
	wait "$sampler" || true
	SAMPLER=''
	hwm=$(<"$TMP/hwm")
	chk=$(check_ranks pmix_hello "$n" "$RUNS/out/$log" 2>/dev/null) || true
	nodes=$(grep -c . <<<"$hwm" || true)
	if ((RC == 0)) && [[ $chk == OK ]] && ((nodes == NNODES)); then
		max=$(awk '$2 > m {m = $2} END {print m}' <<<"$hwm")
		record rss "$n" "$t" OK "$max"
		say "  $t rss n=$n: stepd VmHWM $(tr '\n' ' ' <<<"$hwm")kB"
	else
		[[ $chk == OK ]] && ((nodes != NNODES)) && chk="FAIL slurmstepd found on $nodes of $NNODES nodes"
		failed rss "$n" "$t" "$(fail_reason "${chk#FAIL }" "$RUNS/out/$log")"
	fi
}

measure() {
	local order worder t n i k=${#WIREUP_TYPES[@]}
	# Warm-up (not recorded): first launches pay for cold caches.
	for t in "${TYPES[@]}"; do
		step "warmup-$t.out" -- --mpi="$t" -N"$NNODES" -n"$FENCE_SIZE" ./pmix_hello
		[[ -z $ABORT ]] || { ABORTED_IN='in the warm-up'; return 0; }
	done
	for ((rep = 1; rep <= REPS; rep++)); do # (rep: global, for go)
		# Interleave: both types back to back for every measurement, the
		# order swapped every repetition, so drift hits both alike.
		if ((rep % 2)); then order=("${TYPES[@]}"); else order=("${TYPES[1]}" "${TYPES[0]}"); fi
		# Wire-up's types (more with --stores): rotated each repetition.
		worder=()
		for ((i = 0; i < k; i++)); do worder+=("${WIREUP_TYPES[(i + rep - 1) % k]}"); done
		say "repetition $rep/$REPS (${worder[*]})"
		for n in "${WIREUP_SIZES[@]}"; do
			((FENCES_ONLY)) && break
			for t in "${worder[@]}"; do go wireup "$t" "$n" "$rep" || return 0; done
		done
		for t in "${order[@]}"; do go fence "$t" "$rep" || return 0; done
		# Stock with a real cross-node fence (SLURM_PMIX_FENCE is the job's
		# override of mpi.conf's PMIxCollFence).
		go fence pmix "$rep" fence_ring SLURM_PMIX_FENCE=ring || return 0
		((FENCES_ONLY)) && continue
		for t in "${order[@]}"; do go rss "$t" "$rep" || return 0; done
	done
}

# go MEASUREMENT ARGS...: run it; false once the allocation is unusable.
go() {
	"$@"
	[[ -z $ABORT ]] || { ABORTED_IN="in repetition $rep of $REPS"; return 1; }
}

# ------------------------------------------------------------- report

# stats: numbers on stdin -> "median min count" (or "- - 0").
stats() {
	sort -g | awk '{v[NR] = $1} END {
		if (!NR) { print "- - 0"; exit }
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		print m, v[1], NR }'
}

# cell METRIC SIZE TYPE SCALE FORMAT: "median min ok total" for the runs,
# values divided by SCALE and printed with FORMAT; "FAIL" instead of numbers
# when no run succeeded.
cell() {
	local ok total s med min
	total=$(awk -v m="$1" -v s="$2" -v t="$3" '$1 == m && $2 == s && $3 == t' <<<"$RESULTS" | grep -c . || true)
	s=$(awk -v m="$1" -v s="$2" -v t="$3" -v d="$4" '$1 == m && $2 == s && $3 == t && $4 == "OK" {print $5 / d}' <<<"$RESULTS" | stats)
	read -r med min ok <<<"$s"
	if ((total == 0)); then
		printf 'not-run — 0 0\n'
	elif ((ok == 0)); then
		printf 'FAIL FAIL 0 %s\n' "$total"
	else
		# shellcheck disable=SC2059 # the format comes from the caller
		printf "$5 $5 %s %s\n" "$med" "$min" "$ok" "$total"
	fi
}

# row LABEL SIZE METRIC_PMIXEV METRIC_STOCK SCALE FORMAT [PMIXEV_TYPE]
row() {
	local pm pn pok pt sm sn sok st ratio
	read -r pm pn pok pt <<<"$(cell "$3" "$2" "${7:-pmixev}" "$5" "$6")"
	read -r sm sn sok st <<<"$(cell "$4" "$2" pmix "$5" "$6")"
	ratio='—'
	[[ $pm =~ ^[0-9] && $sm =~ ^[0-9] ]] && ratio=$(awk -v a="$pm" -v b="$sm" 'BEGIN {printf "%.2f", (b > 0 ? a / b : 0)}')
	[[ $pok != "$pt" && $pm =~ ^[0-9] ]] && pm="$pm ($((pt - pok)) FAIL)"
	[[ $sok != "$st" && $sm =~ ^[0-9] ]] && sm="$sm ($((st - sok)) FAIL)"
	pm=${pm/not-run/not run} sm=${sm/not-run/not run}
	printf '| %s | -N%s -n%s | %s | %s | %s | %s | %s | %s/%s · %s/%s |\n' \
		"$1" "$NNODES" "$2" "$pm" "$pn" "$sm" "$sn" "$ratio" "$pok" "$pt" "$sok" "$st"
}

machine_info() {
	local cpu git slurm pmix
	cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n1)
	slurm=$(slurmd -V 2>/dev/null || dpkg-query -W -f '${Version}' slurmd 2>/dev/null || echo '?')
	pmix=$(pkg-config --modversion pmix 2>/dev/null || echo '?')
	pmix+=$(dpkg-query -W -f ' (libpmix2 ${Version})' libpmix2 2>/dev/null || true)
	git=$(git -C "$SRC" rev-parse --short HEAD 2>/dev/null || echo '?')
	[[ -n $(git -C "$SRC" status --porcelain 2>/dev/null) ]] && git+=' (uncommitted changes)'
	cat <<EOF
- date: $(date -u '+%Y-%m-%d %H:%M:%S UTC')
- machine: $(nproc) cores (${cpu:-?}), kernel $(uname -r), $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo)
- software: ${slurm}, OpenPMIx ${pmix}, pmixev ${git}; measured: ${PLUGIN_ID}
- run: $REPS repetitions$( ((QUICK)) && echo ' (--quick)'), $FENCES fences per fence run, 3 local nodes (network namespaces on this one machine) of $NODE_CORES cores each, per-run timeout ${TIMEOUT}s
- load average at start: $LOAD (other clusters or builds on this machine skew the numbers)
EOF
}

report() {
	local n k m t
	echo "# pmixev benchmark: mpi/pmixev vs stock mpi/pmix"
	echo
	machine_info
	echo
	echo '| metric | size | pmixev median | pmixev min | stock median | stock min | pmixev/stock | runs ok (pmixev · stock) |'
	echo '|---|---|---:|---:|---:|---:|---:|---|'
	for n in "${WIREUP_SIZES[@]}"; do
		if ((BY_STORE)); then
			for t in "${STORES[@]}"; do
				row "wire-up wall time (ms), PMIxevGds=$t" "$n" wireup wireup 1000 '%.1f' "pmixev:$t"
			done
		else
			row 'wire-up wall time (ms)' "$n" wireup wireup 1000 '%.1f'
		fi
	done
	row 'data-less fence (µs)' "$FENCE_SIZE" fence fence 1 '%.1f'
	row 'data-less fence vs stock ring (µs)' "$FENCE_SIZE" fence fence_ring 1 '%.1f'
	row 'slurmstepd peak RSS (MiB)' "$RSS_SIZE" rss rss 1024 '%.1f'
	cat <<EOF

- wire-up: wall time of \`srun --mpi=TYPE pmix_hello\` (PMIx_Init, put, fence
  with data, get every peer, finalize) inside one allocation.$( ((BY_STORE)) && printf '\n  PMIxevGds=STORE: pmixev with that data store (SLURM_PMIXEV_GDS).')
- fence: median over ranks of each rank's median time per \`PMIx_Fence\`
  without data ($FENCES per run).  **Stock's default is not a barrier across
  nodes here**: with TreeWidth (50) > nodes its data-less fence only waits
  for the node's own ranks; "vs stock ring" compares with stock forced to a
  real cross-node fence (\`PMIxCollFence=ring\`, via \`SLURM_PMIX_FENCE=ring\`).
- RSS: VmHWM of each node's \`slurmstepd: [job.step]\`, max over nodes.
- ratio < 1: pmixev faster / smaller.  FAIL: no run succeeded; "(k FAIL)":
  k runs failed and are left out.  Run output: $RUNS/out
EOF
	[[ -z $ABORT ]] || printf '\n**Aborted %s:** %s.\n' "$ABORTED_IN" "$ABORT"
	((${#FAILS[@]} > 0)) || return 0
	printf '\n## Failed runs\n\n'
	for k in "${!FAILS[@]}"; do
		IFS=/ read -r m n t <<<"$k"
		printf -- '- %s %s -n%s: %s run(s) failed; first: %s\n' \
			"$t" "$m" "$n" "${FAILS[$k]}" "${WHY[$k]}"
	done | sort
}

# ------------------------------------------------------------- main

main() {
	local t0=$SECONDS k
	LOAD=$(cut -d' ' -f1-3 /proc/loadavg)
	snapshot_build
	start_cluster
	build_clients
	allocate
	measure
	scancel "$JOB" 2>/dev/null || true
	JOB=''
	if [[ -n $OUT ]]; then report | tee "$OUT"; else report; fi
	for k in "${!FAILS[@]}"; do
		if [[ $k == */pmixev || $k == */pmixev:* ]]; then
			say "error: pmixev runs failed: ${k//\// } (${FAILS[$k]})"
			EXIT_STATUS=1
		else
			say "warning: stock runs failed: ${k//\// } (${FAILS[$k]})"
		fi
	done
	[[ -z $ABORT ]] || { say "error: aborted: $ABORT"; EXIT_STATUS=1; }
	say "done in $((SECONDS - t0)) s"
}

main # the exit status is set by cleanup: EXIT_STATUS unless it failed
