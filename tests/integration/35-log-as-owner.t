#!/usr/bin/env bash
# PMIx_Log to a rank's stdout is written by a process with the job owner's
# identity, never root's, and never blocks the stepd: the task chose what
# its fd 1 is. A SO_PASSCRED socket sees the owner's uid, not 0; a pty or
# pipe nobody reads gets PMIx_Log an error within a bound while the step
# goes on (fence, heartbeats) and ends; a full file system refuses the
# owner's write where root's reserve would have taken it.
. "$(dirname "$0")/lib.sh"
plan 6

lg=$(client pmix_log)
uid=$(id -u "$PMIXEV_TEST_USER")
gid=$(id -g "$PMIXEV_TEST_USER")
BOUND_MS=15000 # the writer's deadline (5 s) and then some

# (a) fd 1 a unix socket with SO_PASSCRED: the kernel stamps the writer.
run_step --mpi=pmixev -N2 -n2 "$lg" --by 1 --out passcred "stdout=stamped by whom"
cred=$(printf '%s\n' "$out" | sed -n 's/^passcred: \(uid=[0-9]* gid=[0-9]*\): stamped by whom$/\1/p')
[ "$rc" -eq 0 ] && [ "$cred" = "uid=$uid gid=$gid" ] &&
	[ "$(lines '^pmix_log: rank 1: log: (PMIX_)?SUCCESS \(')" -eq 1 ]
ok $? "a SO_PASSCRED socket on fd 1 sees the owner ($cred), not uid 0" || show

# (b) fd 1 a nearly full pty / a full pipe nobody reads (rank 1, on n2).
# The line is longer than the room the pty has left.
long=$(head -c 60000 /dev/zero | tr '\0' y)
for kind in ${KINDS:-pty pipe}; do
	t0=$(date +%s)
	run_step --mpi=pmixev -N3 -n3 -t 2 "$lg" --by 1 --out "$kind" "stdout=into a full $kind $long"
	took=$(($(date +%s) - t0))
	ms=$(printf '%s\n' "$out" | sed -n 's/^pmix_log: rank 1: log: .* (\([0-9]*\) ms)$/\1/p')
	st=$(printf '%s\n' "$out" | sed -n 's/^pmix_log: rank 1: log: \(.*\) ([0-9]* ms)$/\1/p')
	[ "$rc" -eq 0 ] && [ -n "$ms" ] && [ "$ms" -lt "$BOUND_MS" ] &&
		[ "$st" != SUCCESS ] && [ "$st" != PMIX_SUCCESS ] &&
		[ "$(lines '^pmix_log: rank [012]: after$')" -eq 3 ] &&
		grep -q "step $job\.0 on n2: log: rank 1: stdout refused" "$(slurmd_log n2)"
	ok $? "fd 1 a full $kind: PMIx_Log answers $st in ${ms:-?} ms, the other ranks go on, the fence after it succeeds (srun $rc in $took s)" || show
	left=""
	for _ in $(seq 50); do
		left=$(stepd_pid n2)
		[ -z "$left" ] && break
		sleep 0.2
	done
	[ -z "$left" ] && ! grep -Eq "step $job\.0 on n[13]: .*lost (child|parent) node" \
		"$(slurmd_log n1)" "$(slurmd_log n3)"
	ok $? "full $kind: no node declared lost, n2's stepd ended with the job (left: ${left:-none})" ||
		{ grep -E "step $job\.0 on n[123]: .*lost" "$(slurmd_log n1)" "$(slurmd_log n3)" | sed 's/^/#   /' >&2; }
done

# (c) a full file system with blocks reserved for root: the owner's write
# fails with ENOSPC where root's would take the reserve.
mnt=$PMIXEV_CLUSTER_WORKDIR/fullfs
img=$PMIXEV_CLUSTER_DIR/fullfs.img
fs_ready() {
	command -v mkfs.ext4 >/dev/null && command -v losetup >/dev/null || return 1
	rm -f "$img" && truncate -s 8M "$img" &&
		mkfs.ext4 -q -F -m 50 "$img" >/dev/null 2>&1 || return 1
	mkdir -p "$mnt" && on_node n2 mount -o loop "$img" "$mnt" 2>/dev/null || return 1
	on_node n2 chmod 1777 "$mnt" &&
		on_node n2 runuser -u "$PMIXEV_TEST_USER" -- sh -c \
			": >'$mnt/out' && : >'$mnt/probe' &&
			dd if=/dev/zero of='$mnt/fill' bs=4k 2>/dev/null;
			dd if=/dev/zero of='$mnt/fill2' bs=1 2>/dev/null; sync; true" &&
		# the owner's space is gone; root's reserve (half) is not
		! on_node n2 runuser -u "$PMIXEV_TEST_USER" -- sh -c "echo x >>'$mnt/probe'" 2>/dev/null &&
		on_node n2 sh -c "echo root >>'$mnt/probe' && : >'$mnt/probe'"
}
fs_gone() {
	on_node n2 umount "$mnt" 2>/dev/null
	rm -f "$img"
}
if fs_ready; then
	run_step --mpi=pmixev -N1 -n1 -w n2 "$lg" --out "file:$mnt/out" "stdout=past the reserve"
	size=$(on_node n2 stat -c %s "$mnt/out")
	st=$(printf '%s\n' "$out" | sed -n 's/^pmix_log: rank 0: log: \(.*\) ([0-9]* ms)$/\1/p')
	[ "$rc" -eq 0 ] && [ "$size" -eq 0 ] && [ -n "$st" ] && [ "$st" != SUCCESS ] && [ "$st" != PMIX_SUCCESS ] &&
		grep -q "step $job\.0 on n2: log: rank 0: stdout refused .*No space left on device" "$(slurmd_log n2)"
	ok $? "a file on a full file system (50% reserved for root): the owner's write fails ($st, $size bytes written)" || show
	fs_gone
else
	fs_gone
	ok 0 "# SKIP no loop device, mkfs.ext4 or mount in n2's namespace for a full file system with a root reserve"
fi

done_testing
