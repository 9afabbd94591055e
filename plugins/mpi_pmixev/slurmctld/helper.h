/*
 * slurmctld/helper.h - the step's owner helper: slurmctld requests made with
 * the job owner's identity, never root's.
 *
 * The helper is pmixev-owner (tools/pmixev-owner.c), started as the job
 * owner by slurmctld/helper_proc.c, which also says where it is looked
 * for. It is started with the first request and talks over a socketpair
 * watched by the agent's event loop. One request is in flight at a time;
 * its answer comes back through the callback on the agent thread. If the
 * helper dies, or gives no answer in 30 s (stuck in a Slurm call), the
 * request fails and the next one starts a new helper. A helper that never
 * answered (missing, not executable by the owner, dead at start) is logged
 * once per step with its path and the cause; its first answer after
 * failures is logged too.
 */
#ifndef PMIXEV_SLURMCTLD_HELPER_H_
#define PMIXEV_SLURMCTLD_HELPER_H_

#include "base/step.h"
#include "pmixev_helper_msg.h"

struct helper;

/* The answer to a request (NULL when the helper failed). */
typedef void (*helper_fn)(void *arg, const struct pmixev_owner_resp *resp);

/* For the step's owner, with the job's SLURM_CONF (s->slurm_conf). */
struct helper *helper_create(const struct step *s);

/*
 * Ask slurmctld (agent thread) for the job's state (PMIXEV_OWNER_JOB_STATE)
 * or its nodes' (PMIXEV_OWNER_NODE_STATE). 0, or -1 when a request is
 * already in flight or the helper cannot be started (logged).
 */
int helper_request(struct helper *o, enum pmixev_owner_op op, helper_fn fn,
		   void *arg);

/* Slurm sent the step signal `signo` (the helper got it). */
typedef void (*helper_signal_fn)(void *arg, uint32_t signo);

/* Call `fn` for every signal the helper reports (agent thread). */
void helper_on_signal(struct helper *o, helper_signal_fn fn, void *arg);

/* Close the channel (the helper exits) and reap it. */
void helper_destroy(struct helper *o);

#endif /* PMIXEV_SLURMCTLD_HELPER_H_ */
