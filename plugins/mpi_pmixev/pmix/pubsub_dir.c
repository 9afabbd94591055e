/*
 * pmix/pubsub_dir.c - the step's publish/lookup directory, held by node 0.
 */
#include "config.h"

#include "pmix/pubsub_dir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmixev_buf.h"
#include "pmixev_frame.h"
#include "pmixev_log.h"

#define MAX_ENTRIES 1024 /* keys in one request */
#define GRACE_SEC   5	 /* requester waits this much longer than the root */

struct req {
	uint64_t id;
	uint8_t op;
	uint32_t rank;
	uint8_t wait;
	uint32_t timeout;
	size_t n;
	struct pubsub_entry *e; /* values point into the message */
};

struct pending {
	struct pubsub *ps;
	uint64_t id;
	pubsub_done_fn done;
	void *arg;
	struct event *timer;
	struct pending *next;
};

struct published {
	struct pubsub_entry e; /* value owned */
	struct published *next;
};

struct waiter {
	struct pubsub *ps;
	uint32_t src;
	uint64_t id;
	size_t n;
	struct pubsub_entry *keys; /* keys only */
	struct event *timer;
	struct waiter *next;
};

struct pubsub {
	struct overlay *ov;
	struct agent *agent;
	const struct layout *lay;
	unsigned timeout_sec;
	uint64_t next_id;
	struct pending *pending;
	struct published *dir;
	size_t held, max_bytes; /* keys and values in dir, and the bound */
	struct waiter *waiters;
};

/* --- wire format ------------------------------------------------------ */

static int pack_entries(struct pmixev_buf *b, const struct pubsub_entry *e,
			size_t n, bool values)
{
	pmixev_buf_put_u32(b, (uint32_t)n);
	for (size_t i = 0; i < n; i++) {
		pmixev_buf_put_str(b, e[i].key);
		pmixev_buf_put_u32(b, e[i].rank);
		if (values)
			pmixev_buf_put_bytes(b, e[i].value, e[i].nvalue);
	}
	return pmixev_buf_ok(b) ? 0 : -1;
}

static int unpack_entries(struct pmixev_buf *b, struct pubsub_entry **out,
			  size_t *n, bool values)
{
	uint32_t count = 0;
	struct pubsub_entry *e;

	if (pmixev_buf_get_u32(b, &count) < 0 || count > MAX_ENTRIES ||
	    count > pmixev_buf_remaining(b))
		return -1;
	if (!(e = calloc(count ? count : 1, sizeof(*e))))
		return -1;
	for (uint32_t i = 0; i < count; i++) {
		const uint8_t *v = NULL;

		pmixev_buf_get_str(b, e[i].key, sizeof(e[i].key));
		pmixev_buf_get_u32(b, &e[i].rank);
		if (values && pmixev_buf_get_bytes(b, &v, &e[i].nvalue) == 0)
			e[i].value = (uint8_t *)v;
	}
	if (!pmixev_buf_ok(b)) {
		free(e);
		return -1;
	}
	*out = e;
	*n = count;
	return 0;
}

static int unpack_req(const uint8_t *buf, size_t len, struct req *r)
{
	struct pmixev_buf b;

	memset(r, 0, sizeof(*r));
	pmixev_buf_reader(&b, buf, len);
	pmixev_buf_get_u64(&b, &r->id);
	pmixev_buf_get_u8(&b, &r->op);
	pmixev_buf_get_u32(&b, &r->rank);
	pmixev_buf_get_u8(&b, &r->wait);
	pmixev_buf_get_u32(&b, &r->timeout);
	if (!pmixev_buf_ok(&b) || r->op < PUBSUB_PUBLISH ||
	    r->op > PUBSUB_UNPUBLISH ||
	    unpack_entries(&b, &r->e, &r->n, r->op == PUBSUB_PUBLISH) < 0)
		return -1;
	if (pmixev_buf_remaining(&b)) {
		free(r->e);
		return -1;
	}
	return 0;
}

/* --- requester side ---------------------------------------------------- */

static void pending_end(struct pending *p, enum pmixev_result result,
			const struct pubsub_entry *e, size_t n)
{
	struct pending **pp;

	for (pp = &p->ps->pending; *pp; pp = &(*pp)->next)
		if (*pp == p) {
			*pp = p->next;
			break;
		}
	if (p->timer)
		event_free(p->timer);
	p->done(result, e, n, p->arg);
	free(p);
}

static void answer(struct pubsub *ps, uint64_t id, enum pmixev_result result,
		   const struct pubsub_entry *e, size_t n)
{
	for (struct pending *p = ps->pending; p; p = p->next)
		if (p->id == id) {
			pending_end(p, result, e, n);
			return;
		}
}

static void on_resp(void *ctx, uint32_t src, const uint8_t *buf, size_t len)
{
	struct pubsub *ps = ctx;
	struct pubsub_entry *e = NULL;
	struct pmixev_buf b;
	uint64_t id = 0;
	uint8_t result = 0;
	size_t n = 0;

	pmixev_buf_reader(&b, buf, len);
	pmixev_buf_get_u64(&b, &id);
	pmixev_buf_get_u8(&b, &result);
	if (!pmixev_buf_ok(&b) || !pmixev_result_valid(result) ||
	    unpack_entries(&b, &e, &n, true) < 0 || pmixev_buf_remaining(&b)) {
		PMIXEV_ERROR("publish/lookup: malformed answer from node %u",
			     src);
		free(e);
		return;
	}
	answer(ps, id, (enum pmixev_result)result, e, n);
	free(e);
}

static void on_pending_timeout(evutil_socket_t fd, short what, void *arg)
{
	struct pending *p = arg;

	PMIXEV_ERROR("publish/lookup: no answer from node 0");
	pending_end(p, PMIXEV_ERR_TIMEOUT, NULL, 0);
}

/* --- the directory (node 0) --------------------------------------------- */

static void reply(struct pubsub *ps, uint32_t dst, uint64_t id,
		  enum pmixev_result result, const struct pubsub_entry *e,
		  size_t n)
{
	struct pmixev_buf b;

	if (dst == overlay_self(ps->ov)) {
		answer(ps, id, result, e, n);
		return;
	}
	pmixev_buf_init(&b);
	pmixev_buf_put_u64(&b, id);
	pmixev_buf_put_u8(&b, (uint8_t)result);
	if (pack_entries(&b, e, n, true) < 0 ||
	    overlay_send(ps->ov, dst, PMIXEV_MSG_PUBSUB_RESP, b.data, b.len) <
		    0)
		PMIXEV_ERROR("publish/lookup: cannot answer node %u", dst);
	pmixev_buf_release(&b);
}

static struct published *find(struct pubsub *ps, const char *key)
{
	for (struct published *d = ps->dir; d; d = d->next)
		if (strcmp(d->e.key, key) == 0)
			return d;
	return NULL;
}

/* All keys published? Then answer with them (and return 1). */
static int try_lookup(struct pubsub *ps, uint32_t src, uint64_t id,
		      const struct pubsub_entry *keys, size_t n)
{
	struct pubsub_entry *found = calloc(n ? n : 1, sizeof(*found));

	if (!found) {
		reply(ps, src, id, PMIXEV_ERR_NOMEM, NULL, 0);
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		struct published *d = find(ps, keys[i].key);

		if (!d) {
			free(found);
			return 0;
		}
		found[i] = d->e;
	}
	reply(ps, src, id, PMIXEV_OK, found, n);
	free(found);
	return 1;
}

static void waiter_free(struct waiter *w)
{
	struct waiter **pp;

	for (pp = &w->ps->waiters; *pp; pp = &(*pp)->next)
		if (*pp == w) {
			*pp = w->next;
			break;
		}
	if (w->timer)
		event_free(w->timer);
	free(w->keys);
	free(w);
}

static void on_waiter_timeout(evutil_socket_t fd, short what, void *arg)
{
	struct waiter *w = arg;

	reply(w->ps, w->src, w->id, PMIXEV_ERR_NOT_FOUND, NULL, 0);
	waiter_free(w);
}

static void wake_waiters(struct pubsub *ps)
{
	struct waiter *w, *next;

	for (w = ps->waiters; w; w = next) {
		next = w->next;
		if (try_lookup(ps, w->src, w->id, w->keys, w->n))
			waiter_free(w);
	}
}

static size_t entry_bytes(const struct pubsub_entry *e)
{
	return strlen(e->key) + e->nvalue;
}

static enum pmixev_result publish(struct pubsub *ps, const struct req *r)
{
	size_t bytes = 0;

	for (size_t i = 0; i < r->n; i++) {
		if (find(ps, r->e[i].key))
			return PMIXEV_ERR_EXISTS;
		bytes += entry_bytes(&r->e[i]);
	}
	if (bytes > ps->max_bytes - ps->held) {
		PMIXEV_ERROR("publish of %zu bytes by rank %u refused: the "
			     "step's directory holds %zu of "
			     "PMIxevPublishMax=%zu MiB",
			     bytes, r->rank, ps->held, ps->max_bytes >> 20);
		return PMIXEV_ERR_OVER_BUDGET;
	}
	for (size_t i = 0; i < r->n; i++) {
		struct published *d = calloc(1, sizeof(*d));
		uint8_t *value = malloc(r->e[i].nvalue ? r->e[i].nvalue : 1);

		if (!d || !value) {
			free(d);
			free(value);
			return PMIXEV_ERR_NOMEM;
		}
		d->e = r->e[i];
		d->e.rank = r->rank;
		d->e.value = memcpy(value, r->e[i].value, r->e[i].nvalue);
		d->next = ps->dir;
		ps->dir = d;
		ps->held += entry_bytes(&d->e);
	}
	return PMIXEV_OK;
}

static enum pmixev_result unpublish(struct pubsub *ps, const struct req *r)
{
	enum pmixev_result rc = PMIXEV_ERR_NOT_FOUND;

	for (size_t i = 0; i < r->n; i++) {
		struct published **pp, *d;

		for (pp = &ps->dir; (d = *pp); pp = &d->next)
			if (strcmp(d->e.key, r->e[i].key) == 0 &&
			    d->e.rank == r->rank) {
				*pp = d->next;
				ps->held -= entry_bytes(&d->e);
				free(d->e.value);
				free(d);
				rc = PMIXEV_OK;
				break;
			}
	}
	return rc;
}

static void park(struct pubsub *ps, uint32_t src, const struct req *r)
{
	struct timeval tv = {
		(time_t)(r->timeout ? r->timeout : ps->timeout_sec), 0};
	struct waiter *w = calloc(1, sizeof(*w));

	if (!w || !(w->keys = calloc(r->n ? r->n : 1, sizeof(*w->keys)))) {
		free(w);
		reply(ps, src, r->id, PMIXEV_ERR_NOMEM, NULL, 0);
		return;
	}
	w->ps = ps;
	w->src = src;
	w->id = r->id;
	w->n = r->n;
	for (size_t i = 0; i < r->n; i++)
		memcpy(w->keys[i].key, r->e[i].key, sizeof(w->keys[i].key));
	w->timer = evtimer_new(agent_base(ps->agent), on_waiter_timeout, w);
	w->next = ps->waiters;
	ps->waiters = w;
	if (!w->timer || evtimer_add(w->timer, &tv) < 0) {
		reply(ps, src, r->id, PMIXEV_ERR_NOMEM, NULL, 0);
		waiter_free(w);
	}
}

static void serve(struct pubsub *ps, uint32_t src, const struct req *r)
{
	enum pmixev_result rc;

	switch (r->op) {
	case PUBSUB_PUBLISH:
		rc = publish(ps, r);
		reply(ps, src, r->id, rc, NULL, 0);
		if (rc == PMIXEV_OK)
			wake_waiters(ps);
		break;
	case PUBSUB_LOOKUP:
		if (!try_lookup(ps, src, r->id, r->e, r->n)) {
			if (r->wait)
				park(ps, src, r);
			else
				reply(ps, src, r->id, PMIXEV_ERR_NOT_FOUND,
				      NULL, 0);
		}
		break;
	default:
		reply(ps, src, r->id, unpublish(ps, r), NULL, 0);
		break;
	}
}

static void on_req(void *ctx, uint32_t src, const uint8_t *buf, size_t len)
{
	struct pubsub *ps = ctx;
	struct req r;

	if (src >= ps->lay->step.nnodes || unpack_req(buf, len, &r) < 0) {
		PMIXEV_ERROR("publish/lookup: malformed request from node %u",
			     src);
		return;
	}
	serve(ps, src, &r);
	free(r.e);
}

/* --- API ------------------------------------------------------------------ */

void pubsub_request(struct pubsub *ps, enum pubsub_op op, uint32_t rank,
		    bool wait, unsigned timeout_sec,
		    const struct pubsub_entry *e, size_t n, pubsub_done_fn done,
		    void *arg)
{
	unsigned t = timeout_sec ? timeout_sec : ps->timeout_sec;
	struct timeval tv = {(time_t)t + GRACE_SEC, 0};
	struct pending *p = calloc(1, sizeof(*p));
	struct pmixev_buf b;
	struct req r = {.op = (uint8_t)op,
			.rank = rank,
			.wait = wait,
			.timeout = t,
			.n = n,
			.e = (struct pubsub_entry *)e};
	enum pmixev_result rc = PMIXEV_OK;

	if (!p || n > MAX_ENTRIES) {
		free(p);
		done(p ? PMIXEV_ERR_BAD_REQUEST : PMIXEV_ERR_NOMEM, NULL, 0,
		     arg);
		return;
	}
	p->ps = ps;
	p->id = r.id = ++ps->next_id;
	p->done = done;
	p->arg = arg;
	p->next = ps->pending;
	ps->pending = p;
	p->timer = evtimer_new(agent_base(ps->agent), on_pending_timeout, p);
	if (!p->timer || evtimer_add(p->timer, &tv) < 0) {
		pending_end(p, PMIXEV_ERR_NOMEM, NULL, 0);
		return;
	}
	if (overlay_self(ps->ov) == 0) {
		serve(ps, 0, &r);
		return;
	}
	pmixev_buf_init(&b);
	pmixev_buf_put_u64(&b, r.id);
	pmixev_buf_put_u8(&b, r.op);
	pmixev_buf_put_u32(&b, r.rank);
	pmixev_buf_put_u8(&b, r.wait);
	pmixev_buf_put_u32(&b, r.timeout);
	if (pack_entries(&b, e, n, op == PUBSUB_PUBLISH) < 0 ||
	    overlay_send(ps->ov, 0, PMIXEV_MSG_PUBSUB_REQ, b.data, b.len) < 0)
		rc = PMIXEV_ERR_UNREACH;
	pmixev_buf_release(&b);
	if (rc != PMIXEV_OK)
		pending_end(p, rc, NULL, 0);
}

void pubsub_lost(struct pubsub *ps, uint32_t node)
{
	struct pending *p, *next;

	/* The tree heals around lost nodes, but the data lives on node 0. */
	if (node != 0)
		return;
	for (p = ps->pending; p; p = next) {
		next = p->next;
		pending_end(p, PMIXEV_ERR_UNREACH, NULL, 0);
	}
}

struct pubsub *pubsub_create(struct overlay *ov, struct agent *agent,
			     const struct layout *lay, unsigned timeout_sec,
			     size_t max_bytes)
{
	struct pubsub *ps = calloc(1, sizeof(*ps));

	if (!ps)
		return NULL;
	ps->ov = ov;
	ps->agent = agent;
	ps->lay = lay;
	ps->timeout_sec = timeout_sec;
	ps->max_bytes = max_bytes;
	overlay_on(ov, PMIXEV_MSG_PUBSUB_REQ, on_req, ps);
	overlay_on(ov, PMIXEV_MSG_PUBSUB_RESP, on_resp, ps);
	return ps;
}

void pubsub_destroy(struct pubsub *ps)
{
	if (!ps)
		return;
	while (ps->pending) {
		struct pending *p = ps->pending;

		ps->pending = p->next;
		if (p->timer)
			event_free(p->timer);
		free(p);
	}
	while (ps->waiters)
		waiter_free(ps->waiters);
	while (ps->dir) {
		struct published *d = ps->dir;

		ps->dir = d->next;
		free(d->e.value);
		free(d);
	}
	free(ps);
}
