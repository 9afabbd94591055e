/*
 * pmixev_pmixd_coll.h - the pmixd channel's collectives and data: fence
 * (and connect/disconnect), direct modex both ways, publish/lookup/
 * unpublish. Their data stays opaque (PMIx-packed by O, never unpacked
 * by root). See pmixev_pmixd_msg.h for the rules all messages follow.
 */
#ifndef PMIXEV_PMIXD_COLL_H_
#define PMIXEV_PMIXD_COLL_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmixev_pmixd_msg.h"

/* Parts of other steps a FENCE may name (doc/spawn.md §5.1). */
#define PMIXEV_PMIXD_PARTS_MAX 16
/* Ranks one part of another step may list (its size is root's to check). */
#define PMIXEV_PMIXD_PART_RANKS_MAX (1u << 20)

/*
 * A collective's participants in another step of the spawn family:
 * (job, step) passing pmixev_xstep_step_ok's rule (job != 0 and not
 * 0xffffffff, step below 0xfffffff0), `all` or 1..PART_RANKS_MAX ranks,
 * strictly increasing.
 */
struct pmixev_pmixd_part {
	uint32_t job, step;
	bool all;
	uint32_t nranks;
	uint32_t *ranks; /* [nranks]: unpack allocates, release frees */
};

/*
 * FENCE (O->R): a local collective of `kind`. `all`: every rank of the
 * step, else `ranks`, strictly increasing, each < ntasks (O sorts them;
 * plugins' fence_sig.c makes the signature from them). `parts`: the
 * participants of other steps (0..PARTS_MAX), sorted by (job, step),
 * distinct, none the step's own (lim->job, lim->step).
 */
struct pmixev_pmixd_fence {
	uint64_t id;
	enum pmixev_coll_kind kind;
	bool all;
	uint32_t nranks;
	uint32_t *ranks; /* [nranks]: unpack allocates, release frees */
	bool collect;	 /* PMIX_COLLECT_DATA */
	uint32_t timeout_sec;
	const uint8_t *data; /* this node's contribution */
	size_t ndata;
	uint32_t nparts;
	struct pmixev_pmixd_part *parts; /* [nparts]: unpack allocates */
};
int pmixev_pmixd_fence_pack(struct pmixev_buf *b,
			    const struct pmixev_pmixd_fence *m);
int pmixev_pmixd_fence_unpack(struct pmixev_buf *b,
			      const struct pmixev_pmixd_bounds *lim,
			      struct pmixev_pmixd_fence *m);
void pmixev_pmixd_fence_release(struct pmixev_pmixd_fence *m);

/*
 * An answer with data: FENCE_DONE and DMODEX_DONE (R->O, id = O's) and
 * DMODEX_SERVED (O->R, id = the sid of DMODEX_SERVE: root must find it
 * among the requests it is serving).
 */
struct pmixev_pmixd_data {
	uint64_t id;
	enum pmixev_result result;
	const uint8_t *data;
	size_t ndata;
};
int pmixev_pmixd_data_pack(struct pmixev_buf *b,
			   const struct pmixev_pmixd_data *m);
int pmixev_pmixd_data_unpack(struct pmixev_buf *b, struct pmixev_pmixd_data *m);

/*
 * DMODEX (O->R): a local client wants rank's data: any rank of the step
 * when (job, step) is (0, 0), else a rank of that step of the spawn
 * family (doc/spawn.md §5.2): a step a family may hold (job not 0 nor
 * ~0, step below Slurm's special ids), rank below PMIXEV_PMIXD_RANK_MAX;
 * root checks it against the step's size.
 */
struct pmixev_pmixd_dmodex {
	uint64_t id;
	uint32_t rank;
	uint32_t timeout_sec; /* 0: the default */
	uint32_t job, step;   /* (0, 0): this step */
};
#define PMIXEV_PMIXD_RANK_MAX 0xffffff00u /* PMIx's special ranks above */
/* Whether `m` names another step of the family. */
bool pmixev_pmixd_dmodex_foreign(const struct pmixev_pmixd_dmodex *m);
int pmixev_pmixd_dmodex_pack(struct pmixev_buf *b,
			     const struct pmixev_pmixd_dmodex *m);
int pmixev_pmixd_dmodex_unpack(struct pmixev_buf *b,
			       const struct pmixev_pmixd_bounds *lim,
			       struct pmixev_pmixd_dmodex *m);

/* DMODEX_SERVE (R->O): another node wants a local rank's data. */
struct pmixev_pmixd_serve {
	uint64_t sid;
	uint32_t rank;
};
int pmixev_pmixd_serve_pack(struct pmixev_buf *b,
			    const struct pmixev_pmixd_serve *m);
int pmixev_pmixd_serve_unpack(struct pmixev_buf *b,
			      struct pmixev_pmixd_serve *m);

#define PMIXEV_PMIXD_ENTRIES_MAX 1024 /* pubsub_dir.c's MAX_ENTRIES */

enum pmixev_pmixd_pubsub_op {
	PMIXEV_PMIXD_PUBLISH = 1, /* pubsub_dir.h's enum pubsub_op */
	PMIXEV_PMIXD_LOOKUP = 2,
	PMIXEV_PMIXD_UNPUBLISH = 3,
};

/* A key and, for publish requests and lookup answers, its PMIx-packed
 * value (opaque); `job`, `step`, `rank` (answers only) are its publisher:
 * a rank of this step or of another step of its spawn family. */
struct pmixev_pmixd_entry {
	char key[PMIXEV_PMIXD_KEY_MAX]; /* not empty */
	uint32_t job, step;
	uint32_t rank;
	const uint8_t *value;
	size_t nvalue;
};

/*
 * PMIx's ranges and persistences, restated (pmix_common.h): the ranges a
 * step's directory serves, and the persistence it acts on.
 */
#define PMIXEV_PMIXD_RANGE_UNDEF	0 /* PMIX_RANGE_UNDEF: the default */
#define PMIXEV_PMIXD_RANGE_LOCAL	2 /* PMIX_RANGE_LOCAL */
#define PMIXEV_PMIXD_RANGE_NAMESPACE	3 /* PMIX_RANGE_NAMESPACE */
#define PMIXEV_PMIXD_RANGE_SESSION	4 /* PMIX_RANGE_SESSION */
#define PMIXEV_PMIXD_RANGE_GLOBAL	5 /* PMIX_RANGE_GLOBAL */
#define PMIXEV_PMIXD_RANGE_PROC_LOCAL	7 /* PMIX_RANGE_PROC_LOCAL */
#define PMIXEV_PMIXD_PERSIST_FIRST_READ 1 /* PMIX_PERSIST_FIRST_READ */
#define PMIXEV_PMIXD_PERSIST_MAX	4 /* PMIX_PERSIST_SESSION */

/* A range PUBSUB may carry: up to PROC_LOCAL, neither RM nor CUSTOM. */
bool pmixev_pmixd_range_ok(unsigned range);

/*
 * PUBSUB (O->R): a local rank's request, 1..ENTRIES_MAX keys. Values only
 * for PUBLISH, at most lim->publish_max bytes in all; `wait` only for
 * LOOKUP; `persist` (0..PERSIST_MAX) only for PUBLISH, else 0.
 */
struct pmixev_pmixd_pubsub {
	uint64_t id;
	enum pmixev_pmixd_pubsub_op op;
	uint32_t rank; /* local */
	bool wait;
	uint32_t timeout_sec;
	uint8_t range;	 /* pmixev_pmixd_range_ok */
	uint8_t persist; /* publish only */
	uint32_t n;
	struct pmixev_pmixd_entry *e; /* [n]: unpack allocates */
};
int pmixev_pmixd_pubsub_pack(struct pmixev_buf *b,
			     const struct pmixev_pmixd_pubsub *m);
int pmixev_pmixd_pubsub_unpack(struct pmixev_buf *b,
			       const struct pmixev_pmixd_bounds *lim,
			       struct pmixev_pmixd_pubsub *m);

/* PUBSUB_DONE (R->O): the result and, for a lookup, the entries found. */
struct pmixev_pmixd_pubsub_done {
	uint64_t id;
	enum pmixev_result result;
	uint32_t n;
	struct pmixev_pmixd_entry *e; /* [n]: unpack allocates */
};
int pmixev_pmixd_pubsub_done_pack(struct pmixev_buf *b,
				  const struct pmixev_pmixd_pubsub_done *m);
int pmixev_pmixd_pubsub_done_unpack(struct pmixev_buf *b,
				    struct pmixev_pmixd_pubsub_done *m);

/* Free the entries unpack allocated (NULL-safe); leaves `*e` NULL. */
void pmixev_pmixd_entries_release(struct pmixev_pmixd_entry **e, uint32_t *n);

#endif /* PMIXEV_PMIXD_COLL_H_ */
