#!/usr/bin/env bash
# shellcheck source-path=SCRIPTDIR
# Start/stop a real local Slurm 22.05 cluster for pmixev integration tests:
# a private munged, slurmctld on a bridge address, and one slurmd per
# network+UTS+mount namespace (nodes n1..n3).  See usage() for the interface.
# Traffic only goes to 127.0.0.0/8 or to the namespace subnet created here.
set -euo pipefail

# PMIXEV_CLUSTER_ID (0..9) lets several clusters run side by side: each
# gets its own state dir, subnet, bridge, namespaces and ports.
readonly ID=${PMIXEV_CLUSTER_ID:-0}
[[ $ID =~ ^[0-9]$ ]] || { echo "PMIXEV_CLUSTER_ID must be 0..9" >&2; exit 1; }
if ((ID == 0)); then SUFFIX=''; else SUFFIX=$ID; fi
readonly SUFFIX
readonly DIR=${PMIXEV_CLUSTER_DIR:-/tmp/pmixev-cluster$SUFFIX}
readonly TEST_USER=pmixevtest
readonly OTHER_USER=pmixevother
readonly NODES=(n1 n2 n3)
readonly SUBNET_PREFIX=10.213.$((7 + ID))
readonly CTL_ADDR=$SUBNET_PREFIX.1
readonly BRIDGE=pxevbr$ID
readonly NETNS_PREFIX=pmixev$SUFFIX-
readonly VETH_PREFIX=pxev$SUFFIX-
readonly CTLD_PORT=$((26817 + 10 * ID))
readonly SLURMD_PORT=$((26818 + 10 * ID))
readonly START_TIMEOUT=60

readonly ETC=$DIR/etc
readonly CONF=$ETC/slurm.conf
readonly LOGDIR=$DIR/log
readonly PIDDIR=$DIR/pids   # pids recorded by this harness
readonly RUNDIR=$DIR/run    # pid files written by the daemons themselves
readonly MUNGE_KEYDIR=$DIR/munge/key
readonly MUNGE_RUNDIR=$DIR/munge/run
readonly MUNGE_SOCKET=$MUNGE_RUNDIR/munge.socket
readonly WORKDIR=$DIR/work
readonly FINGERPRINT=$DIR/run/fingerprint

SCRIPT_NAME=$(basename "$0")
readonly SCRIPT_NAME
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
readonly HERE
# shellcheck source=setup.sh
. "$HERE/setup.sh"

export SLURM_CONF=$CONF
unset SLURM_JOB_ID SLURM_JOBID SLURM_STEP_ID 2>/dev/null || true

now_ms() { local t=${EPOCHREALTIME/[.,]/}; printf '%d' $((10#$t / 1000)); }
elapsed() { local ms=$(($(now_ms) - $1)); printf '%d.%03ds' $((ms / 1000)) $((ms % 1000)); }
say() { printf '%s: %s\n' "$SCRIPT_NAME" "$*"; }
warn() { printf '%s: warning: %s\n' "$SCRIPT_NAME" "$*" >&2; }
die() { printf '%s: error: %s\n' "$SCRIPT_NAME" "$*" >&2; exit 1; }

usage() {
	cat <<EOF
usage: $SCRIPT_NAME start|stop|status|logs [LINES]|env|reconfigure|ctld stop|start

  start        start munged, slurmctld and slurmd n1..n3 (idempotent)
  stop         stop everything this harness started (idempotent)
  status       exit 0 if all daemons run and all nodes are idle/alloc/mix
  logs [N]     print the last N (default 40) lines of every daemon log
  env          print export lines for eval: SLURM_CONF, PMIXEV_CLUSTER_* ...
  reconfigure  scontrol reconfigure, then wait until all nodes are idle
  ctld stop|start  stop or start slurmctld alone (an outage; jobs run on)

environment:
  PMIXEV_CLUSTER_ID    0..9: run several clusters side by side (default 0)
  PMIXEV_CLUSTER_DIR   state directory (default /tmp/pmixev-cluster[ID])
  PMIXEV_BUILDDIR      build tree; \$PMIXEV_BUILDDIR/tests/cluster/build.env
                       defines SLURM_SYS_PLUGINDIR, PMIXEV_MPI_PLUGIN,
                       PMIXEV_SPANK_PLUGIN (staged first in PluginDir)
  PMIXEV_INSTALLED=1   run the installed pmixev package instead: its plugins
                       from Slurm's plugin directory (the only PluginDir),
                       its programs from where it put them; nothing staged
  PMIXEV_MPI_DEFAULT   MpiDefault in slurm.conf (default none)
  PMIXEV_SLURM_CONF_EXTRA  lines appended to slurm.conf (e.g. SlurmdDebug=debug)
  PMIXEV_TASK_PLUGIN   TaskPlugin (default task/none; task/affinity binds tasks)
  PMIXEV_PROCTRACK     ProctrackType (default proctrack/linuxproc; proctrack/cgroup
                       with TaskPlugin=task/cgroup,task/affinity is how most
                       sites run: cgroup.conf is written beside slurm.conf)
  PMIXEV_CGROUP_CORES  cgroup.conf ConstrainCores (default no: the nodes' cores
                       are not the machine's unless PMIXEV_NODE_CORES says so)
  PMIXEV_NODE_CORES    cores per node (default 32; binding needs real ones)
  PMIXEV_MPI_CONF      contents of mpi.conf (default empty)
  PMIXEV_ASAN=1        the plugins are an ASan build (configure
                       --enable-sanitizers): the daemons (so slurmstepd)
                       run with ASan's runtime preloaded, and so do
                       the test user's commands and the programs the
                       plugin starts; each report (abort on the first)
                       in \$PMIXEV_CLUSTER_DIR/log/asan/, a test fails
                       when one appears while it runs
  PMIX_MCA_*, PMIXEV_* are passed to the daemons; all else is cleared.
EOF
}

node_ns() { printf '%s%s' "$NETNS_PREFIX" "$1"; }
node_veth() { printf '%s%s' "$VETH_PREFIX" "$1"; }
node_addr() { printf '%s.%d' "$SUBNET_PREFIX" $((10 + ${1#n})); }

# ---------------------------------------------------------------- processes

# Print PID if the pid file names a live process whose command line still
# contains NEEDLE (pids get reused; zombies have an empty cmdline).
live_pid() {
	local pidfile=$1 needle=$2 pid='' cmdline
	# (never $(<file) here: in bash 5.2 a missing file exits under set -e)
	read -r pid 2>/dev/null <"$pidfile" || [[ -n $pid ]] || return 1
	[[ $pid =~ ^[0-9]+$ ]] || return 1
	cmdline=$(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline") || return 1
	[[ $cmdline == *"$needle"* ]] || return 1
	printf '%s\n' "$pid"
}

# During start: is the child we launched as NAME still running (not a
# zombie)?  Its cmdline may not be the daemon's yet (exec chain).
child_alive() {
	local pid='' stat
	read -r pid 2>/dev/null <"$PIDDIR/$1.pid" || [[ -n $pid ]] || return 1
	read -r stat 2>/dev/null <"/proc/$pid/stat" || return 1
	stat=${stat##*) }
	[[ ${stat%% *} != Z ]]
}

# Pids of slurmctld/slurmd/munged processes whose command line names this
# harness's slurm.conf or munge socket (for lost pid files).
stray_pids() {
	local pid cmdline
	for pid in $(pgrep -x slurmctld; pgrep -x slurmd; pgrep -x munged); do
		cmdline=$(tr '\0' ' ' 2>/dev/null <"/proc/$pid/cmdline") || continue
		if [[ $cmdline == *" $CONF"* || $cmdline == *"$MUNGE_SOCKET"* ]]; then
			printf '%s\n' "$pid"
		fi
	done
}

# launch NAME LOGFILE CMD...: run CMD in its own session with no inherited
# fds beyond 0-2, record its pid in $PIDDIR/NAME.pid.
launch() {
	local name=$1 out=$2
	shift 2
	(
		local fd
		for fd in /proc/"$BASHPID"/fd/*; do
			fd=${fd##*/}
			if ((fd > 2)); then exec {fd}>&-; fi
		done
		exec setsid "$@" </dev/null >>"$out" 2>&1
	) &
	printf '%s\n' "$!" >"$PIDDIR/$name.pid"
}

# With PMIXEV_ASAN=1: what a process needs to load an ASan-built plugin
# (the runtime first; leaks are not reported: Slurm's daemons exit without
# freeing). ASan holds freed memory back up to 256 MiB (its default; in
# peak RSS too: lib.sh rss_slack): smaller, it recycles more often, and a
# task that slurmstepd forks during a recycle hangs more often
# (doc/testing.md).
# The first error ends the process (abort_on_error), its report in a file
# of its own, $ASAN_DIR/asan.<program>.<pid>: the directory is writable by
# all, as the job owner's processes (pmixev-pmixd, pmixev-owner, srun,
# tasks) write theirs there too. The plugin passes these variables on to
# the programs it starts as the owner (ownerhelper/owner_env.h).
readonly ASAN_DIR=$LOGDIR/asan
asan_env() {
	local to="log_path=$ASAN_DIR/asan:log_exe_name=1:abort_on_error=1"
	printf 'LD_PRELOAD=%s\n' "$(gcc -print-file-name=libasan.so)"
	printf 'ASAN_OPTIONS=%s\n' "detect_leaks=0:$to"
	printf 'UBSAN_OPTIONS=%s\n' "print_stacktrace=1:halt_on_error=1:$to"
}

# Clean environment for the daemons (plus PMIX_MCA_* / PMIXEV_* knobs).
daemon_env() {
	local v
	printf '%s\n' env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LANG=C HOME=/root
	if [[ ${PMIXEV_ASAN:-0} == 1 ]]; then asan_env; fi
	while IFS= read -r v; do
		printf '%s=%s\n' "$v" "${!v}"
	done < <(compgen -e | grep -E '^(PMIX_MCA_|PMIXEV_)' || true)
}

# wait_until TIMEOUT WHAT CMD...: poll CMD every 0.05 s.
wait_until() {
	local timeout=$1 what=$2 deadline
	shift 2
	deadline=$((SECONDS + timeout))
	until "$@"; do
		if ((SECONDS >= deadline)); then
			printf '%s: error: timed out after %ss waiting for %s\n' \
				"$SCRIPT_NAME" "$timeout" "$what" >&2
			return 1
		fi
		sleep 0.05
	done
}

# ------------------------------------------------------------------ queries

ctld_up() {
	timeout 5 scontrol ping 2>/dev/null | grep -q 'is UP'
}

idle_count() {
	timeout 5 sinfo -h -t idle -o %D 2>/dev/null | awk '{n += $1} END {print n + 0}'
}

all_idle() { [[ $(idle_count) == "${#NODES[@]}" ]]; }

# "nI STATE" lines for our nodes.
node_states() {
	timeout 5 sinfo -h -N -o '%N %T' 2>/dev/null || true
}

daemons_alive() {
	live_pid "$PIDDIR/munged.pid" "$MUNGE_SOCKET" >/dev/null || return 1
	live_pid "$PIDDIR/slurmctld.pid" "$CONF" >/dev/null || return 1
	local n
	for n in "${NODES[@]}"; do
		live_pid "$PIDDIR/slurmd-$n.pid" "$CONF" >/dev/null || return 1
	done
}

healthy() {
	daemons_alive || return 1
	ctld_up || return 1
	local states n ok=0
	states=$(node_states)
	for n in "${NODES[@]}"; do
		grep -Eq "^$n (idle|allocated|mixed)$" <<<"$states" && ok=$((ok + 1))
	done
	((ok == ${#NODES[@]}))
}

# Anything of ours present at all (processes, namespaces, links)?
anything_present() {
	local n
	[[ -n $(stray_pids) ]] && return 0
	ip link show "$BRIDGE" &>/dev/null && return 0
	for n in "${NODES[@]}"; do
		ip netns list 2>/dev/null | grep -qw "^$(node_ns "$n")" && return 0
		ip link show "$(node_veth "$n")" &>/dev/null && return 0
	done
	return 1
}

# ---------------------------------------------------------------- logs

# Daemon log files; *.out is the daemon's stderr (fatal config errors and
# crashes end up only there; the rest duplicates the .log).
log_files() {
	local n
	printf '%s\n' "$LOGDIR/munged.log" "$LOGDIR/slurmctld.log"
	for n in "${NODES[@]}"; do printf '%s\n' "$LOGDIR/slurmd-$n.log"; done
}

print_logs() {
	local lines=${1:-40} f out
	while IFS= read -r f; do
		out=${f%.log}.out
		if [[ -s $f ]]; then
			printf '==== %s (last %s lines) ====\n' "$f" "$lines"
			tail -n "$lines" "$f"
		fi
		# stderr: show it when the log is empty or it has non-log lines
		if [[ -s $out ]] && { [[ ! -s $f ]] || grep -qv '^slurm[a-z]*: ' "$out"; }; then
			printf '==== %s (last %s lines) ====\n' "$out" "$lines"
			tail -n "$lines" "$out"
		fi
	done < <(log_files)
}

# ---------------------------------------------------------------- setup

start_munged() {
	local key=$MUNGE_KEYDIR/munge.key
	[[ -s $key ]] || mungekey -c -k "$key" -b 1024
	chmod 0600 "$key"
	rm -f "$MUNGE_SOCKET" "$MUNGE_SOCKET.lock"
	# with -F munged logs to stderr only: send that to munged.log
	launch munged "$LOGDIR/munged.log" "${DAEMON_ENV[@]}" munged -F -S "$MUNGE_SOCKET" \
		--key-file="$key" --log-file="$LOGDIR/munged.log" \
		--pid-file="$RUNDIR/munged.pid" --seed-file="$MUNGE_KEYDIR/munged.seed"
	wait_until 10 munged munge_ok
}

munge_ok() {
	child_alive munged || die "munged exited"
	munge -n -S "$MUNGE_SOCKET" 2>/dev/null | unmunge -S "$MUNGE_SOCKET" &>/dev/null
}

ctld_ready() {
	child_alive slurmctld || die "slurmctld exited"
	ctld_up
}

nodes_ready() {
	local n
	for n in "${NODES[@]}"; do
		child_alive "slurmd-$n" || die "slurmd on $n exited"
	done
	all_idle
}

# slurmctld in a private mount namespace that sees our hosts file. Slurm
# 24.11's slurmctld looks up the names of both ends of every connection
# it accepts, in the thread that accepts them: through DNS, a query the
# resolver drops stops all of slurmctld's RPCs for its 5 s timeout (past
# MessageTimeout: srun's step creation and the stepds' step completions
# are lost, and a stepd retries 60 s later). Answered from the hosts
# file, no lookup leaves the machine.
start_slurmctld() {
	# shellcheck disable=SC2016 # expanded by the inner sh
	launch slurmctld "$LOGDIR/slurmctld.out" "${DAEMON_ENV[@]}" \
		unshare -m --propagation private -- \
		/bin/sh -c 'mount --bind "$1" /etc/hosts && exec "$2" -D -f "$3"' \
		sh "$ETC/hosts" "$(command -v slurmctld)" "$CONF"
}

start_slurmd() {
	local n=$1
	# nsenter --net only (ip netns exec would remount /sys and hide cgroups);
	# then a private UTS+mount namespace with hostname nI and our hosts file.
	# shellcheck disable=SC2016 # expanded by the inner sh
	launch "slurmd-$n" "$LOGDIR/slurmd-$n.out" "${DAEMON_ENV[@]}" \
		nsenter --net="/run/netns/$(node_ns "$n")" -- \
		unshare -u -m --propagation private -- \
		/bin/sh -c 'hostname "$1" && mount --bind "$2" /etc/hosts && exec "$3" -D -f "$4"' \
		sh "$n" "$ETC/hosts" "$(command -v slurmd)" "$CONF"
}

cmd_start() {
	local t0 new fp old='' n
	t0=$(now_ms)
	ensure_packages
	ensure_user
	install -d -m 0755 "$DIR"
	resolve_plugins
	new=$DIR/etc.new
	rm -rf "$new"
	write_configs "$new"
	fp=$(fingerprint "$new")
	if healthy; then
		read -r old 2>/dev/null <"$FINGERPRINT" || true
		if [[ $old == "$fp" ]]; then
			rm -rf "$new"
			say "already running and healthy ($DIR)"
			return 0
		fi
		say "configuration or plugins changed: restarting"
	fi
	if anything_present || [[ -n $(ls -A "$PIDDIR" 2>/dev/null) ]]; then
		say "tearing down the previous cluster"
		teardown
	fi

	STARTED_OK=0
	trap 'start_exit' EXIT
	trap 'exit 130' INT TERM
	rm -rf "$ETC" "$DIR/state" "$DIR/spool" "$DIR/tmp" "$RUNDIR" "$PIDDIR"
	mv "$new" "$ETC"
	make_dirs
	# (kept over a restart: a test that restarts the cluster reads on)
	if [[ ${PMIXEV_ASAN:-0} == 1 ]]; then install -d -m 1777 "$ASAN_DIR"; fi
	stage_plugins
	local f
	while IFS= read -r f; do : >"$f"; rm -f "${f%.log}.out"; done < <(log_files)

	mapfile -t DAEMON_ENV < <(daemon_env)
	setup_network
	start_munged
	start_slurmctld
	wait_until 20 "slurmctld (scontrol ping)" ctld_ready
	for n in "${NODES[@]}"; do start_slurmd "$n"; done
	wait_until "$START_TIMEOUT" "${#NODES[@]} idle nodes" nodes_ready
	printf '%s\n' "$fp" >"$FINGERPRINT"
	STARTED_OK=1
	say "cluster up in $(elapsed "$t0"): nodes ${NODES[*]} idle; SLURM_CONF=$CONF"
}

start_exit() {
	local rc=$?
	((STARTED_OK)) && return 0
	trap - INT TERM
	printf '%s: error: start failed; daemon logs follow\n' "$SCRIPT_NAME" >&2
	print_logs 40 >&2
	teardown >&2 || true
	exit $((rc == 0 ? 1 : rc))
}

# ---------------------------------------------------------------- teardown

teardown() {
	local pids=() name needle pid n ns deadline p
	# 1. SIGTERM the daemons we recorded (if they are still ours) and strays.
	for name in slurmctld "${NODES[@]/#/slurmd-}" munged; do
		needle=$CONF
		[[ $name == munged ]] && needle=$MUNGE_SOCKET
		if pid=$(live_pid "$PIDDIR/$name.pid" "$needle"); then pids+=("$pid"); fi
	done
	mapfile -t -O "${#pids[@]}" pids < <(stray_pids)
	# munged last: the slurm daemons need it while shutting down.
	local slurm_pids=() munge_pids=()
	for pid in "${pids[@]}"; do
		if [[ $(readlink "/proc/$pid/exe" 2>/dev/null) == */munged ]]; then
			munge_pids+=("$pid")
		else
			slurm_pids+=("$pid")
		fi
	done
	term_and_wait "${slurm_pids[@]}"
	# 2. whatever is left in our namespaces (slurmstepd, job tasks).
	for n in "${NODES[@]}"; do
		ns=$(node_ns "$n")
		[[ -e /run/netns/$ns ]] || continue
		mapfile -t pids < <(ip netns pids "$ns" 2>/dev/null || true)
		for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
		deadline=$((SECONDS + 5))
		while [[ -n $(ip netns pids "$ns" 2>/dev/null) ]] && ((SECONDS < deadline)); do sleep 0.05; done
		ip netns del "$ns" 2>/dev/null || warn "could not delete netns $ns"
	done
	for n in "${NODES[@]}"; do
		ip link del "$(node_veth "$n")" 2>/dev/null || true
	done
	ip link del "$BRIDGE" 2>/dev/null || true
	term_and_wait "${munge_pids[@]}"
	rm -f "$PIDDIR"/*.pid "$FINGERPRINT" 2>/dev/null || true
}

# Not exited and not a zombie (/proc files have size 0: read, don't -s).
pid_running() {
	local cmdline
	cmdline=$(tr -d '\0' 2>/dev/null <"/proc/$1/cmdline") || return 1
	[[ -n $cmdline ]]
}

# SIGTERM, wait up to 5 s for exit (cmdline gone), then SIGKILL.
term_and_wait() {
	(($# > 0)) || return 0
	local pid deadline alive
	kill -TERM "$@" 2>/dev/null || true
	deadline=$((SECONDS + 5))
	while :; do
		alive=()
		for pid in "$@"; do pid_running "$pid" && alive+=("$pid"); done
		((${#alive[@]} == 0)) && return 0
		((SECONDS < deadline)) || break
		sleep 0.05
	done
	warn "killing unresponsive pids: ${alive[*]}"
	kill -KILL "${alive[@]}" 2>/dev/null || true
}

cmd_stop() {
	local t0
	t0=$(now_ms)
	if ! anything_present && [[ -z $(ls -A "$PIDDIR" 2>/dev/null) ]]; then
		say "not running"
		return 0
	fi
	teardown
	say "stopped in $(elapsed "$t0")"
}

# ---------------------------------------------------------------- others

# ctld stop|start: a slurmctld outage while the nodes and jobs run on.
cmd_ctld() {
	local pid
	case ${1:-} in
	stop)
		read -r pid 2>/dev/null <"$PIDDIR/slurmctld.pid" || die "no slurmctld pid file"
		term_and_wait "$pid"
		say "slurmctld stopped"
		;;
	start)
		mapfile -t DAEMON_ENV < <(daemon_env)
		start_slurmctld
		wait_until 20 "slurmctld (scontrol ping)" ctld_ready
		say "slurmctld started"
		;;
	*) usage >&2; exit 2 ;;
	esac
}

cmd_status() {
	local rc=0 name needle pid n
	for name in munged slurmctld "${NODES[@]/#/slurmd-}"; do
		needle=$CONF
		[[ $name == munged ]] && needle=$MUNGE_SOCKET
		if pid=$(live_pid "$PIDDIR/$name.pid" "$needle"); then
			printf '%-10s running (pid %s)\n' "$name" "$pid"
		else
			printf '%-10s NOT running\n' "$name"
			rc=1
		fi
	done
	if ctld_up; then
		printf 'slurmctld  ping UP\n'
		node_states | sed 's/^/node       /'
	else
		printf 'slurmctld  ping: not responding\n'
		rc=1
	fi
	if ((rc == 0)) && healthy; then
		printf 'status: healthy (%s)\n' "$DIR"
	else
		printf 'status: NOT healthy (%s)\n' "$DIR"
		rc=1
	fi
	return "$rc"
}

cmd_env() {
	local n addrs=()
	for n in "${NODES[@]}"; do addrs+=("$n=$(node_addr "$n")"); done
	printf 'export %s=%q\n' \
		SLURM_CONF "$CONF" \
		PMIXEV_CLUSTER_ID "$ID" \
		PMIXEV_CLUSTER_DIR "$DIR" \
		PMIXEV_TEST_USER "$TEST_USER" \
		PMIXEV_OTHER_USER "$OTHER_USER" \
		PMIXEV_CLUSTER_NODES "${NODES[*]}" \
		PMIXEV_CLUSTER_NODE_ADDRS "${addrs[*]}" \
		PMIXEV_CLUSTER_NETNS_PREFIX "$NETNS_PREFIX" \
		PMIXEV_CLUSTER_VETH_PREFIX "$VETH_PREFIX" \
		PMIXEV_CLUSTER_WORKDIR "$WORKDIR" \
		PMIXEV_CLUSTER_LOG_DIR "$LOGDIR" \
		PMIXEV_SLURMCTLD_LOG "$LOGDIR/slurmctld.log" \
		PMIXEV_SLURMD_LOG_DIR "$LOGDIR" \
		PMIXEV_SLURMD_LOG_PATTERN "$LOGDIR/slurmd-%n.log" \
		PMIXEV_MUNGED_LOG "$LOGDIR/munged.log" \
		PMIXEV_MUNGE_SOCKET "$MUNGE_SOCKET"
	# what the running cluster's pmixev is (setup.sh, write_configs)
	[[ ! -r $ETC/paths.env ]] || sed 's/^/export /' "$ETC/paths.env"
	if [[ ${PMIXEV_ASAN:-0} == 1 ]]; then
		printf 'export PMIXEV_ASAN_ENV=%q\n' "$(asan_env | tr '\n' ' ')"
		printf 'export PMIXEV_ASAN_DIR=%q\n' "$ASAN_DIR"
	fi
}

cmd_reconfigure() {
	daemons_alive || die "cluster is not running"
	scontrol reconfigure
	sleep 0.5
	wait_until "$START_TIMEOUT" "${#NODES[@]} idle nodes" all_idle
	say "reconfigured; all nodes idle"
}

# Serialize start/stop/reconfigure (daemons do not inherit fd 9: see launch).
lock() {
	[[ $(id -u) == 0 ]] || die "must run as root"
	install -d -m 0755 "$DIR"
	exec 9>"$DIR/.lock"
	flock -w 120 9 || die "timed out waiting for $DIR/.lock"
}

main() {
	local cmd=${1:-}
	(($# > 0)) && shift
	case $cmd in start | stop | reconfigure | ctld) lock ;; esac
	case $cmd in
	start) cmd_start ;;
	stop) cmd_stop ;;
	status) cmd_status ;;
	logs) print_logs "${1:-40}" ;;
	env) cmd_env ;;
	reconfigure) cmd_reconfigure ;;
	ctld) cmd_ctld "$@" ;;
	-h | --help | help) usage ;;
	*) usage >&2; exit 2 ;;
	esac
}

main "$@"
