/*
 * base/layout.c - a step's layout: freed, and carried to the PMIx server
 * process in START (see layout.h). The maps travel as each rank's group
 * (node, application) and are rebuilt through the task map's own strict
 * parser. No Slurm here (layout_env.c reads Slurm's environment).
 */
#include "config.h"

#include "base/layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void layout_free(struct layout *lay)
{
	for (uint32_t i = 0; lay->nodes && i < lay->nnames; i++)
		free(lay->nodes[i]);
	free(lay->nodes);
	lay->nodes = NULL;
	lay->nnames = 0;
	pmixev_taskmap_free(&lay->map);
	pmixev_taskmap_free(&lay->apps);
	free(lay->parent_layout);
	lay->parent_layout = NULL;
	lay->nparent_layout = 0;
}

void layout_to_start(const struct layout *lay, struct pmixev_pmixd_start *m)
{
	m->step = lay->step;
	m->nodeid = lay->nodeid;
	m->nodes = lay->nodes;
	m->node_of = lay->map.node_of;
	m->napps = lay->apps.nnodes;
	m->app_of = lay->apps.node_of;
	m->uid = lay->uid;
	m->gid = lay->gid;
	snprintf(m->nspace, sizeof(m->nspace), "%s", lay->nspace);
	snprintf(m->srv_nspace, sizeof(m->srv_nspace), "%s", lay->srv_nspace);
	snprintf(m->step_cores, sizeof(m->step_cores), "%s", lay->step_cores);
	snprintf(m->parent, sizeof(m->parent), "%s", lay->parent);
	m->parent_rank = lay->parent_rank;
}

/*
 * The task-map text ("0,2;1,3") of `ntasks` ranks in `ngroups` groups,
 * rank r in group of[r] (< ngroups). Malloc'd, or NULL.
 */
static char *groups_text(uint32_t ngroups, uint32_t ntasks, const uint32_t *of)
{
	uint32_t *first = calloc(ngroups + 1, sizeof(*first)),
		 *next = calloc(ntasks, sizeof(*next));
	size_t cap = (size_t)ntasks * 11 + ngroups + 1, off = 0;
	char *text = malloc(cap);

	if (!first || !next || !text) {
		free(text);
		text = NULL;
		goto out;
	}
	/* Per group, its ranks in rising order: fill from the highest. */
	for (uint32_t g = 0; g < ngroups; g++)
		first[g] = UINT32_MAX;
	for (uint32_t r = ntasks; r-- > 0;) {
		next[r] = first[of[r]];
		first[of[r]] = r;
	}
	for (uint32_t g = 0; g < ngroups; g++) {
		for (uint32_t r = first[g]; r != UINT32_MAX; r = next[r])
			off += (size_t)snprintf(text + off, cap - off, "%s%u",
						r == first[g] ? "" : ",", r);
		if (g + 1 < ngroups)
			text[off++] = ';';
	}
	text[off] = '\0';
out:
	free(first);
	free(next);
	return text;
}

static int build_map(struct pmixev_taskmap *map, uint32_t ngroups,
		     uint32_t ntasks, const uint32_t *of, char *err,
		     size_t errlen)
{
	char *text;
	int rc;

	for (uint32_t r = 0; r < ntasks; r++)
		if (of[r] >= ngroups) {
			snprintf(err, errlen, "rank %u in group %u of %u", r,
				 of[r], ngroups);
			return -1;
		}
	if (!(text = groups_text(ngroups, ntasks, of))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	rc = pmixev_taskmap_parse(map, text, ngroups, ntasks, err, errlen);
	free(text);
	return rc;
}

int layout_from_start(struct layout *lay, const struct pmixev_pmixd_start *m,
		      char *err, size_t errlen)
{
	uint32_t nnodes = m->step.nnodes, ntasks = m->step.ntasks;

	memset(lay, 0, sizeof(*lay));
	lay->step = m->step;
	lay->nodeid = m->nodeid;
	lay->uid = m->uid;
	lay->gid = m->gid;
	snprintf(lay->nspace, sizeof(lay->nspace), "%s", m->nspace);
	snprintf(lay->srv_nspace, sizeof(lay->srv_nspace), "%s", m->srv_nspace);
	snprintf(lay->step_cores, sizeof(lay->step_cores), "%s", m->step_cores);
	snprintf(lay->parent, sizeof(lay->parent), "%s", m->parent);
	lay->parent_rank = m->parent_rank;
	if (!(lay->nodes = calloc(nnodes, sizeof(*lay->nodes)))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (uint32_t i = 0; i < nnodes; i++, lay->nnames++)
		if (!(lay->nodes[i] = strdup(m->nodes[i]))) {
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
	if (build_map(&lay->map, nnodes, ntasks, m->node_of, err, errlen) < 0 ||
	    build_map(&lay->apps, m->napps, ntasks, m->app_of, err, errlen) < 0)
		goto fail;
	return 0;
fail:
	layout_free(lay);
	return -1;
}
