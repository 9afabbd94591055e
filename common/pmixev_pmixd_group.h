/*
 * pmixev_pmixd_group.h - the pmixd channel's PMIx Groups messages: GROUP
 * (O->R, a node's part of a construct or destruct), GROUP_DONE (R->O, its
 * answer) and GROUP_ABORT (O->R, a member aborted a construct). See
 * doc/groups.md §2b and pmixev_pmixd_msg.h for the rules all messages
 * follow. The endpoint data stays opaque (PMIx-packed by O, never
 * unpacked by root).
 */
#ifndef PMIXEV_PMIXD_GROUP_H_
#define PMIXEV_PMIXD_GROUP_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmixev_pmixd_msg.h"

/* A group id: 1..255 bytes (PMIX_MAX_NSLEN), no NUL; with its NUL. */
#define PMIXEV_PMIXD_GROUP_ID_MAX     PMIXEV_NSPACE_MAX
#define PMIXEV_PMIXD_GROUP_TIMEOUT_MS (86400u * 1000u) /* at most, in ms */

/* The group directives a node's members gave (doc/groups.md §2a). */
#define PMIXEV_PMIXD_GROUP_ASSIGN      0x01 /* ASSIGN_CONTEXT_ID */
#define PMIXEV_PMIXD_GROUP_NOTIFY_TERM 0x02 /* NOTIFY_TERMINATION */
#define PMIXEV_PMIXD_GROUP_OPTIONAL    0x04 /* OPTIONAL */
#define PMIXEV_PMIXD_GROUP_LEADER_HERE 0x08 /* LEADER, by a member here */
#define PMIXEV_PMIXD_GROUP_LOCAL_ONLY  0x10 /* LOCAL_ONLY */
#define PMIXEV_PMIXD_GROUP_FLAGS       0x1f
/* What only a construct may carry. */
#define PMIXEV_PMIXD_GROUP_CONSTRUCT_FLAGS                                     \
	(PMIXEV_PMIXD_GROUP_ASSIGN | PMIXEV_PMIXD_GROUP_NOTIFY_TERM |          \
	 PMIXEV_PMIXD_GROUP_OPTIONAL | PMIXEV_PMIXD_GROUP_LEADER_HERE)

enum pmixev_pmixd_group_op {
	PMIXEV_PMIXD_GROUP_CONSTRUCT = 1,
	PMIXEV_PMIXD_GROUP_DESTRUCT = 2,
};

/*
 * A context id as it may travel: 0 (none) or an issued one, never
 * PMIx's "none" (SIZE_MAX) nor UINT64_MAX.
 */
static inline bool pmixev_pmixd_group_ctxid_ok(uint64_t ctxid)
{
	return ctxid != UINT64_MAX && ctxid != (uint64_t)SIZE_MAX;
}

/*
 * Is `grpid` a group id O may use: NUL-terminated within
 * PMIXEV_PMIXD_GROUP_ID_MAX, not empty, and no Slurm-made namespace (it
 * starts neither with "slurm.pmixev." nor with "slurm.pmix."; with
 * `lim`, it is neither the step's namespace nor the stepds').
 */
bool pmixev_pmixd_group_id_ok(const char *grpid,
			      const struct pmixev_pmixd_bounds *lim);

/*
 * GROUP (O->R): this node's members' call. `all`: every rank of the step,
 * else `ranks`, strictly increasing, each < ntasks, at least one on this
 * node. `leader`: PMIXEV_PMIXD_NO_RANK, or (only with LEADER_HERE) the
 * one member on this node that named itself leader. A destruct carries
 * none of the construct flags and no endpoint data.
 */
struct pmixev_pmixd_group {
	uint64_t id;
	enum pmixev_pmixd_group_op op;
	char grpid[PMIXEV_PMIXD_GROUP_ID_MAX];
	char nspace[PMIXEV_NSPACE_MAX]; /* the step's (lim->nspace) */
	bool all;
	uint32_t nranks;
	uint32_t *ranks; /* [nranks]: unpack allocates, release frees */
	uint8_t flags;	 /* PMIXEV_PMIXD_GROUP_* */
	uint32_t leader;
	uint32_t timeout_ms;  /* 0: the default */
	const uint8_t *endpt; /* PMIX_GROUP_ENDPT_DATA, as the library packs */
	size_t nendpt;
};
int pmixev_pmixd_group_pack(struct pmixev_buf *b,
			    const struct pmixev_pmixd_group *m);
int pmixev_pmixd_group_unpack(struct pmixev_buf *b,
			      const struct pmixev_pmixd_bounds *lim,
			      struct pmixev_pmixd_group *m);
void pmixev_pmixd_group_release(struct pmixev_pmixd_group *m);

/* Is `rank` a member of the group `m` asks for (ranks < ntasks)? */
bool pmixev_pmixd_group_member(const struct pmixev_pmixd_group *m,
			       uint32_t rank);

/*
 * GROUP_DONE (R->O): the collective's outcome. `ctxid`: 0 or issued
 * (pmixev_pmixd_group_ctxid_ok). `flags` and `leader`: merged over the
 * nodes. `failed`: strictly increasing, each < ntasks. The unpack checks
 * the frame alone; pmixev_pmixd_group_done_fits checks it against the
 * request it answers.
 */
struct pmixev_pmixd_group_done {
	uint64_t id;
	enum pmixev_result result;
	uint64_t ctxid;
	uint8_t flags;
	uint32_t leader; /* a rank, or PMIXEV_PMIXD_NO_RANK */
	uint32_t nfailed;
	uint32_t *failed;     /* [nfailed]: unpack allocates, release frees */
	const uint8_t *endpt; /* every node's, concatenated in node order */
	size_t nendpt;
};
int pmixev_pmixd_group_done_pack(struct pmixev_buf *b,
				 const struct pmixev_pmixd_group_done *m);
/* Unpack for a step of `ntasks` ranks. */
int pmixev_pmixd_group_done_unpack(struct pmixev_buf *b, uint32_t ntasks,
				   struct pmixev_pmixd_group_done *m);
void pmixev_pmixd_group_done_release(struct pmixev_pmixd_group_done *m);
/*
 * Does `m` answer `req`: its failed ranks and leader members of the
 * group, and for a destruct no context id nor endpoint data?
 */
bool pmixev_pmixd_group_done_fits(const struct pmixev_pmixd_group_done *m,
				  const struct pmixev_pmixd_group *req);

/*
 * GROUP_ABORT (O->R): local rank `rank` notified PMIX_GROUP_CONSTRUCT_ABORT
 * for group `grpid`. No answer: root fails the constructs of that id with
 * that member that it holds (doc/groups.md §4).
 */
enum pmixev_pmixd_group_why {
	PMIXEV_PMIXD_GROUP_ABORTED = 1,
};
struct pmixev_pmixd_group_abort {
	char grpid[PMIXEV_PMIXD_GROUP_ID_MAX];
	uint32_t rank; /* local */
	enum pmixev_pmixd_group_why why;
};
int pmixev_pmixd_group_abort_pack(struct pmixev_buf *b,
				  const struct pmixev_pmixd_group_abort *m);
int pmixev_pmixd_group_abort_unpack(struct pmixev_buf *b,
				    const struct pmixev_pmixd_bounds *lim,
				    struct pmixev_pmixd_group_abort *m);

#endif /* PMIXEV_PMIXD_GROUP_H_ */
