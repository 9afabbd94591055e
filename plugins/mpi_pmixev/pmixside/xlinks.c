/*
 * pmixside/xlinks.c - this node's ranks connected to other steps (see
 * xlinks.h).
 */
#include "config.h"

#include "pmixside/xlinks.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "pmixev_log.h"

struct link {
	uint32_t job, step, rank;
	uint32_t refs; /* connects that made it and did not fail */
};

struct xlinks {
	pthread_mutex_t lock; /* the PMIx thread begins, the agent ends */
	const struct layout *lay;
	struct link *v; /* [n], unordered */
	size_t n, cap;
	uint64_t over; /* links not kept: XLINKS_MAX */
};

struct xlinks_note {
	bool connect;		 /* else a disconnect */
	uint32_t nsteps, nranks; /* the other steps, the local ranks */
	uint32_t (*steps)[2];	 /* [nsteps] {job, step} */
	uint32_t *ranks;	 /* [nranks] */
};

struct xlinks *xlinks_create(const struct layout *lay)
{
	struct xlinks *x = calloc(1, sizeof(*x));

	if (!x)
		return NULL;
	pthread_mutex_init(&x->lock, NULL);
	x->lay = lay;
	return x;
}

void xlinks_destroy(struct xlinks *x)
{
	if (!x)
		return;
	if (x->over)
		PMIXEV_INFO("step %s: %llu link(s) of ranks to other steps "
			    "not kept (more than %u): their ends reached the "
			    "spawner only",
			    x->lay->step.id, (unsigned long long)x->over,
			    XLINKS_MAX);
	pthread_mutex_destroy(&x->lock);
	free(x->v);
	free(x);
}

/* The local ranks of this step's part of `m`. */
static int local_ranks(const struct layout *lay,
		       const struct pmixev_pmixd_fence *m,
		       struct xlinks_note *n)
{
	uint32_t count = m->all ? lay->step.ntasks : m->nranks;

	if (!(n->ranks = calloc(count ? count : 1, sizeof(*n->ranks))))
		return -1;
	for (uint32_t i = 0; i < count; i++) {
		uint32_t r = m->all ? i : m->ranks[i];

		if (layout_is_local(lay, r))
			n->ranks[n->nranks++] = r;
	}
	return 0;
}

struct xlinks_note *xlinks_note_make(const struct layout *lay,
				     const struct pmixev_pmixd_fence *m)
{
	struct xlinks_note *n;

	if (m->kind == PMIXEV_COLL_FENCE || !m->nparts)
		return NULL;
	if (!(n = calloc(1, sizeof(*n))) ||
	    !(n->steps = calloc(m->nparts, sizeof(*n->steps))) ||
	    local_ranks(lay, m, n) < 0) {
		PMIXEV_ERROR("step %s: out of memory: a %s across steps will "
			     "not change which ranks hear of the other steps' "
			     "ends",
			     lay->step.id,
			     m->kind == PMIXEV_COLL_CONNECT ? "connect"
							    : "disconnect");
		xlinks_note_free(n);
		return NULL;
	}
	n->connect = m->kind == PMIXEV_COLL_CONNECT;
	n->nsteps = m->nparts;
	for (uint32_t i = 0; i < m->nparts; i++) {
		n->steps[i][0] = m->parts[i].job;
		n->steps[i][1] = m->parts[i].step;
	}
	return n;
}

void xlinks_note_free(struct xlinks_note *n)
{
	if (!n)
		return;
	free(n->steps);
	free(n->ranks);
	free(n);
}

static struct link *find(const struct xlinks *x, uint32_t job, uint32_t step,
			 uint32_t rank)
{
	for (size_t i = 0; i < x->n; i++)
		if (x->v[i].job == job && x->v[i].step == step &&
		    x->v[i].rank == rank)
			return &x->v[i];
	return NULL;
}

static void add(struct xlinks *x, uint32_t job, uint32_t step, uint32_t rank)
{
	struct link *l = find(x, job, step, rank);

	if (l) {
		l->refs++;
		return;
	}
	if (x->n == x->cap) {
		size_t cap = x->cap ? x->cap * 2 : 16;
		struct link *v;

		if (cap > XLINKS_MAX ||
		    !(v = realloc(x->v, cap * sizeof(*v)))) {
			if (pmixev_log_worth(++x->over))
				PMIXEV_ERROR("step %s: rank %u's link to step "
					     "%u.%u not kept (%llu so far): "
					     "its ends reach the spawner only",
					     x->lay->step.id, rank, job, step,
					     (unsigned long long)x->over);
			return;
		}
		x->v = v;
		x->cap = cap;
	}
	x->v[x->n++] = (struct link){job, step, rank, 1};
}

/* A connect that made the link failed: one reference less. */
static void unref(struct xlinks *x, uint32_t job, uint32_t step, uint32_t rank)
{
	struct link *l = find(x, job, step, rank);

	if (l && !--l->refs)
		*l = x->v[--x->n];
}

/* A disconnect succeeded: the link goes, however it was made. */
static void del(struct xlinks *x, uint32_t job, uint32_t step, uint32_t rank)
{
	struct link *l = find(x, job, step, rank);

	if (l)
		*l = x->v[--x->n];
}

static void each(struct xlinks *x, const struct xlinks_note *n,
		 void (*fn)(struct xlinks *, uint32_t, uint32_t, uint32_t))
{
	pthread_mutex_lock(&x->lock);
	for (uint32_t s = 0; s < n->nsteps; s++)
		for (uint32_t r = 0; r < n->nranks; r++)
			fn(x, n->steps[s][0], n->steps[s][1], n->ranks[r]);
	pthread_mutex_unlock(&x->lock);
}

void xlinks_begin(struct xlinks *x, const struct xlinks_note *n)
{
	if (x && n && n->connect)
		each(x, n, add);
}

void xlinks_end(struct xlinks *x, const struct xlinks_note *n, bool ok)
{
	if (x && n && n->connect != ok)
		each(x, n, n->connect ? unref : del);
}

size_t xlinks_ranks(struct xlinks *x, uint32_t job, uint32_t step,
		    uint32_t *ranks, size_t max)
{
	size_t got = 0;

	pthread_mutex_lock(&x->lock);
	/* Ranks in increasing order: a selection over the few links. */
	for (uint32_t last = 0, first = 1; got < max; first = 0) {
		bool found = false;
		uint32_t next = UINT32_MAX;

		for (size_t i = 0; i < x->n; i++)
			if (x->v[i].job == job && x->v[i].step == step &&
			    (first || x->v[i].rank > last) &&
			    x->v[i].rank <= next) {
				next = x->v[i].rank;
				found = true;
			}
		if (!found)
			break;
		ranks[got++] = last = next;
	}
	pthread_mutex_unlock(&x->lock);
	return got;
}
