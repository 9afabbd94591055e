/*
 * wireup/pubsub_dir.c - the step's publish/lookup directory, held by node 0
 * (see pubsub_dir.h): the requests a node sends it, and the directory
 * itself with the lookups it holds. Agent thread only.
 */
#include "config.h"

#include "wireup/pubsub_dir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/agent.h"
#include "overlay/overlay.h"
#include "pmixev_buf.h"
#include "pmixev_frame.h"
#include "pmixev_log.h"
#include "base/pending.h"

#define MAX_ENTRIES 1024 /* keys in one request */
#define GRACE_SEC   5	 /* requester waits this much longer than the root */

/* A request as it travels to the directory. */
struct req_msg {
	uint64_t id;
	uint8_t op;
	uint32_t rank;
	uint8_t wait;
	uint32_t timeout;
	size_t n;
	struct pubsub_entry *e; /* values point into the message */
};

/* A request of ours, pending until the directory answers. */
struct request {
	struct pending *p;
	pubsub_done_fn done;
	void *arg;
};

struct published {
	struct pubsub_entry e; /* value owned */
	struct published *next;
};

/* A lookup with PMIX_WAIT, held by the directory until its keys come. */
struct waiter {
	struct pubsub *ps;
	struct pending *p;
	uint32_t src;
	uint64_t id; /* the requester's */
	size_t n;
	struct pubsub_entry *keys; /* keys only */
	size_t bytes;		   /* charged to the directory's bound */
};

struct pubsub {
	struct overlay *ov;
	const struct layout *lay;
	unsigned timeout_sec;
	struct pending_set *requests;
	struct published *dir;
	/* Keys and values in dir plus the lookups waiting, and the bound. */
	size_t held, max_bytes;
	struct pending_set *waiters;
	unsigned refused_waits;	    /* lookups not held: over the bound */
	unsigned refused_publishes; /* publishes over the bound */
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

static int unpack_req(const uint8_t *buf, size_t len, struct req_msg *r)
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

static void request_end(struct request *q, enum pmixev_result result,
			const struct pubsub_entry *e, size_t n)
{
	pending_end(q->p);
	q->done(result, e, n, q->arg);
	free(q);
}

/* Its deadline passed, or node 0 is lost. */
static void request_fail(void *req, enum pmixev_result why, uint32_t lost)
{
	if (why == PMIXEV_ERR_TIMEOUT)
		PMIXEV_ERROR("publish/lookup: no answer from node 0");
	request_end(req, why, NULL, 0);
}

/* The directory on node `from` answered request `id`. */
static void answer(struct pubsub *ps, uint32_t from, uint64_t id,
		   enum pmixev_result result, const struct pubsub_entry *e,
		   size_t n)
{
	struct request *q = pending_get(ps->requests, id, from);

	if (q)
		request_end(q, result, e, n);
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
	answer(ps, src, id, (enum pmixev_result)result, e, n);
	free(e);
}

/* --- the directory (node 0) --------------------------------------------- */

static void reply(struct pubsub *ps, uint32_t dst, uint64_t id,
		  enum pmixev_result result, const struct pubsub_entry *e,
		  size_t n)
{
	struct pmixev_buf b;

	if (dst == overlay_self(ps->ov)) {
		answer(ps, dst, id, result, e, n);
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

static void waiter_release(void *arg)
{
	struct waiter *w = arg;

	w->ps->held -= w->bytes;
	free(w->keys);
	free(w);
}

static void waiter_free(struct waiter *w)
{
	pending_end(w->p);
	waiter_release(w);
}

/* Its keys did not all come in time (the requester's loss is not asked). */
static void waiter_fail(void *req, enum pmixev_result why, uint32_t lost)
{
	struct waiter *w = req;

	reply(w->ps, w->src, w->id, PMIXEV_ERR_NOT_FOUND, NULL, 0);
	waiter_free(w);
}

static void wake_one(void *req, void *ctx)
{
	struct waiter *w = req;

	if (try_lookup(w->ps, w->src, w->id, w->keys, w->n))
		waiter_free(w);
}

static void wake_waiters(struct pubsub *ps)
{
	pending_each(ps->waiters, wake_one, NULL);
}

static size_t entry_bytes(const struct pubsub_entry *e)
{
	return strlen(e->key) + e->nvalue;
}

static enum pmixev_result publish(struct pubsub *ps, const struct req_msg *r)
{
	size_t bytes = 0;

	for (size_t i = 0; i < r->n; i++) {
		if (find(ps, r->e[i].key))
			return PMIXEV_ERR_EXISTS;
		bytes += entry_bytes(&r->e[i]);
	}
	if (bytes > ps->max_bytes - ps->held) {
		if (ps->refused_publishes++ == 0)
			PMIXEV_ERROR("publish of %zu bytes by rank %u refused: "
				     "the step's directory holds %zu of "
				     "PMIxevPublishMax=%zu MiB (further "
				     "refusals are counted)",
				     bytes, r->rank, ps->held,
				     ps->max_bytes >> 20);
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

static enum pmixev_result unpublish(struct pubsub *ps, const struct req_msg *r)
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

/* A lookup may wait only while the directory has room for it: what it
 * holds counts against PMIxevPublishMax like the published keys. */
static bool room_to_wait(struct pubsub *ps, const struct req_msg *r,
			 size_t bytes)
{
	if (bytes <= ps->max_bytes - ps->held)
		return true;
	if (ps->refused_waits++ == 0)
		PMIXEV_ERROR("lookup of %zu key(s) by rank %u not held: the "
			     "step's directory holds %zu of "
			     "PMIxevPublishMax=%zu MiB (further refusals are "
			     "counted)",
			     r->n, r->rank, ps->held, ps->max_bytes >> 20);
	return false;
}

static void park(struct pubsub *ps, uint32_t src, const struct req_msg *r)
{
	size_t bytes = sizeof(struct waiter) + r->n * sizeof(*r->e);
	struct waiter *w = NULL;

	if (!room_to_wait(ps, r, bytes)) {
		reply(ps, src, r->id, PMIXEV_ERR_OVER_BUDGET, NULL, 0);
		return;
	}
	if (!(w = calloc(1, sizeof(*w))) ||
	    !(w->keys = calloc(r->n ? r->n : 1, sizeof(*w->keys))) ||
	    !(w->p = pending_add(ps->waiters, w, src,
				 r->timeout ? r->timeout : ps->timeout_sec))) {
		if (w)
			free(w->keys);
		free(w);
		reply(ps, src, r->id, PMIXEV_ERR_NOMEM, NULL, 0);
		return;
	}
	w->ps = ps;
	w->src = src;
	w->id = r->id;
	w->n = r->n;
	w->bytes = bytes;
	ps->held += bytes;
	for (size_t i = 0; i < r->n; i++)
		memcpy(w->keys[i].key, r->e[i].key, sizeof(w->keys[i].key));
}

static void serve(struct pubsub *ps, uint32_t src, const struct req_msg *r)
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
	struct req_msg r;

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
	struct request *q = calloc(1, sizeof(*q));
	struct pmixev_buf b;
	struct req_msg r = {.op = (uint8_t)op,
			    .rank = rank,
			    .wait = wait,
			    .timeout = t,
			    .n = n,
			    .e = (struct pubsub_entry *)e};
	enum pmixev_result rc = PMIXEV_OK;

	if (!q || n > MAX_ENTRIES ||
	    !(q->p = pending_add(ps->requests, q, 0, t + GRACE_SEC))) {
		rc = q && n > MAX_ENTRIES ? PMIXEV_ERR_BAD_REQUEST
					  : PMIXEV_ERR_NOMEM;
		free(q);
		done(rc, NULL, 0, arg);
		return;
	}
	r.id = pending_id(q->p);
	q->done = done;
	q->arg = arg;
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
		request_end(q, rc, NULL, 0);
}

/* A node left the tree: the tree heals around it, but the data lives on
 * node 0, so requests waiting on it fail. */
static void on_node_gone(void *ctx, uint32_t node, bool lost)
{
	struct pubsub *ps = ctx;

	pending_lost(ps->requests, node);
}

struct pubsub *pubsub_create(struct step *s)
{
	struct event_base *base = agent_base(s->agent);
	struct pubsub *ps = calloc(1, sizeof(*ps));

	if (!ps)
		return NULL;
	if (!(ps->requests = pending_set_create(base, request_fail, NULL)) ||
	    !(ps->waiters = pending_set_create(base, waiter_fail, NULL)) ||
	    step_on_node_gone(s, on_node_gone, ps) < 0) {
		pending_set_destroy(ps->requests, NULL);
		pending_set_destroy(ps->waiters, NULL);
		free(ps);
		return NULL;
	}
	ps->ov = s->ov;
	ps->lay = &s->lay;
	ps->timeout_sec = s->conf.timeout_sec;
	ps->max_bytes = (size_t)s->conf.publish_mib << 20;
	overlay_on(s->ov, PMIXEV_MSG_PUBSUB_REQ, on_req, ps);
	overlay_on(s->ov, PMIXEV_MSG_PUBSUB_RESP, on_resp, ps);
	return ps;
}

void pubsub_destroy(struct pubsub *ps)
{
	if (!ps)
		return;
	if (ps->refused_waits > 1)
		PMIXEV_ERROR("%u lookup(s) in all were not held: over "
			     "PMIxevPublishMax=%zu MiB",
			     ps->refused_waits, ps->max_bytes >> 20);
	if (ps->refused_publishes > 1)
		PMIXEV_ERROR("%u publish(es) in all were refused: over "
			     "PMIxevPublishMax=%zu MiB",
			     ps->refused_publishes, ps->max_bytes >> 20);
	pending_set_destroy(ps->requests, free);
	pending_set_destroy(ps->waiters, waiter_release);
	while (ps->dir) {
		struct published *d = ps->dir;

		ps->dir = d->next;
		free(d->e.value);
		free(d);
	}
	free(ps);
}
