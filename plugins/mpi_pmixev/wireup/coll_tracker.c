/*
 * wireup/coll_tracker.c - one collective on this node (see coll_int.h):
 * what it waits for, the data it holds within PMIxevOverlayMax, and its
 * end, passed up and down the tree. Agent thread.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "overlay/overlay.h"
#include "pmixev_frame.h"
#include "pmixev_log.h"
#include "wireup/coll_int.h"

const struct coll_kind *coll_kind_of(const struct coll *c,
				     enum pmixev_coll_kind kind)
{
	if ((unsigned)kind >= COLL_KIND_MAX || !c->kinds[kind].ops.deliver)
		return NULL;
	return &c->kinds[kind].ops;
}

void coll_deliver(struct coll *c, enum pmixev_coll_kind kind, const char *sig,
		  uint64_t seq, enum pmixev_result result, const uint8_t *data,
		  size_t ndata, void *call)
{
	struct coll_id id = {.kind = kind, .sig = sig, .seq = seq};

	c->kinds[kind].ops.deliver(c->kinds[kind].ctx, &id, result, data, ndata,
				   call);
}

uint32_t tracker_child(const struct tracker *t, uint32_t node)
{
	for (uint32_t i = 0; i < t->nchild; i++)
		if (t->child[i] == node)
			return i;
	return UINT32_MAX;
}

void tracker_release(void *arg)
{
	struct tracker *t = arg;

	pmixev_buf_release(&t->data);
	free(t->nodes);
	free(t->child);
	free(t->exp);
	free(t->got);
	free(t->spent);
	free(t);
}

/* Release the contribution `t` holds, and its place in the budget. */
static void drop_data(struct tracker *t)
{
	t->c->held -= t->data.len;
	pmixev_buf_release(&t->data);
}

/* Hold `n` more bytes of contribution, if the budget allows. */
static int add_data(struct tracker *t, const uint8_t *data, size_t n)
{
	struct coll *c = t->c;

	if (n > c->max_held - c->held) {
		errno = ENOSPC;
		return -1;
	}
	if (pmixev_buf_put_raw(&t->data, data, n) < 0) {
		errno = ENOMEM;
		return -1;
	}
	c->held += n;
	return 0;
}

static void tracker_free(struct tracker *t)
{
	pending_end(t->p);
	drop_data(t);
	tracker_release(t);
}

static void send_msg(struct tracker *t, uint32_t dst, uint8_t type,
		     enum pmixev_result result, const uint8_t *data,
		     size_t ndata)
{
	struct pmixev_fence_msg m = {.kind = t->ss->kind,
				     .seq = t->seq,
				     .result = result,
				     .collect = t->collect,
				     .data = data,
				     .ndata = ndata};
	struct pmixev_buf b;

	snprintf(m.sig, sizeof(m.sig), "%s", t->ss->sig);
	pmixev_buf_init(&b);
	if (pmixev_fence_pack(&b, &m) < 0 ||
	    overlay_send(t->c->ov, dst, type, b.data, b.len) < 0)
		PMIXEV_DEBUG(1, "%s %s #%llu: cannot reach node %u",
			     fence_kind_name(t->ss->kind), t->ss->sig,
			     (unsigned long long)t->seq, dst);
	pmixev_buf_release(&b);
}

const char *tracker_own(const struct tracker *t)
{
	const struct pmixev_step *st = &t->c->lay->step;

	return fence_sig_part(t->ss->sig, st->job_id, st->step_id);
}

void tracker_finish(struct tracker *t, enum pmixev_result result,
		    const uint8_t *data, size_t ndata, uint32_t from)
{
	struct coll *c = t->c;
	struct fence_sig *ss = t->ss;
	uint64_t seq = t->seq;
	uint32_t parent = overlay_parent(c->ov);
	const struct coll_kind *k = coll_kind_of(c, ss->kind);

	if (result != PMIXEV_OK && parent == PMIXEV_TREE_NONE && !t->by_kind &&
	    k && k->root_failed) {
		struct coll_id id = {
			.kind = ss->kind, .sig = ss->sig, .seq = seq};

		k->root_failed(c->kinds[ss->kind].ctx, &id, result);
	}
	for (uint32_t i = 0; i < t->nchild; i++) {
		uint32_t ch = t->child[i];

		if (t->exp[i] && ch != from)
			send_msg(t, ch, PMIXEV_MSG_FENCE_DOWN, result, data,
				 ndata);
	}
	if (result != PMIXEV_OK && parent != PMIXEV_TREE_NONE && parent != from)
		send_msg(t, parent, PMIXEV_MSG_FENCE_UP, result, NULL, 0);
	if (t->local_in)
		coll_deliver(c, ss->kind, ss->sig, seq, result, data, ndata,
			     t->call);
	tracker_free(t);
	fence_sig_end(&c->sigs, ss, seq, result);
}

/* A refusal elsewhere was logged there (once, with its bound). */
void tracker_fail(struct tracker *t, enum pmixev_result result, uint32_t from,
		  const char *why)
{
	if (result == PMIXEV_ERR_PARTIAL)
		PMIXEV_DEBUG(1, "%s %s #%llu partly successful: %s",
			     fence_kind_name(t->ss->kind), t->ss->sig,
			     (unsigned long long)t->seq, why);
	else if (result == PMIXEV_ERR_OVER_BUDGET)
		PMIXEV_DEBUG(1, "%s %s #%llu failed: %s (over a bound)",
			     fence_kind_name(t->ss->kind), t->ss->sig,
			     (unsigned long long)t->seq, why);
	else
		PMIXEV_ERROR("%s %s #%llu failed: %s",
			     fence_kind_name(t->ss->kind), t->ss->sig,
			     (unsigned long long)t->seq, why);
	tracker_finish(t, result, NULL, 0, from);
}

/* The tree root has it all: its kind makes the result, sent down. */
static void end_at_root(struct tracker *t)
{
	struct coll *c = t->c;
	struct fence_sig *ss = t->ss;
	struct coll_id id = {.kind = ss->kind, .sig = ss->sig, .seq = t->seq};
	/* tracker_finish frees t: keep the data alive across the call. */
	struct pmixev_buf data = t->data;
	enum pmixev_result result;

	c->held -= data.len;
	t->data = (struct pmixev_buf){0};
	result = c->kinds[ss->kind].ops.at_root(c->kinds[ss->kind].ctx, &id,
						&data);
	t->by_kind = true;
	if (result == COLL_LATER) {
		t->by_kind = false;
		t->at_root = true;
		t->sent_up = true; /* nothing more to gather */
		PMIXEV_DEBUG(3, "%s %s #%llu: waiting for the other steps",
			     fence_kind_name(ss->kind), ss->sig,
			     (unsigned long long)t->seq);
	} else if (result == PMIXEV_OK)
		tracker_finish(t, PMIXEV_OK, data.data, data.len,
			       PMIXEV_TREE_NONE);
	else
		tracker_finish(t, result, NULL, 0, PMIXEV_TREE_NONE);
	pmixev_buf_release(&data);
}

bool tracker_dead_rank(const struct tracker *t, uint32_t *rank)
{
	const struct coll *c = t->c;
	uint32_t *ranks = NULL, n = 0, ntasks = c->lay->step.ntasks;
	bool all, found = false;

	if (!tracker_own(t) ||
	    fence_sig_ranks(&c->lay->map, tracker_own(t), &all, &ranks, &n) < 0)
		return false;
	for (uint32_t i = 0; !found && i < (all ? ntasks : n); i++) {
		*rank = all ? i : ranks[i];
		found = coll_rank_dead(c, *rank);
	}
	free(ranks);
	return found;
}

/* Mark the participant nodes whose ranks in the set have all ended. */
static int spend(struct tracker *t)
{
	const struct coll *c = t->c;
	uint32_t *ranks = NULL, n = 0, nnodes = c->lay->step.nnodes;
	bool all;

	if (!t->spent && !(t->spent = calloc(nnodes, sizeof(bool))))
		return -1;
	if (!tracker_own(t) ||
	    fence_sig_ranks(&c->lay->map, tracker_own(t), &all, &ranks, &n) < 0)
		return -1;
	memcpy(t->spent, t->nodes, nnodes * sizeof(bool));
	for (uint32_t i = 0; i < (all ? c->lay->step.ntasks : n); i++) {
		uint32_t r = all ? i : ranks[i];

		if (!coll_rank_dead(c, r))
			t->spent[c->lay->map.node_of[r]] = false;
	}
	free(ranks);
	return 0;
}

/* Node `n` hosts participants that may still take part. */
static bool live_node(const struct tracker *t, uint32_t n)
{
	return t->nodes[n] && !(t->spent && t->spent[n]);
}

/* Child i's subtree hosts participants that may still take part. */
static bool subtree_live(const struct tracker *t, uint32_t i)
{
	const struct coll *c = t->c;

	if (!t->exp[i])
		return false;
	if (!t->spent)
		return true;
	for (uint32_t n = t->child[i]; n < c->lay->step.nnodes; n++)
		if (live_node(t, n) &&
		    overlay_in_subtree(c->ov, t->child[i], n))
			return true;
	return false;
}

/* Its kind's word on its ranks that ended: 0 to go on, -1 when failed. */
static int after_deaths(struct tracker *t)
{
	struct coll *c = t->c;
	const struct coll_kind *k = coll_kind_of(c, t->ss->kind);
	struct coll_id id = {
		.kind = t->ss->kind, .sig = t->ss->sig, .seq = t->seq};
	enum pmixev_result r;
	uint32_t rank;
	char why[64];

	if (!k || !k->on_death || !tracker_dead_rank(t, &rank))
		return 0;
	r = k->on_death(c->kinds[t->ss->kind].ctx, &id,
			t->local_in ? t->call : NULL);
	if (r == PMIXEV_OK && spend(t) == 0)
		return 0;
	if (r == PMIXEV_OK) {
		r = PMIXEV_ERR_NOMEM;
		snprintf(why, sizeof(why), "out of memory");
	} else {
		snprintf(why, sizeof(why), "its member rank %u ended", rank);
	}
	tracker_fail(t, r, PMIXEV_TREE_NONE, why);
	return -1;
}

void tracker_check(struct tracker *t)
{
	struct coll *c = t->c;
	uint32_t parent = overlay_parent(c->ov), self = c->self;
	char why[64];

	if (after_deaths(t) < 0)
		return;
	/* Its ranks there cannot take part: fail it on every node now. */
	for (uint32_t n = 0; c->ngone && n < c->lay->step.nnodes; n++)
		if (live_node(t, n) && c->pmix_gone[n]) {
			snprintf(why, sizeof(why),
				 "node %u's PMIx server is gone", n);
			tracker_fail(t, PMIXEV_ERR_UNREACH, PMIXEV_TREE_NONE,
				     why);
			return;
		}
	if (t->sent_up || (live_node(t, self) && !t->local_in))
		return;
	for (uint32_t i = 0; i < t->nchild; i++)
		if (!t->got[i] && subtree_live(t, i))
			return;
	if (parent == PMIXEV_TREE_NONE) {
		end_at_root(t);
		return;
	}
	send_msg(t, parent, PMIXEV_MSG_FENCE_UP, PMIXEV_OK, t->data.data,
		 t->data.len);
	t->sent_up = true;
	drop_data(t);
}

/* Its deadline passed, or a node it waits on is lost (see tracker_waits). */
void tracker_expire(void *req, enum pmixev_result why, uint32_t lost)
{
	struct tracker *t = req;
	char text[128];

	if (why != PMIXEV_ERR_TIMEOUT) {
		tracker_fail(t, why, lost,
			     "a node of the step became unreachable");
		return;
	}
	snprintf(text, sizeof(text), "no result within %.1f s (%s)",
		 t->timeout_ms / 1000.0,
		 t->at_root   ? "waiting for the other steps"
		 : t->sent_up ? "waiting for the root"
			      : "waiting for peers");
	tracker_fail(t, why, PMIXEV_TREE_NONE, text);
}

struct tracker_key {
	const struct fence_sig *ss;
	uint64_t seq;
};

static bool tracker_is(void *req, const void *key)
{
	const struct tracker *t = req;
	const struct tracker_key *k = key;

	return t->ss == k->ss && t->seq == k->seq;
}

struct tracker *tracker_find(struct coll *c, struct fence_sig *ss, uint64_t seq)
{
	struct tracker_key k = {ss, seq};

	return pending_find(c->trackers, tracker_is, &k);
}

struct tracker *tracker_new(struct coll *c, struct fence_sig *ss, uint64_t seq,
			    unsigned timeout_ms)
{
	struct tracker *t = calloc(1, sizeof(*t));
	uint32_t nnodes = c->lay->step.nnodes;

	if (!t)
		return NULL;
	t->c = c;
	t->ss = ss;
	if (!(t->nodes = calloc(nnodes, sizeof(*t->nodes))) ||
	    !tracker_own(t) ||
	    fence_sig_nodes(&c->lay->map, tracker_own(t), t->nodes) < 0)
		goto fail;
	t->seq = seq;
	pmixev_buf_init(&t->data);
	t->local = t->nodes[c->self];
	t->parent = overlay_parent(c->ov);
	t->nchild = (uint32_t)overlay_children(c->ov, c->scratch);
	if (t->nchild && (!(t->child = malloc(t->nchild * sizeof(*t->child))) ||
			  !(t->exp = calloc(t->nchild, sizeof(bool))) ||
			  !(t->got = calloc(t->nchild, sizeof(bool)))))
		goto fail;
	for (uint32_t i = 0; i < t->nchild; i++) {
		uint32_t ch = t->child[i] = c->scratch[i];

		for (uint32_t n = ch; n < nnodes && !t->exp[i]; n++)
			t->exp[i] =
				t->nodes[n] && overlay_in_subtree(c->ov, ch, n);
	}
	t->timeout_ms = timeout_ms ? timeout_ms : c->timeout_ms;
	if (!(t->p = pending_add_ms(c->trackers, t, PENDING_NO_NODE,
				    t->timeout_ms)))
		goto fail;
	fence_sig_start(&c->sigs, ss);
	return t;
fail:
	tracker_release(t);
	return NULL;
}

int tracker_take(struct tracker *t, const uint8_t *data, size_t n, bool *over)
{
	if (*over || !n || add_data(t, data, n) == 0)
		return 0;
	if (errno != ENOSPC)
		return -1;
	*over = true;
	return 0;
}

/*
 * As a peer's error does: up to the root, down from there, not at its
 * timeout. The first refusal is logged, the rest counted.
 */
void tracker_refuse(struct tracker *t, bool count)
{
	struct coll *c = t->c;
	char why[128];

	if (!count)
		snprintf(why, sizeof(why),
			 "%zu bytes of contributions held on this node, "
			 "PMIxevOverlayMax=%zu MiB",
			 c->held, c->max_held >> 20);
	else
		snprintf(why, sizeof(why),
			 "%zu collective(s) in flight on this node, "
			 "PMIxevFenceMax=%zu",
			 c->sigs.live - 1, c->sigs.max);
	if (c->refused++ == 0)
		PMIXEV_ERROR("%s %s #%llu refused: %s (further refusals are "
			     "counted)",
			     fence_kind_name(t->ss->kind), t->ss->sig,
			     (unsigned long long)t->seq, why);
	tracker_finish(t, PMIXEV_ERR_OVER_BUDGET, NULL, 0, PMIXEV_TREE_NONE);
}

/* Is the tree still the one `t` started with (seen from here)? */
static bool same_tree(struct tracker *t)
{
	struct coll *c = t->c;
	size_t n = overlay_children(c->ov, c->scratch);

	if (t->parent != overlay_parent(c->ov) || n != t->nchild)
		return false;
	for (size_t i = 0; i < n; i++)
		if (c->scratch[i] != t->child[i])
			return false;
	return true;
}

/*
 * A collective waits on its participants' nodes and its tree's links: a
 * change around this node ends it, except a child whose subtree it no
 * longer waits for: one that hosted no participant when it started, or
 * whose participants have all ended where its kind goes on without them
 * (a node whose tasks all ended leaves the tree; its children, come to
 * us, host none either).
 */
bool tracker_waits(void *req, uint32_t node)
{
	struct tracker *t = req;
	uint32_t i = tracker_child(t, node);

	if (live_node(t, node))
		return true;
	if (i != UINT32_MAX && !subtree_live(t, i) &&
	    t->parent == overlay_parent(t->c->ov))
		return false;
	return !same_tree(t);
}
