/*
 * gate/gate_conn.c - a connection through the gate: its hello, then a
 * tool's bytes both ways, or a client's wait for the hand-off (see the
 * header).
 */
#include "config.h"

#include "gate/gate_conn.h"

#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "gate/gate_tally.h"
#include "pmixev_hello.h"
#include "pmixev_log.h"

#define HELLO_MS 10000 /* to send a whole hello, and to reach the library */
#define DRAIN_MS 30000 /* the library's answer to a peer gone */
#define QUIET_MS 200   /* ... is complete once this long silent */
/* The least the library answers a tool's hello: a status and more. */
#define ANSWER_BYTES 8

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void set_deadline(struct gate_conns *cs, struct gate_conn *c,
			 int64_t when)
{
	cs->timed += (when != 0) - (c->deadline != 0);
	c->deadline = when;
}

/* Ask epoll for what the state needs on each side. */
static void arm_side(struct gate_conns *cs, struct gate_side *s, uint32_t want)
{
	struct epoll_event ev = {.events = want, .data.ptr = s};

	if (s->fd < 0 || s->armed == want)
		return;
	if (epoll_ctl(cs->epfd, EPOLL_CTL_MOD, s->fd, &ev) == 0)
		s->armed = want;
}

static void arm(struct gate_conns *cs, struct gate_conn *c)
{
	bool read_peer =
		c->st == GATE_HELLO || (c->st == GATE_PIPE && !c->to_lib.len);
	bool read_lib =
		(c->st == GATE_PIPE && !c->to_peer.len) || c->st == GATE_DRAIN;
	uint32_t lib_want =
		(read_lib ? EPOLLIN : 0) |
		(c->st == GATE_CONNECTING || c->to_lib.len ? EPOLLOUT : 0);

	/* Handing off: only the library closing matters (not its answer,
	 * which waits for the hand-off); the client's socket is unwatched. */
	if (c->st == GATE_HANDOFF)
		lib_want = EPOLLRDHUP | (c->to_lib.len ? EPOLLOUT : 0);
	arm_side(cs, &c->peer,
		 (read_peer ? EPOLLIN : 0) | (c->to_peer.len ? EPOLLOUT : 0));
	arm_side(cs, &c->lib, lib_want);
}

static int add_side(struct gate_conns *cs, struct gate_side *s, int fd,
		    uint32_t want)
{
	struct epoll_event ev = {.events = want, .data.ptr = s};

	s->fd = fd;
	s->armed = want;
	return epoll_ctl(cs->epfd, EPOLL_CTL_ADD, fd, &ev);
}

static void close_side(struct gate_conns *cs, struct gate_side *s)
{
	if (s->fd < 0)
		return;
	epoll_ctl(cs->epfd, EPOLL_CTL_DEL, s->fd, NULL);
	close(s->fd);
	s->fd = -1;
}

/*
 * Close a connection. Its memory goes when the batch of epoll events in
 * hand is done (gate_conns_reap): the batch may still name its sockets.
 */
static void conn_free(struct gate_conns *cs, struct gate_conn *c)
{
	if (c->st == GATE_HANDOFF) {
		pthread_mutex_lock(&cs->lock);
		if ((*c->ho_pprev = c->ho_next))
			c->ho_next->ho_pprev = c->ho_pprev;
		pthread_mutex_unlock(&cs->lock);
	}
	close_side(cs, &c->peer);
	close_side(cs, &c->lib);
	set_deadline(cs, c, 0);
	if ((*c->pprev = c->next))
		c->next->pprev = c->pprev;
	cs->n--;
	if (c->peer_uid != cs->job_uid)
		cs->n_other--;
	c->closed = true;
	c->next = cs->closed;
	cs->closed = c;
}

void gate_conns_reap(struct gate_conns *cs)
{
	struct gate_conn *c;

	while ((c = cs->closed)) {
		cs->closed = c->next;
		free(c->hello);
		free(c->to_peer.buf);
		free(c->to_lib.buf);
		free(c);
	}
}

void gate_conns_add(struct gate_conns *cs, int fd, uid_t peer_uid,
		    const char *peer)
{
	struct gate_conn *c = calloc(1, sizeof(*c));
	int one = 1;

	if (!c) {
		PMIXEV_ERROR("pmix gate: out of memory: closing a PMIx "
			     "connection from %s",
			     peer);
		close(fd);
		return;
	}
	c->peer.c = c->lib.c = c;
	c->lib.fd = -1;
	c->st = GATE_HELLO;
	c->peer_uid = peer_uid;
	c->need = PMIXEV_HELLO_HDR;
	snprintf(c->name, sizeof(c->name), "%s", peer);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (add_side(cs, &c->peer, fd, EPOLLIN) < 0) {
		PMIXEV_ERROR("pmix gate: cannot watch a PMIx connection from "
			     "%s: %m",
			     peer);
		close(fd);
		free(c);
		return;
	}
	if ((c->next = cs->head))
		c->next->pprev = &c->next;
	c->pprev = &cs->head;
	cs->head = c;
	cs->n++;
	if (peer_uid != cs->job_uid)
		cs->n_other++;
	set_deadline(cs, c, now_ms() + HELLO_MS);
}

/*
 * The connection to the library is up: a tool's is relayed; a client's
 * waits, its socket unwatched, for the library to take it over
 * (gate_handoff.h).
 */
static void start_pipe(struct gate_conns *cs, struct gate_conn *c)
{
	set_deadline(cs, c, 0);
	if (!c->client) {
		c->st = GATE_PIPE;
		arm(cs, c);
		return;
	}
	pthread_mutex_lock(&cs->lock);
	c->st = GATE_HANDOFF;
	if ((c->ho_next = cs->handoff))
		c->ho_next->ho_pprev = &c->ho_next;
	c->ho_pprev = &cs->handoff;
	cs->handoff = c;
	pthread_mutex_unlock(&cs->lock);
	epoll_ctl(cs->epfd, EPOLL_CTL_DEL, c->peer.fd, NULL);
	c->peer.armed = 0;
	arm(cs, c);
}

void gate_conns_resume(struct gate_conns *cs)
{
	struct gate_conn *back = NULL, *c, **pp;

	pthread_mutex_lock(&cs->lock);
	for (pp = &cs->handoff; (c = *pp);) {
		if (!c->resume) {
			pp = &c->ho_next;
			continue;
		}
		if ((*pp = c->ho_next))
			c->ho_next->ho_pprev = pp;
		c->st = GATE_PIPE;
		c->ho_next = back;
		back = c;
	}
	pthread_mutex_unlock(&cs->lock);
	while ((c = back)) {
		back = c->ho_next;
		atomic_fetch_add(&cs->relayed_clients, 1);
		PMIXEV_DEBUG(1,
			     "pmix gate: relaying the client connection "
			     "from %s (no hand-off)",
			     c->name);
		if (add_side(cs, &c->peer, c->peer.fd, 0) < 0) {
			conn_free(cs, c);
			continue;
		}
		c->peer.armed = 0;
		arm(cs, c);
	}
}

/* Open the connection to the library and queue the hello for it. */
static void to_library(struct gate_conns *cs, struct gate_conn *c)
{
	uint16_t port = atomic_load(&cs->lib_port);
	struct sockaddr_in sin = {.sin_family = AF_INET,
				  .sin_port = htons(port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	int fd, one = 1;

	if (!port ||
	    (fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			 0)) < 0) {
		PMIXEV_ERROR("pmix gate: cannot pass a PMIx connection from %s "
			     "on: %s",
			     c->name,
			     port ? strerror(errno) : "the server is not up");
		cs->unreachable++;
		conn_free(cs, c);
		return;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	c->to_lib = (struct gate_pending){c->hello, c->need, 0};
	c->hello = NULL;
	/* Else the first write says why it failed. */
	c->st = connect(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0 &&
				errno == EINPROGRESS
			? GATE_CONNECTING
			: GATE_PIPE;
	if (add_side(cs, &c->lib, fd, 0) < 0) {
		close(fd);
		c->lib.fd = -1;
		cs->unreachable++;
		conn_free(cs, c);
		return;
	}
	if (c->st == GATE_PIPE)
		start_pipe(cs, c);
	else
		arm(cs, c);
}

/* The whole hello is in: pass it on or refuse it. */
static void judge(struct gate_conns *cs, struct gate_conn *c)
{
	struct pmixev_hello h;
	const char *why = NULL, *stores = atomic_load(&cs->stores);

	if (pmixev_hello_parse(c->hello + PMIXEV_HELLO_HDR,
			       c->need - PMIXEV_HELLO_HDR, &h, &why) == 0 &&
	    pmixev_hello_check(&h, atomic_load(&cs->major),
			       stores ? stores : "hash", cs->job_uid,
			       cs->job_gid, c->peer_uid, &why) == 0) {
		PMIXEV_DEBUG(2, "pmix gate: %s from %s (uid %u): passed on",
			     h.type == PMIXEV_HELLO_CLIENT ? "client" : "tool",
			     c->name, (unsigned)c->peer_uid);
		c->client = h.type == PMIXEV_HELLO_CLIENT;
		c->rank = h.rank;
		to_library(cs, c);
		return;
	}
	gate_tally_refused(cs->tally, c->peer_uid, c->name,
			   "uid %u: its hello has %s", (unsigned)c->peer_uid,
			   why);
	cs->bad_hellos++;
	conn_free(cs, c);
}

static void read_hello(struct gate_conns *cs, struct gate_conn *c)
{
	uint8_t *at = c->hello ? c->hello : c->hdr;
	ssize_t n = read(c->peer.fd, at + c->got, c->need - c->got);
	long body;

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		PMIXEV_DEBUG(1,
			     "pmix gate: a PMIx connection from %s ended "
			     "before its hello",
			     c->name);
		cs->unfinished++;
		conn_free(cs, c);
		return;
	}
	if ((c->got += (size_t)n) < c->need)
		return;
	if (c->hello) {
		judge(cs, c);
		return;
	}
	if ((body = pmixev_hello_body_len(c->hdr)) < 0 ||
	    !(c->hello = malloc(PMIXEV_HELLO_HDR + (size_t)body))) {
		gate_tally_refused(cs->tally, c->peer_uid, c->name,
				   "uid %u: its hello announces more than %d "
				   "bytes",
				   (unsigned)c->peer_uid, PMIXEV_HELLO_MAX);
		cs->bad_hellos++;
		conn_free(cs, c);
		return;
	}
	memcpy(c->hello, c->hdr, PMIXEV_HELLO_HDR);
	c->need = PMIXEV_HELLO_HDR + (size_t)body;
	if (body == 0)
		judge(cs, c);
}

/* One side is closed or failed. */
static void side_gone(struct gate_conns *cs, struct gate_conn *c, bool lib_side)
{
	if (lib_side || c->st != GATE_PIPE || c->lib_bytes >= ANSWER_BYTES) {
		PMIXEV_DEBUG(2,
			     "pmix gate: the PMIx connection from %s ended "
			     "(%s side)",
			     c->name, lib_side ? "server" : "peer");
		conn_free(cs, c);
		return;
	}
	/* The library is still at the hello: closing now could fail its
	 * answer, the very failure it mishandles. */
	PMIXEV_DEBUG(1,
		     "pmix gate: the peer at %s left during its "
		     "handshake; taking the server's answer for it",
		     c->name);
	close_side(cs, &c->peer);
	free(c->to_peer.buf);
	c->to_peer = (struct gate_pending){NULL, 0, 0};
	c->st = GATE_DRAIN;
	set_deadline(cs, c, now_ms() + DRAIN_MS);
	arm(cs, c);
}

/* Write what is pending for side `s`; false if the side failed. */
static bool flush(struct gate_side *s, struct gate_pending *p)
{
	while (p->off < p->len) {
		ssize_t n = send(s->fd, p->buf + p->off, p->len - p->off,
				 MSG_NOSIGNAL);

		if (n < 0)
			return errno == EAGAIN || errno == EINTR;
		p->off += (size_t)n;
	}
	free(p->buf);
	*p = (struct gate_pending){NULL, 0, 0};
	return true;
}

/* Read what side `from` has and give it to the other side. */
static void pump(struct gate_conns *cs, struct gate_conn *c, bool from_lib)
{
	static uint8_t buf[64 * 1024]; /* gate thread only */
	struct gate_side *src = from_lib ? &c->lib : &c->peer,
			 *dst = from_lib ? &c->peer : &c->lib;
	struct gate_pending *p = from_lib ? &c->to_peer : &c->to_lib;
	ssize_t n = read(src->fd, buf, sizeof(buf)), w;

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		side_gone(cs, c, from_lib);
		return;
	}
	if (from_lib && (c->lib_bytes += (uint64_t)n) >= ANSWER_BYTES &&
	    c->st == GATE_DRAIN)
		c->quiet = now_ms() + QUIET_MS;
	if (c->st == GATE_DRAIN)
		return;
	w = send(dst->fd, buf, (size_t)n, MSG_NOSIGNAL);
	if (w < 0 && errno != EAGAIN && errno != EINTR) {
		side_gone(cs, c, !from_lib);
		return;
	}
	if (w < 0)
		w = 0;
	if (w < n) {
		if (!(p->buf = malloc((size_t)(n - w)))) {
			PMIXEV_ERROR("pmix gate: out of memory: closing the "
				     "PMIx connection from %s",
				     c->name);
			conn_free(cs, c);
			return;
		}
		memcpy(p->buf, buf + w, (size_t)(n - w));
		p->len = (size_t)(n - w);
		p->off = 0;
	}
	arm(cs, c);
}

static void connected(struct gate_conns *cs, struct gate_conn *c)
{
	int err = 0;
	socklen_t len = sizeof(err);

	if (getsockopt(c->lib.fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
		err = errno;
	if (err) {
		PMIXEV_ERROR("pmix gate: cannot reach the PMIx server for the "
			     "connection from %s: %s",
			     c->name, strerror(err));
		cs->unreachable++;
		conn_free(cs, c);
		return;
	}
	start_pipe(cs, c);
}

/* A client's connection waiting for the hand-off: write its hello (under
 * the lock: the hand-off reads to_lib), or the library closed it. */
static void handoff_event(struct gate_conns *cs, struct gate_conn *c,
			  uint32_t events)
{
	bool ok = true, handed;

	if ((events & EPOLLOUT) && c->to_lib.len) {
		pthread_mutex_lock(&cs->lock);
		ok = flush(&c->lib, &c->to_lib);
		pthread_mutex_unlock(&cs->lock);
		arm(cs, c);
	}
	if (ok && !(events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR)))
		return;
	pthread_mutex_lock(&cs->lock);
	handed = c->handed;
	pthread_mutex_unlock(&cs->lock);
	if (handed)
		atomic_fetch_add(&cs->handed, 1);
	PMIXEV_DEBUG(2, "pmix gate: the client connection from %s %s", c->name,
		     handed ? "is the server's now"
			    : "was closed by the server during its handshake");
	conn_free(cs, c);
}

void gate_conns_event(struct gate_conns *cs, void *ptr, uint32_t events)
{
	struct gate_side *s = ptr;
	struct gate_conn *c = s->c;
	bool lib = s == &c->lib;
	struct gate_pending *out = lib ? &c->to_lib : &c->to_peer;

	if (c->closed)
		return;
	if (c->st == GATE_HANDOFF) {
		if (lib)
			handoff_event(cs, c, events);
		return;
	}
	if (lib && c->st == GATE_CONNECTING) {
		connected(cs, c);
		return;
	}
	if (c->st == GATE_HELLO) {
		read_hello(cs, c);
		return;
	}
	if ((events & EPOLLOUT) && out->len) {
		if (!flush(s, out)) {
			side_gone(cs, c, lib);
			return;
		}
		arm(cs, c);
	}
	if ((events & (EPOLLIN | EPOLLHUP | EPOLLERR)) && (s->armed & EPOLLIN))
		pump(cs, c, lib);
	else if (events & (EPOLLHUP | EPOLLERR) && !out->len)
		side_gone(cs, c, lib);
}

int gate_conns_wait_ms(struct gate_conns *cs)
{
	int64_t next = 0, now;

	if (!cs->timed)
		return -1;
	for (struct gate_conn *c = cs->head; c; c = c->next) {
		int64_t t = c->quiet && (!c->deadline || c->quiet < c->deadline)
				    ? c->quiet
				    : c->deadline;

		if (t && (!next || t < next))
			next = t;
	}
	now = now_ms();
	return !next ? -1 : next <= now ? 0 : (int)(next - now);
}

void gate_conns_expire(struct gate_conns *cs)
{
	int64_t now = now_ms();
	struct gate_conn *c, *next;

	for (c = cs->head; cs->timed && c; c = next) {
		next = c->next;
		if (c->st == GATE_DRAIN && c->quiet && now >= c->quiet) {
			conn_free(cs, c);
		} else if (c->deadline && now >= c->deadline) {
			gate_tally_refused(
				cs->tally, c->peer_uid, c->name,
				"uid %u: %s within %d s", (unsigned)c->peer_uid,
				c->st == GATE_HELLO   ? "no whole hello"
				: c->st == GATE_DRAIN ? "no answer from the "
							"server"
						      : "no connection to the "
							"server",
				(c->st == GATE_DRAIN ? DRAIN_MS : HELLO_MS) /
					1000);
			if (c->st == GATE_HELLO)
				cs->unfinished++;
			conn_free(cs, c);
		}
	}
}

void gate_conns_close_all(struct gate_conns *cs)
{
	while (cs->head)
		conn_free(cs, cs->head);
	gate_conns_reap(cs);
}
