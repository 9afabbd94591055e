/*
 * pmixbase/procs.c - an upcall's processes as ranks of the step. Called on
 * the PMIx progress thread.
 */
#include "config.h"

#include "pmixbase/procs.h"

#include <stdlib.h>

enum pmixev_result procs_to_ranks(const struct layout *lay,
				  const pmix_proc_t procs[], size_t nprocs,
				  bool *all, uint32_t **ranks)
{
	enum pmixev_result rc = PMIXEV_ERR_BAD_REQUEST;
	uint32_t *r = NULL;

	*all = false;
	*ranks = NULL;
	if (!nprocs)
		return rc;
	if (!(r = calloc(nprocs, sizeof(*r))))
		return PMIXEV_ERR_NOMEM;
	for (size_t i = 0; i < nprocs; i++) {
		if (!PMIX_CHECK_NSPACE(procs[i].nspace, lay->nspace)) {
			rc = PMIXEV_ERR_NOT_SUPPORTED;
			goto fail;
		}
		if (procs[i].rank == PMIX_RANK_WILDCARD)
			*all = true;
		else if (procs[i].rank >= lay->step.ntasks)
			goto fail;
		r[i] = procs[i].rank;
	}
	*ranks = r;
	return PMIXEV_OK;
fail:
	*all = false;
	free(r);
	return rc;
}

static int by_rank(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static int by_step(const void *a, const void *b)
{
	const struct pmixev_pmixd_part *x = a, *y = b;

	if (x->job != y->job)
		return (x->job > y->job) - (x->job < y->job);
	return (x->step > y->step) - (x->step < y->step);
}

/* The part of (job, step) in `m`, added (with room for `n` ranks) if new;
 * NULL when out of memory or over PARTS_MAX (*rc says which). */
static struct pmixev_pmixd_part *part_of(struct pmixev_pmixd_fence *m,
					 uint32_t job, uint32_t step, size_t n,
					 enum pmixev_result *rc)
{
	struct pmixev_pmixd_part *p;

	for (uint32_t i = 0; i < m->nparts; i++)
		if (m->parts[i].job == job && m->parts[i].step == step)
			return &m->parts[i];
	if (m->nparts == PMIXEV_PMIXD_PARTS_MAX) {
		*rc = PMIXEV_ERR_OVER_BUDGET;
		return NULL;
	}
	p = &m->parts[m->nparts];
	*p = (struct pmixev_pmixd_part){.job = job, .step = step};
	if (!(p->ranks = calloc(n, sizeof(*p->ranks)))) {
		*rc = PMIXEV_ERR_NOMEM;
		return NULL;
	}
	m->nparts++;
	return p;
}

/* Add `proc` (of a namespace `known` names) to its part of `m`. */
static enum pmixev_result add_foreign(struct pmixev_pmixd_fence *m,
				      const pmix_proc_t *proc, size_t nprocs,
				      procs_known_fn known)
{
	enum pmixev_result rc = PMIXEV_ERR_BAD_REQUEST;
	struct pmixev_pmixd_part *p;
	uint32_t job, step;

	if (!known(proc->nspace, &job, &step))
		return rc;
	if (proc->rank != PMIX_RANK_WILDCARD && proc->rank > PMIX_RANK_VALID)
		return rc;
	if (!(p = part_of(m, job, step, nprocs, &rc)))
		return rc;
	if (proc->rank == PMIX_RANK_WILDCARD)
		p->all = true;
	else
		p->ranks[p->nranks++] = proc->rank;
	return PMIXEV_OK;
}

enum pmixev_result procs_to_parts(const struct layout *lay,
				  const pmix_proc_t procs[], size_t nprocs,
				  procs_known_fn known,
				  struct pmixev_pmixd_fence *m, size_t *bad)
{
	enum pmixev_result rc = PMIXEV_ERR_NOMEM;
	size_t nown = 0;

	*bad = nprocs;
	m->all = false;
	m->nranks = m->nparts = 0;
	m->parts = NULL;
	if (!nprocs)
		return PMIXEV_ERR_BAD_REQUEST;
	if (!(m->ranks = calloc(nprocs, sizeof(*m->ranks))) ||
	    !(m->parts = calloc(PMIXEV_PMIXD_PARTS_MAX, sizeof(*m->parts))))
		goto fail;
	for (size_t i = 0; i < nprocs; i++) {
		rc = PMIXEV_ERR_BAD_REQUEST;
		if (!PMIX_CHECK_NSPACE(procs[i].nspace, lay->nspace)) {
			if ((rc = add_foreign(m, &procs[i], nprocs, known)) !=
			    PMIXEV_OK) {
				*bad = i;
				goto fail;
			}
			continue;
		}
		nown++;
		if (procs[i].rank == PMIX_RANK_WILDCARD)
			m->all = true;
		else if (procs[i].rank >= lay->step.ntasks)
			goto fail;
		else
			m->ranks[m->nranks++] = procs[i].rank;
	}
	rc = PMIXEV_ERR_BAD_REQUEST;
	if (!nown)
		goto fail;
	m->nranks = m->all ? 0 : procs_sort_unique(m->ranks, m->nranks);
	for (uint32_t i = 0; i < m->nparts; i++) {
		struct pmixev_pmixd_part *p = &m->parts[i];

		p->nranks = p->all ? 0 : procs_sort_unique(p->ranks, p->nranks);
	}
	qsort(m->parts, m->nparts, sizeof(*m->parts), by_step);
	return PMIXEV_OK;
fail:
	pmixev_pmixd_fence_release(m);
	m->all = false;
	return rc;
}

uint32_t procs_sort_unique(uint32_t *ranks, size_t n)
{
	uint32_t k = 0;

	qsort(ranks, n, sizeof(*ranks), by_rank);
	for (size_t i = 0; i < n; i++)
		if (!k || ranks[i] != ranks[k - 1])
			ranks[k++] = ranks[i];
	return k;
}

bool procs_in_set(const uint32_t *set, uint32_t n, uint32_t rank)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (set[mid] == rank)
			return true;
		if (set[mid] < rank)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}
