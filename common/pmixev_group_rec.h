/*
 * pmixev_group_rec.h - what root stepds exchange about a PMIx group
 * collective (doc/groups.md §2c, §3): each participant node's record, the
 * merge of the records at the tree root, the result record it sends
 * down, and the context ids it issues.
 *
 * The records travel as a collective's data between stepds, but their
 * fields come from O's GROUP frames, so reading them is as strict as
 * reading O's frames (pmixev_pmixd_msg.h): short, trailing or malformed
 * bytes, counts beyond the bytes or the step (checked before anything is
 * allocated), ranks that are not members (or not on the record's node)
 * are refused; pack refuses what unpack would and the encoding is
 * canonical. Byte strings unpack zero-copy. Pure code: unit-tested and
 * fuzzed.
 */
#ifndef PMIXEV_GROUP_REC_H_
#define PMIXEV_GROUP_REC_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmixev_buf.h"
#include "pmixev_pmixd_group.h"
#include "pmixev_taskmap.h"

/* The step's task map and a group's members: `all`, else `ranks`. */
struct pmixev_group_set {
	const struct pmixev_taskmap *map;
	bool all;
	const uint32_t *ranks; /* strictly increasing, each < ntasks */
	uint32_t nranks;
};

/*
 * A node's record, made by its root from the validated GROUP: its flags
 * and leader (PMIXEV_PMIXD_NO_RANK, or with LEADER_HERE a member on
 * `node`), the members on `node` it knows dead (strictly increasing), its
 * endpoint data. On the wire each record is a byte string (u32 length),
 * so records concatenate as fence data does.
 */
struct pmixev_group_rec {
	uint32_t node;
	uint8_t flags; /* PMIXEV_PMIXD_GROUP_* */
	uint32_t leader;
	uint32_t ndead;
	uint32_t *dead; /* [ndead]: next allocates, release frees */
	const uint8_t *endpt;
	size_t nendpt;
};
/* Append one record to `b`. */
int pmixev_group_rec_pack(struct pmixev_buf *b,
			  const struct pmixev_group_rec *r);
/*
 * The next record of reader `b` (records concatenated), checked against
 * `set`: 1 with *r, 0 at the end of `b`, -1 when malformed.
 */
int pmixev_group_rec_next(struct pmixev_buf *b,
			  const struct pmixev_group_set *set,
			  struct pmixev_group_rec *r);
void pmixev_group_rec_release(struct pmixev_group_rec *r);

/*
 * The result record the tree root sends down: the context id (0: none;
 * else pmixev_pmixd_group_ctxid_ok), the merged flags and leader, the
 * failed members (strictly increasing), every node's endpoint data.
 */
struct pmixev_group_result {
	uint64_t ctxid;
	uint8_t flags;
	uint32_t leader; /* a member, or PMIXEV_PMIXD_NO_RANK */
	uint32_t nfailed;
	uint32_t *failed; /* [nfailed]: merge, unpack allocate; release frees */
	const uint8_t *endpt;
	size_t nendpt;
};
int pmixev_group_result_pack(struct pmixev_buf *b,
			     const struct pmixev_group_result *r);
int pmixev_group_result_unpack(struct pmixev_buf *b,
			       const struct pmixev_group_set *set,
			       struct pmixev_group_result *r);
void pmixev_group_result_release(struct pmixev_group_result *r);

/*
 * Merge the records in `recs` (`len` bytes, at most one per node, each
 * from a node hosting a member) into *out, ctxid 0:
 * - flags: the OR of the records' flags;
 * - leader: the one rank a record names, else PMIXEV_PMIXD_NO_RANK (two
 *   leaders, or a LEADER_HERE that names none, make it ambiguous);
 * - failed: the members dead per `dead` (a bitmap of ntasks bits, bit r
 *   in dead[r / 8] & 1 << r % 8; NULL: none) or per a record, and those
 *   of the nodes without a record (the collective went on without them:
 *   they all ended before calling);
 * - endpt: the records' endpoint data in node order, appended to the
 *   writer `endpt` (the caller's, released after out); out->endpt points
 *   into it.
 * 0, or -1 with errno EINVAL (a malformed record, a node twice or
 * without members) or ENOMEM; *out is then untouched.
 */
int pmixev_group_merge(const uint8_t *recs, size_t len,
		       const struct pmixev_group_set *set, const uint8_t *dead,
		       struct pmixev_buf *endpt,
		       struct pmixev_group_result *out);

/*
 * Context ids of a step: ((step_id + 1) << 32) | n, n = 1, 2, ... on the
 * step's tree root. Never 0 (MPI_COMM_WORLD's), never SIZE_MAX nor
 * UINT64_MAX, never reused within the job.
 */
#define PMIXEV_GROUP_STEP_LIMIT 0xfffffff0u /* step ids from here: none */
struct pmixev_group_ids {
	uint64_t prefix;
	uint32_t last; /* the last n issued */
};
/* 0, or -1 with errno EINVAL for a step id >= PMIXEV_GROUP_STEP_LIMIT. */
int pmixev_group_ids_init(struct pmixev_group_ids *ids, uint32_t step_id);
/* The next id in *ctxid: 0, or -1 with errno ENOSPC once n would be
 * 0xffffffff. */
int pmixev_group_ids_next(struct pmixev_group_ids *ids, uint64_t *ctxid);

#endif /* PMIXEV_GROUP_REC_H_ */
