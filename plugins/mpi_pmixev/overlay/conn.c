/*
 * overlay/conn.c - framed connections over libevent bufferevents; on the
 * agent thread (in srun, the one the rendezvous starts).
 */
#include "config.h"

#include "overlay/conn.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>

struct conn {
	struct bufferevent *bev;
	uint32_t max_len;
	conn_frame_fn on_frame;
	conn_close_fn on_close;
	void *ctx;
	uint64_t rx_bytes; /* everything read so far, whole frames or not */
	size_t seen;	   /* bytes of the input buffer already counted */
	char host[INET6_ADDRSTRLEN];
	char peer[INET6_ADDRSTRLEN + 8];
};

static void close_with(struct conn *c, enum conn_close reason, const char *why)
{
	conn_close_fn fn = c->on_close;
	void *ctx = c->ctx;

	c->on_close = NULL;
	if (fn)
		fn(c, reason, why, ctx);
	conn_destroy(c);
}

static void on_read(struct bufferevent *bev, void *arg)
{
	struct conn *c = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	uint8_t raw[PMIXEV_FRAME_HDR_LEN];
	struct pmixev_frame_hdr hdr;
	const char *why = NULL;
	char reason[128];

	c->rx_bytes += evbuffer_get_length(in) - c->seen;
	for (;;) {
		size_t avail = evbuffer_get_length(in);
		uint8_t *frame;
		int rc;

		if (avail < PMIXEV_FRAME_HDR_LEN) {
			c->seen = avail;
			return;
		}
		evbuffer_copyout(in, raw, sizeof(raw));
		rc = pmixev_frame_decode_hdr(raw, sizeof(raw), c->max_len, &hdr,
					     &why);
		if (rc < 0) {
			snprintf(reason, sizeof(reason), "bad frame: %s", why);
			close_with(c, CONN_BAD_FRAME, reason);
			return;
		}
		if (avail < PMIXEV_FRAME_HDR_LEN + (size_t)hdr.len) {
			c->seen = avail;
			return;
		}
		frame = evbuffer_pullup(in, PMIXEV_FRAME_HDR_LEN + hdr.len);
		if (!frame) {
			close_with(c, CONN_NO_MEMORY, "out of memory");
			return;
		}
		if (c->on_frame(c, &hdr, frame + PMIXEV_FRAME_HDR_LEN, c->ctx) <
		    0) {
			close_with(c, CONN_REFUSED, "frame refused");
			return;
		}
		evbuffer_drain(in, PMIXEV_FRAME_HDR_LEN + hdr.len);
	}
}

static void on_event(struct bufferevent *bev, short what, void *arg)
{
	struct conn *c = arg;

	if (what & BEV_EVENT_CONNECTED)
		return;
	if (what & BEV_EVENT_EOF)
		close_with(c, CONN_EOF, "connection closed by peer");
	else if (what & BEV_EVENT_ERROR)
		close_with(
			c, CONN_ERROR,
			evutil_socket_error_to_string(EVUTIL_SOCKET_ERROR()));
}

static void format_peer(struct conn *c, const struct sockaddr *sa,
			socklen_t salen)
{
	char host[INET6_ADDRSTRLEN], port[8];

	if (getnameinfo(sa, salen, host, sizeof(host), port, sizeof(port),
			NI_NUMERICHOST | NI_NUMERICSERV) == 0) {
		snprintf(c->peer, sizeof(c->peer), "%s:%s", host, port);
		snprintf(c->host, sizeof(c->host), "%s", host);
	} else {
		snprintf(c->peer, sizeof(c->peer), "?");
		snprintf(c->host, sizeof(c->host), "?");
	}
}

struct conn *conn_create(struct event_base *base, int fd,
			 const struct sockaddr *sa, socklen_t salen,
			 uint32_t max_len, conn_frame_fn on_frame,
			 conn_close_fn on_close, void *ctx)
{
	struct conn *c = calloc(1, sizeof(*c));
	struct sockaddr_storage ss;
	socklen_t sslen = sizeof(ss);
	bool dialing = fd < 0;
	int one = 1;

	if (!c) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	c->max_len = max_len;
	c->on_frame = on_frame;
	c->on_close = on_close;
	c->ctx = ctx;
	/*
	 * slurmstepd forks the job's tasks while this socket is open: it must
	 * never leak into them (libevent would create it without CLOEXEC).
	 */
	if (fd < 0 &&
	    (fd = socket(sa->sa_family,
			 SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) < 0)
		goto fail;
	/* Small frames leave at once: no Nagle delay behind delayed ACKs. */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	c->bev = bufferevent_socket_new(base, fd, BEV_OPT_CLOSE_ON_FREE);
	if (!c->bev) {
		close(fd);
		goto fail;
	}
	bufferevent_setcb(c->bev, on_read, NULL, on_event, c);
	if (dialing) {
		format_peer(c, sa, salen);
		if (bufferevent_socket_connect(c->bev, sa, (int)salen) < 0)
			goto fail;
	} else {
		if (getpeername(fd, (struct sockaddr *)&ss, &sslen) == 0)
			format_peer(c, (struct sockaddr *)&ss, sslen);
	}
	if (bufferevent_enable(c->bev, EV_READ | EV_WRITE) < 0)
		goto fail;
	return c;
fail:
	conn_destroy(c);
	return NULL;
}

struct conn *conn_dial(struct event_base *base, const char *host, uint16_t port,
		       uint32_t max_len, conn_frame_fn on_frame,
		       conn_close_fn on_close, void *ctx, char *err,
		       size_t errlen)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res = NULL;
	struct conn *c = NULL;
	char portstr[8];
	int rc;

	snprintf(portstr, sizeof(portstr), "%u", port);
	rc = getaddrinfo(host, portstr, &hints, &res);
	if (rc != 0 || !res) {
		snprintf(err, errlen, "cannot resolve %s: %s", host,
			 rc ? gai_strerror(rc) : "no address");
		goto out;
	}
	c = conn_create(base, -1, res->ai_addr, res->ai_addrlen, max_len,
			on_frame, on_close, ctx);
	if (!c)
		snprintf(err, errlen, "%s", strerror(errno));
out:
	if (res)
		freeaddrinfo(res);
	return c;
}

void conn_set_owner(struct conn *c, conn_frame_fn on_frame,
		    conn_close_fn on_close, void *ctx)
{
	c->on_frame = on_frame;
	c->on_close = on_close;
	c->ctx = ctx;
}

int conn_send(struct conn *c, uint8_t type, uint32_t src, uint32_t dst,
	      const void *payload, size_t len)
{
	struct pmixev_frame_hdr hdr = {
		.type = type, .src = src, .dst = dst, .len = (uint32_t)len};
	uint8_t raw[PMIXEV_FRAME_HDR_LEN];
	struct evbuffer *out = bufferevent_get_output(c->bev);

	if (len > UINT32_MAX)
		return -1;
	pmixev_frame_encode_hdr(&hdr, raw);
	if (evbuffer_add(out, raw, sizeof(raw)) < 0 ||
	    (len && evbuffer_add(out, payload, len) < 0))
		return -1;
	return 0;
}

void conn_finish(struct conn *c)
{
	struct evbuffer *out = bufferevent_get_output(c->bev);
	size_t len = evbuffer_get_length(out), off = 0;
	/* A bufferevent's output cannot be drained by others: send a copy
	 * directly; the connection is freed right after. */
	const uint8_t *p = len ? evbuffer_pullup(out, -1) : NULL;
	int fd = bufferevent_getfd(c->bev);

	if (fd < 0)
		return;
	while (p && off < len) {
		ssize_t n = send(fd, p + off, len - off, MSG_NOSIGNAL);

		if (n <= 0)
			break;
		off += (size_t)n;
	}
	shutdown(fd, SHUT_WR);
}

const char *conn_peer(const struct conn *c)
{
	return c->peer;
}

const char *conn_peer_host(const struct conn *c)
{
	return c->host;
}

void conn_set_max_len(struct conn *c, uint32_t max_len)
{
	c->max_len = max_len;
}

size_t conn_queued(const struct conn *c)
{
	return evbuffer_get_length(bufferevent_get_output(c->bev));
}

uint64_t conn_rx_bytes(const struct conn *c)
{
	return c->rx_bytes;
}

int conn_local_host(const struct conn *c, char *host, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sslen = sizeof(ss);
	int fd = bufferevent_getfd(c->bev);

	if (fd < 0 || getsockname(fd, (struct sockaddr *)&ss, &sslen) < 0)
		return -1;
	return getnameinfo((struct sockaddr *)&ss, sslen, host, (socklen_t)len,
			   NULL, 0, NI_NUMERICHOST) == 0
		       ? 0
		       : -1;
}

void conn_destroy(struct conn *c)
{
	if (!c)
		return;
	if (c->bev)
		bufferevent_free(c->bev);
	free(c);
}
