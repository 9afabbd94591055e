/*
 * pmixd/proc.h - the step's PMIx server process (pmixev-pmixd) from root's
 * side, in owner mode (PMIxevServer=owner; doc/pmix-server-as-owner.md
 * §3e): its directory in PMIXEV_RUN_DIR (made by root, then the owner's),
 * the gate's doors made in the host's network, the process started as the
 * job owner in a network of its own, without new privileges, killed when
 * slurmstepd's main thread ends (ownerhelper/owner_proc.h), START and
 * READY on the channel before root's agent takes it, each local task's
 * PMIx environment from READY (only PMIX_* variables reach a task), its log
 * lines (logpipe.h), whether it is stopped (the job's user may SIGSTOP
 * it: root ends it then, see pmixd_proc_watch), and why it ended.
 *
 * Root decodes READY with its validating unpack and the step's bounds;
 * nothing else the process sends is read here.
 */
#ifndef PMIXEV_PMIXD_PROC_H_
#define PMIXEV_PMIXD_PROC_H_

#include <stdint.h>

#include "base/step.h"

struct pmixd_proc;

/* For step `s` (its agent reaps, and reads the log lines): the program
 * found. NULL when out of memory. */
struct pmixd_proc *pmixd_proc_create(struct step *s);

/*
 * Slurmstepd's main thread, at prefork: start the process and wait (at
 * most min(PMIxevTimeout, 30 s)) for READY. 0, and root's end of the
 * channel in *chan_fd (for chan_create); or -1 with the cause in `why`.
 */
int pmixd_proc_start(struct pmixd_proc *p, uint32_t bind_type,
		     const char *bind_list, int *chan_fd, char *why,
		     size_t len);

/*
 * Task `rank`'s PMIx variables ("NAME=value", NULL-terminated, valid until
 * the next call), in the forked task. 0, or -1 (not a local rank, or no
 * memory).
 */
int pmixd_proc_task_vars(struct pmixd_proc *p, uint32_t rank, char ***vars);

/*
 * Slurmstepd's thread, after FINI was posted: wait for the process to end
 * (2 s at most; it finalizes the library and sums up).
 */
void pmixd_proc_wait_end(struct pmixd_proc *p);

/*
 * Should a stopped process be ended? False when the node's part of the
 * step is stopped as a whole (Slurm's suspend stops every task and the
 * process with them). Agent thread.
 */
typedef bool (*pmixd_stop_fn)(void *ctx);

/*
 * Main thread, after pmixd_proc_start and before the agent runs: look
 * every 250 ms whether the process is stopped (SIGSTOP, SIGTSTP, ...);
 * found stopped on two looks in a row and `ends(ctx)` true, it is logged
 * and killed, and the channel's close does the rest (the step's
 * collectives fail at once, srun is told). 0, or -1 (no memory).
 */
int pmixd_proc_watch(struct pmixd_proc *p, pmixd_stop_fn ends, void *ctx);

/* Agent thread: the channel closed; why the process ended (and that root
 * killed it because it was stopped), into `why`. */
void pmixd_proc_ended(struct pmixd_proc *p, char *why, size_t len);

/*
 * Main thread, at fini, the agents stopped: give the process a moment to
 * end after FINI (1 s at most), kill it otherwise, remove its directory,
 * free. NULL-safe.
 */
void pmixd_proc_destroy(struct pmixd_proc *p);

#endif /* PMIXEV_PMIXD_PROC_H_ */
