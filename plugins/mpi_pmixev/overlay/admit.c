/*
 * overlay/admit.c - the overlay's door: the listening socket, and the
 * connections it accepts until they present a valid hello (bounded in
 * size, time and number, per address and in all).
 */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/listener.h>

#include "overlay/overlay_int.h"
#include "pmixev_log.h"

static void on_pending_timeout(evutil_socket_t fd, short what, void *arg)
{
	struct link *p = arg;
	struct overlay *ov = p->ov;

	PMIXEV_ERROR("overlay: dropping %s: no valid hello within %d s",
		     conn_peer(p->conn), PENDING_TIMEOUT_SEC);
	for (size_t i = 0; i < MAX_PENDING; i++)
		if (ov->pending[i] == p)
			ov->pending[i] = NULL;
	conn_destroy(p->conn);
	overlay_link_reset(p);
	free(p);
}

/* Unauthenticated connections from the new one's address, and a free
 * slot (MAX_PENDING if none). */
static size_t pending_from(struct overlay *ov, const char *host, size_t *slot)
{
	size_t n = 0;

	*slot = MAX_PENDING;
	for (size_t i = 0; i < MAX_PENDING; i++) {
		if (!ov->pending[i])
			*slot = *slot == MAX_PENDING ? i : *slot;
		else if (strcmp(conn_peer_host(ov->pending[i]->conn), host) ==
			 0)
			n++;
	}
	return n;
}

static void on_accept(struct evconnlistener *lis, evutil_socket_t fd,
		      struct sockaddr *sa, int salen, void *arg)
{
	struct overlay *ov = arg;
	struct timeval tv = {PENDING_TIMEOUT_SEC, 0};
	struct link *p = calloc(1, sizeof(*p));
	size_t slot = MAX_PENDING;

	if (!p) {
		evutil_closesocket(fd);
		return;
	}
	p->ov = ov;
	p->role = ROLE_PENDING;
	p->conn = conn_create(agent_base(ov->agent), fd, sa, (socklen_t)salen,
			      HANDSHAKE_MAX, overlay_on_frame, overlay_on_close,
			      p);
	if (p->conn && pending_from(ov, conn_peer_host(p->conn), &slot) >=
			       MAX_PENDING_PER_SRC) {
		PMIXEV_ERROR("overlay: refusing %s: %d unauthenticated "
			     "connections from %s already",
			     conn_peer(p->conn), MAX_PENDING_PER_SRC,
			     conn_peer_host(p->conn));
		slot = MAX_PENDING;
	} else if (p->conn && slot == MAX_PENDING) {
		PMIXEV_ERROR("overlay: refusing %s: %d unauthenticated "
			     "connections already",
			     conn_peer(p->conn), MAX_PENDING);
	}
	if (p->conn && slot < MAX_PENDING)
		p->timer = evtimer_new(agent_base(ov->agent),
				       on_pending_timeout, p);
	if (!p->timer || evtimer_add(p->timer, &tv) < 0) {
		conn_destroy(p->conn);
		overlay_link_reset(p);
		free(p);
		return;
	}
	ov->pending[slot] = p;
}

int overlay_listen(struct overlay *ov)
{
	struct sockaddr_in sin = {.sin_family = AF_INET};
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	ov->listener = evconnlistener_new_bind(
		agent_base(ov->agent), on_accept, ov,
		LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC, 128,
		(struct sockaddr *)&sin, sizeof(sin));
	if (!ov->listener || getsockname(evconnlistener_get_fd(ov->listener),
					 (struct sockaddr *)&ss, &len) < 0)
		return -1;
	ov->port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
	return 0;
}
