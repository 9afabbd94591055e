/*
 * pmixside/query_groups.c - the group queries' answers (see
 * query_groups.h). Pmix side's agent.
 */
#include "config.h"

#include "pmixside/query_groups.h"

#include <stdlib.h>
#include <string.h>

#include <pmix.h>

/* Does entry `e` count: a group of the step, and with `local` one with a
 * member on this node? */
static bool counts(const struct layout *lay, const struct pmixev_group_entry *e,
		   bool local)
{
	bool here = false;

	for (uint32_t k = 0; k < e->nranks; k++) {
		if (e->ranks[k] >= lay->map.ntasks)
			return false; /* not this step's: never expected */
		here |= layout_is_local(lay, e->ranks[k]);
	}
	return !local || here;
}

/* Is entry `i`'s id the first of its kind among those that count? */
static bool first_of_id(const struct layout *lay,
			const struct pmixev_group_list *l, uint32_t i,
			bool local)
{
	for (uint32_t k = 0; k < i; k++)
		if (!strcmp(l->e[k].grpid, l->e[i].grpid) &&
		    counts(lay, &l->e[k], local))
			return false;
	return true;
}

/* The distinct ids that count, each once, into `ids` (may be NULL). */
static size_t distinct(const struct layout *lay,
		       const struct pmixev_group_list *l, bool local,
		       const char **ids)
{
	size_t n = 0;

	for (uint32_t i = 0; i < l->n; i++)
		if (counts(lay, &l->e[i], local) &&
		    first_of_id(lay, l, i, local)) {
			if (ids)
				ids[n] = l->e[i].grpid;
			n++;
		}
	return n;
}

pmix_status_t qgroups_count(const struct layout *lay,
			    const struct pmixev_group_list *l, bool local,
			    pmix_info_t *out)
{
	size_t n = distinct(lay, l, local, NULL);

	PMIX_INFO_LOAD(out, PMIX_QUERY_NUM_GROUPS, &n, PMIX_SIZE);
	return PMIX_SUCCESS;
}

pmix_status_t qgroups_names(const struct layout *lay,
			    const struct pmixev_group_list *l, bool local,
			    pmix_info_t *out)
{
	const char **ids = calloc(l->n ? l->n : 1, sizeof(*ids));
	pmix_data_array_t da;
	size_t n;
	char **s;

	if (!ids)
		return PMIX_ERR_NOMEM;
	n = distinct(lay, l, local, ids);
	PMIX_DATA_ARRAY_CONSTRUCT(&da, n, PMIX_STRING);
	s = da.array;
	if (n && !s) {
		free(ids);
		return PMIX_ERR_NOMEM;
	}
	for (size_t i = 0; i < n; i++)
		if (!(s[i] = strdup(ids[i]))) {
			PMIX_DATA_ARRAY_DESTRUCT(&da);
			free(ids);
			return PMIX_ERR_NOMEM;
		}
	PMIX_INFO_LOAD(out, PMIX_QUERY_GROUP_NAMES, &da, PMIX_DATA_ARRAY);
	PMIX_DATA_ARRAY_DESTRUCT(&da);
	free(ids);
	return PMIX_SUCCESS;
}

pmix_status_t qgroups_members(const struct layout *lay,
			      const struct pmixev_group_list *l, bool local,
			      const char *grpid, pmix_info_t *out)
{
	uint8_t *in = calloc(lay->map.ntasks ? lay->map.ntasks : 1, 1);
	pmix_data_array_t da;
	pmix_proc_t *procs;
	bool found = false;
	uint32_t n = 0;

	if (!in)
		return PMIX_ERR_NOMEM;
	for (uint32_t i = 0; i < l->n; i++) {
		const struct pmixev_group_entry *e = &l->e[i];

		if (strcmp(e->grpid, grpid) || !counts(lay, e, local))
			continue;
		found = true;
		for (uint32_t k = 0; k < e->nranks; k++)
			if (!in[e->ranks[k]]) {
				in[e->ranks[k]] = 1;
				n++;
			}
	}
	if (!found) {
		free(in);
		return PMIX_ERR_NOT_FOUND;
	}
	PMIX_DATA_ARRAY_CONSTRUCT(&da, n, PMIX_PROC);
	if (!(procs = da.array)) {
		free(in);
		return PMIX_ERR_NOMEM;
	}
	n = 0;
	for (uint32_t r = 0; r < lay->map.ntasks; r++) {
		if (!in[r])
			continue;
		/* the macro reads its first argument twice */
		PMIX_LOAD_PROCID(&procs[n], lay->nspace, r);
		n++;
	}
	PMIX_INFO_LOAD(out, PMIX_QUERY_GROUP_MEMBERSHIP, &da, PMIX_DATA_ARRAY);
	PMIX_DATA_ARRAY_DESTRUCT(&da);
	free(in);
	return PMIX_SUCCESS;
}
