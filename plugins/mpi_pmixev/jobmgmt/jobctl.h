/*
 * jobmgmt/jobctl.h - PMIx_Job_control: root's half (the pmix side's, which
 * reads the request and answers PMIx, is pmixside/jobctl_pmix.h). A JOBCTL
 * frame, checked by its validating unpack (known action, signals 1..64,
 * ranks of the step, at most PMIXEV_PMIXD_TARGETS_MAX targets), is carried
 * out on the agent thread: slurmctld carries it out, as the job owner,
 * through the node's owner helper (ownerhelper/helper.h); the stepds
 * signal the own step's tasks. One JOBCTL_DONE answers for all targets:
 * a PMIx status (pmix_common.h's constants) and, when it failed, why.
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
 *   PMIX_JOB_CTRL_CANCEL (string)  the checkpoints in progress in the step
 *                               whose PMIX_JOB_CTRL_ID it names end with
 *                               PMIX_ERR_JOB_CANCELED (jobmgmt/ckpt_cancel.h)
 * Targets (none: the requester's step): a whole step, as a namespace
 * ("slurm.pmixev.J.S", stock's "slurm.pmix.J.S") with PMIX_RANK_WILDCARD,
 * of this job or another, or a whole job, as the namespace "J": through
 * slurmctld. Single ranks of the own step, and the own step's tasks for
 * PAUSE/RESUME: signalled by the stepds where they run (jobmgmt/tasksig.h;
 * SIGNAL, TERMINATE = SIGTERM, KILL = SIGKILL). Single ranks and
 * CHECKPOINT of other steps, and PROVISION are refused with
 * PMIX_ERR_NOT_SUPPORTED (the pmix side refuses them). The library
 * handles the cleanup directives itself, as the job owner (pmixev-pmixd).
 *
 * slurmctld decides, as for the owner: another user's job is refused
 * (PMIX_ERR_NO_PERMISSIONS), a job that is gone is PMIX_ERR_NOT_FOUND.
 * The answer's reason names each failed target with Slurm's reason;
 * PMIX_TIMEOUT bounds the wait (PMIX_ERR_TIMEOUT). A frame that asks what
 * the pmix side never would (tasks of another step, a checkpoint of a
 * whole step or job, a cancel with targets) is refused with
 * PMIX_ERR_BAD_PARAM. Agent thread; no PMIx here.
 */
#ifndef PMIXEV_PMIX_JOBCTL_H_
#define PMIXEV_PMIX_JOBCTL_H_

struct step;
struct jobctl;

/* Carries out JOBCTL frames on the step's channel. NULL: out of memory. */
struct jobctl *jobctl_create(struct step *s);
void jobctl_destroy(struct jobctl *jc);

#endif /* PMIXEV_PMIX_JOBCTL_H_ */
