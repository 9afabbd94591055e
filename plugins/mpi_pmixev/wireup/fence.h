/*
 * wireup/fence.h - collectives over the overlay tree: PMIx fences (with or
 * without data) and the barriers behind connect/disconnect: root's half,
 * the tree engine, on the agent thread. The calls come from the pmix side
 * as FENCE frames (fence_frames.c; the upcalls are in
 * pmixside/fence_pmix.c), and so does their data: opaque bytes here.
 *
 * A collective is named by its kind and participant set (the signature,
 * wireup/fence_sig.h) plus a per-signature sequence number, so different
 * sets can run at the same time. Each node waits for its own contribution
 * (if it hosts participants) and for every child whose subtree hosts
 * participants, then passes the combined data up; the root sends the
 * result down the same branches. A data-less fence is therefore a true
 * barrier across nodes. Failure (timeout, lost node, error from a peer)
 * ends the collective with an error on every participating node; it never
 * hangs.
 */
#ifndef PMIXEV_PMIX_FENCE_H_
#define PMIXEV_PMIX_FENCE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/step.h"
#include "pmixev_proto.h"
#include "pmixev_result.h"

struct fence;

/* `timeout_sec`: how long a collective waits unless its call says. */
/* For step `s` (default timeout PMIxevTimeout); follows its node loss. */
struct fence *fence_create(struct step *s);

/* Free everything without answering any call (the PMIx server is gone). */
void fence_destroy(struct fence *f);

/*
 * This node's PMIx server is gone (its process ended, or the channel to it
 * closed): every collective with a rank here fails at once on every node
 * it involves, now and from now on. `tell`: while tasks here still ran;
 * every node is told (PMIX_GONE), so that collectives started elsewhere
 * later, which this node would hear of only through its children, fail
 * at once too. At a normal end the node's leaving does that.
 */
void fence_pmix_gone(struct fence *f, bool tell);

/* Result, and the combined data (valid during the call). */
typedef void (*fence_done_fn)(enum pmixev_result result, const uint8_t *data,
			      size_t ndata, void *arg);

/*
 * This node's part of a `kind` collective over `ranks` (every rank when
 * `all`). `data` is copied; `timeout_sec` 0 means the default. `done` runs
 * exactly once (possibly before this returns, on a bad request or over a
 * bound).
 */
void fence_local(struct fence *f, enum pmixev_coll_kind kind, bool all,
		 const uint32_t *ranks, size_t nranks, bool collect,
		 unsigned timeout_sec, const uint8_t *data, size_t ndata,
		 fence_done_fn done, void *arg);

/*
 * Take the pmix side's FENCE frames on `s->chan` (checked against
 * `s->pmixd_lim`) to `s->fence`, and answer each with FENCE_DONE
 * (fence_frames.c). Before the agent runs.
 */
void fence_frames_listen(struct step *s);

#endif /* PMIXEV_PMIX_FENCE_H_ */
