/*
 * overlay/overlay_int.h - what overlay.c (links, routing, lifecycle) and
 * overlay_handshake.c (credentials and the rendezvous/peer handshakes)
 * share. Not for other modules: they use overlay.h.
 */
#ifndef PMIXEV_OVERLAY_OVERLAY_INT_H_
#define PMIXEV_OVERLAY_OVERLAY_INT_H_

#include <stdbool.h>
#include <stdint.h>

#include "overlay/admit.h"
#include "overlay/conn.h"
#include "overlay/overlay.h"
#include "pmixev_frame.h"
#include "pmixev_proto.h"

#define MAX_PENDING	    64 /* unauthenticated connections at once */
#define MAX_PENDING_PER_SRC 8  /* ... from one address */
/* Largest frame from srun before its table is accepted. */
#define TABLE_MAX (80u << 10)

enum role { ROLE_SRUN, ROLE_PARENT, ROLE_CHILD };

struct queued {
	uint8_t type;
	uint32_t src, dst;
	uint8_t *data;
	size_t len;
	struct queued *next;
};

struct link {
	struct overlay *ov;
	struct conn *conn;
	enum role role;
	uint32_t peer; /* node id (parent/child) */
	bool up;
	bool dead;	     /* was lost: sends fail instead of queueing */
	bool bye;	     /* the peer announced a normal end */
	bool adopting;	     /* dialled to replace a gone parent */
	uint64_t last_rx_ms; /* when bytes last arrived (up links) */
	uint64_t rx_bytes;   /* conn_rx_bytes at that time */
	uint64_t nonce;
	struct queued *head, *tail; /* frames waiting for `up` */
	size_t queued;		    /* their bytes */
	bool over;		    /* over PMIxevOverlayMax (logged once) */
};

struct overlay {
	struct overlay_cfg cfg;
	struct pmixev_tree tree;
	struct agent *agent;
	struct auth *auth;
	struct admit *door;
	uint16_t port;
	char host[PMIXEV_HOST_MAX];
	struct link srun;
	struct link parent;    /* peer PMIXEV_TREE_NONE: we are the root */
	struct link *children; /* [nchildren]: static ones, then adopted */
	uint32_t nchildren, cap_children;
	bool *gone;	/* [nnodes]: lost or ended, healed around */
	bool *reported; /* [nnodes]: reported lost (node-down) */
	uint32_t root;	/* the healed root */
	bool leaving;	/* overlay_leave was called: no more healing */
	struct pmixev_table table;
	struct event *boot_timer;
	struct event *hb_timer;
	struct {
		overlay_handler_t fn;
		void *ctx;
	} handlers[PMIXEV_MSG_TYPE_MAX + 1];
	overlay_lost_t lost_fn;
	void *lost_ctx;
};

/* How a node left the tree, from the least to the most telling. */
enum gone_kind {
	GONE_UNREACHABLE, /* a node we tried to adopt us did not answer */
	GONE_ENDED,	  /* said BYE: its part of the step ended */
	GONE_LOST,	  /* an established link broke or went silent */
};

/* overlay.c */
const char *overlay_role_name(enum role r);
void overlay_link_reset(struct link *l);
void overlay_link_up(struct link *l);
void overlay_link_drop_queue(struct link *l);
/* Pass a broadcast on over every link but `from` (NULL: all). */
void overlay_flood(struct overlay *ov, const struct link *from, uint32_t origin,
		   uint8_t type, const void *data, size_t len);
int overlay_on_frame(struct conn *c, const struct pmixev_frame_hdr *hdr,
		     const uint8_t *payload, void *ctx);
void overlay_on_close(struct conn *c, enum conn_close reason, const char *why,
		      void *ctx);

/* overlay_heal.c */
/*
 * `node` left the tree (`kind`, because of `why`), as seen by this node or
 * reported over link `from` (NULL: seen here). Re-forms the tree around it
 * (a new parent is dialled, links to gone children closed), tells every
 * other node (GONE), and calls the lost callback. Repeats are ignored;
 * a loss reported after an UNREACHABLE or ENDED still counts.
 */
void overlay_gone(struct overlay *ov, uint32_t node, enum gone_kind kind,
		  const char *why, const struct link *from);
/* A GONE frame arrived over `l`. 0, or -1 if malformed. */
int overlay_on_gone(struct link *l, const uint8_t *data, size_t len);
/* The child slot for node `from` saying hello, or NULL with the reason. */
struct link *overlay_child_slot(struct overlay *ov, uint32_t from,
				const char **why);
/* Allocate the gone set; 0 or -1. */
int overlay_heal_init(struct overlay *ov);

/* Listen on an ephemeral port of every address (ov->port). 0 or -1. */
int overlay_listen(struct overlay *ov);

/* overlay_handshake.c */
int overlay_connect_parent(struct overlay *ov);
struct conn *overlay_dial(struct overlay *ov, struct link *l, const char *host,
			  uint16_t port);
int overlay_send_cred(struct overlay *ov, struct conn *c, uint8_t type,
		      const struct pmixev_ident *id);
int overlay_on_table(struct overlay *ov, struct conn *c, const uint8_t *data,
		     size_t len);
int overlay_on_welcome(struct link *l, const uint8_t *data, size_t len);

#endif /* PMIXEV_OVERLAY_OVERLAY_INT_H_ */
