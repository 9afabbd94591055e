/*
 * pmixd/chan.c - one end of the pmixd channel (see chan.h), on its owner's
 * event base.
 *
 * Frames are read straight into one contiguous buffer, grown to hold the
 * frame in transit (at most PMIXEV_PMIXD_FRAME_MAX plus a header), and
 * handed to their handler from there: a body is never copied on the way
 * in. Frames sent are queued by reference (the bytes packed by the
 * sender) and written with MSG_NOSIGNAL (a peer gone must end the
 * channel, not slurmstepd): answers at once, events together at the end
 * of the owner's loop pass or when the kicked owner runs, so that a burst
 * of them costs one write here and one read on the other end.
 */
#include "config.h"

#include "pmixd/chan.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <event2/buffer.h>

#define RX_CHUNK     (256u << 10) /* read at least this much at a time */
#define IOV_MAX_SEND 16

struct handler {
	chan_frame_fn fn;
	void *ctx;
};

struct chan {
	pthread_mutex_t tx; /* fd (for writes and the close), out, kick */
	int fd;
	enum pmixev_pmixd_side peer;
	struct event *rd, *wr;
	struct evbuffer *out; /* frames not yet written */
	size_t max_out;	      /* bytes `out` may hold, 0: no bound */
	int tx_err;	      /* a write error another thread met, or 0 */
	bool kicked;	      /* the owner is asked to write or close */
	chan_kick_fn kick;
	void *kick_ctx;
	uint8_t *rx; /* bytes read, not yet handled */
	size_t rx_len, rx_cap;
	chan_close_fn on_close;
	void *ctx;
	struct handler on[PMIXEV_PMIXD_TYPE_MAX + 1];
	char why[64]; /* a close's reason made here */
};

int chan_socketpair(int fds[2])
{
	return socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			  0, fds);
}

/* Stop reading and writing for good; the close callback runs once. */
static void close_with(struct chan *l, const char *why)
{
	if (l->fd < 0)
		return;
	event_del(l->rd);
	event_del(l->wr);
	pthread_mutex_lock(&l->tx);
	close(l->fd);
	l->fd = -1;
	evbuffer_drain(l->out, evbuffer_get_length(l->out));
	pthread_mutex_unlock(&l->tx);
	if (l->on_close)
		l->on_close(l->ctx, why);
}

/*
 * Under tx: write what the socket takes. 1 when bytes are left (the
 * socket is full), 0 when all are written, -1 on a socket error (the
 * queue is dropped, errno set: the channel is dead).
 */
static int write_out(struct chan *l)
{
	struct evbuffer_iovec v[IOV_MAX_SEND];
	struct msghdr mh = {0};
	ssize_t w;
	int n;

	while (evbuffer_get_length(l->out)) {
		n = evbuffer_peek(l->out, -1, NULL, v, IOV_MAX_SEND);
		mh.msg_iov = (struct iovec *)v; /* same layout (libevent) */
		mh.msg_iovlen = (size_t)(n < IOV_MAX_SEND ? n : IOV_MAX_SEND);
		w = sendmsg(l->fd, &mh, MSG_NOSIGNAL);
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 1;
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			int err = errno;

			evbuffer_drain(l->out, evbuffer_get_length(l->out));
			errno = err;
			return -1;
		}
		evbuffer_drain(l->out, (size_t)w);
	}
	return 0;
}

/*
 * Owner's thread: write what is queued, wait for room for the rest, close
 * on an error (also one another thread met).
 */
static void flush_owner(struct chan *l)
{
	int rc, err;

	pthread_mutex_lock(&l->tx);
	l->kicked = false;
	rc = l->fd < 0 ? 0 : l->tx_err ? -1 : write_out(l);
	err = l->tx_err ? l->tx_err : errno;
	pthread_mutex_unlock(&l->tx);
	if (rc < 0)
		close_with(l, strerror(err));
	else if (rc > 0)
		event_add(l->wr, NULL);
	else if (l->fd >= 0)
		event_del(l->wr);
}

static void on_writable(evutil_socket_t fd, short what, void *arg)
{
	flush_owner(arg);
}

/* Room for `need` bytes in the receive buffer. */
static int rx_reserve(struct chan *l, size_t need)
{
	uint8_t *p;

	if (need <= l->rx_cap)
		return 0;
	if (!(p = realloc(l->rx, need)))
		return -1;
	l->rx = p;
	l->rx_cap = need;
	return 0;
}

/*
 * Hand every whole frame at the buffer's start to its handler; keep the
 * rest. 0, or -1 once the channel closed.
 */
static int handle_frames(struct chan *l)
{
	size_t off = 0;
	const char *why = NULL;

	while (l->rx_len - off >= PMIXEV_PMIXD_HDR_LEN) {
		struct pmixev_buf body;
		uint8_t type;
		uint32_t len;

		if (pmixev_pmixd_hdr_decode(l->rx + off, l->rx_len - off,
					    PMIXEV_PMIXD_FRAME_MAX, l->peer,
					    &type, &len, &why) < 0)
			break;
		if (l->rx_len - off - PMIXEV_PMIXD_HDR_LEN < len) {
			if (rx_reserve(l, PMIXEV_PMIXD_HDR_LEN + len) < 0)
				why = "out of memory for a frame";
			break;
		}
		if (!l->on[type].fn) {
			why = "a message type this side does not serve";
			break;
		}
		pmixev_buf_reader(&body, l->rx + off + PMIXEV_PMIXD_HDR_LEN,
				  len);
		if (l->on[type].fn(l->on[type].ctx, &body) < 0) {
			snprintf(l->why, sizeof(l->why),
				 "a malformed %s message",
				 pmixev_pmixd_type_name(type));
			why = l->why;
			break;
		}
		if (l->fd < 0)
			return -1;
		off += PMIXEV_PMIXD_HDR_LEN + len;
	}
	if (why) {
		close_with(l, why);
		return -1;
	}
	memmove(l->rx, l->rx + off, l->rx_len - off);
	l->rx_len -= off;
	return 0;
}

static void on_readable(evutil_socket_t fd, short what, void *arg)
{
	struct chan *l = arg;
	ssize_t n;

	if (rx_reserve(l, l->rx_len + RX_CHUNK) < 0) {
		close_with(l, "out of memory for a frame");
		return;
	}
	n = read(l->fd, l->rx + l->rx_len, l->rx_cap - l->rx_len);
	if (n < 0 &&
	    (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return;
	if (n <= 0) {
		close_with(l, n ? strerror(errno) : "closed by the peer");
		return;
	}
	l->rx_len += (size_t)n;
	if (handle_frames(l) < 0)
		return;
	/* A large frame is handled: do not keep its room. */
	if (l->rx_cap > 4 * RX_CHUNK && l->rx_len <= RX_CHUNK) {
		uint8_t *p = realloc(l->rx, RX_CHUNK);

		if (p) {
			l->rx = p;
			l->rx_cap = RX_CHUNK;
		}
	}
}

struct chan *chan_create(struct event_base *base, int fd,
			 enum pmixev_pmixd_side peer, chan_close_fn on_close,
			 void *ctx)
{
	struct chan *l = calloc(1, sizeof(*l));

	if (!l) {
		close(fd);
		return NULL;
	}
	pthread_mutex_init(&l->tx, NULL);
	l->fd = fd;
	l->peer = peer;
	l->on_close = on_close;
	l->ctx = ctx;
	if (!(l->out = evbuffer_new()) ||
	    !(l->rd = event_new(base, fd, EV_READ | EV_PERSIST, on_readable,
				l)) ||
	    !(l->wr = event_new(base, fd, EV_WRITE, on_writable, l)) ||
	    event_add(l->rd, NULL) < 0) {
		chan_destroy(l);
		return NULL;
	}
	return l;
}

void chan_on(struct chan *l, uint8_t type, chan_frame_fn fn, void *ctx)
{
	if (type <= PMIXEV_PMIXD_TYPE_MAX) {
		l->on[type].fn = fn;
		l->on[type].ctx = ctx;
	}
}

void chan_frame_begin(struct pmixev_buf *b)
{
	static const uint8_t room[PMIXEV_PMIXD_HDR_LEN];

	pmixev_buf_put_raw(b, room, sizeof(room));
}

static void free_frame(const void *data, size_t len, void *arg)
{
	free((void *)data);
}

void chan_set_max_queued(struct chan *l, size_t bytes)
{
	pthread_mutex_lock(&l->tx);
	l->max_out = bytes;
	pthread_mutex_unlock(&l->tx);
}

void chan_set_kick(struct chan *l, chan_kick_fn kick, void *ctx)
{
	l->kick = kick;
	l->kick_ctx = ctx;
}

void chan_kick(struct chan *l)
{
	flush_owner(l);
}

/*
 * Under tx: queue the frame in `b` (taken), by reference. 0; -2 when it
 * is refused: the channel is closed, the frame is bad or there is no
 * memory for it; -3 (errno ENOBUFS) when it is `bounded` and more than
 * max_out would wait (one frame always fits). *idle: nothing waited
 * before it.
 */
static int queue_frame(struct chan *l, uint8_t type, struct pmixev_buf *b,
		       bool bounded, bool *idle)
{
	size_t len = b->len;
	uint8_t *data;

	if (l->fd < 0 || l->tx_err || !pmixev_buf_ok(b) ||
	    len < PMIXEV_PMIXD_HDR_LEN ||
	    len - PMIXEV_PMIXD_HDR_LEN > PMIXEV_PMIXD_FRAME_MAX) {
		pmixev_buf_release(b);
		return -2;
	}
	*idle = !evbuffer_get_length(l->out);
	if (bounded && l->max_out && !*idle &&
	    evbuffer_get_length(l->out) + len > l->max_out) {
		pmixev_buf_release(b);
		errno = ENOBUFS;
		return -3;
	}
	data = pmixev_buf_steal(b, &len);
	pmixev_pmixd_hdr_encode(type, (uint32_t)(len - PMIXEV_PMIXD_HDR_LEN),
				data);
	if (evbuffer_add_reference(l->out, data, len, free_frame, NULL) < 0) {
		free(data);
		return -2;
	}
	return 0;
}

/*
 * chan_send (`later` false: everything queued is written now, this frame
 * last) or chan_send_bounded (`later`: written when this pass of the
 * owner's loop ends, with the frames queued after it).
 */
static int send_owner(struct chan *l, uint8_t type, struct pmixev_buf *b,
		      bool later)
{
	bool idle = false;
	int rc;

	pthread_mutex_lock(&l->tx);
	rc = queue_frame(l, type, b, later, &idle);
	if (rc == 0 && !later)
		rc = write_out(l);
	if (rc == -1)
		l->tx_err = errno;
	pthread_mutex_unlock(&l->tx);
	/* A socket error closes from the loop, never under the caller: the
	 * close callback ends requests the caller may be in the middle of
	 * (a fence answering its caller). */
	if (rc == -1 || (rc == 0 && later && idle))
		event_active(l->wr, EV_WRITE, 0);
	else if (rc > 0)
		event_add(l->wr, NULL);
	if (rc == -3)
		errno = ENOBUFS;
	return rc < 0 ? -1 : 0;
}

int chan_send(struct chan *l, uint8_t type, struct pmixev_buf *b)
{
	return send_owner(l, type, b, false);
}

int chan_send_bounded(struct chan *l, uint8_t type, struct pmixev_buf *b)
{
	return send_owner(l, type, b, true);
}

/*
 * chan_send_any (`now`: written at once when nothing waits; behind older
 * bytes, by whoever writes those) or chan_post_any (never written here).
 * The owner is kicked when bytes are left and it was not yet.
 */
static int send_any(struct chan *l, uint8_t type, struct pmixev_buf *b,
		    bool now)
{
	bool idle = false, kick = false;
	int rc;

	pthread_mutex_lock(&l->tx);
	rc = queue_frame(l, type, b, false, &idle);
	if (rc == 0)
		rc = now && idle ? write_out(l) : 1;
	if (rc == -1)
		l->tx_err = errno;
	if ((rc > 0 || l->tx_err) && l->fd >= 0 && !l->kicked)
		kick = l->kicked = true;
	pthread_mutex_unlock(&l->tx);
	if (kick)
		l->kick(l->kick_ctx);
	return rc < 0 ? -1 : 0;
}

int chan_send_any(struct chan *l, uint8_t type, struct pmixev_buf *b)
{
	return send_any(l, type, b, true);
}

int chan_post_any(struct chan *l, uint8_t type, struct pmixev_buf *b)
{
	return send_any(l, type, b, false);
}

int chan_send_data(struct chan *l, uint8_t type,
		   const struct pmixev_pmixd_data *m)
{
	struct pmixev_buf b;

	pmixev_buf_init(&b);
	chan_frame_begin(&b);
	if (pmixev_pmixd_data_pack(&b, m) < 0) {
		pmixev_buf_release(&b);
		return -1;
	}
	return chan_send(l, type, &b);
}

/* Wait at most `ms` for `events` on `fd`. 0, or -1 with errno. */
static int wait_for(int fd, short events, int ms)
{
	struct pollfd pfd = {.fd = fd, .events = events};
	int rc;

	while ((rc = poll(&pfd, 1, ms)) < 0 && errno == EINTR)
		;
	if (rc == 0)
		errno = ETIMEDOUT;
	return rc > 0 ? 0 : -1;
}

int chan_write_frame(int fd, uint8_t type, struct pmixev_buf *b, int ms)
{
	size_t off = 0;

	if (!pmixev_buf_ok(b) || b->len < PMIXEV_PMIXD_HDR_LEN ||
	    b->len - PMIXEV_PMIXD_HDR_LEN > PMIXEV_PMIXD_FRAME_MAX) {
		errno = EINVAL;
		return -1;
	}
	pmixev_pmixd_hdr_encode(type, (uint32_t)(b->len - PMIXEV_PMIXD_HDR_LEN),
				b->data);
	while (off < b->len) {
		ssize_t w = send(fd, b->data + off, b->len - off, MSG_NOSIGNAL);

		if (w > 0)
			off += (size_t)w;
		else if (w < 0 && errno != EAGAIN && errno != EINTR)
			return -1;
		else if (w < 0 && errno == EAGAIN &&
			 wait_for(fd, POLLOUT, ms) < 0)
			return -1;
	}
	return 0;
}

/* Read exactly `n` bytes within `ms` each wait. 0, or -1 with errno. */
static int read_all(int fd, uint8_t *p, size_t n, int ms)
{
	while (n) {
		ssize_t got = read(fd, p, n);

		if (got > 0) {
			p += got;
			n -= (size_t)got;
		} else if (got == 0) {
			errno = EPIPE;
			return -1;
		} else if (errno != EAGAIN && errno != EINTR) {
			return -1;
		} else if (errno == EAGAIN && wait_for(fd, POLLIN, ms) < 0) {
			return -1;
		}
	}
	return 0;
}

int chan_read_frame(int fd, enum pmixev_pmixd_side peer, int ms, uint8_t *type,
		    uint8_t **body, uint32_t *len, const char **why)
{
	uint8_t hdr[PMIXEV_PMIXD_HDR_LEN];

	*body = NULL;
	*why = NULL;
	if (read_all(fd, hdr, sizeof(hdr), ms) < 0)
		return -1;
	if (pmixev_pmixd_hdr_decode(hdr, sizeof(hdr), PMIXEV_PMIXD_FRAME_MAX,
				    peer, type, len, why) != 1) {
		errno = EPROTO;
		return -1;
	}
	if (!(*body = malloc(*len ? *len : 1)))
		return -1;
	if (read_all(fd, *body, *len, ms) < 0) {
		int err = errno;

		free(*body);
		*body = NULL;
		errno = err;
		return -1;
	}
	return 0;
}

bool chan_peer_gone(struct chan *l)
{
	struct pollfd pfd = {.events = POLLRDHUP};
	bool gone;

	pthread_mutex_lock(&l->tx);
	pfd.fd = l->fd;
	gone = l->fd < 0 || l->tx_err ||
	       (poll(&pfd, 1, 0) == 1 && (pfd.revents & (POLLRDHUP | POLLHUP)));
	pthread_mutex_unlock(&l->tx);
	return gone;
}

bool chan_is_open(struct chan *l)
{
	bool open;

	pthread_mutex_lock(&l->tx);
	open = l->fd >= 0 && !l->tx_err;
	pthread_mutex_unlock(&l->tx);
	return open;
}

void chan_destroy(struct chan *l)
{
	if (!l)
		return;
	l->on_close = NULL;
	if (l->fd >= 0) {
		close(l->fd);
		l->fd = -1;
	}
	if (l->rd)
		event_free(l->rd);
	if (l->wr)
		event_free(l->wr);
	if (l->out)
		evbuffer_free(l->out);
	free(l->rx);
	pthread_mutex_destroy(&l->tx);
	free(l);
}
