# shellcheck shell=bash
# Setup helpers for tests/cluster/cluster.sh (sourced; uses its variables):
# packages, test user, plugin resolution (build.env), generation of
# slurm.conf / mpi.conf / plugstack.conf / hosts, directories and network.

ensure_packages() {
	local pkgs=(slurmctld slurmd slurm-client munge iproute2 util-linux procps) missing=() p
	mapfile -t missing < <(dpkg-query -W -f='${Package} ${Status}\n' "${pkgs[@]}" 2>/dev/null |
		awk -v want="${pkgs[*]}" '$NF == "installed" {ok[$1] = 1}
			END {n = split(want, w, " "); for (i = 1; i <= n; i++) if (!(w[i] in ok)) print w[i]}')
	for p in slurmctld slurmd srun scontrol sinfo munged mungekey munge ip nsenter unshare setsid runuser pgrep; do
		command -v "$p" >/dev/null || { missing+=("${pkgs[@]}"); break; }
	done
	((${#missing[@]} == 0)) && return 0
	mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u)
	say "installing missing packages: ${missing[*]}"
	apt-get update -q
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
}

# The test jobs' user, and a second unprivileged user who attacks them.
ensure_user() {
	local u
	for u in "$TEST_USER" "$OTHER_USER"; do
		id -u "$u" &>/dev/null && continue
		say "creating system user $u"
		useradd --system --user-group --create-home --home-dir "/var/lib/$u" \
			--shell /bin/bash --comment 'pmixev test jobs' "$u"
	done
}

find_sys_plugindir() {
	local d
	for d in ${SLURM_SYS_PLUGINDIR:-} /usr/lib/*/slurm-wlm /usr/lib/slurm-wlm /usr/lib64/slurm /usr/lib/slurm; do
		[[ -r $d/select_cons_tres.so ]] && { printf '%s\n' "$d"; return 0; }
	done
	die "cannot find Slurm's plugin directory (select_cons_tres.so)"
}

# Sets PLUGIN_DIR (PluginDir value), SPANK_LINE, MPI_SRC, SPANK_SRC,
# OWNER_SRC, PMIXD_SRC, EXEC_SRC, GUARD_SRC, COPY_PLUGINS and the CL_*
# paths of the tests (write_configs puts them in paths.env).
# The built plugins are staged in $DIR/plugins: Slurm names an mpi plugin by
# the text after "mpi_" in its path, so the build's own directory
# (.../plugins/mpi_pmixev/.libs) would show up in `srun --mpi=list` as
# "pmixev/.libs/mpi_pmixev". $DIR/plugins comes first in PluginDir: Slurm
# loads a plugin from the first folder that has it, so a pmixev package
# installed into the system plugin directory never stands in for the build.
resolve_plugins() {
	local build_env=${PMIXEV_BUILDDIR:-}/tests/cluster/build.env sysdir
	MPI_SRC='' SPANK_SRC='' SPANK_LINE='' OWNER_SRC='' PMIXD_SRC='' EXEC_SRC='' GUARD_SRC='' COPY_PLUGINS=0
	CL_INSTALLED=0 CL_PLUGINS='' CL_PROGRAMS='' CL_GUARD='' CL_SBIN=''
	if [[ ${PMIXEV_INSTALLED:-0} == 1 ]]; then
		sysdir=$(find_sys_plugindir)
		PLUGIN_DIR=$sysdir
		resolve_installed "$sysdir"
		return 0
	fi
	if [[ -n ${PMIXEV_BUILDDIR:-} && -r $build_env ]]; then
		# shellcheck source=/dev/null
		. "$build_env"
		MPI_SRC=${PMIXEV_MPI_PLUGIN:?build.env must set PMIXEV_MPI_PLUGIN}
		SPANK_SRC=${PMIXEV_SPANK_PLUGIN:?build.env must set PMIXEV_SPANK_PLUGIN}
		[[ -r $MPI_SRC ]] || die "mpi plugin not found: $MPI_SRC"
		[[ -r $SPANK_SRC ]] || die "spank plugin not found: $SPANK_SRC"
		OWNER_SRC=${PMIXEV_OWNER_HELPER_BUILT:-}
		PMIXD_SRC=${PMIXEV_PMIXD_BUILT:-}
		EXEC_SRC=${PMIXEV_EXEC_BUILT:-}
		GUARD_SRC=${PMIXEV_PMIX_GUARD_BUILT:-}
	else
		warn "no \$PMIXEV_BUILDDIR/tests/cluster/build.env: using system plugins only, empty plugstack.conf"
	fi
	sysdir=$(find_sys_plugindir)
	PLUGIN_DIR=$sysdir
	[[ -n $MPI_SRC ]] || return 0
	runuser -u "$TEST_USER" -- test -r "$MPI_SRC" &&
		runuser -u "$TEST_USER" -- test -r "$SPANK_SRC" || COPY_PLUGINS=1
	SPANK_LINE="required $DIR/plugins/$(basename "$SPANK_SRC")"
	PLUGIN_DIR=$DIR/plugins:$sysdir
	CL_PLUGINS=$DIR/plugins CL_PROGRAMS=$DIR/plugins
	CL_GUARD=$DIR/plugins/$(basename "${GUARD_SRC:-pmixev_pmix_guard.so}")
	CL_SBIN=$PMIXEV_BUILDDIR/programs
}

# resolve_installed SYSDIR: PMIXEV_INSTALLED=1, the cluster runs what the
# pmixev package installed, as a site does: its plugins from Slurm's own
# plugin directory SYSDIR (the only PluginDir), the SPANK plugin loaded
# from there, and the programs and the PMIx query guard where the mpi
# plugin looks for them by default. Nothing of a build is staged.
resolve_installed() {
	local sysdir=$1 files
	[[ $(dpkg-query -W -f='${db:Status-Abbrev}' pmixev 2>/dev/null) == 'ii ' ]] ||
		die "PMIXEV_INSTALLED=1, but no pmixev package is installed (dpkg -i pmixev_*.deb)"
	files=$(dpkg-query -L pmixev)
	MPI_SRC=$(package_file "$files" mpi_pmixev.so)
	SPANK_SRC=$(package_file "$files" spank_pmixev.so)
	[[ ${MPI_SRC%/*} == "$sysdir" && ${SPANK_SRC%/*} == "$sysdir" ]] ||
		die "the pmixev package put its plugins into ${MPI_SRC%/*}, not into Slurm's plugin directory $sysdir"
	SPANK_LINE="required $SPANK_SRC"
	CL_INSTALLED=1 CL_PLUGINS=$sysdir
	CL_PROGRAMS=$(package_file "$files" pmixev-owner)
	CL_PROGRAMS=${CL_PROGRAMS%/*}
	CL_GUARD=$(package_file "$files" pmixev_pmix_guard.so)
	CL_SBIN=$(package_file "$files" pmixev-check)
	CL_SBIN=${CL_SBIN%/*}
	say "the installed pmixev $(dpkg-query -W -f='${Version}' pmixev): plugins in $sysdir, programs in $CL_PROGRAMS"
}

# package_file FILES NAME: the file NAME of the pmixev package (FILES:
# dpkg-query -L pmixev).
package_file() {
	local f
	f=$(grep -m1 "/$2\$" <<<"$1") || die "the pmixev package has no $2"
	[[ -f $f ]] || die "$f of the pmixev package is missing"
	printf '%s\n' "$f"
}

# stage_plugins: symlinks to the build's plugins (a rebuild is picked up at
# the next daemon start), or copies when the test user cannot read the build.
# The installed package: nothing, and no staged files left from before.
stage_plugins() {
	if ((CL_INSTALLED)); then
		rm -rf "$DIR/plugins"
		return 0
	fi
	[[ -n $MPI_SRC ]] || return 0
	install -d -m 0755 "$DIR/plugins"
	local f
	# The stepds run the owner helper as the job user from here: they
	# find it beside the loaded mpi_pmixev.so, as at a site that stages
	# both into its PluginDir (no PMIXEV_OWNER_HELPER).
	# So is the PMIx server process (PMIxevServer=owner), and srun finds
	# pmixev-exec there for a spawn of several applications.
	for f in ${OWNER_SRC:+"$OWNER_SRC"} ${PMIXD_SRC:+"$PMIXD_SRC"} ${EXEC_SRC:+"$EXEC_SRC"}; do
		[[ -x $f ]] || continue
		install -m 0755 "$f" "$DIR/plugins/.$(basename "$f").tmp"
		mv -f "$DIR/plugins/.$(basename "$f").tmp" "$DIR/plugins/$(basename "$f")"
	done
	# ... and the PMIx query guard beside it (pmixbase/guard.h).
	for f in "$MPI_SRC" "$SPANK_SRC" ${GUARD_SRC:+"$GUARD_SRC"}; do
		if ((COPY_PLUGINS)); then
			# temp name + rename: never rewrite a mapped .so in place
			install -m 0755 "$f" "$DIR/plugins/.$(basename "$f").tmp"
			mv -f "$DIR/plugins/.$(basename "$f").tmp" "$DIR/plugins/$(basename "$f")"
		else
			ln -sfn "$f" "$DIR/plugins/$(basename "$f")"
		fi
	done
	((COPY_PLUGINS)) && say "plugins not readable by $TEST_USER: using copies in $DIR/plugins"
	return 0
}

# write_configs OUTDIR
write_configs() {
	local out=$1 n
	install -d -m 0755 "$out"
	{
		cat <<EOF
# generated by tests/cluster/cluster.sh (setup.sh) -- do not edit
ClusterName=pmixev$ID
SlurmctldHost=localhost($CTL_ADDR)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$MUNGE_SOCKET
PluginDir=$PLUGIN_DIR
PlugStackConfig=$ETC/plugstack.conf
MpiDefault=${PMIXEV_MPI_DEFAULT:-none}
ProctrackType=${PMIXEV_PROCTRACK:-proctrack/linuxproc}
TaskPlugin=${PMIXEV_TASK_PLUGIN:-task/none}
JobAcctGatherType=jobacct_gather/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
PreemptType=preempt/partition_prio
PreemptMode=CANCEL
SlurmdParameters=config_overrides
SlurmdTimeout=6
# 2 s lost Slurm 24.11 srun answers on a loaded 2-core machine ("Socket timed
# out", "Connection is stale" in slurmctld's log)
MessageTimeout=5
ReturnToService=2
KillWait=5
InactiveLimit=0
MinJobAge=60
MailProg=/bin/true
StateSaveLocation=$DIR/state
SlurmctldPidFile=$RUNDIR/slurmctld.pid
SlurmctldLogFile=$LOGDIR/slurmctld.log
SlurmctldDebug=info
SlurmdSpoolDir=$DIR/spool/%n
SlurmdPidFile=$RUNDIR/slurmd-%n.pid
SlurmdLogFile=$LOGDIR/slurmd-%n.log
SlurmdDebug=info
TmpFS=$DIR/tmp/%n
EOF
		for n in "${NODES[@]}"; do
			printf 'NodeName=%s NodeAddr=%s NodeHostname=%s Sockets=1 CoresPerSocket=%d ThreadsPerCore=1 RealMemory=4000 State=UNKNOWN\n' \
				"$n" "$(node_addr "$n")" "$n" "${PMIXEV_NODE_CORES:-32}"
		done
		# Jobs in "high" preempt jobs in "debug" (cancelled) and "requeue"
		# (requeued) after a grace time of 10 s (PMIXEV_GRACE_TIME). Slurm acts
		# on it at its next 30 s periodic check, so a preemption takes 10-40 s.
		printf 'PartitionName=debug Nodes=n[1-%d] Default=YES MaxTime=INFINITE State=UP PriorityTier=1 GraceTime=%d\n' \
			"${#NODES[@]}" "${PMIXEV_GRACE_TIME:-10}"
		printf 'PartitionName=requeue Nodes=n[1-%d] MaxTime=INFINITE State=UP PriorityTier=1 GraceTime=%d PreemptMode=REQUEUE\n' \
			"${#NODES[@]}" "${PMIXEV_GRACE_TIME:-10}"
		printf 'PartitionName=high Nodes=n[1-%d] MaxTime=INFINITE State=UP PriorityTier=2 PreemptMode=OFF\n' "${#NODES[@]}"
		[[ -z ${PMIXEV_SLURM_CONF_EXTRA:-} ]] || printf '%s\n' "$PMIXEV_SLURM_CONF_EXTRA"
	} >"$out/slurm.conf"
	# PMIx_Log's syslog lines go to a socket of the cluster's own, where
	# a test may listen (29-log.t), never to the machine's /dev/log; its
	# mails to a file of the work directory (the command runs as the job
	# owner).
	printf 'PMIxevLogSyslog=%s\nPMIxevLogMail=%s\n%s\n' "$RUNDIR/syslog.sock" "$ETC/mail.sh" \
		"${PMIXEV_MPI_CONF:-}" >"$out/mpi.conf"
	# Read by proctrack/cgroup and task/cgroup (beside slurm.conf). The
	# nodes' cores are not the machine's (PMIXEV_NODE_CORES), so cores are
	# constrained only when asked (PMIXEV_CGROUP_CORES=yes, with as many
	# node cores as the machine has).
	printf 'ConstrainCores=%s\nConstrainRAMSpace=no\nConstrainDevices=no\n' \
		"${PMIXEV_CGROUP_CORES:-no}" >"$out/cgroup.conf"
	printf '#!/bin/sh\n{ echo "mail from $(id -un): $*"; cat; echo; echo "-- end"; } >>"%s/mail.txt"\n' \
		"$WORKDIR" >"$out/mail.sh"
	if [[ -n $SPANK_LINE ]]; then
		printf '%s\n' "$SPANK_LINE" >"$out/plugstack.conf"
	else
		: >"$out/plugstack.conf"
	fi
	# Where the tests find what the cluster runs (cluster.sh env): the
	# folder of the loaded plugins, the programs the mpi plugin runs, the
	# query guard it loads, and pmixev-check and pmixev-notify.
	printf '%s=%q\n' PMIXEV_CLUSTER_INSTALLED "$CL_INSTALLED" \
		PMIXEV_CLUSTER_PLUGINS "$CL_PLUGINS" PMIXEV_CLUSTER_PROGRAMS "$CL_PROGRAMS" \
		PMIXEV_CLUSTER_GUARD "$CL_GUARD" PMIXEV_CLUSTER_SBIN "$CL_SBIN" >"$out/paths.env"
	{
		printf '127.0.0.1\tlocalhost\n%s\t%s pmixev-ctl\n' "$CTL_ADDR" "$(hostname)"
		for n in "${NODES[@]}"; do printf '%s\t%s\n' "$(node_addr "$n")" "$n"; done
	} >"$out/hosts"
	chmod 0644 "$out"/*
	chmod 0755 "$out/mail.sh"
}

# Hash of the generated config and the plugin sources.
fingerprint() {
	local etc=$1
	cat "$etc"/* ${MPI_SRC:+"$MPI_SRC"} ${SPANK_SRC:+"$SPANK_SRC"} | sha256sum | cut -d' ' -f1
}

make_dirs() {
	local n
	install -d -m 0755 "$DIR" "$LOGDIR" "$PIDDIR" "$RUNDIR" "$DIR/state" "$DIR/spool" "$DIR/munge" "$MUNGE_RUNDIR"
	install -d -m 0700 "$MUNGE_KEYDIR"
	install -d -m 1777 "$DIR/tmp"
	install -d -m 0755 -o "$TEST_USER" -g "$(id -gn "$TEST_USER")" "$WORKDIR"
	for n in "${NODES[@]}"; do
		install -d -m 0755 "$DIR/spool/$n"
		install -d -m 1777 "$DIR/tmp/$n"
	done
}

setup_network() {
	local n ns veth used
	used=$(ip -o -4 addr show | awk -v p="$SUBNET_PREFIX." -v br="$BRIDGE" \
		'index($4, p) == 1 && $2 != br {print $2}')
	[[ -z $used ]] || die "subnet $SUBNET_PREFIX.0/24 already used by: $used"
	ip link add "$BRIDGE" type bridge
	ip addr add "$CTL_ADDR/24" dev "$BRIDGE"
	ip link set "$BRIDGE" up
	for n in "${NODES[@]}"; do
		ns=$(node_ns "$n") veth=$(node_veth "$n")
		ip netns add "$ns"
		ip link add "$veth" type veth peer name eth0 netns "$ns"
		ip link set "$veth" master "$BRIDGE" up
		ip -n "$ns" link set lo up
		ip -n "$ns" addr add "$(node_addr "$n")/24" dev eth0
		ip -n "$ns" link set eth0 up
	done
}
