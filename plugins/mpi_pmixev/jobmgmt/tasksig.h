/*
 * jobmgmt/tasksig.h - signals to tasks of this step, wherever they run, for
 * PMIx_Job_control of single ranks and PAUSE/RESUME (jobmgmt/jobctl.h): the
 * node of each target signals its task processes itself (jobmgmt/taskproc.h:
 * only slurmstepd's own children, the owner's processes), asked over the
 * overlay (TASKSIG_REQ / _RESP). Slurm is not involved: it signals whole
 * steps only, and a stopped step's owner helper could not resume it.
 * Agent thread.
 */
#ifndef PMIXEV_PMIX_TASKSIG_H_
#define PMIXEV_PMIX_TASKSIG_H_

#include <stdint.h>

#define TASKSIG_ALL UINT32_MAX /* every task of the step */

struct step;
struct tasksig;

struct tasksig *tasksig_create(struct step *s);
void tasksig_destroy(struct tasksig *ts);

/* How a request went: tasks signalled, tasks not (gone, or on a node
 * that did not answer: ETIMEDOUT, or was lost or could not be asked:
 * EHOSTUNREACH), and the first failure's errno (0: none). */
typedef void (*tasksig_fn)(void *arg, unsigned done, unsigned failed, int err);

/* Signal `signo` to task `rank` (TASKSIG_ALL: every running task); `fn`
 * once every node asked answered or was lost (base/pending.h), or after
 * `timeout_sec` (0: 10 s). */
void tasksig_send(struct tasksig *ts, uint32_t rank, int signo,
		  unsigned timeout_sec, tasksig_fn fn, void *arg);

#endif /* PMIXEV_PMIX_TASKSIG_H_ */
