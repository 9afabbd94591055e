/*
 * overlay_int.h - what overlay.c (links, routing, lifecycle) and
 * overlay_handshake.c (credentials and the rendezvous/peer handshakes)
 * share. Not for other modules: they use overlay.h.
 */
#ifndef PMIXEV_OVERLAY_INT_H_
#define PMIXEV_OVERLAY_INT_H_

#include <stdbool.h>
#include <stdint.h>

#include <event2/listener.h>

#include "conn.h"
#include "overlay.h"
#include "pmixev_frame.h"
#include "pmixev_proto.h"

#define MAX_PENDING	    64 /* unauthenticated connections at once */
#define PENDING_TIMEOUT_SEC 10 /* to present a valid PEER_HELLO */

enum role { ROLE_PENDING, ROLE_SRUN, ROLE_PARENT, ROLE_CHILD };

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
	uint64_t last_rx_ms; /* when the last frame arrived (up links) */
	uint64_t nonce;
	struct queued *head, *tail; /* frames waiting for `up` */
	struct event *timer;	    /* pending: authentication deadline */
};

struct overlay {
	struct overlay_cfg cfg;
	struct pmixev_tree tree;
	struct agent *agent;
	struct auth *auth;
	struct evconnlistener *listener;
	uint16_t port;
	char host[PMIXEV_HOST_MAX];
	struct link srun;
	struct link parent;
	struct link *children; /* [nchildren] */
	uint32_t nchildren;
	struct link *pending[MAX_PENDING];
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

/* overlay.c */
const char *overlay_role_name(enum role r);
void overlay_link_reset(struct link *l);
void overlay_link_up(struct link *l);
int overlay_on_frame(struct conn *c, const struct pmixev_frame_hdr *hdr,
		     const uint8_t *payload, void *ctx);
void overlay_on_close(struct conn *c, const char *why, void *ctx);

/* overlay_handshake.c */
struct conn *overlay_dial(struct overlay *ov, struct link *l, const char *host,
			  uint16_t port);
int overlay_send_cred(struct overlay *ov, struct conn *c, uint8_t type,
		      uint32_t dst, const struct pmixev_ident *id);
int overlay_on_table(struct overlay *ov, struct conn *c, const uint8_t *data,
		     size_t len);
int overlay_on_welcome(struct link *l, const uint8_t *data, size_t len);
int overlay_on_hello(struct link *p, const uint8_t *data, size_t len);

#endif /* PMIXEV_OVERLAY_INT_H_ */
