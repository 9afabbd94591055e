/*
 * wireup/fence.c - PMIx fences and the barriers behind connect and
 * disconnect, as collectives over the overlay tree (see fence.h).
 *
 * Agent thread: this node's part of each collective and the messages of
 * the tree (the calls come as frames: fence_frames.c).
 */
#include "config.h"

#include "wireup/fence.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "overlay/overlay.h"
#include "pmixev_buf.h"
#include "pmixev_frame.h"
#include "pmixev_log.h"
#include "pmixev_proto.h"
#include "base/agent.h"
#include "base/step.h"
#include "base/pending.h"
#include "wireup/fence_sig.h"

struct tracker {
	struct fence *f;
	struct fence_sig *ss;
	uint64_t seq;
	bool local;	 /* this node hosts participants */
	bool local_in;	 /* ... and their contribution arrived */
	bool *nodes;	 /* [nnodes] hosts participants */
	uint32_t parent; /* the tree when the tracker started */
	uint32_t *child; /* [nchild] */
	uint32_t nchild;
	bool *exp; /* [nchild] child subtree hosts participants */
	bool *got; /* [nchild] child contribution arrived */
	bool sent_up;
	bool collect;
	unsigned timeout_sec; /* this fence's: PMIX_TIMEOUT or the default */
	struct pmixev_buf data;
	fence_done_fn done;
	void *arg;
	struct pending *p;
};

struct fence {
	struct overlay *ov;
	const struct layout *lay;
	unsigned timeout_sec;
	uint32_t self;
	uint32_t *scratch;	/* [nnodes] */
	struct fence_sigs sigs; /* bounded by PMIxevFenceMax */
	size_t held;		/* contribution bytes held here */
	size_t max_held;	/* PMIxevOverlayMax */
	unsigned long refused;	/* collectives refused over a bound */
	bool *pmix_gone;	/* [nnodes] its PMIx server is gone */
	unsigned ngone;		/* nodes so in pmix_gone */
	struct pending_set *trackers;
};

static uint32_t child_index(const struct tracker *t, uint32_t node)
{
	for (uint32_t i = 0; i < t->nchild; i++)
		if (t->child[i] == node)
			return i;
	return UINT32_MAX;
}

static void tracker_release(void *arg)
{
	struct tracker *t = arg;

	pmixev_buf_release(&t->data);
	free(t->nodes);
	free(t->child);
	free(t->exp);
	free(t->got);
	free(t);
}

/* Release the contribution `t` holds, and its place in the budget. */
static void drop_data(struct tracker *t)
{
	t->f->held -= t->data.len;
	pmixev_buf_release(&t->data);
}

/* Hold `n` more bytes of contribution, if the budget allows. */
static int add_data(struct tracker *t, const uint8_t *data, size_t n)
{
	struct fence *f = t->f;

	if (n > f->max_held - f->held) {
		errno = ENOSPC;
		return -1;
	}
	if (pmixev_buf_put_raw(&t->data, data, n) < 0) {
		errno = ENOMEM;
		return -1;
	}
	f->held += n;
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
	    overlay_send(t->f->ov, dst, type, b.data, b.len) < 0)
		PMIXEV_DEBUG(1, "%s %s #%llu: cannot reach node %u",
			     fence_kind_name(t->ss->kind), t->ss->sig,
			     (unsigned long long)t->seq, dst);
	pmixev_buf_release(&b);
}

/*
 * End the collective on this node with `result`: deliver locally, pass the
 * outcome down to the expected children and, on failure, up to the parent
 * (except toward `from`, where it came from).
 */
static void finish(struct tracker *t, enum pmixev_result result,
		   const uint8_t *data, size_t ndata, uint32_t from)
{
	struct fence *f = t->f;
	struct fence_sig *ss = t->ss;
	uint64_t seq = t->seq;
	uint32_t parent = overlay_parent(f->ov);

	for (uint32_t i = 0; i < t->nchild; i++) {
		uint32_t c = t->child[i];

		if (t->exp[i] && c != from)
			send_msg(t, c, PMIXEV_MSG_FENCE_DOWN, result, data,
				 ndata);
	}
	if (result != PMIXEV_OK && parent != PMIXEV_TREE_NONE && parent != from)
		send_msg(t, parent, PMIXEV_MSG_FENCE_UP, result, NULL, 0);
	if (t->local_in)
		t->done(result, data, ndata, t->arg);
	tracker_free(t);
	fence_sig_end(&f->sigs, ss, seq, result);
}

/* A refusal elsewhere was logged there (once, with its bound). */
static void fail(struct tracker *t, enum pmixev_result result, uint32_t from,
		 const char *why)
{
	if (result == PMIXEV_ERR_OVER_BUDGET)
		PMIXEV_DEBUG(1, "%s %s #%llu failed: %s (over a bound)",
			     fence_kind_name(t->ss->kind), t->ss->sig,
			     (unsigned long long)t->seq, why);
	else
		PMIXEV_ERROR("%s %s #%llu failed: %s",
			     fence_kind_name(t->ss->kind), t->ss->sig,
			     (unsigned long long)t->seq, why);
	finish(t, result, NULL, 0, from);
}

static void check_complete(struct tracker *t)
{
	uint32_t parent = overlay_parent(t->f->ov);
	char why[64];

	/* Its ranks there cannot take part: fail it on every node now. */
	for (uint32_t n = 0; t->f->ngone && n < t->f->lay->step.nnodes; n++)
		if (t->nodes[n] && t->f->pmix_gone[n]) {
			snprintf(why, sizeof(why),
				 "node %u's PMIx server is gone", n);
			fail(t, PMIXEV_ERR_UNREACH, PMIXEV_TREE_NONE, why);
			return;
		}
	if (t->sent_up || (t->local && !t->local_in))
		return;
	for (uint32_t i = 0; i < t->nchild; i++)
		if (t->exp[i] && !t->got[i])
			return;
	if (parent == PMIXEV_TREE_NONE) {
		/* finish() frees t: keep the data alive across the call. */
		struct pmixev_buf data = t->data;

		t->f->held -= data.len;
		t->data = (struct pmixev_buf){0};
		finish(t, PMIXEV_OK, data.data, data.len, PMIXEV_TREE_NONE);
		pmixev_buf_release(&data);
		return;
	}
	send_msg(t, parent, PMIXEV_MSG_FENCE_UP, PMIXEV_OK, t->data.data,
		 t->data.len);
	t->sent_up = true;
	drop_data(t);
}

/* Its deadline passed, or a node it waits on is lost (see tracker_waits). */
static void tracker_fail(void *req, enum pmixev_result why, uint32_t lost)
{
	struct tracker *t = req;
	char text[128];

	if (why != PMIXEV_ERR_TIMEOUT) {
		fail(t, why, lost, "a node of the step became unreachable");
		return;
	}
	snprintf(text, sizeof(text), "no result within %u s (%s)",
		 t->timeout_sec,
		 t->sent_up ? "waiting for the root" : "waiting for peers");
	fail(t, why, PMIXEV_TREE_NONE, text);
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

static struct tracker *tracker_find(struct fence *f, struct fence_sig *ss,
				    uint64_t seq)
{
	struct tracker_key k = {ss, seq};

	return pending_find(f->trackers, tracker_is, &k);
}

static struct tracker *tracker_new(struct fence *f, struct fence_sig *ss,
				   uint64_t seq, unsigned timeout_sec)
{
	struct tracker *t = calloc(1, sizeof(*t));
	uint32_t nnodes = f->lay->step.nnodes;

	if (!t)
		return NULL;
	t->f = f;
	if (!(t->nodes = calloc(nnodes, sizeof(*t->nodes))) ||
	    fence_sig_nodes(&f->lay->map, ss->sig, t->nodes) < 0)
		goto fail;
	t->ss = ss;
	t->seq = seq;
	pmixev_buf_init(&t->data);
	t->local = t->nodes[f->self];
	t->parent = overlay_parent(f->ov);
	t->nchild = (uint32_t)overlay_children(f->ov, f->scratch);
	if (t->nchild && (!(t->child = malloc(t->nchild * sizeof(*t->child))) ||
			  !(t->exp = calloc(t->nchild, sizeof(bool))) ||
			  !(t->got = calloc(t->nchild, sizeof(bool)))))
		goto fail;
	for (uint32_t i = 0; i < t->nchild; i++) {
		uint32_t c = t->child[i] = f->scratch[i];

		for (uint32_t n = c; n < nnodes && !t->exp[i]; n++)
			t->exp[i] =
				t->nodes[n] && overlay_in_subtree(f->ov, c, n);
	}
	t->timeout_sec = timeout_sec ? timeout_sec : f->timeout_sec;
	if (!(t->p = pending_add(f->trackers, t, PENDING_NO_NODE,
				 t->timeout_sec)))
		goto fail;
	fence_sig_start(&f->sigs, ss);
	return t;
fail:
	tracker_release(t);
	return NULL;
}

/* Hold `n` bytes more for `t` unless `*over` or the budget says no: then
 * `*over` is set. -1: out of memory (fail `t`). */
static int take_data(struct tracker *t, const uint8_t *data, size_t n,
		     bool *over)
{
	if (*over || !n || add_data(t, data, n) == 0)
		return 0;
	if (errno != ENOSPC)
		return -1;
	*over = true;
	return 0;
}

/*
 * Holding `t` here passes PMIxevFenceMax (`count`) or PMIxevOverlayMax:
 * fail it at once on every node it involves (as a peer's error does: up to
 * the root, down from there), not at its timeout. The first refusal is
 * logged, the rest counted.
 */
static void refuse_over(struct tracker *t, bool count)
{
	struct fence *f = t->f;
	char why[128];

	if (!count)
		snprintf(why, sizeof(why),
			 "%zu bytes of contributions held on this node, "
			 "PMIxevOverlayMax=%zu MiB",
			 f->held, f->max_held >> 20);
	else
		snprintf(why, sizeof(why),
			 "%zu collective(s) in flight on this node, "
			 "PMIxevFenceMax=%zu",
			 f->sigs.live - 1, f->sigs.max);
	if (f->refused++ == 0)
		PMIXEV_ERROR("%s %s #%llu refused: %s (further refusals are "
			     "counted)",
			     fence_kind_name(t->ss->kind), t->ss->sig,
			     (unsigned long long)t->seq, why);
	finish(t, PMIXEV_ERR_OVER_BUDGET, NULL, 0, PMIXEV_TREE_NONE);
}

void fence_local(struct fence *f, enum pmixev_coll_kind kind, bool all,
		 const uint32_t *ranks, size_t nranks, bool collect,
		 unsigned timeout_sec, const uint8_t *data, size_t ndata,
		 fence_done_fn done, void *arg)
{
	char sig[PMIXEV_SIG_MAX];
	struct fence_sig standin, *ss;
	struct tracker *t;
	bool over, count;

	if (fence_sig_format(all, ranks, nranks, sig, sizeof(sig)) < 0) {
		if (errno == ENOMEM)
			goto nomem;
		PMIXEV_ERROR("%s: participant set too large or empty",
			     fence_kind_name(kind));
		done(PMIXEV_ERR_BAD_REQUEST, NULL, 0, arg);
		return;
	}
	if (!(ss = fence_sig_get_or(&f->sigs, kind, sig, &standin)))
		goto nomem;
	ss->next_local++;
	if (ss->next_local <= ss->done) {
		/* Failed on a peer's word before our contribution came in. */
		done(ss->last, NULL, 0, arg);
		return;
	}
	t = tracker_find(f, ss, ss->next_local);
	over = count = fence_sig_over(&f->sigs, ss, !t);
	if (!t && !(t = tracker_new(f, ss, ss->next_local, timeout_sec)))
		goto nomem;
	if (!t->local || t->local_in) {
		PMIXEV_ERROR("%s %s #%llu: unexpected local contribution",
			     fence_kind_name(kind), sig,
			     (unsigned long long)t->seq);
		done(PMIXEV_ERR_BAD_REQUEST, NULL, 0, arg);
		if (over)
			refuse_over(t, count);
		return;
	}
	t->local_in = true;
	t->collect = collect;
	t->done = done;
	t->arg = arg;
	if (collect && take_data(t, data, ndata, &over) < 0) {
		fail(t, PMIXEV_ERR_NOMEM, PMIXEV_TREE_NONE, "out of memory");
		return;
	}
	if (over) {
		refuse_over(t, count);
		return;
	}
	PMIXEV_DEBUG(3, "%s %s #%llu: local contribution (%zu bytes)",
		     fence_kind_name(kind), sig, (unsigned long long)t->seq,
		     ndata);
	check_complete(t);
	return;
nomem:
	done(PMIXEV_ERR_NOMEM, NULL, 0, arg);
}

static int unpack(struct fence *f, uint32_t src, const uint8_t *buf, size_t len,
		  struct pmixev_fence_msg *m)
{
	struct pmixev_buf b;

	pmixev_buf_reader(&b, buf, len);
	if (pmixev_fence_unpack(&b, m) < 0) {
		PMIXEV_ERROR("fence: malformed message from node %u", src);
		return -1;
	}
	return 0;
}

static void on_up(void *ctx, uint32_t src, const uint8_t *buf, size_t len)
{
	struct fence *f = ctx;
	struct pmixev_fence_msg m;
	struct fence_sig standin, *ss;
	struct tracker *t;
	uint32_t ci;
	bool over, count;

	if (unpack(f, src, buf, len, &m) < 0)
		return;
	if (!overlay_is_child(f->ov, src)) {
		PMIXEV_ERROR("%s %s: contribution from node %u, which is not "
			     "our child",
			     fence_kind_name(m.kind), m.sig, src);
		return;
	}
	if ((ss = fence_sig_get_or(&f->sigs, m.kind, m.sig, &standin)) &&
	    m.seq <= ss->done)
		return; /* already ended here (failed) */
	t = ss ? tracker_find(f, ss, m.seq) : NULL;
	over = count = ss && fence_sig_over(&f->sigs, ss, !t);
	if (!t && (!ss || !(t = tracker_new(f, ss, m.seq, 0)))) {
		PMIXEV_ERROR("%s %s #%llu from node %u: invalid signature "
			     "or out of memory",
			     fence_kind_name(m.kind), m.sig,
			     (unsigned long long)m.seq, src);
		return;
	}
	if (m.result != PMIXEV_OK) {
		fail(t, m.result, src, "a peer reported an error");
		return;
	}
	ci = child_index(t, src);
	if (ci == UINT32_MAX || !t->exp[ci] || t->got[ci]) {
		PMIXEV_ERROR("%s %s #%llu: unexpected contribution from "
			     "node %u",
			     fence_kind_name(m.kind), m.sig,
			     (unsigned long long)m.seq, src);
		if (over)
			refuse_over(t, count);
		return;
	}
	t->got[ci] = true;
	if (take_data(t, m.data, m.ndata, &over) < 0) {
		fail(t, PMIXEV_ERR_NOMEM, PMIXEV_TREE_NONE, "out of memory");
		return;
	}
	if (over) {
		refuse_over(t, count);
		return;
	}
	check_complete(t);
}

/*
 * A failure came down for a collective this node holds nothing of yet:
 * fail it here too, so that the subtree below and the local contribution
 * still to come end at once (remembered if there is room).
 */
static void failed_before(struct fence *f, const struct pmixev_fence_msg *m,
			  uint32_t src)
{
	struct fence_sig standin, *ss;
	struct tracker *t;

	if (!(ss = fence_sig_get_or(&f->sigs, m->kind, m->sig, &standin)) ||
	    m->seq <= ss->done || !(t = tracker_new(f, ss, m->seq, 0)))
		return;
	fail(t, m->result, src, "the root reported an error");
}

static void on_down(void *ctx, uint32_t src, const uint8_t *buf, size_t len)
{
	struct fence *f = ctx;
	struct pmixev_fence_msg m;
	struct fence_sig *ss;
	struct tracker *t = NULL;

	if (unpack(f, src, buf, len, &m) < 0)
		return;
	if (src != overlay_parent(f->ov)) {
		PMIXEV_ERROR("%s %s: result from node %u, which is not our "
			     "parent",
			     fence_kind_name(m.kind), m.sig, src);
		return;
	}
	if ((ss = fence_sig_find(&f->sigs, m.kind, m.sig)))
		t = tracker_find(f, ss, m.seq);
	if (!t && m.result != PMIXEV_OK)
		failed_before(f, &m, src);
	else if (!t)
		return; /* ended here already */
	else if (m.result != PMIXEV_OK)
		fail(t, m.result, src, "the root reported an error");
	else
		finish(t, PMIXEV_OK, m.data, m.ndata, src);
}

/* Is the tree still the one `t` started with (seen from here)? */
static bool same_tree(struct tracker *t)
{
	struct fence *f = t->f;
	size_t n = overlay_children(f->ov, f->scratch);

	if (t->parent != overlay_parent(f->ov) || n != t->nchild)
		return false;
	for (size_t i = 0; i < n; i++)
		if (f->scratch[i] != t->child[i])
			return false;
	return true;
}

/* A collective waits on its participants' nodes and its tree's links. */
static bool tracker_waits(void *req, uint32_t node)
{
	struct tracker *t = req;

	return t->nodes[node] || !same_tree(t);
}

/* A node left the tree: the collectives waiting on it fail (also at a
 * normal end: it will not contribute any more). */
static void on_node_gone(void *ctx, uint32_t node, bool lost)
{
	struct fence *f = ctx;

	pending_lost(f->trackers, node);
}

/* Node `src`'s PMIx server is gone, or this node's (`src` self). */
static void on_pmix_gone(void *ctx, uint32_t src, const uint8_t *buf,
			 size_t len)
{
	struct fence *f = ctx;

	f->ngone += !f->pmix_gone[src];
	f->pmix_gone[src] = true;
	pending_lost(f->trackers, src);
}

void fence_pmix_gone(struct fence *f, bool tell)
{
	on_pmix_gone(f, f->self, NULL, 0);
	if (tell)
		overlay_broadcast(f->ov, PMIXEV_MSG_PMIX_GONE, NULL, 0);
}

struct fence *fence_create(struct step *s)
{
	const struct layout *lay = &s->lay;
	struct fence *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	if (!(f->scratch = calloc(lay->step.nnodes, sizeof(*f->scratch))) ||
	    !(f->pmix_gone = calloc(lay->step.nnodes, sizeof(bool))) ||
	    !(f->trackers = pending_set_create(agent_base(s->agent),
					       tracker_fail, tracker_waits)) ||
	    step_on_node_gone(s, on_node_gone, f) < 0) {
		if (f->trackers)
			pending_set_destroy(f->trackers, NULL);
		free(f->pmix_gone);
		free(f->scratch);
		free(f);
		return NULL;
	}
	f->ov = s->ov;
	f->lay = lay;
	f->timeout_sec = s->conf.timeout_sec;
	f->sigs.max = s->conf.fence_max;
	f->max_held = (size_t)s->conf.overlay_mib << 20;
	f->self = overlay_self(s->ov);
	overlay_on(s->ov, PMIXEV_MSG_FENCE_UP, on_up, f);
	overlay_on(s->ov, PMIXEV_MSG_FENCE_DOWN, on_down, f);
	overlay_on(s->ov, PMIXEV_MSG_PMIX_GONE, on_pmix_gone, f);
	return f;
}

void fence_destroy(struct fence *f)
{
	if (!f)
		return;
	if (f->refused)
		PMIXEV_ERROR(
			"%lu collective(s) refused over PMIxevFenceMax=%zu "
			"or PMIxevOverlayMax=%zu MiB",
			f->refused, f->sigs.max, f->max_held >> 20);
	pending_set_destroy(f->trackers, tracker_release);
	fence_sig_free(&f->sigs);
	free(f->pmix_gone);
	free(f->scratch);
	free(f);
}
