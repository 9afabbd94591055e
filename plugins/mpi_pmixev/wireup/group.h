/*
 * wireup/group.h - PMIx Groups, root's half: construct and destruct as two
 * kinds of collective on the engine (wireup/coll.h), over the nodes that
 * host members, on the agent thread.
 *
 * A GROUP frame from the pmix side (pmixside/group_pmix.c) becomes this
 * node's record (common/pmixev_group_rec.h: flags, leader, endpoint data)
 * in a collective named by the members and the group id. At the tree root
 * the records are merged and, when a member asked, a context id is
 * issued: ((step id + 1) << 32) | n, counted on the step's first node
 * only, so ids are unique across the job and never reused; when the tree
 * had to re-root away from node 0, a construct that asks for one fails
 * with PMIX_ERR_UNREACH. The result goes down to every member's node and
 * back to its pmix side as GROUP_DONE. The endpoint data stays opaque.
 * A GROUP_ABORT (a local member notified PMIX_GROUP_CONSTRUCT_ABORT)
 * fails the constructs of that id with that member held here with
 * PMIXEV_ERR_GROUP_ABORT, which spreads to every member's node.
 */
#ifndef PMIXEV_WIREUP_GROUP_H_
#define PMIXEV_WIREUP_GROUP_H_

#include "base/step.h"

struct groups;

/*
 * Set the group kinds on `s->coll` and take the pmix side's GROUP and
 * GROUP_ABORT frames on `s->chan` (checked against `s->pmixd_lim`). Before the
 * agent runs. NULL when out of memory or a kind was set already.
 */
struct groups *groups_create(struct step *s);

/* NULL-safe. After the engine (coll_destroy) answered nothing more. */
void groups_destroy(struct groups *g);

#endif /* PMIXEV_WIREUP_GROUP_H_ */
