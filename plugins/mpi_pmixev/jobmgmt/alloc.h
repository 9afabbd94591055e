/*
 * jobmgmt/alloc.h - PMIx_Allocation_request: root's half (the pmix side's,
 * which reads the request and answers PMIx, is pmixside/alloc_pmix.h;
 * doc/spawn.md §7). An ALLOC frame, checked by its validating unpack, is
 * carried out on the agent thread through this node's owner helper, as
 * the job owner (ownerhelper/helper.h); slurmctld decides. One ALLOC_DONE
 * answers it.
 *
 *   NEW      a new job for the owner (PMIXEV_OWNER_ALLOC_NEW), looked at
 *            at most once a second until it runs (answered with its id,
 *            nodes and time) or the request's timeout (PMIX_TIMEOUT, else
 *            PMIxevTimeout) passes: then it is cancelled and the answer is
 *            PMIX_ERR_TIMEOUT with Slurm's reason for the wait. Refused by
 *            Slurm: PMIX_ERR_JOB_ALLOC_FAILED with Slurm's text.
 *   RELEASE  nodes of the own job, or of the job PMIX_ALLOC_ID names, given
 *            back (PMIXEV_OWNER_SHRINK: the nodes named, or as many as
 *            asked, this step's nodes last); PMIX_ALLOC_ID alone, another
 *            job: that job cancelled. Slurm's refusal (another user's job,
 *            the batch host) with its text.
 *   EXTEND   PMIX_ERR_NOT_SUPPORTED: Slurm lets only operators extend a
 *            running job.
 *   REAQUIRE PMIX_ERR_NOT_SUPPORTED: Slurm cannot lend resources.
 *   CANCEL   (5.x PMIX_ALLOC_REQ_CANCEL) the NEW requests of this node with
 *            that PMIX_ALLOC_REQ_ID end with PMIX_ERR_JOB_CANCELED, their
 *            jobs cancelled. PMIx_Job_control's PMIX_JOB_CTRL_CANCEL with
 *            that id does the same on every node of the step
 *            (jobmgmt/ckpt_cancel.h).
 * At most PMIXEV_PMIXD_BUDGET_ALLOC requests in flight per node. The jobs
 * granted are cancelled when the step's tasks on this node have ended
 * (their lifetime is the requesting step's) unless 5.x's
 * PMIX_ALLOC_CHILD_SEP was given. Named nodes of the own job released:
 * PMIX_EVENT_NODE_OFFLINE to the step first, 2 s before the shrink. Agent
 * thread; no PMIx here.
 */
#ifndef PMIXEV_JOBMGMT_ALLOC_H_
#define PMIXEV_JOBMGMT_ALLOC_H_

struct step;
struct allocs;

/* Carries out ALLOC frames on the step's channel. NULL: out of memory. */
struct allocs *allocs_create(struct step *s);

/* End this node's NEW requests whose PMIX_ALLOC_REQ_ID is `reqid`
 * (PMIX_ERR_JOB_CANCELED, their jobs cancelled); how many. */
unsigned allocs_cancel_local(struct allocs *al, const char *reqid);

/* The step's tasks here ended: cancel the jobs its requests got. */
void allocs_step_ended(struct allocs *al);

void allocs_destroy(struct allocs *al);

#endif /* PMIXEV_JOBMGMT_ALLOC_H_ */
