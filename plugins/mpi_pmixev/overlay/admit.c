/*
 * overlay/admit.c - the door: the listening socket, and the connections it
 * accepts until their owner takes them, bounded in size, time and number
 * (per address and in all, oldest out: waitq.c), from the step's nodes
 * only (addrs.c). On the agent thread (in srun, the one the rendezvous
 * starts).
 */
#include "config.h"

#include "overlay/admit.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/listener.h>

#include "overlay/waitq.h"
#include "pmixev_log.h"

struct pending {
	struct admit *door;
	struct conn *conn;
	struct event *timer; /* the deadline */
	struct waitq_entry *slot;
};

/* Drops counted since the door opened, and up to the last summary. */
struct drops {
	unsigned long foreign; /* not from a node of the step */
	unsigned long evicted; /* oldest closed for a newer one */
	unsigned long expired; /* no hello within the deadline */
	char last[INET6_ADDRSTRLEN + 8];
};

struct admit {
	struct admit_cfg cfg;
	struct event_base *base;
	struct evconnlistener *listener;
	uint16_t port;
	struct waitq *waiting;
	struct drops drops, logged;
	struct event *summary; /* pending summary line */
};

static void log_summary(struct admit *door)
{
	const struct drops *d = &door->drops, *l = &door->logged;

	if (d->foreign == l->foreign && d->evicted == l->evicted &&
	    d->expired == l->expired)
		return;
	PMIXEV_INFO("%s: dropped unauthenticated connections: %lu from "
		    "outside the step's nodes, %lu oldest for newer ones, "
		    "%lu without a hello within %d s (since the door opened; "
		    "last from %s)",
		    door->cfg.name, d->foreign, d->evicted, d->expired,
		    ADMIT_DEADLINE_SEC, d->last);
	door->logged = *d;
}

static void on_summary(evutil_socket_t fd, short what, void *arg)
{
	log_summary(arg);
}

/* A drop was counted: log the first soon, the next ones in batches. */
static void counted(struct admit *door, const char *peer)
{
	const bool first = !door->logged.foreign && !door->logged.evicted &&
			   !door->logged.expired;
	struct timeval tv = {first ? 1 : ADMIT_SUMMARY_SEC, 0};

	snprintf(door->drops.last, sizeof(door->drops.last), "%s", peer);
	if (door->summary && !evtimer_pending(door->summary, NULL))
		evtimer_add(door->summary, &tv);
}

static void pending_free(struct pending *p)
{
	waitq_remove(p->door->waiting, p->slot);
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
	struct admit *door = p->door;

	PMIXEV_DEBUG(1, "%s: dropping %s: no valid hello within %d s",
		     door->cfg.name, conn_peer(p->conn), ADMIT_DEADLINE_SEC);
	door->drops.expired++;
	counted(door, conn_peer(p->conn));
	pending_free(p);
}

/* Close a connection not from a node of the step before reading it. */
static bool foreign(struct admit *door, evutil_socket_t fd,
		    const struct sockaddr *sa, int salen)
{
	char host[INET6_ADDRSTRLEN] = "?", port[8] = "?";
	char peer[INET6_ADDRSTRLEN + 8];

	if (addrs_any_has(door->cfg.allowed, sa))
		return false;
	evutil_closesocket(fd);
	getnameinfo(sa, (socklen_t)salen, host, sizeof(host), port,
		    sizeof(port), NI_NUMERICHOST | NI_NUMERICSERV);
	snprintf(peer, sizeof(peer), "%s:%s", host, port);
	door->drops.foreign++;
	counted(door, peer);
	return true;
}

/* Room for a connection from `host`: the oldest in its way goes. */
static void make_room(struct admit *door, const char *host)
{
	struct pending *victim = waitq_victim(door->waiting, host);

	if (!victim)
		return;
	PMIXEV_DEBUG(1,
		     "%s: closing %s, the oldest unauthenticated "
		     "connection, for a new one from %s",
		     door->cfg.name, conn_peer(victim->conn), host);
	door->drops.evicted++;
	counted(door, conn_peer(victim->conn));
	pending_free(victim);
}

static void on_accept(struct evconnlistener *lis, evutil_socket_t fd,
		      struct sockaddr *sa, int salen, void *arg)
{
	struct admit *door = arg;
	struct timeval tv = {ADMIT_DEADLINE_SEC, 0};
	struct pending *p = NULL;

	if (foreign(door, fd, sa, salen))
		return;
	if (!(p = calloc(1, sizeof(*p)))) {
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
	make_room(door, conn_peer_host(p->conn));
	if (!(p->slot =
		      waitq_push(door->waiting, p, conn_peer_host(p->conn)))) {
		conn_destroy(p->conn);
		free(p);
		return;
	}
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
	snprintf(door->drops.last, sizeof(door->drops.last), "-");
	door->logged = door->drops;
	if (!(door->waiting = waitq_create(cfg->per_addr, cfg->total)) ||
	    !(door->summary = evtimer_new(base, on_summary, door)))
		goto fail;
	door->listener = evconnlistener_new_bind(
		base, on_accept, door,
		LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC, 128,
		(struct sockaddr *)&sin, sizeof(sin));
	if (!door->listener ||
	    getsockname(evconnlistener_get_fd(door->listener),
			(struct sockaddr *)&ss, &len) < 0)
		goto fail;
	door->port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
	return door;
fail:
	admit_destroy(door);
	return NULL;
}

uint16_t admit_port(const struct admit *door)
{
	return door->port;
}

struct take {
	struct conn *conn;
	struct pending *found;
};

static void find_conn(void *item, void *arg)
{
	struct pending *p = item;
	struct take *t = arg;

	if (p->conn == t->conn)
		t->found = p;
}

void admit_take(struct admit *door, struct conn *c)
{
	struct take t = {.conn = c};

	waitq_each(door->waiting, find_conn, &t);
	if (!t.found)
		return;
	t.found->conn = NULL;
	pending_free(t.found);
}

struct each {
	void (*fn)(struct conn *, void *);
	void *arg;
};

static void each_conn(void *item, void *arg)
{
	struct pending *p = item;
	struct each *e = arg;

	e->fn(p->conn, e->arg);
}

void admit_each(const struct admit *door, void (*fn)(struct conn *, void *),
		void *arg)
{
	struct each e = {.fn = fn, .arg = arg};

	waitq_each(door->waiting, each_conn, &e);
}

void admit_destroy(struct admit *door)
{
	struct pending *p;

	if (!door)
		return;
	log_summary(door);
	while (door->waiting && (p = waitq_oldest(door->waiting)))
		pending_free(p);
	waitq_destroy(door->waiting);
	if (door->summary)
		event_free(door->summary);
	if (door->listener)
		evconnlistener_free(door->listener);
	free(door);
}
