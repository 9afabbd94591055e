/*
 * wireup/pubsub_dir.c - the step's publish/lookup directory, held by node 0
 * (see pubsub_dir.h): the requests a node sends it, and the directory
 * itself with the ranges of its entries and the lookups it holds. Agent
 * thread only.
 */
#include "config.h"

#include "wireup/pubsub_dir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/agent.h"
#include "base/pending.h"
#include "overlay/overlay.h"
#include "pmixev_buf.h"
#include "pmixev_frame.h"
#include "pmixev_log.h"
#include "pmixev_pmixd_coll.h"
#include "pmixev_pmixd_spawn.h"
#include "wireup/pubsub_dir_int.h"
#include "wireup/pubsub_msg.h"
#include "overlay/xstep.h"

struct published {
	struct pubsub_entry e; /* value owned; e.job, e.step, e.rank: who */
	uint32_t node;	       /* the publisher's */
	uint8_t range, persist;
	struct published *next;
};

/* A lookup with PMIX_WAIT, held by the directory until its keys come. */
struct waiter {
	struct pubsub *ps;
	struct pending *p;
	struct asker who;
	uint64_t id; /* the requester's */
	size_t n;
	struct pubsub_entry *keys; /* keys only */
	size_t bytes;		   /* charged to the directory's bound */
};

/* --- ranges ------------------------------------------------------------- */

/* How far a range reaches within the step, narrowest first. */
enum reach { REACH_PROC, REACH_NODE, REACH_STEP };

static enum reach reach_of(uint8_t range)
{
	switch (range) {
	case PMIXEV_PMIXD_RANGE_PROC_LOCAL:
		return REACH_PROC;
	case PMIXEV_PMIXD_RANGE_LOCAL:
		return REACH_NODE;
	default:
		return REACH_STEP;
	}
}

/* May `who` see `d`: its range reaches who, and its publisher is within
 * who's range (the narrower of the two decides). */
bool pubsub_range_crosses(uint8_t range)
{
	return range == PMIXEV_XSTEP_RANGE_UNDEF ||
	       range == PMIXEV_XSTEP_RANGE_SESSION ||
	       range == PMIXEV_XSTEP_RANGE_GLOBAL;
}

bool pubsub_own(const struct pubsub *ps, const struct asker *who)
{
	return who->job == ps->lay->step.job_id &&
	       who->step == ps->lay->step.step_id;
}

static bool visible(const struct published *d, const struct asker *who)
{
	enum reach r = reach_of(d->range);

	if (d->e.job != who->job || d->e.step != who->step)
		return pubsub_range_crosses(d->range) &&
		       pubsub_range_crosses(who->range);

	if (reach_of(who->range) < r)
		r = reach_of(who->range);
	switch (r) {
	case REACH_PROC:
		return d->e.rank == who->rank;
	case REACH_NODE:
		return d->node == who->node;
	default:
		return true;
	}
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
void pubsub_answer(struct pubsub *ps, uint32_t from, uint64_t id,
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
	enum pmixev_result result;
	uint64_t id = 0;
	size_t n = 0;

	if (pubsub_resp_unpack(buf, len, &id, &result, &e, &n) < 0) {
		PMIXEV_ERROR("publish/lookup: malformed answer from node %u",
			     src);
		return;
	}
	pubsub_answer(ps, src, id, result, e, n);
	free(e);
}

/* --- the directory (node 0) --------------------------------------------- */

static void reply(struct pubsub *ps, const struct asker *who, uint64_t id,
		  enum pmixev_result result, const struct pubsub_entry *e,
		  size_t n)
{
	uint32_t dst = who->node;
	struct pmixev_buf b;

	if (!pubsub_own(ps, who)) {
		pubsub_xstep_reply(ps, who, id, result, e, n);
		return;
	}
	if (dst == overlay_self(ps->ov)) {
		pubsub_answer(ps, dst, id, result, e, n);
		return;
	}
	pmixev_buf_init(&b);
	if (pubsub_resp_pack(&b, id, result, e, n) < 0 ||
	    overlay_send(ps->ov, dst, PMIXEV_MSG_PUBSUB_RESP, b.data, b.len) <
		    0)
		PMIXEV_ERROR("publish/lookup: cannot answer node %u", dst);
	pmixev_buf_release(&b);
}

/* The entry of `key` `who` may see (any entry when `who` is NULL). */
static struct published *find(struct pubsub *ps, const char *key,
			      const struct asker *who)
{
	for (struct published *d = ps->dir; d; d = d->next)
		if (strcmp(d->e.key, key) == 0 && (!who || visible(d, who)))
			return d;
	return NULL;
}

static size_t entry_bytes(const struct pubsub_entry *e)
{
	return strlen(e->key) + e->nvalue;
}

/* Take `d` out of the directory, if it is still there (a lookup may
 * name one key twice). */
static void drop(struct pubsub *ps, struct published *d)
{
	for (struct published **pp = &ps->dir; *pp; pp = &(*pp)->next)
		if (*pp == d) {
			*pp = d->next;
			ps->held -= entry_bytes(&d->e);
			free(d->e.value);
			free(d);
			return;
		}
}

/* All keys published where `who` sees them? Then answer with them, drop
 * those published PMIX_PERSIST_FIRST_READ, and return 1. */
static int try_lookup(struct pubsub *ps, const struct asker *who, uint64_t id,
		      const struct pubsub_entry *keys, size_t n)
{
	struct pubsub_entry *found = calloc(n ? n : 1, sizeof(*found));
	struct published **hit = calloc(n ? n : 1, sizeof(*hit));

	if (!found || !hit) {
		free(found);
		free(hit);
		reply(ps, who, id, PMIXEV_ERR_NOMEM, NULL, 0);
		return 1;
	}
	for (size_t i = 0; i < n; i++) {
		if (!(hit[i] = find(ps, keys[i].key, who))) {
			free(found);
			free(hit);
			return 0;
		}
		found[i] = hit[i]->e;
	}
	reply(ps, who, id, PMIXEV_OK, found, n);
	for (size_t i = 0; i < n; i++)
		if (hit[i]->persist == PMIXEV_PMIXD_PERSIST_FIRST_READ)
			drop(ps, hit[i]);
	free(found);
	free(hit);
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

	reply(w->ps, &w->who, w->id, PMIXEV_ERR_NOT_FOUND, NULL, 0);
	waiter_free(w);
}

static void wake_one(void *req, void *ctx)
{
	struct waiter *w = req;

	if (try_lookup(w->ps, &w->who, w->id, w->keys, w->n))
		waiter_free(w);
}

static void wake_waiters(struct pubsub *ps)
{
	pending_each(ps->waiters, wake_one, NULL);
}

static enum pmixev_result publish(struct pubsub *ps, const struct asker *who,
				  const struct pubsub_req_msg *r)
{
	size_t bytes = 0;

	for (size_t i = 0; i < r->n; i++) {
		if (find(ps, r->e[i].key, NULL))
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
		d->e.job = who->job;
		d->e.step = who->step;
		d->e.rank = r->rank;
		d->e.value = memcpy(value, r->e[i].value, r->e[i].nvalue);
		d->node = who->node;
		d->range = r->how.range;
		d->persist = r->how.persist;
		d->next = ps->dir;
		ps->dir = d;
		ps->held += entry_bytes(&d->e);
	}
	return PMIXEV_OK;
}

/* The caller's entries of the keys that reach no further than the
 * unpublish's range. */
static enum pmixev_result unpublish(struct pubsub *ps, const struct asker *who,
				    const struct pubsub_req_msg *r)
{
	enum reach within = reach_of(r->how.range);
	enum pmixev_result rc = PMIXEV_ERR_NOT_FOUND;

	for (size_t i = 0; i < r->n; i++)
		for (struct published *d = ps->dir; d; d = d->next)
			if (strcmp(d->e.key, r->e[i].key) == 0 &&
			    d->e.rank == r->rank && d->e.job == who->job &&
			    d->e.step == who->step &&
			    reach_of(d->range) <= within) {
				drop(ps, d);
				rc = PMIXEV_OK;
				break;
			}
	return rc;
}

/* A lookup may wait only while the directory has room for it: what it
 * holds counts against PMIxevPublishMax like the published keys. */
static bool room_to_wait(struct pubsub *ps, const struct pubsub_req_msg *r,
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

static void park(struct pubsub *ps, const struct asker *who,
		 const struct pubsub_req_msg *r)
{
	size_t bytes = sizeof(struct waiter) + r->n * sizeof(*r->e);
	unsigned t = r->how.timeout_sec ? r->how.timeout_sec : ps->timeout_sec;
	struct waiter *w = NULL;

	if (!room_to_wait(ps, r, bytes)) {
		reply(ps, who, r->id, PMIXEV_ERR_OVER_BUDGET, NULL, 0);
		return;
	}
	if (!(w = calloc(1, sizeof(*w))) ||
	    !(w->keys = calloc(r->n ? r->n : 1, sizeof(*w->keys))) ||
	    !(w->p = pending_add(
		      ps->waiters, w,
		      pubsub_own(ps, who) ? who->node : PENDING_NO_NODE, t))) {
		if (w)
			free(w->keys);
		free(w);
		reply(ps, who, r->id, PMIXEV_ERR_NOMEM, NULL, 0);
		return;
	}
	w->ps = ps;
	w->who = *who;
	w->id = r->id;
	w->n = r->n;
	w->bytes = bytes;
	ps->held += bytes;
	for (size_t i = 0; i < r->n; i++)
		memcpy(w->keys[i].key, r->e[i].key, sizeof(w->keys[i].key));
}

void pubsub_serve(struct pubsub *ps, const struct asker *who,
		  const struct pubsub_req_msg *r)
{
	enum pmixev_result rc;

	switch (r->op) {
	case PUBSUB_PUBLISH:
		rc = publish(ps, who, r);
		reply(ps, who, r->id, rc, NULL, 0);
		if (rc == PMIXEV_OK)
			wake_waiters(ps);
		break;
	case PUBSUB_LOOKUP:
		if (!try_lookup(ps, who, r->id, r->e, r->n)) {
			if (r->how.wait)
				park(ps, who, r);
			else
				reply(ps, who, r->id, PMIXEV_ERR_NOT_FOUND,
				      NULL, 0);
		}
		break;
	default:
		reply(ps, who, r->id, unpublish(ps, who, r), NULL, 0);
		break;
	}
}

/* A rank of node `node` of this step asks, within `range`. */
static struct asker own_asker(const struct pubsub *ps, uint32_t node,
			      uint32_t rank, uint8_t range)
{
	return (struct asker){.job = ps->lay->step.job_id,
			      .step = ps->lay->step.step_id,
			      .node = node,
			      .rank = rank,
			      .range = range};
}

static void on_req(void *ctx, uint32_t src, const uint8_t *buf, size_t len)
{
	struct pubsub *ps = ctx;
	struct pubsub_req_msg r;
	struct asker who;

	if (src >= ps->lay->step.nnodes ||
	    pubsub_req_unpack(buf, len, &r) < 0) {
		PMIXEV_ERROR("publish/lookup: malformed request from node %u",
			     src);
		return;
	}
	who = own_asker(ps, src, r.rank, r.how.range);
	pubsub_serve(ps, &who, &r);
	free(r.e);
}

/* --- API ------------------------------------------------------------------ */

void pubsub_request(struct pubsub *ps, enum pubsub_op op, uint32_t rank,
		    const struct pubsub_how *how, const struct pubsub_entry *e,
		    size_t n, pubsub_done_fn done, void *arg)
{
	unsigned t = how->timeout_sec ? how->timeout_sec : ps->timeout_sec;
	struct request *q = calloc(1, sizeof(*q));
	struct pmixev_buf b;
	struct pubsub_req_msg r = {.op = (uint8_t)op,
				   .rank = rank,
				   .how = *how,
				   .n = n,
				   .e = (struct pubsub_entry *)e};
	enum pmixev_result rc = PMIXEV_OK;

	r.how.timeout_sec = t;
	if (!q || n > PUBSUB_MSG_ENTRIES_MAX ||
	    !(q->p = pending_add(ps->requests, q,
				 ps->spawned && pubsub_range_crosses(how->range)
					 ? PMIXEV_NODE_SRUN
					 : 0,
				 t + GRACE_SEC))) {
		rc = q && n > PUBSUB_MSG_ENTRIES_MAX ? PMIXEV_ERR_BAD_REQUEST
						     : PMIXEV_ERR_NOMEM;
		free(q);
		done(rc, NULL, 0, arg);
		return;
	}
	r.id = pending_id(q->p);
	q->done = done;
	q->arg = arg;
	if (ps->spawned && pubsub_range_crosses(how->range)) {
		rc = pubsub_xstep_send(ps, &r);
		if (rc != PMIXEV_OK)
			request_end(q, rc, NULL, 0);
		return;
	}
	if (overlay_self(ps->ov) == 0) {
		struct asker who = own_asker(ps, 0, rank, how->range);

		pubsub_serve(ps, &who, &r);
		return;
	}
	pmixev_buf_init(&b);
	if (pubsub_req_pack(&b, &r) < 0)
		rc = PMIXEV_ERR_BAD_REQUEST;
	else if (overlay_send(ps->ov, 0, PMIXEV_MSG_PUBSUB_REQ, b.data, b.len) <
		 0)
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
	    step_on_node_gone(s, on_node_gone, ps) < 0 ||
	    xstep_on(s->xstep, PMIXEV_XSTEP_PUBSUB_REQ, pubsub_xstep_frame,
		     ps) < 0 ||
	    xstep_on(s->xstep, PMIXEV_XSTEP_PUBSUB_RESP, pubsub_xstep_frame,
		     ps) < 0) {
		pending_set_destroy(ps->requests, NULL);
		pending_set_destroy(ps->waiters, NULL);
		free(ps);
		return NULL;
	}
	ps->ov = s->ov;
	ps->lay = &s->lay;
	ps->timeout_sec = s->conf.timeout_sec;
	ps->max_bytes = (size_t)s->conf.publish_mib << 20;
	ps->spawned = s->lay.parent[0] &&
		      pmixev_pmixd_step_nspace(s->lay.parent, &ps->parent_job,
					       &ps->parent_step);
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
