/*
 * ownerhelper/freezer.h - the cgroup in which proctrack/cgroup tracks the
 * step on a cgroup v1 host, so that the owner helper sits where Slurm
 * signals the step.
 *
 * proctrack/cgroup signals the processes of the step's freezer cgroup
 * (".../job_J/step_S") that are slurmstepd's children (SIGKILL: all of
 * them), freezes that cgroup to suspend the step, and puts slurmstepd
 * itself one level up (".../job_J"), so that it is never frozen. What
 * slurmstepd forks inherits that level: there Slurm neither signals it nor
 * freezes it. On cgroup v2 slurmstepd sits in ".../step_S/slurm", which
 * Slurm signals and does not freeze: its children get the signals already.
 * Under proctrack/linuxproc every descendant is signalled.
 */
#ifndef PMIXEV_OWNERHELPER_FREEZER_H_
#define PMIXEV_OWNERHELPER_FREEZER_H_

#include <stddef.h>
#include <stdint.h>

/*
 * The step's freezer cgroup, when this slurmstepd sits one level above it
 * (cgroup v1, proctrack/cgroup): its cgroup.procs opened for writing (root's
 * descriptor, close-on-exec), its directory in `path`. -1 when the step has
 * none (proctrack/linuxproc, cgroup v2: `path` says why, for a debug line),
 * -2 when it should and cannot be opened (`path` says why). Root, at
 * prefork: the
 * directory exists from proctrack's create on, and only root may write it.
 */
int freezer_open(uint32_t job_id, uint32_t step_id, char *path, size_t len);

/*
 * From the text of /proc/self/cgroup (`cgroup`) and of /proc/self/mountinfo
 * (`mounts`): the freezer hierarchy's directory of this process into `dir`.
 * 0, or -1 (no v1 freezer, or a line longer than `len`). For the unit test.
 */
int freezer_own_dir(const char *cgroup, const char *mounts, char *dir,
		    size_t len);

#endif /* PMIXEV_OWNERHELPER_FREEZER_H_ */
