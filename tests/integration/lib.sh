# shellcheck shell=bash
# lib.sh - TAP helpers and cluster access for pmixev integration tests.
#
# Sourced by every tests/integration/*.t. Needs the local cluster running
# (tests/cluster/cluster.sh start) and PMIXEV_BUILDDIR set to the build tree
# (its test clients and examples). What the cluster runs, the build's
# pmixev or the installed package's, is in cluster.sh env:
# PMIXEV_CLUSTER_PLUGINS, _PROGRAMS, _GUARD, _SBIN, _INSTALLED.

set -u

PMIXEV_SRCDIR=${PMIXEV_SRCDIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
: "${PMIXEV_BUILDDIR:?PMIXEV_BUILDDIR must name the build tree}"
CLUSTER="$PMIXEV_SRCDIR/tests/cluster/cluster.sh"
eval "$(bash "$CLUSTER" env)"
# shellcheck disable=SC1091
. "$PMIXEV_BUILDDIR/tests/cluster/build.env"

_tap_n=0
_tap_failed=0

plan() { echo "1..$1"; }
diag() { printf '# %s\n' "$@" >&2; }

# ok STATUS DESCRIPTION: pass when STATUS is 0.
ok() { todo "" "$@"; }

done_testing() {
	_asan_reports || _tap_failed=$((_tap_failed + 1))
	exit $((_tap_failed > 0))
}

# With an ASan cluster (cluster.sh, PMIXEV_ASAN): 1 when a sanitizer report
# appeared in PMIXEV_ASAN_DIR since the last call (each shown), else 0.
# A report fails the check that was running, TODO or not, unless it is a
# library's known defect (tests/cluster/sanitizer-known.txt).
_asan_known=" "
_asan_reports() {
	local f rc=0 lib=$PMIXEV_SRCDIR/tests/cluster/sanitizer-known.txt
	[ -n "${PMIXEV_ASAN_DIR:-}" ] || return 0
	for f in "$PMIXEV_ASAN_DIR"/*; do
		[ -f "$f" ] || continue
		case $_asan_known in *" $f "*) continue ;; esac
		_asan_known+="$f "
		[ -n "${_asan_started:-}" ] || continue
		if grep '^SUMMARY: ' "$f" | sed 's/^SUMMARY: [A-Za-z]*Sanitizer: //' |
			grep -Eqf <(grep -Ev '^(#|$)' "$lib"); then
			diag "sanitizer report $f: a library's known defect ($lib): $(grep -m1 '^SUMMARY: ' "$f")"
			continue
		fi
		diag "sanitizer report $f:"
		sed -n '1,60s/^/#   /p' "$f" >&2
		rc=1
	done
	return $rc
}
_asan_reports
_asan_started=1

# todo REASON STATUS DESCRIPTION: ok, marked as a TAP TODO when REASON is
# not empty (a known defect outside pmixev, e.g. in the PMIx library): its
# failure is reported with the reason but does not fail the test, and an
# unexpected pass shows up in prove's summary.
todo() {
	local reason=$1 status=$2 line
	shift 2
	_tap_n=$((_tap_n + 1))
	if ! _asan_reports; then
		status=1 reason=
	fi
	line="$_tap_n - $*${reason:+ # TODO $reason}"
	if [ "$status" -eq 0 ]; then
		echo "ok $line"
	else
		echo "not ok $line"
		[ -z "$reason" ] && _tap_failed=$((_tap_failed + 1))
	fi
	return $((status != 0))
}

# pmix_defect NAME: the reason why the step's OpenPMIx (PMIXEV_PMIX_VERSION
# from configure) has the known defect NAME, or nothing.
#   fence-status: a fence the host fails is reported failed only to the
#   first local participant; the others are told it succeeded (OpenPMIx
#   5.0.0-6.1.x, _mdxcbfunc reuses the status for
#   PMIX_GDS_MARK_MODEX_COMPLETE; fixed on OpenPMIx's main branch).
#   attr-query: a client's PMIX_QUERY_ATTRIBUTE_SUPPORT query never
#   returns (OpenPMIx 4.2/5.0 pmix_attrs_query_support calls back with its
#   own caddy instead of the caller's cbdata; reworked in 6.0).
#   query-partial: the answers that come with PMIX_ERR_PARTIAL_SUCCESS
#   never reach the caller (OpenPMIx 4.x: the client's query_cbfunc reads
#   them only after PMIX_SUCCESS; 5.0 reads them after either).
#   monitor-other: a PMIx_Process_monitor request for a type the library
#   does not run succeeds without reaching the host (OpenPMIx 4.2-6.1
#   pmix_psensor_base_start counts a sensor that passed it on as having
#   taken it).
pmix_defect() {
	case "$1:$PMIXEV_PMIX_VERSION" in
	fence-status:5.* | fence-status:6.[01].*)
		echo "OpenPMIx $PMIXEV_PMIX_VERSION tells only the first local participant that a fence failed"
		;;
	nodeid-plain:4.*)
		echo "OpenPMIx $PMIXEV_PMIX_VERSION's client looks a remote rank's PMIX_NODEID up where it never files it"
		;;
	attr-query:5.*)
		echo "OpenPMIx $PMIXEV_PMIX_VERSION's server looks for the functions an attribute-support query names in the qualifier's key, not its value: it answers an empty list (and its pattrs then crashes)"
		;;
	query-partial:4.*)
		echo "OpenPMIx $PMIXEV_PMIX_VERSION's client drops the answers of a partially successful query"
		;;
	monitor-other:4.* | monitor-other:5.* | monitor-other:6.0.* | monitor-other:6.1.*)
		echo "OpenPMIx $PMIXEV_PMIX_VERSION answers success to a monitor type it does not run, without asking the host"
		;;
	esac
}

# as_user CMD...: run CMD as the unprivileged test user in the job work dir,
# with the cluster's slurm.conf; stdout+stderr to the caller. A command that
# hangs is killed after PMIXEV_TEST_TIMEOUT seconds (default 120).
as_user() {
	timeout -k 5 "${PMIXEV_TEST_TIMEOUT:-120}" \
		runuser -u "$PMIXEV_TEST_USER" -- env -i \
		PATH=/usr/local/bin:/usr/bin:/bin HOME="$PMIXEV_CLUSTER_WORKDIR" \
		SLURM_CONF="$SLURM_CONF" "${_as_user_env[@]}" \
		bash -c 'cd "$0" && exec "$@"' "$PMIXEV_CLUSTER_WORKDIR" "$@"
}
# An ASan-built plugin loads into srun too (and the SPANK plugin into
# sbatch and salloc): give the runtime to the users' commands
# (tests/cluster/cluster.sh, PMIXEV_ASAN). sanitizer_env: the variables, for
# a command not run through as_user (empty unless the cluster is ASan's).
sanitizer_env=()
# shellcheck disable=SC2206 # words on purpose
[ -n "${PMIXEV_ASAN_ENV:-}" ] && sanitizer_env=($PMIXEV_ASAN_ENV)
_as_user_env=("${sanitizer_env[@]}")

# with_env NAME=VALUE... -- CMD...: as_user with extra environment.
with_env() {
	local -a saved=("${_as_user_env[@]}")
	while [ "$1" != "--" ]; do
		_as_user_env+=("$1")
		shift
	done
	shift
	as_user "$@"
	local rc=$?
	_as_user_env=("${saved[@]}")
	return $rc
}

# ompi_step_env: set step_env (for run_step) to what Open MPI programs need.
# 24 ranks share the machine's cores: under srun, Open MPI cannot tell that
# it is oversubscribed, and busy-polling ranks make a token ring ~15x slower.
# Open MPI's session directory and shared-memory segments are named after
# the host and the job; test clusters running side by side share /tmp and
# /dev/shm and reuse n1-n3 and job ids, so keep them in this cluster's
# work directory.
ompi_step_env() {
	local dir=$PMIXEV_CLUSTER_WORKDIR/ompi-tmp
	as_user mkdir -p "$dir"
	# Heartbeats every 1 s: 24 ranks polling on 2 cores can keep a stepd
	# from running for 0.6-0.8 s (three 200 ms periods: a false loss).
	step_env=(OMPI_MCA_mpi_yield_when_idle=1 TMPDIR="$dir"
		SLURM_PMIXEV_HEARTBEAT=1000
		OMPI_MCA_btl_vader_backing_directory="$dir"
		OMPI_MCA_shmem_mmap_backing_file_base_dir="$dir")
}

# ulfm_step_env: ompi_step_env for fault-tolerant Open MPI (ULFM): what a
# user sets (doc/app-guide.md "Fault-tolerant MPI"); pmixev adds the rest. With 2
# ranks per node, the default 200 ms heartbeats (a cut found in 0.6 s).
ulfm_step_env() {
	ompi_step_env
	step_env+=(OMPI_MCA_mpi_ft_enable=1 SLURM_PMIXEV_HEARTBEAT=200)
}

# A client program from the build, copied where the test user can run it.
client() {
	local src="$PMIXEV_TEST_CLIENTS/$1" dst="$PMIXEV_CLUSTER_WORKDIR/$1"
	install -m 0755 "$src" "$dst" && echo "./$1"
}

slurmd_log() { echo "$PMIXEV_CLUSTER_DIR/log/slurmd-$1.log"; }
slurmctld_log() { echo "$PMIXEV_CLUSTER_DIR/log/slurmctld.log"; }

# syslog_listen: from now on, collect what pmixev writes to the test
# cluster's syslog (a datagram socket of its own, tests/cluster/setup.sh:
# PMIxevLogSyslog) into $syslog, one message a line; the listener ends
# with the test (an EXIT trap).
syslog_listen() {
	local sock=$PMIXEV_CLUSTER_DIR/run/syslog.sock
	syslog=$PMIXEV_CLUSTER_DIR/log/syslog.txt
	rm -f "$sock"
	: >"$syslog"
	perl -MIO::Socket::UNIX -e '
		my $s = IO::Socket::UNIX->new(Type => SOCK_DGRAM, Local => $ARGV[0])
			or die "syslog listener: $!";
		chmod 0600, $ARGV[0];
		$| = 1;
		while (defined $s->recv(my $m, 65536)) { print "$m\n"; }' "$sock" >>"$syslog" &
	_syslog_listener=$!
	trap 'kill $_syslog_listener 2>/dev/null' EXIT
	for _ in $(seq 50); do [ -S "$sock" ] && break; sleep 0.1; done
}

# syslog_has REGEX: a line of $syslog (syslog_listen) matches, within 5 s.
syslog_has() {
	for _ in $(seq 50); do
		grep -Eq -- "$1" "$syslog" && return 0
		sleep 0.1
	done
	return 1
}

# wait_log FILE REGEX [SECONDS]: wait until FILE has a line matching REGEX.
wait_log() {
	local file=$1 re=$2 t=${3:-10} i
	for ((i = 0; i < t * 10; i++)); do
		grep -Eq -- "$re" "$file" 2>/dev/null && return 0
		sleep 0.1
	done
	diag "no line matching /$re/ in $file after ${t}s; last lines:"
	tail -n 15 "$file" 2>/dev/null | sed 's/^/#   /' >&2
	return 1
}

# wait_ready PROG N: until $log has N lines "PROG: rank R: ready" (30 s).
wait_ready() {
	local i
	for ((i = 0; i < 300; i++)); do
		[ "$(grep -c "^$1: rank [0-9]*: ready\$" "$log")" -eq "$2" ] && return 0
		sleep 0.1
	done
	diag "only $(grep -c "^$1: rank [0-9]*: ready\$" "$log") of $2 $1 ranks got ready"
	return 1
}

# pmix_site_registrants, pmix_site_defaults: in $out, pmix_site's ranks registered before (0, 2,
# 4) and after (1) the event got it once, and default handlers (3, 5) never.
pmix_site_registrants() {
	[ "$(lines '^pmix_site: rank [024] of 6 on n[1-3]: early: got 1 \([0-9]+ deliveries\): ok$')" -eq 3 ] &&
		[ "$(lines '^pmix_site: rank 1 of 6 on n[1-3]: late: got 1 \([0-9]+ deliveries\): ok$')" -eq 1 ]
}
pmix_site_defaults() {
	[ "$(lines '^pmix_site: rank [35] of 6 on n[1-3]: none: got 0 \(0 deliveries\): ok$')" -eq 2 ]
}

# run_step SRUN-ARGS...: `srun -v SRUN-ARGS` as the test user, with the
# extra environment in the array step_env; sets $out, $rc and $job.
# A step that Slurm never launched because slurmctld did not answer srun
# in time is run once more (see slurm_lost_srun), and so is one that timed
# out waiting for nodes Slurm had drained with "Kill task failed"
# (undrain_kill_failed).
step_env=()
run_step() {
	local try
	for try in 1 2; do
		_srun_watched with_env "${step_env[@]}" -- srun -v "$@"
		job=$(echo "$out" | sed -n 's/^srun: jobid \([0-9]*\):.*/\1/p' | head -n1)
		[ "$try" = 1 ] || break
		if [ "$_srun_stuck" = 1 ]; then
			diag "slurmctld never created the step of job ${job:-?} (no task in 30 s); once more"
		elif slurm_lost_srun; then
			diag "slurmctld never answered srun for job ${job:-?} (srun exit $rc: $(printf '%s\n' "$out" |
				grep -m1 -E "$_lost_srun_re")); once more"
		elif [ "$rc" = 124 ] && printf '%s\n' "$out" | grep -q 'queued and waiting for resources' &&
			undrain_kill_failed; then
			diag "job ${job:-?} waited for nodes Slurm had drained; once more"
		else
			break
		fi
	done
}

# _srun_watched CMD...: run CMD, an `srun -v` (through with_env), output in
# $out, status in $rc. Slurm 24.11's slurmctld drops a step creation now and
# then ("Connection is stale"), and srun then waits until the test's
# timeout: an srun that has its allocation but no task 30 s later is
# cancelled with its job, and $_srun_stuck says so (1).
_srun_watched() {
	local tmp=$PMIXEV_CLUSTER_WORKDIR/.srun-watched.$$ pid waited=0 id
	_srun_stuck=0
	: >"$tmp" # (before the loop reads it)
	"$@" >"$tmp" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		id=$(sed -n 's/^srun: jobid \([0-9]*\):.*/\1/p' "$tmp" | head -n1)
		if [ -n "$id" ]; then
			grep -Eq "$_srun_started_re" "$tmp" && break
			waited=$((waited + 1))
			if [ "$waited" -ge 300 ]; then
				_srun_stuck=1
				scancel "$id" 2>/dev/null
				break
			fi
		fi
		sleep 0.1
	done
	wait "$pid"
	rc=$?
	out=$(cat "$tmp")
	rm -f "$tmp"
}
_srun_stuck=0

# ctld_back JOB: start slurmctld again (after `cluster.sh ctld stop`) and
# make sure JOB, whose end slurmctld may have missed while it was away,
# holds no node for the next test: cancel it and wait (up to 60 s) until
# slurmctld no longer lists it as running or completing.
ctld_back() {
	bash "$CLUSTER" ctld start >/dev/null
	for _ in $(seq 300); do
		scancel "$1" 2>/dev/null
		[ -z "$(squeue -h -j "$1" -t R,CG -o %i 2>/dev/null)" ] &&
			squeue -h >/dev/null 2>&1 && return 0
		sleep 0.2
	done
	diag "job $1 still holds nodes after slurmctld came back"
}

# other_step SRUN-ARGS...: srun SRUN-ARGS as the second unprivileged user
# (PMIXEV_OTHER_USER) in the job work dir; output in $out. Like run_step,
# once more if slurmctld never answered srun.
other_step() {
	local try
	for try in 1 2; do
		out=$(runuser -u "$PMIXEV_OTHER_USER" -- env -i PATH=/usr/bin:/bin \
			SLURM_CONF="$SLURM_CONF" "${sanitizer_env[@]}" timeout -k 5 60 \
			srun --chdir="$PMIXEV_CLUSTER_WORKDIR" "$@" 2>&1)
		[ "$try" = 1 ] && slurm_lost_srun || break
		diag "slurmctld never answered $PMIXEV_OTHER_USER's srun; once more"
	done
}

# slurm_lost_srun: whether $out shows an srun that no task was launched
# for because slurmctld did not answer it in time: an allocation that
# timed out, or a step creation slurmctld dropped as "stale" while srun
# waited on until the test's timeout. Seen with Slurm 24.11's slurmctld on
# the loaded 2-core machine, before pmixev plays any part.
# srun -v's lines once the step's tasks are launched.
_srun_started_re='(launching StepId|Node n[0-9]+, [0-9]+ tasks? started)'
_lost_srun_re='Socket timed out on send/recv|Unable to create step for job|Cancelled pending job step|Unable to confirm allocation'
slurm_lost_srun() {
	! printf '%s\n' "$out" | grep -Eq "$_srun_started_re" &&
		printf '%s\n' "$out" | grep -Eq "$_lost_srun_re"
}

# start_step LOG NODE REGEX SRUN-ARGS...: start `srun -v SRUN-ARGS` (with
# PMIxevDebug=1) in the background as the test user, output in LOG; wait
# (up to 30 s once the job has its nodes) until NODE's slurmd log has a
# line "step JOB.0 on NODE: " followed by the extended REGEX. Sets $job
# and $srun_pid. An srun whose step Slurm never created is cancelled and
# run once more (said).
start_step() {
	local log=$1 node=$2 re=$3 try
	shift 3
	for try in 1 2; do
		_start_step_once "$log" "$node" "$re" "$@" && return 0
		# Slurm 24.11 drops a step creation now and then ("Connection
		# is stale"): srun waits forever. Such an srun is run once more.
		[ "$try" = 1 ] &&
			! grep -Eq "$_srun_started_re" "$log" || break
		diag "slurmctld never created the step of job ${job:-?}; once more"
		kill "$srun_pid" 2>/dev/null
		[ -n "$job" ] && scancel "$job" 2>/dev/null
		wait "$srun_pid" 2>/dev/null
	done
	diag "step of job ${job:-?} did not reach /$re/ on $node"
	return 1
}
_start_step_once() {
	local log=$1 node=$2 re=$3
	shift 3
	with_env "${step_env[@]}" SLURM_PMIXEV_DEBUG=1 -- srun -v "$@" >"$log" 2>&1 &
	srun_pid=$!
	# The allocation may wait for the nodes of the last test's job to be
	# released (up to 2 min); then 30 s for the step to get there.
	local waited=0
	for _ in $(seq 1500); do
		job=$(sed -n 's/^srun: jobid \([0-9]*\):.*/\1/p' "$log" | head -n1)
		[ -n "$job" ] && waited=$((waited + 1))
		[ -n "$job" ] &&
			grep -Eq "step $job\.0 on $node: $re" "$(slurmd_log "$node")" &&
			return 0
		[ "$waited" -ge 300 ] && break
		sleep 0.1
	done
	return 1
}

# listen_step NAME: start pmix_listen (-3333) as 3 ranks on n1-n3 with
# start_step, log $PMIXEV_CLUSTER_WORKDIR/NAME-job.out, and wait until every
# rank is ready; the ranks report once the file $flag exists.
listen_step() {
	flag=$PMIXEV_CLUSTER_WORKDIR/$1-sent
	log=$PMIXEV_CLUSTER_WORKDIR/$1-job.out
	rm -f "$flag"
	start_step "$log" n3 "overlay: connected" --mpi=pmixev -N3 -n3 -t 2 \
		"$(client pmix_listen)" -3333 "$flag" && wait_ready pmix_listen 3
}

# rss_slack: kB a bound on a peak RSS allows over it in an ASan cluster
# (freed memory held back up to 256 MiB, shadow memory, redzones:
# cluster.sh asan_env), else 0. The bounds themselves are checked without
# ASan; with it a bound still catches growth past what ASan holds.
rss_slack=0
[ -n "${PMIXEV_ASAN_DIR:-}" ] && rss_slack=$((288 * 1024))

# peak_rss "NODES" CMD...: run CMD; meanwhile sample the peak VmHWM of
# every slurmstepd on NODES (e.g. "n1 n2 n3") every 0.1 s. Sets rss (kB).
peak_rss() {
	local nodes=$1 stop=$PMIXEV_CLUSTER_WORKDIR/peak-rss-stop sampler
	shift
	rm -f "$stop" "$stop.rss"
	(
		peak=0
		while [ ! -e "$stop" ]; do
			for n in $nodes; do
				for p in $(ip netns pids "${PMIXEV_CLUSTER_NETNS_PREFIX}$n"); do
					[ "$(cat "/proc/$p/comm" 2>/dev/null)" = slurmstepd ] || continue
					v=$(sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$p/status" 2>/dev/null)
					[ -n "$v" ] && [ "$v" -gt "$peak" ] && peak=$v
				done
			done
			sleep 0.1
		done
		echo "$peak" >"$stop.rss"
	) &
	sampler=$!
	"$@"
	touch "$stop"
	wait "$sampler"
	rss=$(cat "$stop.rss")
}

# stepd_pid NODE: pid of this job's slurmstepd of step 0 on NODE.
stepd_pid() {
	local p
	for p in $(ip netns pids "${PMIXEV_CLUSTER_NETNS_PREFIX}$1"); do
		# Not its credential signer (a child with the same command line).
		[ "$(tr -d '\0' <"/proc/$p/cmdline" 2>/dev/null)" = "slurmstepd: [$job.0]" ] &&
			[ "$(cat "/proc/$p/comm" 2>/dev/null)" = slurmstepd ] &&
			echo "$p"
	done
}

# on_node NODE CMD...: run CMD where NODE's daemons run: its network,
# host name and mounts, and its root (the Debian 13 root when the cluster
# runs in one: entering a mount namespace alone would reset the root).
on_node() {
	local node=$1
	shift
	nsenter -t "$(cat "$PMIXEV_CLUSTER_DIR/pids/slurmd-$node.pid")" -n -u -m -r -w -- "$@"
}

# node_as USER NODE CMD...: run CMD as USER where NODE's daemons run (its
# network namespace: connections come from NODE's address), in the job
# work dir; killed after PMIXEV_TEST_TIMEOUT seconds (default 120).
node_as() {
	local user=$1 node=$2
	shift 2
	on_node "$node" timeout -k 5 "${PMIXEV_TEST_TIMEOUT:-120}" \
		runuser -u "$user" -- env -i PATH=/usr/bin:/bin "${sanitizer_env[@]}" \
		bash -c 'cd "$0" && exec "$@"' "$PMIXEV_CLUSTER_WORKDIR" "$@"
}

# crash_node NODE: SIGKILL every process of NODE at once (slurmd,
# slurmstepd, tasks), as a node crash would end them.
crash_node() {
	local p
	for p in $(ip netns pids "${PMIXEV_CLUSTER_NETNS_PREFIX}$1"); do
		kill -9 "$p" 2>/dev/null
	done
	return 0
}

# ---- reading the output ($out, $rc, $job) of the last run_step ----

# lines REGEX: how many lines of $out match the extended REGEX.
lines() { printf '%s\n' "$out" | grep -Ec -- "$1"; }

# first_node: the first node of the job of the last run_step (from srun
# -v's "jobid J: nodes(N):`n2'"), n1 when srun did not say. A -N1 step
# goes wherever Slurm finds a free node: a test that reads a node's log
# reads this one's.
first_node() {
	local n
	n=$(printf '%s\n' "$out" | sed -n "s/^srun: jobid [0-9]*: nodes([0-9]*):.\(n[0-9][0-9]*\)'.*/\1/p" | head -n1)
	echo "${n:-n1}"
}

# nodes_of REGEX: the distinct nodes named by "on NODE" in the lines of $out
# matching REGEX, sorted, space-separated.
nodes_of() {
	printf '%s\n' "$out" | grep -E -- "$1" |
		sed -n 's/.* on \(n[0-9]*\)[: ].*/\1/p' | sort -u | tr '\n' ' '
}

# nodedown_count: how many survivors (ranks 0-4 on n1 and n2) of a
# `pmix_events 5 nodedown` step in $out got one NODE_DOWN naming n3 and
# rank 5 and fenced afterwards.
nodedown_count() {
	lines '^pmix_events: rank [0-4] of 6 on n[12]: got (NODE-DOWN|PMIX_EVENT_NODE_DOWN) for rank 5 \(exit -1, host n3\) after [0-9]+ ms at [0-9.]+: ok$'
}

# last_event_ms T0: milliseconds from T0 (date +%s.%N) to the latest event
# time of pmix_events' ok lines in $out; nothing when there is none.
last_event_ms() {
	local latest
	latest=$(printf '%s\n' "$out" | sed -n 's/^pmix_events: .* at \([0-9.]*\): ok$/\1/p' | sort -n | tail -n1)
	[ -z "$latest" ] || awk -v a="$latest" -v b="$1" 'BEGIN { printf "%d\n", (a - b) * 1000 }'
}

# ulfm_recovered N SURVIVORS: in $out, each of the SURVIVORS mpi_ulfm
# ranks of N saw the failure, shrank to SURVIVORS and summed SURVIVORS on
# the shrunk communicator.
ulfm_recovered() {
	[ "$(lines "^mpi_ulfm: rank [0-9]+ of $1 on n[0-9]+: failure seen at [0-9.]+, shrunk to $2, allreduce $2 at [0-9.]+: ok$")" -eq "$2" ]
}

# ulfm_kill_time: when mpi_ulfm's victim in $out killed itself (seconds
# since the epoch), or nothing.
ulfm_kill_time() {
	printf '%s\n' "$out" | sed -n 's/^mpi_ulfm: rank .* killing myself at \([0-9.]*\)$/\1/p'
}

# ulfm_recovery_ms T0: ms from T0 to the last mpi_ulfm survivor's
# allreduce on the shrunk communicator in $out.
ulfm_recovery_ms() {
	printf '%s\n' "$out" |
		sed -n 's/^mpi_ulfm: .* allreduce [0-9]* at \([0-9.]*\): ok$/\1/p' |
		sort -n | tail -n1 |
		awk -v t0="$1" '{ printf "%d\n", ($1 - t0) * 1000 }'
}

# show: srun's exit status and $out as diagnostics, without srun -v's
# option dump and launch chatter, at most 60 lines; once per job.
_shown=
show() {
	local n filtered
	[ "$_shown" != "${job:-none}" ] || return 0
	_shown=${job:-none}
	filtered=$(printf '%s\n' "$out" | grep -Ev -- \
		'^srun: (defined options|-{20}|[a-z_-]+ +: |end of defined|launch/slurm: |launching |route/|spank/pmixev: loaded)')
	n=$(printf '%s\n' "$filtered" | wc -l)
	diag "srun exit status ${rc:-?}, output:"
	printf '%s\n' "$filtered" | head -n 60 | sed 's/^/#   /' >&2
	[ "$n" -le 60 ] || diag "... and $((n - 60)) more lines"
}

# set_conf FILE KEY VALUE: set KEY=VALUE in a Slurm-style conf file
# (replacing an existing KEY line); the original is kept in FILE.pmixev-orig.
set_conf() {
	local file=$1 key=$2 value=$3
	[ -e "$file.pmixev-orig" ] || cp "$file" "$file.pmixev-orig"
	sed -i "/^$key=/d" "$file"
	echo "$key=$value" >>"$file"
}

# restore_conf FILE: undo set_conf.
restore_conf() {
	local file=$1
	[ -e "$file.pmixev-orig" ] && mv "$file.pmixev-orig" "$file"
	return 0
}

reconfigure() { bash "$CLUSTER" reconfigure >/dev/null; }

# nodes_back: after slurmctld restarted (Slurm 24.11's reconfigure re-execs
# it, and slurmd), make sure the nodes take jobs again: a step that was
# completing across the restart can leave its nodes drained with "Kill
# task failed" some seconds later, though its processes are gone. Watch
# for 10 s, resume such nodes (said), then wait until all are idle.
# undrain_kill_failed: resume the nodes Slurm drained with "Kill task
# failed" (said); false if there were none. Slurm 24.11 does so when
# slurmctld was too slow to take a step's end, though the step's processes
# are gone (the stepd logs "STEPD TERMINATED ... DUE TO JOB NOT ENDING WITH
# SIGNALS" once UnkillableStepTimeout has passed).
undrain_kill_failed() {
	local n found=1
	for n in $(sinfo -h -N -t drain,draining -o '%N %E' 2>/dev/null |
		awk '/Kill task failed/ { print $1 }' | sort -u); do
		diag "node $n drained by Slurm with 'Kill task failed': resumed"
		scontrol update nodename="$n" state=resume 2>/dev/null
		found=0
	done
	return $found
}

nodes_back() {
	local waited=0
	for _ in $(seq 60); do
		undrain_kill_failed
		waited=$((waited + 1))
		[ "$waited" -ge 20 ] && [ -z "$(sinfo -h -N -t drain,draining,down,completing -o %N 2>/dev/null)" ] &&
			return 0
		sleep 0.5
	done
	diag "nodes not all back: $(sinfo -h -N -o '%N %T %E' 2>/dev/null | tr '\n' ';')"
}
