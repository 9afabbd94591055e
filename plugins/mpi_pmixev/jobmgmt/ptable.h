/*
 * jobmgmt/ptable.h - the step's process table: each node knows its own tasks
 * (pid from slurmstepd's fork through the SPANK plugin, exit status from
 * the task-exit feed, name and resident memory from /proc while the process
 * belongs to the job's user); a table of the whole step is gathered from
 * every node over the overlay (common/pmixev_ptable.h). For
 * PMIX_QUERY_PROC_TABLE, PMIX_QUERY_LOCAL_PROC_TABLE and
 * PMIX_QUERY_MEMORY_USAGE (jobmgmt/query.c). Agent thread only.
 */
#ifndef PMIXEV_PMIX_PTABLE_H_
#define PMIXEV_PMIX_PTABLE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmixev_ptable.h"

struct step;
struct ptable;

struct ptable *ptable_create(struct step *s);
void ptable_destroy(struct ptable *pt);

/* slurmstepd forked local task `rank` as `pid`; it exited with `status`. */
void ptable_started(struct ptable *pt, uint32_t rank, int32_t pid);
void ptable_exited(struct ptable *pt, uint32_t rank, int status);

/* The pid slurmstepd forked local task `rank` as, while it runs; else 0. */
uint32_t ptable_pid(const struct ptable *pt, uint32_t rank);

/*
 * For pmixd_proc_watch (`pt` the table): end the stopped PMIx server
 * process unless this node's part of the step is stopped with it: some
 * local task runs and every one that runs is stopped (Slurm's suspend
 * stops them all, and the resume continues them). Each task is
 * slurmstepd's child: asked with waitid, the stop left for other waiters.
 */
bool ptable_stop_ends(void *pt);

/*
 * In `ms`, SIGKILL to every local task that still runs then (through
 * jobmgmt/taskproc.h: only to slurmstepd's own child). Meanwhile a task
 * may end by itself, with its own status and last lines, and root's lines
 * reach srun before srun ends the step at a killed task.
 */
void ptable_kill_running(struct ptable *pt, unsigned ms);

/*
 * The table: `e` (n entries, sorted by rank) and whether every node
 * answered (`complete`); `e` is valid during the call only.
 */
typedef void (*ptable_fn)(void *arg, const struct pmixev_ptable_entry *e,
			  size_t n, bool complete);

/* This node's tasks only (`local`), at once, or the step's, when every
 * node answered or was lost (base/pending.h: incomplete, without its
 * tasks), or `timeout_sec` (0: 10 s) passed. At most 64 gathers are in
 * flight; more get no entries at once (counted, logged once). */
void ptable_get(struct ptable *pt, bool local, unsigned timeout_sec,
		ptable_fn fn, void *arg);

#endif /* PMIXEV_PMIX_PTABLE_H_ */
