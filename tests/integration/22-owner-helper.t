#!/usr/bin/env bash
# The owner helper cannot be lost silently: beside the plugin (as the
# harness stages a build) or where the package installed it, without
# PMIXEV_OWNER_HELPER, it is found; a
# helper that is missing, or that the job's user may not execute, is said
# once per step in the slurmd log and by srun, with its path, the cause
# and what is off, and the step itself runs on.
. "$(dirname "$0")/lib.sh"
plan 4

helper=$PMIXEV_CLUSTER_PROGRAMS/pmixev-owner
aside=$PMIXEV_CLUSTER_PROGRAMS/.pmixev-owner.aside
restore() { [ -e "$aside" ] && mv -f "$aside" "$helper"; chmod 0755 "$helper"; }
trap restore EXIT
uid=$(id -u "$PMIXEV_TEST_USER")

# helper_step NAME: a 1-node step that watches slurmctld every second for
# about 4 s; sets $job and $slog (its lines in n1's slurmd log).
helper_step() {
	step_env=(SLURM_PMIXEV_DEBUG=1)
	run_step --mpi=pmixev -N1 -n1 -w n1 --pmixev-watch-interval=1 sleep 4
	step_env=()
	slog=$(grep "step $job\.0 on n1: " "$(slurmd_log n1)")
}

helper_step
[ "$rc" -eq 0 ] && ! printf '%s\n' "$slog" | grep -q "owner helper .*cannot start" &&
	printf '%s\n' "$slog" | grep -q "owner helper $helper started as uid $uid"
ok $? "the helper is found ($helper), no configuration needed" ||
	printf '%s\n' "$slog" | sed 's/^/#   /' >&2

mv "$helper" "$aside"
helper_step
n=$(printf '%s\n' "$slog" | grep -c "owner helper [^ ]*/pmixev-owner cannot start: exec failed as uid $uid: No such file or directory (looked for it in: $PMIXEV_CLUSTER_PLUGINS/pmixev-owner, [^ ]*/pmixev-owner); scheduler events are off for this step until it starts")
[ "$rc" -eq 0 ] && [ "$n" -eq 1 ] &&
	[ "$(printf '%s\n' "$out" | grep -c "^srun: error: mpi/pmixev: .*node 0: owner helper [^ ]*/pmixev-owner cannot start: exec failed .*scheduler events are off for this step")" -eq 1 ]
ok $? "a missing helper: the step runs; said once ($n lines) with the path, the cause and what is off, in the slurmd log and by srun" ||
	printf '%s\n' "$slog" | sed 's/^/#   /' >&2
mv "$aside" "$helper"

chmod 0700 "$helper"
helper_step
n=$(printf '%s\n' "$slog" | grep -c "owner helper $helper cannot start: exec failed as uid $uid: Permission denied")
[ "$rc" -eq 0 ] && [ "$n" -eq 1 ]
ok $? "a helper the job's user may not execute: said once ($n lines), Permission denied" ||
	printf '%s\n' "$slog" | sed 's/^/#   /' >&2
chmod 0755 "$helper"

helper_step
printf '%s\n' "$slog" | grep -Eq "owner helper .* started as uid $uid" &&
	! printf '%s\n' "$slog" | grep -q "cannot start"
ok $? "put back, the next step's helper starts at once" ||
	printf '%s\n' "$slog" | sed 's/^/#   /' >&2

done_testing
