/*
 * wireup/coll.c - the collective engine (see coll.h): this node's calls,
 * the tree's FENCE_UP/FENCE_DOWN messages, node loss, PMIx servers gone
 * and the step's dead ranks. One collective's way is in coll_tracker.c.
 * Agent thread.
 */
#include "config.h"

#include "wireup/coll.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "overlay/overlay.h"
#include "pmixev_frame.h"
#include "pmixev_log.h"
#include "base/agent.h"
#include "wireup/coll_int.h"

void coll_local(struct coll *c, enum pmixev_coll_kind kind, const char *sig,
		bool collect, unsigned timeout_ms, const uint8_t *data,
		size_t ndata, void *call)
{
	struct fence_sig standin, *ss;
	struct tracker *t;
	bool over, count;

	if (!(ss = fence_sig_get_or(&c->sigs, kind, sig, &standin))) {
		coll_deliver(c, kind, sig, 0, PMIXEV_ERR_NOMEM, NULL, 0, call);
		return;
	}
	ss->next_local++;
	if (ss->next_local <= ss->done) {
		/* Failed on a peer's word before our contribution came in. */
		coll_deliver(c, kind, sig, ss->next_local, ss->last, NULL, 0,
			     call);
		return;
	}
	t = tracker_find(c, ss, ss->next_local);
	over = count = fence_sig_over(&c->sigs, ss, !t);
	if (!t && !(t = tracker_new(c, ss, ss->next_local, timeout_ms))) {
		coll_deliver(c, kind, sig, ss->next_local, PMIXEV_ERR_NOMEM,
			     NULL, 0, call);
		return;
	}
	if (!t->local || t->local_in) {
		PMIXEV_ERROR("%s %s #%llu: unexpected local contribution",
			     fence_kind_name(kind), sig,
			     (unsigned long long)t->seq);
		coll_deliver(c, kind, sig, t->seq, PMIXEV_ERR_BAD_REQUEST, NULL,
			     0, call);
		if (over)
			tracker_refuse(t, count);
		return;
	}
	t->local_in = true;
	t->collect = collect;
	t->call = call;
	if (collect && tracker_take(t, data, ndata, &over) < 0) {
		tracker_fail(t, PMIXEV_ERR_NOMEM, PMIXEV_TREE_NONE,
			     "out of memory");
		return;
	}
	if (over) {
		tracker_refuse(t, count);
		return;
	}
	PMIXEV_DEBUG(3, "%s %s #%llu: local contribution (%zu bytes)",
		     fence_kind_name(kind), sig, (unsigned long long)t->seq,
		     ndata);
	tracker_check(t);
}

/* A collective message of a kind this node knows. */
static int unpack(struct coll *c, uint32_t src, const uint8_t *buf, size_t len,
		  struct pmixev_fence_msg *m)
{
	struct pmixev_buf b;

	pmixev_buf_reader(&b, buf, len);
	if (pmixev_fence_unpack(&b, m) < 0) {
		PMIXEV_ERROR("fence: malformed message from node %u", src);
		return -1;
	}
	if (!coll_kind_of(c, m->kind)) {
		PMIXEV_ERROR("%s %s: message from node %u of a kind this node "
			     "does not run",
			     fence_kind_name(m->kind), m->sig, src);
		return -1;
	}
	return 0;
}

static void on_up(void *ctx, uint32_t src, const uint8_t *buf, size_t len)
{
	struct coll *c = ctx;
	struct pmixev_fence_msg m;
	struct fence_sig standin, *ss;
	struct tracker *t;
	uint32_t ci;
	bool over, count;

	if (unpack(c, src, buf, len, &m) < 0)
		return;
	if (!overlay_is_child(c->ov, src)) {
		PMIXEV_ERROR("%s %s: contribution from node %u, which is not "
			     "our child",
			     fence_kind_name(m.kind), m.sig, src);
		return;
	}
	if ((ss = fence_sig_get_or(&c->sigs, m.kind, m.sig, &standin)) &&
	    m.seq <= ss->done)
		return; /* already ended here (failed) */
	t = ss ? tracker_find(c, ss, m.seq) : NULL;
	over = count = ss && fence_sig_over(&c->sigs, ss, !t);
	if (!t && (!ss || !(t = tracker_new(c, ss, m.seq, 0)))) {
		PMIXEV_ERROR("%s %s #%llu from node %u: invalid signature "
			     "or out of memory",
			     fence_kind_name(m.kind), m.sig,
			     (unsigned long long)m.seq, src);
		return;
	}
	if (m.result != PMIXEV_OK) {
		tracker_fail(t, m.result, src, "a peer reported an error");
		return;
	}
	ci = tracker_child(t, src);
	if (ci == UINT32_MAX || !t->exp[ci] || t->got[ci]) {
		PMIXEV_ERROR("%s %s #%llu: unexpected contribution from "
			     "node %u",
			     fence_kind_name(m.kind), m.sig,
			     (unsigned long long)m.seq, src);
		if (over)
			tracker_refuse(t, count);
		return;
	}
	t->got[ci] = true;
	if (tracker_take(t, m.data, m.ndata, &over) < 0) {
		tracker_fail(t, PMIXEV_ERR_NOMEM, PMIXEV_TREE_NONE,
			     "out of memory");
		return;
	}
	if (over) {
		tracker_refuse(t, count);
		return;
	}
	tracker_check(t);
}

/*
 * A failure came down for a collective this node holds nothing of yet:
 * fail it here too, so that the subtree below and the local contribution
 * still to come end at once (remembered if there is room).
 */
static void failed_before(struct coll *c, const struct pmixev_fence_msg *m,
			  uint32_t src)
{
	struct fence_sig standin, *ss;
	struct tracker *t;

	if (!(ss = fence_sig_get_or(&c->sigs, m->kind, m->sig, &standin)) ||
	    m->seq <= ss->done || !(t = tracker_new(c, ss, m->seq, 0)))
		return;
	tracker_fail(t, m->result, src, "the root reported an error");
}

static void on_down(void *ctx, uint32_t src, const uint8_t *buf, size_t len)
{
	struct coll *c = ctx;
	struct pmixev_fence_msg m;
	struct fence_sig *ss;
	struct tracker *t = NULL;

	if (unpack(c, src, buf, len, &m) < 0)
		return;
	if (src != overlay_parent(c->ov)) {
		PMIXEV_ERROR("%s %s: result from node %u, which is not our "
			     "parent",
			     fence_kind_name(m.kind), m.sig, src);
		return;
	}
	if ((ss = fence_sig_find(&c->sigs, m.kind, m.sig)))
		t = tracker_find(c, ss, m.seq);
	if (!t && m.result != PMIXEV_OK)
		failed_before(c, &m, src);
	else if (!t)
		return; /* ended here already */
	else if (m.result != PMIXEV_OK)
		tracker_fail(t, m.result, src, "the root reported an error");
	else
		tracker_finish(t, PMIXEV_OK, m.data, m.ndata, src);
}

/* A node left the tree: the collectives waiting on it fail (also at a
 * normal end: it will not contribute any more). */
static void on_node_gone(void *ctx, uint32_t node, bool lost)
{
	struct coll *c = ctx;

	pending_lost(c->trackers, node);
}

/* Node `src`'s PMIx server is gone, or this node's (`src` self). */
static void on_pmix_gone(void *ctx, uint32_t src, const uint8_t *buf,
			 size_t len)
{
	struct coll *c = ctx;

	c->ngone += !c->pmix_gone[src];
	c->pmix_gone[src] = true;
	pending_lost(c->trackers, src);
}

void coll_pmix_gone(struct coll *c, bool tell)
{
	on_pmix_gone(c, c->self, NULL, 0);
	if (tell)
		overlay_broadcast(c->ov, PMIXEV_MSG_PMIX_GONE, NULL, 0);
}

/* A tracker whose kind has a word on ended ranks, and one of its ranks
 * ended: hear it (see tracker_check). */
static void recheck(void *req, void *ctx)
{
	struct tracker *t = req;
	const struct coll_kind *k = coll_kind_of(t->c, t->ss->kind);
	uint32_t dead;

	(void)ctx;
	if (k && k->on_death && tracker_dead_rank(t, &dead))
		tracker_check(t);
}

static void on_rank_gone(void *ctx, uint32_t rank)
{
	struct coll *c = ctx;

	if (rank >= c->lay->step.ntasks)
		return;
	c->dead[rank / 8] |= (uint8_t)(1u << (rank % 8));
	pending_each(c->trackers, recheck, NULL);
}

struct fail_where {
	enum pmixev_coll_kind kind;
	bool (*pick)(const char *sig, void *arg);
	void *arg;
	enum pmixev_result result;
	const char *why;
	size_t n;
};

static void fail_if(void *req, void *ctx)
{
	struct tracker *t = req;
	struct fail_where *w = ctx;

	if (t->ss->kind != w->kind || !w->pick(t->ss->sig, w->arg))
		return;
	PMIXEV_INFO("%s %s #%llu failed: %s", fence_kind_name(w->kind),
		    t->ss->sig, (unsigned long long)t->seq, w->why);
	w->n++;
	tracker_finish(t, w->result, NULL, 0, PMIXEV_TREE_NONE);
}

size_t coll_fail_where(struct coll *c, enum pmixev_coll_kind kind,
		       bool (*pick)(const char *sig, void *arg), void *arg,
		       enum pmixev_result result, const char *why)
{
	struct fail_where w = {kind, pick, arg, result, why, 0};

	pending_each(c->trackers, fail_if, &w);
	return w.n;
}

bool coll_root_finish(struct coll *c, const struct coll_id *id,
		      enum pmixev_result result, const uint8_t *data,
		      size_t ndata)
{
	struct fence_sig standin,
		*ss = fence_sig_find(&c->sigs, id->kind, id->sig);
	struct tracker *t = ss ? tracker_find(c, ss, id->seq) : NULL;

	/* A failure of one this step has not started: remembered, so that
	 * its calls, when they come, get it and the numbers stay aligned. */
	if (!t && result != PMIXEV_OK &&
	    (ss = fence_sig_get_or(&c->sigs, id->kind, id->sig, &standin)) &&
	    ss->listed && id->seq > ss->done && id->seq > ss->next_local)
		t = tracker_new(c, ss, id->seq, 0);
	if (!t || (result == PMIXEV_OK && !t->at_root))
		return false;
	t->by_kind = true;
	if (result == PMIXEV_OK)
		tracker_finish(t, PMIXEV_OK, data, ndata, PMIXEV_TREE_NONE);
	else
		tracker_fail(t, result, PMIXEV_TREE_NONE,
			     "another step of the spawn family failed it");
	return true;
}

uint64_t coll_done(struct coll *c, enum pmixev_coll_kind kind, const char *sig)
{
	const struct fence_sig *ss = fence_sig_find(&c->sigs, kind, sig);

	return ss ? ss->done : 0;
}

bool coll_rank_dead(const struct coll *c, uint32_t rank)
{
	return rank < c->lay->step.ntasks &&
	       (c->dead[rank / 8] & (1u << (rank % 8)));
}

const uint8_t *coll_dead(const struct coll *c)
{
	return c->dead;
}

int coll_kind_set(struct coll *c, enum pmixev_coll_kind kind,
		  const struct coll_kind *ops, void *ctx)
{
	if (!kind || (unsigned)kind >= COLL_KIND_MAX || !ops->at_root ||
	    !ops->deliver || coll_kind_of(c, kind)) {
		PMIXEV_ERROR("collectives: kind %u cannot be set (out of "
			     "range, incomplete or set already)",
			     (unsigned)kind);
		return -1;
	}
	c->kinds[kind].ops = *ops;
	c->kinds[kind].ctx = ctx;
	return 0;
}

struct coll *coll_create(struct step *s)
{
	const struct layout *lay = &s->lay;
	struct coll *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	if (!(c->scratch = calloc(lay->step.nnodes, sizeof(*c->scratch))) ||
	    !(c->pmix_gone = calloc(lay->step.nnodes, sizeof(bool))) ||
	    !(c->dead = calloc(lay->step.ntasks / 8 + 1, 1)) ||
	    !(c->trackers = pending_set_create(
		      agent_base(s->agent), tracker_expire, tracker_waits)) ||
	    step_on_node_gone(s, on_node_gone, c) < 0 ||
	    step_on_rank_gone(s, on_rank_gone, c) < 0) {
		coll_destroy(c);
		return NULL;
	}
	c->ov = s->ov;
	c->lay = lay;
	c->timeout_ms = s->conf.timeout_sec * 1000u;
	c->sigs.max = s->conf.fence_max;
	c->max_held = (size_t)s->conf.overlay_mib << 20;
	c->self = overlay_self(s->ov);
	overlay_on(s->ov, PMIXEV_MSG_FENCE_UP, on_up, c);
	overlay_on(s->ov, PMIXEV_MSG_FENCE_DOWN, on_down, c);
	overlay_on(s->ov, PMIXEV_MSG_PMIX_GONE, on_pmix_gone, c);
	return c;
}

void coll_destroy(struct coll *c)
{
	if (!c)
		return;
	if (c->refused)
		PMIXEV_ERROR(
			"%lu collective(s) refused over PMIxevFenceMax=%zu "
			"or PMIxevOverlayMax=%zu MiB",
			c->refused, c->sigs.max, c->max_held >> 20);
	pending_set_destroy(c->trackers, tracker_release);
	fence_sig_free(&c->sigs);
	free(c->dead);
	free(c->pmix_gone);
	free(c->scratch);
	free(c);
}
