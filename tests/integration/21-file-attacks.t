#!/usr/bin/env bash
# slurmstepd (root) and the files of a job's user. The job's user attacks:
# - the names the stepd used to create in /tmp (pmixev.JOB.STEP.NODE), pre-
#   created and re-created with symlinks to root's files while steps start
#   and end (root used to chown and unlink through them);
# - the owner's own directory (PMIX_TMPDIR, PMIX_NSDIR, the tools'
#   rendezvous), filled with symlinks to root's files and directories and
#   with a directory swapped for a symlink again and again while the stepd
#   removes it at the step's end.
# Root's files stay root's and stay there. Another user can neither list
# pmixev's run directory nor enter the owner's.
. "$(dirname "$0")/lib.sh"
plan 6

victim=$(mktemp -d /var/tmp/pmixev-victim.XXXXXX)
chmod 0755 "$victim"
mkdir "$victim/dir"
for f in file dir/a dir/b dir/c; do echo secret >"$victim/$f"; chmod 0600 "$victim/$f"; done
trap 'rm -rf "$victim"' EXIT
on_n1() { on_node n1 "$@"; }
victims_intact() {
	local f
	for f in file dir/a dir/b dir/c; do
		[ "$(stat -c '%U %a' "$victim/$f" 2>/dev/null)" = "root 600" ] || {
			diag "$victim/$f: $(stat -c '%U %a' "$victim/$f" 2>&1)"
			return 1
		}
	done
}

# 1. The old /tmp names, for the next job ids, kept re-created.
next=$(($(scontrol show config | sed -n 's/^NEXT_JOB_ID *= *//p')))
cat >"$PMIXEV_CLUSTER_WORKDIR/21-plant.sh" <<EOS
end=\$((SECONDS + 12))
while [ \$SECONDS -lt \$end ]; do
	for j in \$(seq $next $((next + 3))); do
		d=/tmp/pmixev.\$j.0.n1
		mkdir -p "\$d" 2>/dev/null
		for n in job ns pmix.n1.tool.1; do ln -sfn "$victim/file" "\$d/\$n" 2>/dev/null; done
	done
done
EOS
as_user bash "$PMIXEV_CLUSTER_WORKDIR/21-plant.sh" &
planter=$!
sleep 0.5
for _ in 1 2 3; do run_step --mpi=pmixev -N3 -n3 -t 1 -w n1,n2,n3 true; done
wait "$planter"
victims_intact
ok $? "planted /tmp/pmixev.JOB.0.n1 links to a root file: it is still root's, mode 0600"
rm -rf /tmp/pmixev.*.0.n1

# 2. The owner's directory at the step's end.
log=$PMIXEV_CLUSTER_WORKDIR/21-job.out
start_step "$log" n3 "overlay: connected" --mpi=pmixev -N3 -n3 -t 1 sleep 6
own=/run/pmixev/pmixev${PMIXEV_CLUSTER_ID:-0}.$job.0.n1
cat >"$PMIXEV_CLUSTER_WORKDIR/21-swap.sh" <<EOS
cd "$own" || exit 1
for t in . tmp ns; do
	ln -s "$victim/file" "\$t/link-file"
	ln -s "$victim/dir" "\$t/link-dir"
	ln "$victim/file" "\$t/hardlink" 2>/dev/null
done
mkdir -p d/sub && echo x >d/sub/f
end=\$((SECONDS + 10))
while [ \$SECONDS -lt \$end ] && [ -d "$own" ]; do
	mv d d.real 2>/dev/null; ln -sfn "$victim/dir" d 2>/dev/null
	rm -f d 2>/dev/null; mv d.real d 2>/dev/null
done
EOS
out=$(on_n1 runuser -u "$PMIXEV_TEST_USER" -- bash -c "ls -ld '$own' && ls '$own'" 2>&1)
echo "$out" | grep -q "^drwx------ .* $PMIXEV_TEST_USER "
ok $? "the owner's directory $own is the owner's, mode 0700 ($(echo "$out" | tr '\n' ' '))"
out=$(on_n1 runuser -u "$PMIXEV_OTHER_USER" -- bash -c "ls /run/pmixev; ls '$own'" 2>&1)
[ "$(echo "$out" | grep -c 'Permission denied')" -eq 2 ]
ok $? "another user can list neither /run/pmixev nor the owner's directory" ||
	diag "$out; $own: $(on_n1 stat -c '%U %a' "$own" 2>&1)"
on_n1 runuser -u "$PMIXEV_TEST_USER" -- bash "$PMIXEV_CLUSTER_WORKDIR/21-swap.sh" &
swapper=$!
wait "$srun_pid"
wait "$swapper"
victims_intact
ok $? "links, a hard link and a directory swapped for a link in the owner's directory: root's files are intact"
for _ in $(seq 50); do [ -e "$own" ] || break; sleep 0.1; done
[ ! -e "$own" ] && [ ! -e "$own.srv" ]
ok $? "the stepd removed the owner's directory and its own at the step's end"
[ -d "$victim/dir" ] && [ -f "$victim/dir/a" ]
ok $? "the victim directory reached through a link still has its files"

done_testing
