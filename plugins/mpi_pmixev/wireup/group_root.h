/*
 * wireup/group_root.h - the registry of the step's live PMIx groups, kept
 * by the tree root (node 0; doc/groups.md §2d): a construct that succeeds
 * there adds its group, a destruct removes it. Each group is known by its
 * signature (wireup/fence_sig.h: "ranks#grpid"), so two disjoint groups
 * with one id are two entries; it keeps the context id issued, if any.
 * Bounded at 16384 groups and 64 MiB of signature text: a group beyond is
 * not registered, and this is counted and logged. The registry answers
 * the group queries (wireup/group_ask.h) with a list of at most
 * PMIXEV_GROUP_LIST_MAX groups and PMIXEV_GROUP_LIST_BYTES. Agent thread.
 */
#ifndef PMIXEV_WIREUP_GROUP_ROOT_H_
#define PMIXEV_WIREUP_GROUP_ROOT_H_

#include <stdint.h>

#include "base/layout.h"
#include "pmixev_group_list.h"
#include "pmixev_proto.h"

struct group_root;

/* An empty registry for the step laid out in `lay` (kept). NULL: out of
 * memory. */
struct group_root *group_root_create(const struct layout *lay);

/*
 * A collective of `kind` over `sig` ended at the tree root: a construct
 * that succeeded registers the group with context id `ctxid` (0: none), a
 * destruct (successful or partly) forgets it. Other kinds are ignored.
 */
void group_root_note(struct group_root *r, enum pmixev_coll_kind kind,
		     const char *sig, uint64_t ctxid);

/*
 * The registered groups, oldest first, into *out (released by the caller,
 * pmixev_group_list_release): at most the list's bounds, `partial` when
 * more are registered. PMIXEV_OK, or PMIXEV_ERR_NOMEM.
 */
enum pmixev_result group_root_list(const struct group_root *r,
				   struct pmixev_group_list *out);

/* Log what the bounds turned away. NULL-safe. */
void group_root_destroy(struct group_root *r);

#endif /* PMIXEV_WIREUP_GROUP_ROOT_H_ */
