/*
 * ownerhelper/helper.h - the step's owner helper: slurmctld requests made with
 * the job owner's identity, never root's.
 *
 * The helper is pmixev-owner (programs/pmixev-owner.c), started as the job
 * owner by ownerhelper/owner_proc.c, which also says where it is looked
 * for. Each node's stepd has one (s->helper): the tree's root for the
 * watcher and the step's Slurm queries (ownerhelper/jobinfo.h), every node
 * for the job control, logs and mail its tasks ask for. It is started with
 * the first request and talks over a socketpair
 * watched by the agent's event loop. One request is in flight at a time,
 * up to 64 more wait their turn in order; each answer comes back through
 * its callback on the agent thread. If the
 * helper dies, or gives no answer in 30 s (stuck in a Slurm call), the
 * request fails and the next one starts a new helper. A helper that never
 * answered (missing, not executable by the owner, dead at start) is logged
 * once per step with its path and the cause; its first answer after
 * failures is logged too.
 */
#ifndef PMIXEV_SLURMCTLD_HELPER_H_
#define PMIXEV_SLURMCTLD_HELPER_H_

#include <pmix_common.h>

#include "base/step.h"
#include "pmixev_helper_msg.h"
#include "ownerhelper/helper_write.h"

struct helper;

/* The answer to a request (NULL when the helper failed). */
typedef void (*helper_fn)(void *arg, const struct pmixev_owner_resp *resp);

/* For the step's owner, with slurmstepd's slurm.conf (never the job's). */
struct helper *helper_create(const struct step *s);

/*
 * Ask slurmctld (agent thread) for a job's state (PMIXEV_OWNER_JOB_STATE:
 * the step's job, whatever `job_id`; PMIXEV_OWNER_OTHER_JOB: job `job_id`,
 * 0 for the step's), the job's nodes' (PMIXEV_OWNER_NODE_STATE) or the
 * partitions' (PMIXEV_OWNER_PARTITIONS). 0: `fn` will be called once (with
 * NULL if the helper fails); -1 when the queue is full or the helper cannot
 * be started (logged).
 */
int helper_request(struct helper *o, enum pmixev_owner_op op, uint32_t job_id,
		   helper_fn fn, void *arg);

/*
 * Ask slurmctld, as the owner, to act on job `job_id` (and step `step_id`):
 * `action` with `signo` (common/pmixev_helper_msg.h). The answer's ctl
 * holds Slurm's verdict. Not carried out at all (ETIMEDOUT) if the helper
 * gets to it more than `timeout_sec` seconds from now (0: any time): a
 * caller told PMIX_ERR_TIMEOUT never sees it happen later. 0, or -1 as
 * for helper_request.
 */
int helper_control(struct helper *o, enum pmixev_control_action action,
		   uint32_t job_id, uint32_t step_id, uint32_t signo,
		   unsigned timeout_sec, helper_fn fn, void *arg);

/*
 * Send `mail` as the owner: the helper runs the site's mail command
 * (common/pmixev_helper_msg.h). The answer's ctl says whether it
 * succeeded, and why not. 0, or -1 as for helper_request.
 */
int helper_mail(struct helper *o, const struct pmixev_owner_mail *mail,
		helper_fn fn, void *arg);

/*
 * PMIx_Allocation_request's Slurm part, as the owner: `op`
 * PMIXEV_OWNER_ALLOC_NEW (a new job for `a`; the answer's new_job, or ctl
 * with Slurm's error) or PMIXEV_OWNER_SHRINK (job `job_id` gives back
 * what `a` names; ctl, whose reason names the nodes released when it
 * worked). 0, or -1 as for helper_request.
 */
int helper_alloc(struct helper *o, enum pmixev_owner_op op, uint32_t job_id,
		 const struct pmixev_owner_alloc *a, helper_fn fn, void *arg);

/*
 * `n` bytes of `p` into descriptor `fd` (a task's output, ours: the helper
 * gets a duplicate), written by the helper as the job owner within
 * `timeout_ms` (ownerhelper/helper_write.h), the helper started if need be: 0,
 * and `fn` is called once, later; or -1 with errno.
 */
int helper_write(struct helper *o, int fd, const char *p, size_t n,
		 unsigned timeout_ms, helper_write_fn fn, void *arg);

/* The helper says it got signal `signo`: Slurm's to the step, or the
 * owner's to the helper (it runs as the owner); a hint to look, no more. */
typedef void (*helper_signal_fn)(void *arg, uint32_t signo);

/* Call `fn` for every signal the helper reports (agent thread). */
void helper_on_signal(struct helper *o, helper_signal_fn fn, void *arg);

/*
 * Slurm's error number (0 for success) as the PMIx status pmixev answers
 * with - the one place they are converted: no such job (or already done)
 * PMIX_ERR_NOT_FOUND, refused to the owner PMIX_ERR_NO_PERMISSIONS, an
 * operation Slurm does not offer here PMIX_ERR_NOT_SUPPORTED, slurmctld
 * unreachable PMIX_ERR_UNREACH, nodes that are not the job's (or too many
 * of them) PMIX_ERR_BAD_PARAM, anything else PMIX_ERROR.
 */
pmix_status_t helper_pmix_status(int32_t slurm_rc);

/*
 * Agent thread: every task here ended. Slurm's process tracking now kills
 * what is left in the step's cgroup and waits until it is empty; a helper
 * started from now on (the watcher still serves the other nodes) stays
 * out of it, or the step could not end here; a start that fails from now
 * on (killed as the step ends) is no news for the user: logged at debug
 * level only.
 */
void helper_tasks_ended(struct helper *o);

/* Close the channel (the helper exits) and reap it. */
void helper_destroy(struct helper *o);

#endif /* PMIXEV_SLURMCTLD_HELPER_H_ */
