/*
 * wireup/pubsub_dir_int.h - what the step's directory (pubsub_dir.c) and its
 * cross-step half (pubsub_xstep.c) share. Agent thread only.
 */
#ifndef PMIXEV_WIREUP_PUBSUB_DIR_INT_H_
#define PMIXEV_WIREUP_PUBSUB_DIR_INT_H_

#include <stdbool.h>
#include <stdint.h>

#include "base/layout.h"
#include "base/pending.h"
#include "overlay/overlay.h"
#include "pmixev_xstep.h"
#include "wireup/pubsub_dir.h"

#define GRACE_SEC 5 /* requester waits this much longer than the root */

/* A request of ours, pending until the directory answers. */
struct request {
	struct pending *p;
	pubsub_done_fn done;
	void *arg;
};

/* Who asks: a rank on a node of a step, looking within a range. */
struct asker {
	uint32_t job, step; /* the step: this one, or another of the family */
	uint32_t node, rank;
	uint8_t range;
};

struct pubsub {
	struct overlay *ov;
	const struct layout *lay;
	unsigned timeout_sec;
	struct pending_set *requests;
	struct published *dir;
	/* Keys and values in dir plus the lookups waiting, and the bound. */
	size_t held, max_bytes;
	struct pending_set *waiters;
	unsigned refused_waits;	    /* lookups not held: over the bound */
	unsigned refused_publishes; /* publishes over the bound */
	/* Spawned: the parent step, toward the family root's directory. */
	bool spawned;
	uint32_t parent_job, parent_step;
	unsigned dropped; /* cross-step frames refused */
};

/* Is `who` of this step? */
bool pubsub_own(const struct pubsub *ps, const struct asker *who);

/* The directory serves `r` of `who` (node 0). */
void pubsub_serve(struct pubsub *ps, const struct asker *who,
		  const struct pubsub_req_msg *r);

/* Our request `id`, waiting on `node`, is answered. */
void pubsub_answer(struct pubsub *ps, uint32_t node, uint64_t id,
		   enum pmixev_result result, const struct pubsub_entry *e,
		   size_t n);

/* A range that leaves the step: default, SESSION, GLOBAL. */
bool pubsub_range_crosses(uint8_t range);

/* --- pubsub_xstep.c ------------------------------------------------------ */

/* Send our request `r` (its id set) to the family root's directory
 * through srun; the answer comes to pubsub_answer(PMIXEV_NODE_SRUN). 0, or
 * the failure. */
enum pmixev_result pubsub_xstep_send(struct pubsub *ps,
				     const struct pubsub_req_msg *r);

/* The directory's answer to `who` of another step, through srun. */
void pubsub_xstep_reply(struct pubsub *ps, const struct asker *who, uint64_t id,
			enum pmixev_result result, const struct pubsub_entry *e,
			size_t n);

/*
 * An XSTEP PUBSUB_REQ or _RESP from srun, its header `h` read and checked,
 * its body in `b`: on the family root's node 0 another step's request;
 * else an answer to one of ours, or our request bounced back by an srun
 * that found no way on (it fails with PMIXEV_ERR_UNREACH).
 */
void pubsub_xstep_frame(void *ctx, const struct pmixev_xstep_hdr *h,
			struct pmixev_buf *b, const uint8_t *frame, size_t len);

#endif /* PMIXEV_WIREUP_PUBSUB_DIR_INT_H_ */
