/*
 * srun/spawn_link.h - a child srun of srun's spawns (spawn.h) and its hub
 * link: the child srun's HUB_HELLO, then its step's LAYOUT (passed to
 * every node of this step), READY (this step's answer to the requesting
 * node, SPAWN_STATUS), its ranks' ends and the family's routed frames.
 * Rendezvous' agent thread.
 */
#ifndef PMIXEV_SRUN_SPAWN_LINK_H_
#define PMIXEV_SRUN_SPAWN_LINK_H_

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <event2/event.h>

#include "pmixev_buf.h"
#include "pmixev_xstep_ctl.h"
#include "srun/spawn_cfg.h"

/* How long READY waits at most for the nodes' NSPACE_ACKs. */
#define SPAWN_LINK_ACK_MS 5000

struct conn;
struct spawn_proc;

struct child {
	struct spawns *sp;
	struct child *next;
	uint32_t node;	   /* the requesting stepd */
	uint64_t req_id;   /* its request's id */
	uint64_t spawn_id; /* SLURM_PMIXEV_SPAWN_ID */
	uint32_t job;	   /* the child's job (this one, or PMIX_ALLOC_ID's) */
	uint32_t step;	   /* its step, once it said hello */
	struct spawn_proc *proc;
	struct conn *hub; /* NULL once it closed */
	struct event *reap;
	bool answered; /* READY or a failure was sent */
	bool ready;    /* READY was sent */
	bool layout;   /* its layout was passed on */
	/* Ends of child ranks that came before READY (at most one per
	 * process): passed on after it. */
	struct pmixev_buf *early;
	uint32_t nearly, nprocs;
	/* Steps below the child step whose PUBSUB requests it passed up:
	 * their answers go down this link. */
	uint32_t (*below)[2];
	uint32_t nbelow;
	/* This step's nodes asked to register the child's namespace (its
	 * layout) that did not answer (NSPACE_ACK) nor go yet: READY waits
	 * for them, up to the spawn's timeout or SPAWN_LINK_ACK_MS. */
	uint8_t *unacked; /* [nnodes], from the layout */
	uint32_t nunacked;
	uint32_t timeout_ms; /* the spawn's own, 0 when none */
	struct event *hold;  /* READY's wait */
	bool held;	     /* READY came and waits */
	bool ended;	     /* the child srun exited (c stays while held) */
};

struct spawns {
	struct spawns_cfg cfg;
	struct event_base *base;
	char step[32];
	char nspace[64];
	uint64_t last_spawn_id;
	struct child *children;
	atomic_uint live; /* child sruns not yet reaped */
	uint64_t requests, refused;
	/* Child events whose spawner's node had ended (its stepd gone). */
	uint64_t late_events;
};

/* Tell the requesting node how spawn `c` went (READY: with its step). */
void spawn_link_status(struct child *c, enum pmixev_spawn_state state,
		       const char *reason);

/* Serve the hub link `fd` of c's child srun. 0, or -1 (c's reaping is
 * scheduled, as when the link closes). */
int spawn_link_watch(struct child *c, int fd);

/* Node `node` answered the child's layout with `a`: 0, or -1 when c did
 * not wait for it. */
int spawn_link_ack(struct child *c, uint32_t node,
		   const struct pmixev_nspace_ack *a);

/* Node `node`'s link closed: READY no longer waits for it. */
void spawn_link_node_gone(struct child *c, uint32_t node);

/* Whether c's child step, or a step whose frames came up through it, is
 * (job, step). */
bool spawn_link_leads_to(const struct child *c, uint32_t job, uint32_t step);

#endif /* PMIXEV_SRUN_SPAWN_LINK_H_ */
