/*
 * pmixside/group_watch.h - the groups constructed on this node, watched
 * for their members' ends (doc/groups.md §4). Each node's pmix side keeps
 * the groups with a member here, from the construct's answer to the
 * destruct's; when a member ends (task exit, or lost with its node: every
 * node's pmix side hears of each rank's end) it tells this node's other
 * members, each node its own, so that every member hears once:
 * - PMIX_GROUP_LEADER_FAILED when the group's declared leader ended, to
 *   every other member;
 * - PMIX_GROUP_MEMBER_FAILED when another member ended in a group
 *   constructed with PMIX_GROUP_NOTIFY_TERMINATION, to the leader if one
 *   was declared, else to every other member.
 * The events carry PMIX_GROUP_ID, PMIX_EVENT_AFFECTED_PROC (the member
 * that ended), PMIX_GROUP_CONTEXT_ID when the group has one, and
 * PMIX_EVENT_NON_DEFAULT; their source is this node's server, their
 * range the members told (custom). They are counted under "groups@NODE"
 * with the other events (inject_pmix.h).
 *
 * At most PMIXEV_GROUP_WATCH_MAX groups per node: a construct beyond that
 * still succeeds, unwatched, and is counted and logged.
 * Agent thread of the pmix side only.
 */
#ifndef PMIXEV_PMIXSIDE_GROUP_WATCH_H_
#define PMIXEV_PMIXSIDE_GROUP_WATCH_H_

#include <stdbool.h>
#include <stdint.h>

#include "base/layout.h"
#include "pmixside/inject_pmix.h"

#define PMIXEV_GROUP_WATCH_MAX 4096

struct group_watch;

/* The watch of the step laid out in `lay`, telling through `in` (both
 * borrowed). NULL when out of memory. */
struct group_watch *group_watch_create(const struct layout *lay,
				       struct inject_pmix *in);

/* Log what went unwatched, and free. NULL-safe. */
void group_watch_destroy(struct group_watch *w);

/*
 * Group `id` was constructed with members `ranks` (strictly increasing;
 * `all`: every rank of the step) minus `failed`, context id `ctxid` (0:
 * none), directives `flags` (PMIXEV_PMIXD_GROUP_*) and `leader` (a member,
 * or PMIXEV_PMIXD_NO_RANK).
 */
void group_watch_add(struct group_watch *w, const char *id, bool all,
		     const uint32_t *ranks, uint32_t nranks,
		     const uint32_t *failed, uint32_t nfailed, uint64_t ctxid,
		     uint8_t flags, uint32_t leader);

/*
 * Group `id` over the same members is destructed here: forgotten. Its
 * directives, or 0 when it was not watched.
 */
uint8_t group_watch_remove(struct group_watch *w, const char *id, bool all,
			   const uint32_t *ranks, uint32_t nranks);

/* Rank `rank` of the step ended (inject_pmix_on_rank_end). */
void group_watch_rank_end(void *ctx, uint32_t rank);

#endif /* PMIXEV_PMIXSIDE_GROUP_WATCH_H_ */
