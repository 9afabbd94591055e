/*
 * pmixev_hub_route.c - an srun's family table (see pmixev_hub_route.h).
 *
 * One array sorted by (job, step), allocated whole at creation (the
 * family's bound), so that joining never allocates and a refused batch
 * leaves the table as it was.
 */
#include "config.h"

#include "pmixev_hub_route.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define NONE	   PMIXEV_XSTEP_NONE
#define FAMILY_MAX PMIXEV_XSTEP_FAMILY_MAX

struct entry {
	struct pmixev_xstep_member m;
	uint32_t via;
};

struct pmixev_hub_route {
	uint32_t n;
	bool has_parent;
	struct pmixev_xstep_id self;
	struct entry *e; /* [FAMILY_MAX], n used, sorted */
};

static int fail_with(int err)
{
	errno = err;
	return -1;
}

static bool orphan(const struct pmixev_xstep_member *m)
{
	return m->parent_job == NONE && m->parent_step == NONE;
}

static int cmp_entry(const void *key, const void *elem)
{
	const struct pmixev_xstep_id *k = key;
	const struct entry *e = elem;

	return pmixev_xstep_id_cmp(k->job, k->step, e->m.job, e->m.step);
}

static int sort_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	return pmixev_xstep_id_cmp(x->m.job, x->m.step, y->m.job, y->m.step);
}

static struct entry *find(const struct pmixev_hub_route *rt, uint32_t job,
			  uint32_t step)
{
	struct pmixev_xstep_id k = {job, step};

	return bsearch(&k, rt->e, rt->n, sizeof(*rt->e), cmp_entry);
}

struct pmixev_hub_route *pmixev_hub_route_create(uint32_t job, uint32_t step,
						 uint32_t parent_job,
						 uint32_t parent_step)
{
	struct pmixev_xstep_member self = {job, step, parent_job, parent_step};
	struct pmixev_xstep_members one = {1, &self};
	struct pmixev_hub_route *rt;

	if (!pmixev_hub_join_ok(&one)) {
		errno = EINVAL;
		return NULL;
	}
	rt = calloc(1, sizeof(*rt));
	if (!rt || !(rt->e = calloc(FAMILY_MAX, sizeof(*rt->e)))) {
		free(rt);
		errno = ENOMEM;
		return NULL;
	}
	rt->self = (struct pmixev_xstep_id){job, step};
	rt->has_parent = !orphan(&self);
	rt->e[0] = (struct entry){self, PMIXEV_HUB_SELF};
	rt->n = 1;
	return rt;
}

void pmixev_hub_route_destroy(struct pmixev_hub_route *rt)
{
	if (!rt)
		return;
	free(rt->e);
	free(rt);
}

static bool is_self(const struct pmixev_hub_route *rt, uint32_t job,
		    uint32_t step)
{
	return job == rt->self.job && step == rt->self.step;
}

/*
 * Member `e` of batch `m` from link `via`, following its parents within
 * the batch (a cycle there fails): from a child link they lead to this
 * srun's step or a step known through that link; from the parent link,
 * to no step of this srun's subtree.
 */
static bool batch_ok(const struct pmixev_hub_route *rt, uint32_t via,
		     const struct pmixev_xstep_members *m,
		     const struct pmixev_xstep_member *e)
{
	bool up = via == PMIXEV_HUB_PARENT;

	for (uint32_t hops = 0; hops <= m->n; hops++) {
		const struct entry *known;

		if (orphan(e))
			return up;
		if (is_self(rt, e->parent_job, e->parent_step))
			return !up;
		known = find(rt, e->parent_job, e->parent_step);
		if (known)
			return known->via == (up ? PMIXEV_HUB_PARENT : via);
		e = pmixev_xstep_family_find(m, e->parent_job, e->parent_step);
		if (!e)
			return up;
	}
	return false;
}

static uint32_t orphans(const struct pmixev_hub_route *rt)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < rt->n; i++)
		k += orphan(&rt->e[i].m);
	return k;
}

int pmixev_hub_route_join(struct pmixev_hub_route *rt, uint32_t via,
			  const struct pmixev_xstep_members *m)
{
	uint32_t roots = orphans(rt);

	if ((via != PMIXEV_HUB_PARENT && via >= PMIXEV_HUB_LINKS_MAX) ||
	    (via == PMIXEV_HUB_PARENT && !rt->has_parent) ||
	    !pmixev_hub_join_ok(m))
		return fail_with(EINVAL);
	for (uint32_t i = 0; i < m->n; i++)
		if (find(rt, m->m[i].job, m->m[i].step))
			return fail_with(EEXIST);
	for (uint32_t i = 0; i < m->n; i++) {
		const struct pmixev_xstep_member *e = &m->m[i];

		if (!batch_ok(rt, via, m, e))
			return fail_with(EINVAL);
		if (orphan(e) && ++roots > 1)
			return fail_with(EINVAL);
	}
	if (m->n > FAMILY_MAX - rt->n)
		return fail_with(ENOSPC);
	for (uint32_t i = 0; i < m->n; i++)
		rt->e[rt->n + i] = (struct entry){m->m[i], via};
	rt->n += m->n;
	qsort(rt->e, rt->n, sizeof(*rt->e), sort_entry);
	return 0;
}

static bool leaving(const struct pmixev_hub_leave *l, uint32_t job,
		    uint32_t step)
{
	uint32_t lo = 0, hi = l->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		int c = pmixev_xstep_id_cmp(job, step, l->ids[mid].job,
					    l->ids[mid].step);

		if (!c)
			return true;
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return false;
}

/* Keep the entries not in `l`. */
static void remove_set(struct pmixev_hub_route *rt,
		       const struct pmixev_hub_leave *l)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < rt->n; i++)
		if (!leaving(l, rt->e[i].m.job, rt->e[i].m.step))
			rt->e[k++] = rt->e[i];
	rt->n = k;
}

int pmixev_hub_route_leave(struct pmixev_hub_route *rt, uint32_t via,
			   const struct pmixev_hub_leave *l)
{
	if (!pmixev_hub_leave_ok(l))
		return fail_with(EINVAL);
	for (uint32_t i = 0; i < l->n; i++) {
		const struct entry *e = find(rt, l->ids[i].job, l->ids[i].step);

		if (!e || e->via != via || via == PMIXEV_HUB_SELF)
			return fail_with(ENOENT);
	}
	for (uint32_t i = 0; i < rt->n; i++) {
		const struct pmixev_xstep_member *e = &rt->e[i].m;

		if (!leaving(l, e->job, e->step) && !orphan(e) &&
		    leaving(l, e->parent_job, e->parent_step))
			return fail_with(EINVAL);
	}
	remove_set(rt, l);
	return 0;
}

int pmixev_hub_route_drop(struct pmixev_hub_route *rt, uint32_t via,
			  struct pmixev_hub_leave *gone)
{
	uint32_t k = 0;

	gone->n = 0;
	gone->ids = NULL;
	if (via == PMIXEV_HUB_SELF)
		return 0;
	for (uint32_t i = 0; i < rt->n; i++)
		k += rt->e[i].via == via;
	if (!k)
		return 0;
	gone->ids = calloc(k, sizeof(*gone->ids));
	if (!gone->ids)
		return fail_with(ENOMEM);
	for (uint32_t i = 0; i < rt->n; i++)
		if (rt->e[i].via == via)
			gone->ids[gone->n++] = (struct pmixev_xstep_id){
				rt->e[i].m.job, rt->e[i].m.step};
	remove_set(rt, gone);
	return 0;
}

uint32_t pmixev_hub_route_next(const struct pmixev_hub_route *rt, uint32_t job,
			       uint32_t step)
{
	const struct entry *e = find(rt, job, step);

	return e ? e->via : PMIXEV_HUB_NONE;
}

uint32_t pmixev_hub_route_count(const struct pmixev_hub_route *rt)
{
	return rt->n;
}

int pmixev_hub_route_members(const struct pmixev_hub_route *rt, bool subtree,
			     struct pmixev_xstep_members *out)
{
	uint32_t k = 0;

	out->n = 0;
	out->m = calloc(rt->n, sizeof(*out->m));
	if (!out->m)
		return fail_with(ENOMEM);
	for (uint32_t i = 0; i < rt->n; i++)
		if (!subtree || rt->e[i].via != PMIXEV_HUB_PARENT)
			out->m[k++] = rt->e[i].m;
	out->n = k;
	return 0;
}
