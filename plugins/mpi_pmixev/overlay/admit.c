/*
 * overlay/admit.c - the door: the listening socket, and the connections it
 * accepts until their owner takes them, bounded in size, time and number
 * (per address and in all). On the agent thread (in srun, the one the
 * rendezvous starts).
 */
#include "config.h"

#include "overlay/admit.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include <event2/listener.h>

#include "pmixev_log.h"

struct pending {
	struct admit *door;
	struct conn *conn;
	struct event *timer; /* the deadline */
	struct pending *prev, *next;
};

struct admit {
	struct admit_cfg cfg;
	struct event_base *base;
	struct evconnlistener *listener;
	uint16_t port;
	struct pending *all;
};

static void pending_free(struct pending *p)
{
	struct admit *door = p->door;

	if (p->prev)
		p->prev->next = p->next;
	else
		door->all = p->next;
	if (p->next)
		p->next->prev = p->prev;
	if (p->timer)
		event_free(p->timer);
	conn_destroy(p->conn);
	free(p);
}

static int on_frame(struct conn *c, const struct pmixev_frame_hdr *hdr,
		    const uint8_t *payload, void *ctx)
{
	struct pending *p = ctx;

	/* p may be freed by the owner's admit_take: not used after. */
	return p->door->cfg.on_frame(p->door->cfg.ctx, c, hdr, payload);
}

static void on_close(struct conn *c, enum conn_close reason, const char *why,
		     void *ctx)
{
	struct pending *p = ctx;
	const char *name = p->door->cfg.name;

	switch (reason) {
	case CONN_BAD_FRAME:
		PMIXEV_ERROR("%s: dropping %s: %s", name, conn_peer(c), why);
		break;
	case CONN_EOF:
	case CONN_ERROR:
	case CONN_REFUSED:
	case CONN_NO_MEMORY:
		PMIXEV_DEBUG(1, "%s: %s closed: %s", name, conn_peer(c), why);
		break;
	}
	p->conn = NULL; /* conn.c frees it */
	pending_free(p);
}

static void on_timeout(evutil_socket_t fd, short what, void *arg)
{
	struct pending *p = arg;

	PMIXEV_ERROR("%s: dropping %s: no valid hello within %d s",
		     p->door->cfg.name, conn_peer(p->conn), ADMIT_DEADLINE_SEC);
	pending_free(p);
}

/* Why one more unauthenticated connection from `host` is too many, or
 * NULL. */
static const char *too_many(const struct admit *door, const char *host,
			    char *why, size_t whylen)
{
	unsigned all = 0, here = 0;

	for (const struct pending *q = door->all; q; q = q->next) {
		all++;
		here += strcmp(conn_peer_host(q->conn), host) == 0;
	}
	if (here >= door->cfg.per_addr)
		snprintf(why, whylen,
			 "%u unauthenticated connections from %s already",
			 door->cfg.per_addr, host);
	else if (all >= door->cfg.total)
		snprintf(why, whylen, "%u unauthenticated connections already",
			 door->cfg.total);
	else
		return NULL;
	return why;
}

static void on_accept(struct evconnlistener *lis, evutil_socket_t fd,
		      struct sockaddr *sa, int salen, void *arg)
{
	struct admit *door = arg;
	struct timeval tv = {ADMIT_DEADLINE_SEC, 0};
	struct pending *p = calloc(1, sizeof(*p));
	char why[128];

	if (!p) {
		evutil_closesocket(fd);
		return;
	}
	p->door = door;
	p->conn = conn_create(door->base, fd, sa, (socklen_t)salen,
			      ADMIT_FRAME_MAX, on_frame, on_close, p);
	if (!p->conn) {
		free(p);
		return;
	}
	if (too_many(door, conn_peer_host(p->conn), why, sizeof(why))) {
		PMIXEV_ERROR("%s: refusing %s: %s", door->cfg.name,
			     conn_peer(p->conn), why);
		conn_destroy(p->conn);
		free(p);
		return;
	}
	p->next = door->all;
	if (p->next)
		p->next->prev = p;
	door->all = p;
	p->timer = evtimer_new(door->base, on_timeout, p);
	if (!p->timer || evtimer_add(p->timer, &tv) < 0)
		pending_free(p);
}

struct admit *admit_create(struct event_base *base, const struct admit_cfg *cfg)
{
	struct sockaddr_in sin = {.sin_family = AF_INET};
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	struct admit *door = calloc(1, sizeof(*door));

	if (!door)
		return NULL;
	door->cfg = *cfg;
	door->base = base;
	door->listener = evconnlistener_new_bind(
		base, on_accept, door,
		LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC, 128,
		(struct sockaddr *)&sin, sizeof(sin));
	if (!door->listener ||
	    getsockname(evconnlistener_get_fd(door->listener),
			(struct sockaddr *)&ss, &len) < 0) {
		admit_destroy(door);
		return NULL;
	}
	door->port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
	return door;
}

uint16_t admit_port(const struct admit *door)
{
	return door->port;
}

void admit_take(struct admit *door, struct conn *c)
{
	for (struct pending *p = door->all; p; p = p->next) {
		if (p->conn != c)
			continue;
		p->conn = NULL;
		pending_free(p);
		return;
	}
}

void admit_each(const struct admit *door, void (*fn)(struct conn *, void *),
		void *arg)
{
	for (const struct pending *p = door->all; p; p = p->next)
		fn(p->conn, arg);
}

void admit_destroy(struct admit *door)
{
	if (!door)
		return;
	while (door->all)
		pending_free(door->all);
	if (door->listener)
		evconnlistener_free(door->listener);
	free(door);
}
