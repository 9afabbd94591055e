/*
 * pmixev_group_list.h - the live PMIx groups of a step as the registry on
 * node 0 lists them (doc/groups.md §2d, §7): the answer to the group
 * queries. It travels from node 0 to the asking node's root (overlay
 * GROUPS_REQ/GROUPS_RESP, whose bodies are here too) and on to that node's
 * pmix side inside QUERY_DONE (item Q_GROUPS, pmixev_pmixd_ctl.h).
 *
 * Reading is as strict as for the pmixd channel's messages
 * (pmixev_pmixd_msg.h): short, trailing or malformed bytes, counts beyond
 * the bytes, the bounds or the step (checked before anything is
 * allocated), a group id that is empty, too long or holds a NUL, members
 * that are not strictly increasing or not ranks of the step are refused;
 * pack refuses what unpack would, and the encoding is canonical. Pure
 * code: unit-tested and fuzzed.
 */
#ifndef PMIXEV_GROUP_LIST_H_
#define PMIXEV_GROUP_LIST_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmixev_buf.h"
#include "pmixev_pmixd_group.h"
#include "pmixev_result.h"

#define PMIXEV_GROUP_LIST_MAX	1024	   /* groups in one answer */
#define PMIXEV_GROUP_LIST_BYTES (1u << 20) /* one packed answer, at most */

/* One group: its id and members. Two groups may share an id (disjoint
 * members, doc/groups.md §1). */
struct pmixev_group_entry {
	char grpid[PMIXEV_PMIXD_GROUP_ID_MAX];
	uint32_t nranks;
	uint32_t *ranks; /* 1..ntasks, strictly increasing, each < ntasks */
};

/* `partial`: the registry holds more groups than the bounds let through. */
struct pmixev_group_list {
	bool partial;
	uint32_t n;
	struct pmixev_group_entry *e; /* [n], each ranks malloc'd */
};

/* The bytes a packed list with `n` entries of `total_ranks` members in all
 * and `idbytes` of ids in all takes: to stay within the bound. */
size_t pmixev_group_list_size(size_t n, size_t idbytes, size_t total_ranks);

/* Append `l`, for a step of `ntasks` ranks, to `b`. 0, or -1 (errno
 * EINVAL: what unpack would refuse; ENOMEM). */
int pmixev_group_list_pack(struct pmixev_buf *b,
			   const struct pmixev_group_list *l, uint32_t ntasks);

/* The rest of reader `b` as a list for a step of `ntasks` ranks into *l.
 * 0, or -1 (nothing left to release). */
int pmixev_group_list_unpack(struct pmixev_buf *b, uint32_t ntasks,
			     struct pmixev_group_list *l);

/* Free what unpack allocated and empty `l`. NULL-safe. */
void pmixev_group_list_release(struct pmixev_group_list *l);

/* GROUPS_REQ: a node asks node 0 for the list; `id` is the asker's. */
int pmixev_groups_req_pack(struct pmixev_buf *b, uint64_t id);
int pmixev_groups_req_unpack(const uint8_t *p, size_t n, uint64_t *id);

/* GROUPS_RESP: node 0's answer, the list only with PMIXEV_OK. */
struct pmixev_groups_resp {
	uint64_t id;
	enum pmixev_result result;
	struct pmixev_group_list l;
};
int pmixev_groups_resp_pack(struct pmixev_buf *b,
			    const struct pmixev_groups_resp *m,
			    uint32_t ntasks);
int pmixev_groups_resp_unpack(const uint8_t *p, size_t n, uint32_t ntasks,
			      struct pmixev_groups_resp *m);

#endif /* PMIXEV_GROUP_LIST_H_ */
