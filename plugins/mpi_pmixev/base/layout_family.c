/*
 * base/layout_family.c - a step's layout for the rest of its family (see
 * layout_family.h).
 */
#include "config.h"

#include "base/layout_family.h"

#include <stdio.h>

#include "pmixev_xstep.h"

int layout_family_pack(const struct layout *lay, struct pmixev_buf *b)
{
	struct pmixev_xstep_layout m = {
		.spawn_id = lay->spawn_id,
		.parent_rank = lay->parent[0] ? lay->parent_rank
					      : PMIXEV_XSTEP_NO_RANK};
	struct pmixev_pmixd_start *st = &m.start;

	snprintf(m.parent_nspace, sizeof(m.parent_nspace), "%s", lay->parent);
	st->step = lay->step;
	st->step.node[0] = '\0';
	st->step.id[0] = '\0';
	st->nodes = lay->nodes;
	st->node_of = lay->map.node_of;
	st->napps = lay->apps.nnodes;
	st->app_of = lay->apps.node_of;
	snprintf(st->nspace, sizeof(st->nspace), "%s", lay->nspace);
	snprintf(st->parent, sizeof(st->parent), "%s", lay->parent);
	st->parent_rank = lay->parent_rank;
	return pmixev_xstep_layout_pack(b, &m);
}
