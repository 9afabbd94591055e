/*
 * overlay/link.h - a stepd's links to its neighbours (srun, the parent,
 * the children): one connection each, a send queue for frames waiting
 * for the handshake, and the PMIxevOverlayMax budget. Above conn.h; on
 * the agent thread.
 *
 * The layers above fill in the fields they own (marked) and learn of
 * frames and closed connections through the hooks they register.
 */
#ifndef PMIXEV_OVERLAY_LINK_H_
#define PMIXEV_OVERLAY_LINK_H_

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <event2/event.h>

#include "overlay/conn.h"
#include "pmixev_frame.h"
#include "pmixev_tree.h"

enum link_role { LINK_SRUN, LINK_PARENT, LINK_CHILD };

struct queued;
struct links;

struct link {
	struct links *set;
	struct conn *conn;
	enum link_role role;
	uint32_t peer;		    /* node id (parent, child) */
	bool up;		    /* handshake done: frames go out at once */
	bool dead;		    /* lost: sends fail instead of queueing */
	struct queued *head, *tail; /* frames waiting for `up` */
	size_t queued;		    /* their bytes */
	bool over;		    /* over the budget (logged once) */
	uint64_t last_rx_ms;	    /* liveness.c: when bytes last came */
	uint64_t rx_bytes;	    /* liveness.c: conn_rx_bytes then */
	bool bye;		    /* liveness.c: the peer said it ended */
	bool adopting;		    /* heal.c: dialled to replace a parent */
	uint64_t nonce;		    /* handshake.c: our hello's */
};

/* A frame arrived on `l`: 0, or -1 to close the link (log why before). */
typedef int (*link_frame_fn)(void *ctx, struct link *l,
			     const struct pmixev_frame_hdr *hdr,
			     const uint8_t *payload);
/*
 * `l`'s connection (to `addr`) closed because of `why`; the link has
 * forgotten it already. `was_up`: it had passed its handshake.
 */
typedef void (*link_down_fn)(void *ctx, struct link *l, const char *why,
			     const char *addr, bool was_up);

/* A stepd's neighbours. */
struct links {
	struct event_base *base;
	uint32_t self;	       /* our node id */
	uint32_t max_frame;    /* largest payload once up (srun: its own) */
	size_t max_queued;     /* PMIxevOverlayMax, per link */
	struct link srun;      /* srun's rendezvous */
	struct link parent;    /* peer PMIXEV_TREE_NONE: we are the root */
	struct link *children; /* [nchildren]: static ones, then adopted */
	uint32_t nchildren, cap_children;
	bool leaving; /* said BYE (links_leave): the step ends here */
	bool ending;  /* this node's tasks all ended (overlay_tasks_ended) */
	/* A parent link came up once, or there was none: any thread */
	atomic_bool joined;
	link_frame_fn on_frame;
	void *frame_ctx;
	link_down_fn on_down;
	void *down_ctx;
};

/*
 * The neighbours of node `self` in `tree`, none connected yet; room for
 * adopting every node above `self` as a child. NULL on failure.
 */
struct links *links_create(struct event_base *base,
			   const struct pmixev_tree *tree, uint32_t self,
			   uint32_t max_frame, size_t max_queued);
void links_on_frame(struct links *ls, link_frame_fn fn, void *ctx);
void links_on_down(struct links *ls, link_down_fn fn, void *ctx);

/* A fresh link of `ls` to `peer` (e.g. a child adopted). */
void link_init(struct link *l, struct links *ls, enum link_role role,
	       uint32_t peer);
const char *link_role_name(enum link_role role);
/* The clock of last_rx_ms. */
uint64_t link_now_ms(void);

/* Dial `host`:`port` for `l`; frames up to `max_len` until it is up. */
int link_dial(struct link *l, const char *host, uint16_t port,
	      uint32_t max_len);
/* `l` takes over the authenticated connection `c` (from the door). */
void link_attach(struct link *l, struct conn *c);
/* The handshake is done: queued frames go out, full-size frames come in. */
void link_up(struct link *l);

/*
 * Send a frame on `l` now or, until it is up, queue it; within the
 * budget. 0, or -1 (dead, over the budget (logged), out of memory).
 */
int link_send(struct link *l, uint8_t type, uint32_t src, uint32_t dst,
	      const void *data, size_t len);
/*
 * A broadcast from `origin`: over every live link to a parent or child
 * but `from` (NULL: all). The links form a tree, so each node gets it
 * once, whatever shape the tree healed into. The number of live links
 * that refused it (over their budget): their side of the tree misses it.
 */
unsigned links_flood(struct links *ls, const struct link *from, uint32_t origin,
		     uint8_t type, const void *data, size_t len);

/* Close the connection, no hook called; queued frames stay. */
void link_cut(struct link *l);
void link_drop_queue(struct link *l);

/*
 * This node's part of the step ended: say BYE to the parent and children
 * (also before their handshake: the BYE follows our hello), so that they
 * see a normal end.
 */
void links_leave(struct links *ls);

/* Close everything; no hooks. NULL-safe. */
void links_destroy(struct links *ls);

#endif /* PMIXEV_OVERLAY_LINK_H_ */
