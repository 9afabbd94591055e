#!/usr/bin/env bash
# What root takes from the owner helper (pmixev-owner, which runs as the
# job owner): its configuration comes from slurmstepd, never from the job,
# and what it says is the owner's word. A job that sets SLURM_CONF to a
# slurm.conf of its own, whose PluginDir holds a shim auth_munge.so, and
# PMIXEV_OWNER_HELPER to a program of its own, still gets the installed
# helper with the cluster's slurm.conf, which loads nothing of the user's
# and answers. A note from the helper ("Slurm signalled the step"), which
# the owner can make it send at will by signalling it, makes the stepd
# look at the job sooner and nothing else: no job event reaches the ranks.
. "$(dirname "$0")/lib.sh"
plan 6

w=$PMIXEV_CLUSTER_WORKDIR
plugdir=$w/37-plugins
marks=$w/37-marks
rm -rf "$plugdir" "$marks"
mkdir -p "$plugdir" "$marks"
chmod 0777 "$marks"
# The shim leaves a mark (its process's name and pid) when it is loaded.
cat >"$w/37-shim.c" <<SHIM
#include <stdio.h>
#include <unistd.h>
__attribute__((constructor)) static void mark(void)
{
	char path[512], comm[64] = "?";
	FILE *f = fopen("/proc/self/comm", "r");

	if (f) {
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = '\0';
		fclose(f);
	}
	for (char *c = comm; *c; c++)
		if (*c == '\n' || *c == '/')
			*c = '\0';
	snprintf(path, sizeof(path), "$marks/%s.%d", comm, (int)getpid());
	if ((f = fopen(path, "w")))
		fclose(f);
}
SHIM
# It passes everything on to the real plugin (which it needs), so srun,
# which reads the same slurm.conf, works with it.
real=$(sed -n 's/^PluginDir=//p' "$SLURM_CONF" | tr ':' '\n' |
	while read -r d; do [ -f "$d/auth_munge.so" ] && echo "$d" && break; done)
gcc -shared -fPIC -o "$plugdir/auth_munge.so" "$w/37-shim.c" \
	-Wl,--no-as-needed,-rpath,"$real" "$real/auth_munge.so"
sed "s|^PluginDir=|PluginDir=$plugdir:|" "$SLURM_CONF" >"$w/37-slurm.conf"
printf '#!/bin/sh\ntouch %s/fake-helper.$$\nexec sleep 60\n' "$marks" >"$w/37-helper"
chmod 0755 "$w/37-helper" "$w/37-slurm.conf"
chown -R "$PMIXEV_TEST_USER" "$plugdir" "$w/37-shim.c" "$w/37-helper" "$w/37-slurm.conf"

# helper_of JOB: pid of the owner helper of JOB's step 0 (on n1).
helper_of() {
	local p
	for p in $(ip netns pids "${PMIXEV_CLUSTER_NETNS_PREFIX}n1"); do
		[ "$(stat -c %u "/proc/$p" 2>/dev/null)" = "$(id -u "$PMIXEV_TEST_USER")" ] &&
			[ "$(cat "/proc/$p/comm" 2>/dev/null)" = pmixev-owner ] && echo "$p"
	done | head -n1
}

# srun runs with them, so the job's environment has them.
log=$w/37-conf.out
step_env=(SLURM_CONF="$w/37-slurm.conf" PMIXEV_OWNER_HELPER="$w/37-helper")
start_step "$log" n1 "serving " --mpi=pmixev -N1 -n1 -w n1 --pmixev-watch-interval=1 sleep 6
step_env=()
for _ in $(seq 50); do hp=$(helper_of) && [ -n "$hp" ] && break; sleep 0.1; done
env_conf=$(tr '\0' '\n' <"/proc/$hp/environ" 2>/dev/null | sed -n 's/^SLURM_CONF=//p')
exe=$(readlink "/proc/$hp/exe")
# The same program, whatever root the reader sees it from (in a Debian
# root the link names the host's path): compared byte for byte while the
# helper runs.
cmp -s "/proc/$hp/exe" "$PMIXEV_CLUSTER_PROGRAMS/pmixev-owner" && same_exe=1 || same_exe=0
maps=$(cat "/proc/$hp/maps" 2>/dev/null)
wait "$srun_pid"
slog=$(grep "step $job\.0 on n1: " "$(slurmd_log n1)")

[ -n "$hp" ] && [ "$env_conf" = "$SLURM_CONF" ]
ok $? "the helper (pid ${hp:-none}) has slurmstepd's SLURM_CONF ($env_conf), not the job's" ||
	printf '%s\n' "$slog" | tail -n 5 | sed 's/^/#   /' >&2
grep -q "srun\." <(ls "$marks") && ! ls "$marks" | grep -q "^pmixev-owner\." &&
	! printf '%s\n' "$maps" | grep -q "$plugdir"
ok $? "the shim was loaded by srun only, never by the helper (marks: $(ls "$marks" | tr '\n' ' '))"
# ... and the job's program never ran.
[ "$same_exe" = 1 ] && ! ls "$marks" | grep -q "^fake-helper\."
ok $? "the installed helper runs ($exe), not the job's PMIXEV_OWNER_HELPER"
! printf '%s\n' "$slog" | grep -Eq "owner helper .*cannot start|no answer from slurmctld|malformed" &&
	printf '%s\n' "$slog" | grep -Eq "watcher: [1-9][0-9]* request\(s\) to slurmctld"
ok $? "the helper answers with the cluster's slurm.conf" || printf '%s\n' "$slog" | sed 's/^/#   /' >&2

# The owner signals its own helper: the note it sends is a hint to look.
log=$w/37-note.out
step_env=(SLURM_PMIXEV_WATCH_INTERVAL=30)
start_step "$log" n3 "overlay: connected" --mpi=pmixev -N3 -n3 -t 10 "$(client pmix_jobev)" 8
step_env=()
wait_ready pmix_jobev 3
hp=$(helper_of)
as_user kill -TERM "$hp"
as_user kill -CONT "$hp"
wait "$srun_pid"
slog=$(grep "step $job\.0 on n1: " "$(slurmd_log n1)")
printf '%s\n' "$slog" | grep -Eq "watcher: the owner helper says the step got signal (15|18) \(the owner's word\): looking at the job"
ok $? "the stepd took the helper's note (signal from the owner) as a hint to look at the job" ||
	printf '%s\n' "$slog" | sed 's/^/#   /' >&2
[ "$(grep -c '^pmix_jobev: rank [0-2]: done$' "$log")" -eq 3 ] &&
	! grep -Eq '^pmix_jobev: rank [0-2] on n[1-3]: ' "$log"
ok $? "no job event reached the ranks, and they ran to their end" || sed 's/^/#   /' "$log" >&2

done_testing
