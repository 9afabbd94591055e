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
