#!/usr/bin/env bash
# PMIx_Job_control's cleanup directives (PMIX_REGISTER_CLEANUP, _DIR,
# PMIX_CLEANUP_RECURSIVE) are carried out by OpenPMIx itself inside
# slurmstepd (root) when the client or the namespace goes away; a
# cleanup-only request never reaches pmixev. OpenPMIx 4.2 checks the
# file's owner first, by path (a race); 5.0.2 and later check nothing
# (shared/notes/job-management-facts.md). A task of the job's user asks
# for the removal of a root-owned file, a symlink to one, a directory that
# holds one, and a directory it swaps for a symlink to root's directory
# after the registration; and the removal of a file and a directory of its
# own. pmixev serves job control, so the library accepts every request and
# carries them out; it does so on threads that pmixev gives the job
# owner's file identity (pmixbase/confine.h): root's files must all survive,
# the task's own must go.
. "$(dirname "$0")/lib.sh"
plan 3

victim=$(mktemp -d /var/tmp/pmixev-cleanup-victim.XXXXXX)
chmod 0755 "$victim"
mkdir "$victim/dir"
for f in file dir/a; do echo secret >"$victim/$f"; chmod 0644 "$victim/$f"; done
trap 'rm -rf "$victim"' EXIT
work=$PMIXEV_CLUSTER_WORKDIR/24-cleanup
rm -rf "$work"
as_user mkdir -p "$work/holder" "$work/swap" "$work/minedir/sub"
as_user touch "$work/mine" "$work/minedir/sub/f"
as_user ln -s "$victim/file" "$work/link"
as_user ln -s "$victim/file" "$work/holder/link"
as_user ln -s "$victim/dir" "$work/holder/dirlink"

run_step --mpi=pmixev -N1 -n1 -t 1 -w n1 "$(client pmix_cleanup)" \
	file "$victim/file" file "$work/link" dir "$work/holder" \
	dir "$victim/dir" swap "$work/swap" "$victim/dir" \
	file "$work/mine" dir "$work/minedir"
sleep 1 # the stepd's end of step, after srun returned
[ "$rc" -eq 0 ] && [ "$(lines '^pmix_cleanup: done$')" -eq 1 ] &&
	[ "$(lines '^pmix_cleanup: swapped .* for a link to ')" -eq 1 ]
ok $? "a task registered seven cleanups as its user, swapped a directory for a link to root's, and finished" || show

intact=0
for f in file dir/a; do
	[ "$(stat -c '%U %a' "$victim/$f" 2>/dev/null)" = "root 644" ] &&
		intact=$((intact + 1))
done
[ "$intact" -eq 2 ] && [ -d "$victim/dir" ]
ok $? "root's file, directory and the file in it are all still there ($intact of 2 files)" ||
	ls -lR "$victim" | sed 's/^/#   /' >&2

accepted=$(lines '^pmix_cleanup: register .*: (SUCCESS|PMIX_SUCCESS|OPERATION-SUCCEEDED|PMIX_OPERATION_SUCCEEDED)$')
[ "$accepted" -eq 7 ] && [ ! -e "$work/mine" ] && [ ! -e "$work/minedir" ]
ok $? "all seven requests were accepted ($accepted of 7) and carried out where the task's user may: its own file and directory are gone" ||
	{
		show
		ls -la "$work" | sed 's/^/#   /' >&2
	}

done_testing
