/*
 * ownerhelper/helper_proc.h - the owner helper as a process: where its
 * program is, starting it as the job owner, why it ended, and reaping it.
 *
 * The program is, in this order: PMIXEV_OWNER_HELPER in slurmstepd's
 * environment; `pmixev-owner` beside the loaded mpi_pmixev.so (a site that
 * stages the plugins into its PluginDir puts it there); pmixev's libexec
 * directory (PMIXEV_OWNER_HELPER_PATH, fixed by configure).
 *
 * The child drops root for good between fork and exec: the owner's
 * groups, gid and uid, checked that root cannot be regained; it holds
 * nothing of slurmstepd's (stdio on /dev/null, every other descriptor
 * closed) and starts with the step's signals ignored, so that a signal Slurm
 * sends the step while the program loads does not kill it. What failed
 * before exec (the call and its errno) comes back over a close-on-exec
 * pipe. A helper is stopped with SIGKILL and reaped from the event loop,
 * never waited for. Agent thread.
 */
#ifndef PMIXEV_SLURMCTLD_HELPER_PROC_H_
#define PMIXEV_SLURMCTLD_HELPER_PROC_H_

#include <stddef.h>

#include "base/step.h"

struct helper_proc;

/* For the step's owner, with slurmstepd's slurm.conf (s->slurm_conf).
 * NULL when out of memory. */
struct helper_proc *helper_proc_create(const struct step *s);

/* The program started, and the places looked at for it ("A, B, C"). */
const char *helper_proc_path(const struct helper_proc *p);
const char *helper_proc_looked(const struct helper_proc *p);

/*
 * Start the helper: our end of its SOCK_SEQPACKET channel (and in *wfd
 * of its writer's, owner_write.h), or -1 with the cause in `why`. One
 * helper at a time.
 */
int helper_proc_start(struct helper_proc *p, int *wfd, char *why, size_t len);

/*
 * Its channel closed: why the helper ended (the call that failed before
 * exec, its exit status or signal, or "it closed its channel"), and how
 * long after its start, into `why`. Then stopped and reaped.
 */
void helper_proc_ended(struct helper_proc *p, char *why, size_t len);

/* Stop the running helper, if any (SIGKILL), and reap it later. */
void helper_proc_stop(struct helper_proc *p);

/* Stop it; give the killed a moment (0.2 s at most) to be reaped. */
void helper_proc_destroy(struct helper_proc *p);

#endif /* PMIXEV_SLURMCTLD_HELPER_PROC_H_ */
