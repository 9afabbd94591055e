/*
 * jobmgmt/jobctl.h - PMIx_Job_control: the upcall reads the action and the
 * targets (PMIx progress thread); the agent thread has slurmctld carry it
 * out, as the job owner, through the node's owner helper
 * (ownerhelper/helper.h), and answers once for all targets.
 *
 * Actions (exactly one per request):
 *   PMIX_JOB_CTRL_SIGNAL (int)  the signal to every task of the target
 *   PMIX_JOB_CTRL_TERMINATE     a step ends (SIGTERM, then Slurm's
 *                               KillWait); a job's steps get SIGTERM
 *   PMIX_JOB_CTRL_KILL          a step ends (SIGKILL); a job is cancelled
 *   PMIX_JOB_CTRL_RESTART       the target's job is requeued (batch jobs,
 *                               where Slurm allows the owner)
 *   PMIX_JOB_CTRL_PAUSE/RESUME  SIGSTOP / SIGCONT to the own step's tasks
 *                               (by the stepds), to another step or job
 *                               (through Slurm)
 *   PMIX_JOB_CTRL_PREEMPTIBLE (bool)  the target's job is marked (or not)
 *                               in its comment (pmixev_preempt.h)
 *   PMIX_JOB_CTRL_CHECKPOINT (string id)  the own step's target ranks are
 *                               asked to checkpoint (by event, or by
 *                               PMIX_JOB_CTRL_CHECKPOINT_SIGNAL; also read
 *                               inside PMIX_JOB_CTRL_CHECKPOINT_METHOD) and
 *                               answered when all completed (jobmgmt/ckpt.h)
 *   PMIX_JOB_CTRL_CANCEL (string)  the checkpoints in progress on this node
 *                               whose PMIX_JOB_CTRL_ID it names end with
 *                               PMIX_ERR_JOB_CANCELED
 * Targets (none: the requester's step): a whole step, as a namespace
 * ("slurm.pmixev.J.S", stock's "slurm.pmix.J.S") with PMIX_RANK_WILDCARD,
 * of this job or another, or a whole job, as the namespace "J": through
 * slurmctld. Single ranks of the own step, and the own step's tasks for
 * PAUSE/RESUME: signalled by the stepds where they run (jobmgmt/tasksig.h;
 * SIGNAL, TERMINATE = SIGTERM, KILL = SIGKILL). Single ranks and
 * CHECKPOINT of other steps, and PROVISION are refused with
 * PMIX_ERR_NOT_SUPPORTED. The library
 * handles the cleanup directives itself (pmixbase/confine.h).
 *
 * slurmctld decides, as for the owner: another user's job is refused
 * (PMIX_ERR_NO_PERMISSIONS), a job that is gone is PMIX_ERR_NOT_FOUND.
 * The answer carries PMIXEV_JCTRL_REASON (string) with Slurm's reason
 * when a target failed; PMIX_TIMEOUT bounds the wait (PMIX_ERR_TIMEOUT).
 */
#ifndef PMIXEV_PMIX_JOBCTL_H_
#define PMIXEV_PMIX_JOBCTL_H_

#include <pmix_server.h>

struct step;
struct jobctl;

struct jobctl *jobctl_create(struct step *s);
void jobctl_destroy(struct jobctl *jc);

pmix_status_t jobctl_upcall(const pmix_proc_t *requestor,
			    const pmix_proc_t targets[], size_t ntargets,
			    const pmix_info_t directives[], size_t ndirs,
			    pmix_info_cbfunc_t cbfunc, void *cbdata);

#endif /* PMIXEV_PMIX_JOBCTL_H_ */
