/*
 * base/step.h - the one step a process serves: its settings, its layout
 * and every part that serves it. In slurmstepd (root), stepd/stepd.c fills
 * the root parts at prefork (in the order listed) and empties them at
 * fini; in the PMIx server process (pmixev-pmixd, the job owner),
 * pmixside/pmixd.c fills the pmix side's (pside, gate, pmix_uri) and
 * leaves the rest NULL. Each part is created with a pointer to it and finds
 * the parts it works with there.
 *
 * PMIx calls its upcalls without a host context, so they reach the step
 * through step_served(): set before PMIx_server_init, cleared after
 * PMIx_server_finalize, read-only in between (the PMIx server process).
 *
 * Node loss: a part holding state about other nodes subscribes with
 * step_on_node_gone; the overlay reports each gone node once to
 * step_node_gone, which calls every subscriber (agent thread).
 *
 * Rank ends: a part that follows the step's ranks subscribes with
 * step_on_rank_gone; events/events.c reports each rank that ended, once,
 * to step_rank_gone (agent thread): whether it exited here, elsewhere (a
 * peer's event) or was lost with its node.
 */
#ifndef PMIXEV_BASE_STEP_H_
#define PMIXEV_BASE_STEP_H_

#include <stdbool.h>
#include <stdint.h>

#include "base/layout.h"
#include "pmixev_conf.h"
#include "pmixev_pmixd_budget.h"
#include "pmixev_pmixd_msg.h"

#define STEP_MAX_SUBSCRIBERS 16

/*
 * Node `node` left the step's tree: `lost` when it failed (the step goes
 * on without it), not when its part of the step ended normally.
 */
typedef void (*step_gone_fn)(void *ctx, uint32_t node, bool lost);

/* Rank `rank` of the step ended (any way: exit, signal, abort, lost). */
typedef void (*step_rank_fn)(void *ctx, uint32_t rank);

struct step {
	struct pmixev_conf conf;
	struct layout lay;
	struct agent *agent; /* pmixev's thread (base/agent.h) */
	/* Root: the PMIx server process (pmixd/proc.h) and root's end of the
	 * channel to it, on `agent`, whose frames root checks against
	 * `pmixd_lim`, and whose requests it carries within `pmixd_budget`. */
	struct pmixd_proc *pmixd;
	struct chan *chan;
	bool tasks_ended; /* every local task ended (agent thread) */
	struct pmixev_pmixd_bounds pmixd_lim;
	struct pmixev_pmixd_budget pmixd_budget;
	struct auth *auth;
	struct overlay *ov;
	struct xstep *xstep; /* frames of other steps (overlay/xstep.h) */
	struct coll *coll;   /* collectives over the tree (wireup/coll.h) */
	struct coll_xstep *collx; /* ... across steps (wireup/coll_xstep.h) */
	struct groups *groups;	  /* PMIx groups on it (wireup/group.h) */
	struct group_root *group_root; /* the live ones (wireup/group_root.h) */
	struct group_ask *group_ask;   /* ... asked of node 0 (group_ask.h) */
	struct dmodex *dmodex;
	struct pubsub *pubsub;
	struct inject *inject;
	struct events *events;
	struct clients *clients; /* the local processes' claims */
	struct notify *notify;
	struct site *site;
	struct helper *helper;	 /* this node's owner helper */
	struct watcher *watcher; /* the tree's root only */
	struct jobinfo *jobinfo; /* Slurm's answers for queries */
	struct jobctl *jobctl;	 /* job control through slurmctld */
	struct allocs *allocs;	 /* PMIx_Allocation_request */
	struct nspaces *nspaces; /* the family's (pmixd/nspaces.h) */
	struct spawn *spawn;	 /* PMIx_Spawn asked here (wireup/spawn.h) */
	struct spawned *spawned; /* this step's own start, if spawned */
	struct ptable *ptable;	 /* the tasks: pids, exits, memory */
	struct applog *applog;	 /* PMIx_Log's channels */
	struct tasksig *tasksig; /* signals to the tasks on every node */
	struct monitor *monitor; /* monitor alerts, the step's policy */
	struct ckpt *ckpt;	 /* checkpoint requests to the ranks */
	struct ckpt_cancel *ckpt_cancel; /* ... cancelled on every node */
	/* The PMIx server process: its side of the channel and its agent
	 * (pmixside/side.h), the gate in front of the library, and the
	 * server as its clients reach it ("NSPACE.srv.NODE;tcp4://..."). */
	struct pmixside *pside;
	struct pmix_gate *gate;
	const char *pmix_uri;
	struct {
		step_gone_fn fn;
		void *ctx;
	} gone[STEP_MAX_SUBSCRIBERS];
	unsigned ngone;
	struct {
		step_rank_fn fn;
		void *ctx;
	} rank_gone[STEP_MAX_SUBSCRIBERS];
	unsigned nrank_gone;
};

/* Call `fn` for every gone node from now on. 0, or -1 (table full). */
int step_on_node_gone(struct step *s, step_gone_fn fn, void *ctx);

/* Tell every subscriber that `node` left the tree. */
void step_node_gone(struct step *s, uint32_t node, bool lost);

/* Call `fn` for every rank that ends from now on. 0, or -1 (table full). */
int step_on_rank_gone(struct step *s, step_rank_fn fn, void *ctx);

/* Tell every subscriber that `rank` ended (once per rank, the caller's
 * care). */
void step_rank_gone(struct step *s, uint32_t rank);

/* The step PMIx's upcalls serve (NULL: none). */
void step_serve(struct step *s);
struct step *step_served(void);

#endif /* PMIXEV_BASE_STEP_H_ */
