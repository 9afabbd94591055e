/*
 * wireup/coll_xstep.c - collectives across a spawn family's steps (see
 * coll_xstep.h). Agent thread. Frames are read with XSTEP's codec only;
 * a frame this root did not expect is dropped, counted and logged at
 * powers of two.
 */
#include "config.h"

#include "wireup/coll_xstep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/agent.h"
#include "base/pending.h"
#include "overlay/overlay.h"
#include "pmixev_log.h"
#include "pmixev_tree.h"
#include "pmixd/nspaces.h"
#include "pmixev_xstep.h"
#include "wireup/fence_sig.h"
#include "overlay/xstep.h"

/* The step's own part and PMIXEV_PMIXD_PARTS_MAX others. */
#define PARTS_MAX (PMIXEV_PMIXD_PARTS_MAX + 1)

/* Once this step's part is in, a root waits at most this for the other
 * steps; the collective's own deadline ends it first (root_failed). */
#define HELD_MAX_MS (86400u * 1000u)

/*
 * A collective at this root: the parts that came (the coordinator's) and
 * this step's data, which only this step's processes get back (see
 * coll_xstep.h).
 */
struct xcoll {
	struct coll_xstep *x;
	enum pmixev_coll_kind kind;
	char sig[PMIXEV_SIG_MAX];
	uint64_t seq;
	uint32_t n; /* parts */
	bool in[PARTS_MAX];
	struct pmixev_buf own;
	enum pmixev_result failed; /* a part's error that came first */
	struct pending *p;
};

/* Family steps whose srun said they ended (LEFT); more are not kept. */
#define GONE_MAX 64

struct coll_xstep {
	struct step *s;
	uint32_t gone[GONE_MAX][2]; /* {job, step} */
	unsigned ngone;
	struct pending_set *held; /* struct xcoll */
	size_t nheld, max_held;	  /* collectives (PMIxevFenceMax) */
	size_t bytes, max_bytes;  /* their data (PMIxevOverlayMax) */
	uint64_t dropped;
};

bool coll_xstep_is(const char *sig)
{
	uint32_t j[PARTS_MAX], st[PARTS_MAX];

	return fence_sig_steps(sig, j, st, PARTS_MAX) != 0;
}

static const char *sid(const struct coll_xstep *x)
{
	return x->s->lay.step.id;
}

static bool is_gone(const struct coll_xstep *x, uint32_t job, uint32_t step)
{
	for (unsigned g = 0; g < x->ngone; g++)
		if (x->gone[g][0] == job && x->gone[g][1] == step)
			return true;
	return false;
}

/* Whether the collective of parts j[], st[] (n) names a step that left. */
static bool names_gone(const struct coll_xstep *x, const uint32_t *j,
		       const uint32_t *st, int n)
{
	for (int i = 0; i < n; i++)
		if (is_gone(x, j[i], st[i]))
			return true;
	return false;
}

static void drop(struct coll_xstep *x, const struct pmixev_xstep_hdr *h,
		 const char *what, const char *why)
{
	if (pmixev_log_worth(++x->dropped))
		PMIXEV_ERROR("step %s: %s from step %u.%u dropped: %s (%llu "
			     "dropped so far)",
			     sid(x), what, h->src_job, h->src_step, why,
			     (unsigned long long)x->dropped);
}

/* The parts `sig` names into j[], st[]; this step's index in *self. */
static int parts_of(const struct coll_xstep *x, const char *sig, uint32_t *j,
		    uint32_t *st, uint32_t *self)
{
	const struct pmixev_step *own = &x->s->lay.step;
	int n = fence_sig_steps(sig, j, st, PARTS_MAX);

	for (int i = 0; i < n; i++)
		if (j[i] == own->job_id && st[i] == own->step_id) {
			*self = (uint32_t)i;
			return n;
		}
	return -1;
}

/* Send a COLL_PART or COLL_RESULT of `id` (no data: each step keeps its
 * own) to step (job, step)'s root. */
static void send_to(struct coll_xstep *x, uint32_t job, uint32_t step,
		    enum pmixev_xstep_inner inner, const struct coll_id *id,
		    enum pmixev_result result)
{
	struct pmixev_xstep_coll m = {
		.kind = id->kind, .seq = id->seq, .result = result};
	enum pmixev_result rc = PMIXEV_ERR_BAD_REQUEST;
	struct pmixev_buf b;

	snprintf(m.sig, sizeof(m.sig), "%s", id->sig);
	pmixev_buf_init(&b);
	if (pmixev_xstep_coll_pack(&b, &m) == 0)
		rc = xstep_send(x->s->xstep, job, step, PMIXEV_XSTEP_ROOT,
				inner, b.data, b.len);
	if (rc != PMIXEV_OK)
		PMIXEV_ERROR("%s %s #%llu: step %s cannot send its %s to step "
			     "%u.%u (%s)",
			     fence_kind_name(id->kind), id->sig,
			     (unsigned long long)id->seq, sid(x),
			     inner == PMIXEV_XSTEP_COLL_PART ? "part"
							     : "result",
			     job, step,
			     rc == PMIXEV_ERR_UNREACH ? "srun is gone"
						      : "malformed");
	pmixev_buf_release(&b);
}

static void xcoll_free(struct xcoll *e)
{
	e->x->bytes -= e->own.len;
	pmixev_buf_release(&e->own);
	e->x->nheld--;
	free(e);
}

static void xcoll_end(struct xcoll *e)
{
	pending_end(e->p);
	xcoll_free(e);
}

/* pending_set's: parts that came before this step's own waited
 * PMIxevTimeout for it. */
static void xcoll_expire(void *req, enum pmixev_result why, uint32_t lost)
{
	struct xcoll *e = req;

	(void)why;
	(void)lost;
	PMIXEV_INFO("%s %s #%llu: step %s drops the parts of other steps: "
		    "its own did not come in time",
		    fence_kind_name(e->kind), e->sig,
		    (unsigned long long)e->seq, sid(e->x));
	xcoll_end(e);
}

static void xcoll_release(void *req)
{
	xcoll_free(req);
}

struct key {
	enum pmixev_coll_kind kind;
	const char *sig;
	uint64_t seq;
};

static bool xcoll_is(void *req, const void *key)
{
	const struct xcoll *e = req;
	const struct key *k = key;

	return e->kind == k->kind && e->seq == k->seq &&
	       !strcmp(e->sig, k->sig);
}

static struct xcoll *xcoll_find(struct coll_xstep *x, const struct coll_id *id)
{
	struct key k = {id->kind, id->sig, id->seq};

	return pending_find(x->held, xcoll_is, &k);
}

/* This root's record of `id`, added if new (NULL: over a bound or out of
 * memory, logged). */
static struct xcoll *xcoll_get(struct coll_xstep *x, const struct coll_id *id)
{
	struct xcoll *e = xcoll_find(x, id);
	uint32_t j[PARTS_MAX], st[PARTS_MAX], self;
	int n;

	if (e)
		return e;
	if (x->nheld == x->max_held) {
		PMIXEV_ERROR("%s %s #%llu: step %s holds %zu cross-step "
			     "collectives already (PMIxevFenceMax)",
			     fence_kind_name(id->kind), id->sig,
			     (unsigned long long)id->seq, sid(x), x->nheld);
		return NULL;
	}
	if (!(e = calloc(1, sizeof(*e))))
		return NULL;
	e->x = x;
	e->kind = id->kind;
	e->seq = id->seq;
	snprintf(e->sig, sizeof(e->sig), "%s", id->sig);
	n = parts_of(x, id->sig, j, st, &self);
	e->n = n > 0 ? (uint32_t)n : 0;
	pmixev_buf_init(&e->own);
	x->nheld++;
	if (!(e->p = pending_add_ms(x->held, e, PENDING_NO_NODE,
				    x->s->conf.timeout_sec * 1000ull))) {
		xcoll_free(e);
		return NULL;
	}
	return e;
}

/* Keep this step's data within PMIxevOverlayMax: `e` waits from now on
 * for the engine's deadline. */
static int xcoll_keep(struct xcoll *e, const struct pmixev_buf *data)
{
	struct coll_xstep *x = e->x;
	size_t n = data->len;

	if (n > x->max_bytes - x->bytes) {
		PMIXEV_ERROR("%s %s #%llu: step %s holds %zu bytes of "
			     "cross-step parts, PMIxevOverlayMax=%zu MiB",
			     fence_kind_name(e->kind), e->sig,
			     (unsigned long long)e->seq, sid(x), x->bytes,
			     x->max_bytes >> 20);
		return -1;
	}
	if (pmixev_buf_put_raw(&e->own, data->data, n) < 0)
		return -1;
	x->bytes += n;
	pending_end(e->p);
	return (e->p = pending_add_ms(x->held, e, PENDING_NO_NODE, HELD_MAX_MS))
		       ? 0
		       : -1;
}

static bool xcoll_full(const struct xcoll *e)
{
	for (uint32_t i = 0; i < e->n; i++)
		if (!e->in[i])
			return false;
	return true;
}

/* Tell every other step's root the end of `id` (the coordinator). */
static void result_to_all(struct coll_xstep *x, const struct coll_id *id,
			  enum pmixev_result result)
{
	const struct pmixev_step *own = &x->s->lay.step;
	uint32_t j[PARTS_MAX], st[PARTS_MAX], self;
	int n = parts_of(x, id->sig, j, st, &self);

	for (int i = 0; i < n; i++)
		if ((j[i] != own->job_id || st[i] != own->step_id) &&
		    !is_gone(x, j[i], st[i]))
			send_to(x, j[i], st[i], PMIXEV_XSTEP_COLL_RESULT, id,
				result);
}

/* Every part is in (the coordinator): tell the others. */
static void xcoll_done(struct xcoll *e, const struct coll_id *id)
{
	result_to_all(e->x, id, PMIXEV_OK);
	PMIXEV_DEBUG(2, "%s %s #%llu: step %s has every step's part",
		     fence_kind_name(e->kind), e->sig,
		     (unsigned long long)e->seq, sid(e->x));
}

enum pmixev_result coll_xstep_at_root(struct coll_xstep *x,
				      const struct coll_id *id,
				      struct pmixev_buf *data)
{
	uint32_t j[PARTS_MAX], st[PARTS_MAX], self = 0;
	enum pmixev_result rc;
	struct xcoll *e;
	int n = parts_of(x, id->sig, j, st, &self);

	if (n >= 2 && names_gone(x, j, st, n)) {
		PMIXEV_INFO("%s %s #%llu: step %s fails it at once: a step it "
			    "names has ended",
			    fence_kind_name(id->kind), id->sig,
			    (unsigned long long)id->seq, sid(x));
		if ((e = xcoll_find(x, id)))
			xcoll_end(e);
		if (!self)
			result_to_all(x, id, PMIXEV_ERR_UNREACH);
		else if (!is_gone(x, j[0], st[0]))
			send_to(x, j[0], st[0], PMIXEV_XSTEP_COLL_PART, id,
				PMIXEV_ERR_UNREACH);
		return PMIXEV_ERR_UNREACH;
	}
	if (n < 2) {
		PMIXEV_ERROR("%s %s #%llu: step %s: not a signature of its "
			     "spawn family",
			     fence_kind_name(id->kind), id->sig,
			     (unsigned long long)id->seq, sid(x));
		return PMIXEV_ERR_BAD_REQUEST;
	}
	if (!(e = xcoll_get(x, id)))
		rc = PMIXEV_ERR_OVER_BUDGET;
	else if ((rc = e->failed) == PMIXEV_OK && e->in[self])
		rc = PMIXEV_ERR_BAD_REQUEST; /* twice: cannot be */
	else if (rc == PMIXEV_OK && xcoll_keep(e, data) < 0)
		rc = PMIXEV_ERR_OVER_BUDGET;
	if (rc != PMIXEV_OK) {
		if (e)
			xcoll_end(e);
		if (self)
			send_to(x, j[0], st[0], PMIXEV_XSTEP_COLL_PART, id, rc);
		else
			result_to_all(x, id, rc);
		return rc;
	}
	e->in[self] = true;
	if (self) {
		send_to(x, j[0], st[0], PMIXEV_XSTEP_COLL_PART, id, PMIXEV_OK);
	} else if (xcoll_full(e)) {
		/* `data` is this step's already: the engine sends it down. */
		xcoll_done(e, id);
		xcoll_end(e);
		return PMIXEV_OK;
	}
	return COLL_LATER;
}

void coll_xstep_root_failed(struct coll_xstep *x, const struct coll_id *id,
			    enum pmixev_result result)
{
	uint32_t j[PARTS_MAX], st[PARTS_MAX], self = 0;
	struct xcoll *e;

	if (parts_of(x, id->sig, j, st, &self) < 2)
		return;
	if ((e = xcoll_find(x, id)))
		xcoll_end(e);
	if (self)
		send_to(x, j[0], st[0], PMIXEV_XSTEP_COLL_PART, id, result);
	else
		result_to_all(x, id, result);
}

/* A frame for this step's tree root, its body read into `m`. */
static int frame_in(struct coll_xstep *x, const struct pmixev_xstep_hdr *h,
		    struct pmixev_buf *body, const char *what,
		    struct pmixev_xstep_coll *m)
{
	const struct pmixev_step *own = &x->s->lay.step;
	bool root = overlay_parent(x->s->ov) == PMIXEV_TREE_NONE;

	if (!pmixev_xstep_for_me(h, own->job_id, own->step_id, x->s->lay.nodeid,
				 root)) {
		drop(x, h, what, "this node is not its destination");
		return -1;
	}
	/* Parts and results carry no data: each step keeps its own. */
	if (pmixev_xstep_coll_unpack(body, 0, m) < 0) {
		drop(x, h, what, "malformed");
		return -1;
	}
	return 0;
}

/* The coordinator: another step's part. */
static void on_part(void *ctx, const struct pmixev_xstep_hdr *h,
		    struct pmixev_buf *body, const uint8_t *frame, size_t len)
{
	struct coll_xstep *x = ctx;
	static struct pmixev_xstep_coll m;
	uint32_t j[PARTS_MAX], st[PARTS_MAX], self = 0, from = 0;
	struct coll_id id;
	struct xcoll *e;
	int n;

	(void)frame;
	(void)len;
	if (frame_in(x, h, body, "a collective's part", &m) < 0)
		return;
	id = (struct coll_id){.kind = m.kind, .sig = m.sig, .seq = m.seq};
	n = parts_of(x, m.sig, j, st, &self);
	while ((int)from < n &&
	       (j[from] != h->src_job || st[from] != h->src_step))
		from++;
	if (n < 2 || self || (int)from == n || !from) {
		drop(x, h, "a collective's part",
		     "its signature does not make this step the coordinator "
		     "of a collective with the sender");
		return;
	}
	if (m.seq <= coll_done(x->s->coll, m.kind, m.sig)) {
		drop(x, h, "a collective's part", "the collective ended here");
		return;
	}
	if (!(e = xcoll_get(x, &id)))
		return;
	if (e->in[from]) {
		drop(x, h, "a collective's part", "a second one");
		return;
	}
	if (m.result != PMIXEV_OK) {
		PMIXEV_INFO("%s %s #%llu: step %u.%u failed it; step %s fails "
			    "it in every step",
			    fence_kind_name(m.kind), m.sig,
			    (unsigned long long)m.seq, h->src_job, h->src_step,
			    sid(x));
		result_to_all(x, &id, m.result);
		if (coll_root_finish(x->s->coll, &id, m.result, NULL, 0))
			xcoll_end(e);
		else
			e->failed = m.result; /* for at_root */
		return;
	}
	e->in[from] = true;
	if (!e->in[0] || !xcoll_full(e))
		return;
	xcoll_done(e, &id);
	coll_root_finish(x->s->coll, &id, PMIXEV_OK, e->own.data, e->own.len);
	xcoll_end(e);
}

/* Another step's root: the coordinator's answer. */
static void on_result(void *ctx, const struct pmixev_xstep_hdr *h,
		      struct pmixev_buf *body, const uint8_t *frame, size_t len)
{
	struct coll_xstep *x = ctx;
	static struct pmixev_xstep_coll m;
	uint32_t j[PARTS_MAX], st[PARTS_MAX], self = 0;
	struct coll_id id;
	struct xcoll *e;
	bool found;
	int n;

	(void)frame;
	(void)len;
	if (frame_in(x, h, body, "a collective's result", &m) < 0)
		return;
	id = (struct coll_id){.kind = m.kind, .sig = m.sig, .seq = m.seq};
	n = parts_of(x, m.sig, j, st, &self);
	if (n < 2 || !self || j[0] != h->src_job || st[0] != h->src_step) {
		drop(x, h, "a collective's result",
		     "its sender is not the collective's coordinator");
		return;
	}
	e = xcoll_find(x, &id);
	if (m.result == PMIXEV_OK)
		found = e && coll_root_finish(x->s->coll, &id, PMIXEV_OK,
					      e->own.data, e->own.len);
	else
		found = coll_root_finish(x->s->coll, &id, m.result, NULL, 0);
	if (e)
		xcoll_end(e);
	if (!found)
		drop(x, h, "a collective's result",
		     "the collective is not waiting for it here (it ended)");
}

struct left {
	struct coll_xstep *x;
	uint32_t job, step;
	unsigned failed;
};

/* A collective held here: failed when it waits for the step that left. */
static void fail_if_left(void *req, void *ctx)
{
	struct xcoll *e = req;
	struct left *l = ctx;
	struct coll_xstep *x = l->x;
	uint32_t j[PARTS_MAX], st[PARTS_MAX], self = 0, gone = 0;
	struct coll_id id = {.kind = e->kind, .sig = e->sig, .seq = e->seq};
	int n = parts_of(x, e->sig, j, st, &self);

	while ((int)gone < n && (j[gone] != l->job || st[gone] != l->step))
		gone++;
	/* The coordinator fails it for all; another step only when the
	 * coordinator itself left. */
	if ((int)gone == n || (self && gone))
		return;
	l->failed++;
	if (!self)
		result_to_all(x, &id, PMIXEV_ERR_UNREACH);
	if (coll_root_finish(x->s->coll, &id, PMIXEV_ERR_UNREACH, NULL, 0))
		xcoll_end(e);
	else
		e->failed = PMIXEV_ERR_UNREACH; /* for at_root */
}

/* srun: step (job, step) of the family ended (its link closed). */
static void on_left(void *ctx, const struct pmixev_xstep_hdr *h,
		    struct pmixev_buf *body, const uint8_t *frame, size_t len)
{
	struct coll_xstep *x = ctx;
	struct left l = {x, h->src_job, h->src_step, 0};
	const struct pmixev_step *own = &x->s->lay.step;

	(void)body;
	(void)frame;
	(void)len;
	if (!pmixev_xstep_for_me(h, own->job_id, own->step_id, x->s->lay.nodeid,
				 overlay_parent(x->s->ov) ==
					 PMIXEV_TREE_NONE) ||
	    !nspaces_member(x->s->nspaces, h->src_job, h->src_step)) {
		drop(x, h, "a step's end", "not a family step known here");
		return;
	}
	if (x->ngone < GONE_MAX && !is_gone(x, h->src_job, h->src_step)) {
		x->gone[x->ngone][0] = h->src_job;
		x->gone[x->ngone++][1] = h->src_step;
	}
	pending_each(x->held, fail_if_left, &l);
	PMIXEV_DEBUG(1,
		     "step %s: step %u.%u ended: %u collective(s) with it "
		     "failed",
		     sid(x), h->src_job, h->src_step, l.failed);
}

struct coll_xstep *coll_xstep_create(struct step *s)
{
	struct coll_xstep *x = calloc(1, sizeof(*x));

	if (!x)
		return NULL;
	x->s = s;
	x->max_held = s->conf.fence_max;
	x->max_bytes = (size_t)s->conf.overlay_mib << 20;
	if (!(x->held = pending_set_create(agent_base(s->agent), xcoll_expire,
					   NULL)) ||
	    xstep_on(s->xstep, PMIXEV_XSTEP_COLL_PART, on_part, x) < 0 ||
	    xstep_on(s->xstep, PMIXEV_XSTEP_COLL_RESULT, on_result, x) < 0 ||
	    xstep_on(s->xstep, PMIXEV_XSTEP_LEFT, on_left, x) < 0) {
		coll_xstep_destroy(x);
		return NULL;
	}
	return x;
}

void coll_xstep_destroy(struct coll_xstep *x)
{
	if (!x)
		return;
	if (x->dropped)
		PMIXEV_INFO("step %s: %llu cross-step collective frame(s) "
			    "dropped",
			    sid(x), (unsigned long long)x->dropped);
	pending_set_destroy(x->held, xcoll_release);
	free(x);
}
