/*
 * ownerhelper/helper_write.c - the owner helper's writer channel, stepd
 * side (see the header).
 */
#include "config.h"

#include "ownerhelper/helper_write.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/event.h>

#include "base/agent.h"
#include "pmixev_log.h"
#include "pmixev_owner_write.h"

#define IN_FLIGHT_MAX 256  /* as many as PMIx_Log requests at once */
#define GRACE_MS      2000 /* past the helper's deadline: it is stuck */

struct pending {
	uint32_t id; /* 0: free */
	helper_write_fn fn;
	void *arg;
	struct event *late;
};

struct helper_write {
	struct agent *agent;
	int fd;
	struct event *ev;
	uint32_t next_id;
	struct pending slot[IN_FLIGHT_MAX];
};

static void finish(struct pending *p, int err, size_t done)
{
	helper_write_fn fn = p->fn;

	p->id = 0;
	p->fn = NULL;
	if (p->late)
		evtimer_del(p->late);
	if (fn)
		fn(p->arg, err, done);
}

static void on_late(evutil_socket_t fd, short what, void *arg)
{
	finish(arg, ETIMEDOUT, 0);
}

static void on_readable(evutil_socket_t fd, short what, void *arg)
{
	struct helper_write *w = arg;
	struct pmixev_owner_written r;
	uint8_t in[64];
	struct pmixev_buf b;
	ssize_t n = recv(fd, in, sizeof(in), MSG_DONTWAIT);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		/* The helper is gone: its writes will not be answered. */
		event_del(w->ev);
		for (size_t i = 0; i < IN_FLIGHT_MAX; i++)
			if (w->slot[i].id)
				finish(&w->slot[i], EPIPE, 0);
		return;
	}
	pmixev_buf_reader(&b, in, (size_t)n);
	if (pmixev_owner_written_unpack(&b, &r) < 0) {
		PMIXEV_ERROR("owner helper: malformed answer on its writer "
			     "channel: ignored");
		return;
	}
	/* A late answer finds its slot taken over or free: ignored. */
	for (size_t i = 0; i < IN_FLIGHT_MAX; i++)
		if (w->slot[i].id == r.id && r.id) {
			finish(&w->slot[i], r.err, r.done);
			return;
		}
}

struct helper_write *helper_write_create(struct agent *a, int fd)
{
	struct helper_write *w = calloc(1, sizeof(*w));

	if (!w)
		goto fail;
	w->agent = a;
	w->fd = fd;
	w->ev = event_new(agent_base(a), fd, EV_READ | EV_PERSIST, on_readable,
			  w);
	if (!w->ev || event_add(w->ev, NULL) < 0)
		goto fail;
	return w;
fail:
	if (w && w->ev)
		event_free(w->ev);
	free(w);
	close(fd);
	return NULL;
}

/* Send request `m` with descriptor `fd` attached: 0, or -1 with errno. */
static int send_with_fd(int chan, const struct pmixev_owner_write *m, int fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct pmixev_buf b;
	struct iovec io;
	struct msghdr mh = {.msg_iov = &io,
			    .msg_iovlen = 1,
			    .msg_control = ctl.buf,
			    .msg_controllen = sizeof(ctl.buf)};
	struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
	ssize_t sent = -1;

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	pmixev_buf_init(&b);
	if (pmixev_owner_write_pack(&b, m) == 0) {
		io.iov_base = b.data;
		io.iov_len = b.len;
		sent = sendmsg(chan, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
	} else {
		errno = EINVAL;
	}
	pmixev_buf_release(&b);
	return sent < 0 ? -1 : 0;
}

int helper_write_send(struct helper_write *w, int fd, const char *p, size_t n,
		      unsigned timeout_ms, helper_write_fn fn, void *arg)
{
	struct timeval late = {(timeout_ms + GRACE_MS) / 1000,
			       (timeout_ms + GRACE_MS) % 1000 * 1000};
	struct pmixev_owner_write m = {
		.timeout_ms = timeout_ms, .data = (const uint8_t *)p, .len = n};
	struct pending *s = NULL;

	for (size_t i = 0; i < IN_FLIGHT_MAX && !s; i++)
		if (!w->slot[i].id)
			s = &w->slot[i];
	if (!s) {
		errno = EAGAIN;
		return -1;
	}
	if (!s->late &&
	    !(s->late = evtimer_new(agent_base(w->agent), on_late, s))) {
		errno = ENOMEM;
		return -1;
	}
	m.id = ++w->next_id ? w->next_id : ++w->next_id;
	if (send_with_fd(w->fd, &m, fd) < 0)
		return -1;
	s->id = m.id;
	s->fn = fn;
	s->arg = arg;
	evtimer_add(s->late, &late);
	return 0;
}

void helper_write_destroy(struct helper_write *w, int err)
{
	if (!w)
		return;
	for (size_t i = 0; i < IN_FLIGHT_MAX; i++) {
		if (w->slot[i].id && !err)
			w->slot[i].fn = NULL;
		if (w->slot[i].id)
			finish(&w->slot[i], err, 0);
		if (w->slot[i].late)
			event_free(w->slot[i].late);
	}
	event_free(w->ev);
	close(w->fd);
	free(w);
}
