/*
 * srun/hub_up.h - a spawned step's srun and its parent srun (doc/spawn.md
 * §2.1 step 4, §3): the socketpair end the parent left in
 * PMIXEV_SPAWN_FD, checked to be a Unix socket whose peer is this
 * process's parent and of this uid; HUB_HELLO on it; then, when every
 * node of this step said its ranks registered (NODE_READY from its stepd)
 * or one said they cannot, the step's READY (an XSTEP to the parent
 * step's root); then its ranks' ends (XSTEP EVENTs of its stepds). PUBSUB
 * requests go up this link and answers come down it (srun_step.c routes
 * them by their header, doc/spawn.md §5.3). The variable
 * is kept out of the tasks' environment. On the rendezvous' agent thread after
 * hub_up_create.
 */
#ifndef PMIXEV_SRUN_HUB_UP_H_
#define PMIXEV_SRUN_HUB_UP_H_

#include <stddef.h>
#include <stdint.h>

#include <event2/event.h>

struct hub_up;

/*
 * The link of step (job, step) of `nnodes` nodes, or NULL: `*err` is ""
 * when this srun was not spawned by pmixev, else why the link is refused
 * (the step must not start). `env` is the tasks' environment (a Slurm env
 * array).
 */
struct hub_up *hub_up_create(uint32_t job, uint32_t step, uint32_t nnodes,
			     char ***env, char *err, size_t errlen);

/* Start serving it on `base` and say hello. 0, or -1 (logged). */
int hub_up_start(struct hub_up *h, struct event_base *base);

/* A NODE_READY payload from node `node`. 0, or -1 if malformed. */
int hub_up_node_ready(struct hub_up *h, uint32_t node, const uint8_t *data,
		      size_t len);

/* An XSTEP payload from node `node`: one of its ranks' ends, or the
 * tree root's (node 0's) layout of this step, once, for the parent step,
 * passed up. 0, or -1 if it is not that. */
int hub_up_xstep(struct hub_up *h, uint32_t node, const uint8_t *data,
		 size_t len);

/* An XSTEP payload from the parent srun, for the caller to route. */
typedef void (*hub_up_xstep_fn)(void *ctx, const uint8_t *data, size_t len);

/* Route the parent srun's XSTEP frames to `fn` (before hub_up_start). */
void hub_up_on_xstep(struct hub_up *h, hub_up_xstep_fn fn, void *ctx);

/* Pass an XSTEP payload (one the family routes) to the parent srun. 0,
 * or -1 (logged) when the link is gone. */
int hub_up_pass(struct hub_up *h, const uint8_t *data, size_t len);

/* Node `node`'s stepd left before it said so. */
void hub_up_node_gone(struct hub_up *h, uint32_t node);

/* NULL-safe; the agent thread stopped first. */
void hub_up_destroy(struct hub_up *h);

#endif /* PMIXEV_SRUN_HUB_UP_H_ */
