/*
 * base/agent.h - pmixev's own thread: one libevent loop that owns all overlay,
 * collective and request state, in slurmstepd and in srun.
 *
 * Other threads (the PMIx progress thread running our upcalls, Slurm's
 * threads) never touch that state: they hand work to the agent through
 * agent_post, the only channel into it. Work runs in posting order.
 */
#ifndef PMIXEV_BASE_AGENT_H_
#define PMIXEV_BASE_AGENT_H_

#include <event2/event.h>

struct agent;

typedef void (*agent_fn_t)(void *arg);

/* A stopped agent with its event base. NULL on failure (errno set). */
struct agent *agent_create(void);

/* Start the thread. 0, or -1 (errno set). */
int agent_start(struct agent *a);

/*
 * Run fn(arg) on the agent thread. Safe from any thread, never blocks on
 * the agent's work. Returns 0, or -1 when the agent is stopping or out of
 * memory (fn is then not run: the caller still owns arg).
 */
int agent_post(struct agent *a, agent_fn_t fn, void *arg);

/* Is the caller the agent thread? */
int agent_is_self(const struct agent *a);

/* The agent's event base (for events created on the agent thread). */
struct event_base *agent_base(struct agent *a);

/*
 * Stop the thread and join it; work already posted runs first, work posted
 * later is refused. The event base stays valid, so the owner can now free
 * its events on this thread. Idempotent. Not from the agent thread.
 */
void agent_stop(struct agent *a);

/*
 * agent_stop, after one more look at the descriptors: what peers sent
 * before the stop (and is ready to read) is handled, without waiting.
 */
void agent_stop_after_look(struct agent *a);

/* agent_stop, then free the agent and its event base. NULL-safe. */
void agent_destroy(struct agent *a);

#endif /* PMIXEV_BASE_AGENT_H_ */
