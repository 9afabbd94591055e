/*
 * pmixside/query_groups.h - the group queries answered from node 0's list
 * of the step's live groups, as root's QUERY_DONE carries it
 * (common/pmixev_group_list.h):
 *
 *   PMIX_QUERY_NUM_GROUPS        (size_t) the distinct group ids
 *   PMIX_QUERY_GROUP_NAMES       (data array of PMIX_STRING) those ids,
 *                                each once, in the order constructed
 *   PMIX_QUERY_GROUP_MEMBERSHIP  (data array of PMIX_PROC) the members of
 *                                the groups with id `grpid`: the union
 *                                when disjoint groups share it;
 *                                PMIX_ERR_NOT_FOUND when none has it
 *
 * With `local` only the groups with a member on this node count. Each
 * returns PMIX_SUCCESS with `out` loaded, PMIX_ERR_NOT_FOUND, or
 * PMIX_ERR_NOMEM.
 */
#ifndef PMIXEV_PMIXSIDE_QUERY_GROUPS_H_
#define PMIXEV_PMIXSIDE_QUERY_GROUPS_H_

#include <stdbool.h>

#include <pmix_common.h>

#include "base/layout.h"
#include "pmixev_group_list.h"

pmix_status_t qgroups_count(const struct layout *lay,
			    const struct pmixev_group_list *l, bool local,
			    pmix_info_t *out);

pmix_status_t qgroups_names(const struct layout *lay,
			    const struct pmixev_group_list *l, bool local,
			    pmix_info_t *out);

pmix_status_t qgroups_members(const struct layout *lay,
			      const struct pmixev_group_list *l, bool local,
			      const char *grpid, pmix_info_t *out);

#endif /* PMIXEV_PMIXSIDE_QUERY_GROUPS_H_ */
