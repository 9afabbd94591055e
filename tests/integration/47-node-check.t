#!/usr/bin/env bash
# pmixev-check on node n1: every check ok on a healthy node (exit 0), as
# root and as the test user (who is told what needs root); usage errors
# exit 2; SLURM_CONF is honoured and --conf wins. Then one thing broken at
# a time, always in a copy (the cluster's own files stay as they are):
# plugstack.conf without the SPANK line, an invalid mpi.conf value, a
# pmixev-pmixd the user cannot run, a query guard the user cannot read,
# munge's socket wrong, an mpi_pmixev.so of another Slurm release, and no
# network namespace to be had: each gives its own FAIL line and exit 1.
. "$(dirname "$0")/lib.sh"
plan 12

# The cluster's pmixev-check: the installed one, or a copy of the build's
# (whose tree the test user may not reach). It says where it found the
# cluster's programs.
check=$PMIXEV_CLUSTER_SBIN/pmixev-check
where=installed
if [ "$PMIXEV_CLUSTER_INSTALLED" = 0 ]; then
	install -m 0755 "$check" "$PMIXEV_CLUSTER_WORKDIR/pmixev-check"
	check=$PMIXEV_CLUSTER_WORKDIR/pmixev-check
	where='beside mpi_pmixev.so'
fi
etc=$(dirname "$SLURM_CONF")
tmp=$(mktemp -d /tmp/pmixev-check.XXXXXX)
chmod 0755 "$tmp"
trap 'rm -rf "$tmp"' EXIT

# run_check ARGS...: pmixev-check as root on n1, the test user as the
# ordinary one; $out, $rc.
run_check() {
	out=$(on_node n1 "$check" --user "$PMIXEV_TEST_USER" "$@" 2>&1)
	rc=$?
}

# verdicts WORD: how many lines of $out say WORD ("ok  ", "FAIL", "warn").
verdicts() { lines "^$1  "; }

# conf_copy NAME: a copy of the cluster's configuration in $tmp/NAME whose
# slurm.conf names the copy's plugstack.conf; its slurm.conf's path.
conf_copy() {
	local dir=$tmp/$1
	cp -a "$etc" "$dir"
	sed -i "s|^PlugStackConfig=.*|PlugStackConfig=$dir/plugstack.conf|" "$dir/slurm.conf"
	echo "$dir/slurm.conf"
}

# plugins_copy NAME: conf_copy NAME whose PluginDir starts with a copy of
# the cluster's pmixev, its plugins with the programs and the query guard
# beside them ($tmp/NAME.plugins, files, not links).
plugins_copy() {
	local conf
	conf=$(conf_copy "$1")
	mkdir "$tmp/$1.plugins"
	cp -L "$PMIXEV_CLUSTER_PLUGINS"/mpi_pmixev.so "$PMIXEV_CLUSTER_PLUGINS"/spank_pmixev.so \
		"$PMIXEV_CLUSTER_PROGRAMS"/pmixev-owner "$PMIXEV_CLUSTER_PROGRAMS"/pmixev-pmixd \
		"$PMIXEV_CLUSTER_PROGRAMS"/pmixev-exec "$PMIXEV_CLUSTER_GUARD" "$tmp/$1.plugins"
	sed -i "s|^PluginDir=|PluginDir=$tmp/$1.plugins:|" "$conf"
	sed -i "s|^required .*/spank_pmixev.so|required $tmp/$1.plugins/spank_pmixev.so|" \
		"$tmp/$1/plugstack.conf"
	echo "$conf"
}

# 1. Healthy, as root: 13 checks, all ok.
run_check
[ "$rc" = 0 ] && [ "$(verdicts 'ok  ')" = 13 ] && [ "$(lines .)" = 13 ] &&
	[ "$(lines "^ok    pmixev-pmixd: $PMIXEV_CLUSTER_PROGRAMS/pmixev-pmixd \($where\) runs as $PMIXEV_TEST_USER in a network namespace of its own")" = 1 ] &&
	[ "$(lines "^ok    Slurm release: slurmd $PMIXEV_SLURM_VERSION, ")" = 1 ] &&
	[ "$(lines "^ok    OpenPMIx: pmixev-pmixd runs with OpenPMIx $PMIXEV_PMIX_VERSION ")" = 1 ] &&
	[ "$(lines "^ok    munge: .* through $PMIXEV_MUNGE_SOCKET \(AuthInfo\)")" = 1 ]
ok $? "healthy node, as root: 13 checks ok, exit 0" || diag "exit $rc:" "$out"

# 2. Healthy, as the test user: what needs root is said, nothing fails.
out=$(as_user "$check" 2>&1)
rc=$?
[ "$rc" = 0 ] && [ "$(verdicts FAIL)" = 0 ] && [ "$(verdicts warn)" = 1 ] &&
	[ "$(lines '^warn  network namespace: not tried: slurmstepd makes it as root')" = 1 ] &&
	[ "$(lines "^ok    pmixev-owner: .* runs as $PMIXEV_TEST_USER: pmixev ")" = 1 ]
ok $? "healthy node, as the test user: no FAIL, the network namespace needs root, exit 0" ||
	diag "exit $rc:" "$out"

# 3. Usage errors.
on_node n1 "$check" --bogus >/dev/null 2>&1
r1=$?
as_user "$check" --user root >/dev/null 2>&1
r2=$?
on_node n1 "$check" --user root >/dev/null 2>&1
r3=$?
[ "$r1" = 2 ] && [ "$r2" = 2 ] && [ "$r3" = 2 ]
ok $? "usage errors exit 2: unknown option ($r1), --user as non-root ($r2), --user root ($r3)"

# 4. SLURM_CONF is read; --conf wins over it.
empty=$(conf_copy empty)
: >"$tmp/empty/plugstack.conf"
out=$(SLURM_CONF=$empty on_node n1 "$check" --user "$PMIXEV_TEST_USER" 2>&1)
a=$(lines "^ok    slurm.conf: $empty \(SLURM_CONF\)$")
cluster_conf=$SLURM_CONF
out=$(SLURM_CONF=$empty on_node n1 "$check" --user "$PMIXEV_TEST_USER" --conf "$cluster_conf" 2>&1)
b=$(lines "^ok    slurm.conf: $cluster_conf \(--conf\)$")
[ "$a" = 1 ] && [ "$b" = 1 ]
ok $? "the slurm.conf read is SLURM_CONF's, and --conf's over it" || diag "$out"

# 5. plugstack.conf without the SPANK plugin's line.
run_check --conf "$empty"
[ "$rc" = 1 ] && [ "$(verdicts FAIL)" = 1 ] &&
	[ "$(lines "^FAIL  plugstack.conf: no line loads spank_pmixev.so in $tmp/empty/plugstack.conf: --mpi=pmixev steps are refused")" = 1 ]
ok $? "plugstack.conf without spank_pmixev.so: that FAIL alone, exit 1" || diag "exit $rc:" "$out"

# 6. An invalid mpi.conf value, as slurmd would refuse it.
conf=$(conf_copy badconf)
echo 'PMIxevTimeout=banana' >>"$tmp/badconf/mpi.conf"
run_check --conf "$conf"
[ "$rc" = 1 ] && [ "$(verdicts FAIL)" = 1 ] &&
	[ "$(lines "^FAIL  mpi.conf: $tmp/badconf/mpi.conf:[0-9]+: PMIxevTimeout=banana: expected an integer in 1..86400 seconds; --mpi=pmixev steps are refused")" = 1 ]
ok $? "PMIxevTimeout=banana in mpi.conf: FAIL naming file, line, key and value, exit 1" ||
	diag "exit $rc:" "$out"

# 7. pmixev-pmixd that only root may run: the user's exec fails.
conf=$(plugins_copy noexec)
chmod 0744 "$tmp/noexec.plugins/pmixev-pmixd"
run_check --conf "$conf"
[ "$rc" = 1 ] &&
	[ "$(lines "^FAIL  pmixev-pmixd: $tmp/noexec.plugins/pmixev-pmixd \(beside mpi_pmixev.so\) does not run as $PMIXEV_TEST_USER .*: exec failed as uid [0-9]+: Permission denied")" = 1 ] &&
	[ "$(lines '^FAIL  OpenPMIx: unknown')" = 1 ] && [ "$(verdicts FAIL)" = 2 ] &&
	[ "$(lines '^ok    pmixev-owner: ')" = 1 ]
ok $? "pmixev-pmixd not executable by the user: FAIL with the cause, exit 1" || diag "exit $rc:" "$out"

# 8. The PMIx query guard that the user cannot read.
conf=$(plugins_copy noguard)
chmod 0600 "$tmp/noguard.plugins/pmixev_pmix_guard.so"
run_check --conf "$conf"
[ "$rc" = 1 ] && [ "$(verdicts FAIL)" = 1 ] &&
	[ "$(lines "^FAIL  PMIx query guard: pmixev-pmixd cannot load $tmp/noguard.plugins/pmixev_pmix_guard.so as $PMIXEV_TEST_USER: .*cannot be preloaded")" = 1 ]
ok $? "a query guard the user cannot read: FAIL, exit 1" || diag "exit $rc:" "$out"

# 9. munge's socket wrong.
conf=$(conf_copy nomunge)
sed -i "s|^AuthInfo=.*|AuthInfo=socket=$tmp/no-munge.socket|" "$conf"
run_check --conf "$conf"
[ "$rc" = 1 ] && [ "$(verdicts FAIL)" = 1 ] &&
	[ "$(lines "^FAIL  munge: .*$tmp/no-munge.socket.*, through $tmp/no-munge.socket \(AuthInfo\)")" = 1 ]
ok $? "AuthInfo naming no munged: FAIL with munge's reason and the socket, exit 1" ||
	diag "exit $rc:" "$out"

# 10. mpi_pmixev.so built for another release (its plugin_version, in the
# file, made 0x16ff63 = 22.255.99).
conf=$(plugins_copy release)
so=$tmp/release.plugins/mpi_pmixev.so
val=$(nm -D "$so" | awk '$3 == "plugin_version" {print $1}')
read -r addr off < <(readelf -SW "$so" | awk '{for (i = 1; i < NF; i++)
	if ($i == ".rodata") print $(i + 2), $(i + 3)}')
printf '\x63\xff\x16\x00' | dd of="$so" bs=1 seek=$((0x$val - 0x$addr + 0x$off)) \
	conv=notrunc status=none
run_check --conf "$conf"
[ "$rc" = 1 ] && [ "$(verdicts FAIL)" = 1 ] &&
	[ "$(lines "^ok    mpi plugin: $so, built for Slurm 22.255.99;")" = 1 ] &&
	[ "$(lines "^FAIL  Slurm release: slurmd is $PMIXEV_SLURM_VERSION but mpi_pmixev.so was built for 22.255.99: Slurm loads an mpi plugin of its own release only")" = 1 ]
ok $? "mpi_pmixev.so of another Slurm release: FAIL with both releases, exit 1" ||
	diag "exit $rc:" "$out"

# 11. No network namespace to be had: none may be made in a user namespace
# whose user.max_net_namespaces is 0 (not in a chroot: the Debian 13 root).
if on_node n1 unshare --user --map-root-user true 2>/dev/null; then
	out=$(on_node n1 unshare --user --map-root-user sh -c \
		'echo 0 >/proc/sys/user/max_net_namespaces && exec "$@"' sh \
		"$check" --user "$PMIXEV_TEST_USER" 2>&1)
	rc=$?
	[ "$rc" = 1 ] &&
		[ "$(lines '^FAIL  network namespace: root cannot make one with lo up \(unshare: No space left on device\)')" = 1 ] &&
		[ "$(lines "^FAIL  pmixev-pmixd: .*: cannot make a network namespace of its own as uid [0-9]+: No space left on device")" = 1 ]
	ok $? "no network namespace allowed: FAIL for it and for pmixev-pmixd, exit 1" ||
		diag "exit $rc:" "$out"
else
	ok 0 "no network namespace allowed # SKIP no user namespace can be made here (a chroot)"
fi

# 12. The cluster's own files were not touched: all ok again.
run_check
[ "$rc" = 0 ] && [ "$(verdicts 'ok  ')" = 13 ]
ok $? "the cluster's own configuration still checks ok" || diag "exit $rc:" "$out"

done_testing
