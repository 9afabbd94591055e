/*
 * stepd/gone.h - root's answer when this node's PMIx server process ends:
 * the line for the user (srun hears it before the tasks' exits), the
 * tasks left without a server, and everything that waited on it.
 */
#ifndef PMIXEV_STEPD_GONE_H_
#define PMIXEV_STEPD_GONE_H_

#include <stdatomic.h>
#include <stdbool.h>

#include "base/step.h"

struct gone {
	atomic_bool said; /* the end was handled, its line on its way */
};

/*
 * Agent thread: the channel to the process closed for `why`. `early`:
 * tasks here still need it (else its end is the step's, a debug line).
 * Fails the collectives, direct-modex requests and clients that wait on
 * it; kills the node's tasks still running TASK_KILL_MS later.
 */
void gone_handle(struct gone *g, struct step *s, const char *why, bool early);

/*
 * Slurm's task-exit thread: when the process is gone, wait (at most
 * 0.1 s) until its line has left for srun, so that srun prints it before
 * it learns of the exit and ends.
 */
void gone_wait_said(struct gone *g, struct step *s);

#endif /* PMIXEV_STEPD_GONE_H_ */
