/*
 * pmix/fence.h - collectives over the overlay tree: PMIx fences (with or
 * without data) and the barriers behind connect/disconnect.
 *
 * A collective is named by its kind and participant set (the signature)
 * plus a per-signature sequence number, so different sets can run at the
 * same time. Each node waits for its own contribution (if it hosts
 * participants) and for every child whose subtree hosts participants, then
 * passes the combined data up; the root sends the result down the same
 * branches. A data-less fence is therefore a true barrier across nodes.
 * Failure (timeout, lost node, error from a peer) ends the collective with
 * an error on every participating node; it never hangs.
 * All calls on the agent thread.
 */
#ifndef PMIXEV_PMIX_FENCE_H_
#define PMIXEV_PMIX_FENCE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <event2/event.h>

#include "base/layout.h"
#include "overlay/overlay.h"
#include "pmixev_proto.h"

struct fence;

/* Result: PMIx status, and the combined data (valid during the call). */
typedef void (*fence_done_fn)(int status, const uint8_t *data, size_t ndata,
			      void *arg);

struct fence *fence_create(struct overlay *ov, const struct layout *lay,
			   struct event_base *base, unsigned timeout_sec);

/*
 * This node's part of a collective of kind `kind` over `ranks` (all ranks
 * of the step when `all`).
 * `data` is copied. `timeout_sec` 0 means the default. `done` runs exactly
 * once (possibly before this returns, on a bad request).
 */
void fence_local(struct fence *f, enum pmixev_coll_kind kind, bool all,
		 const uint32_t *ranks, size_t nranks, bool collect,
		 unsigned timeout_sec, const uint8_t *data, size_t ndata,
		 fence_done_fn done, void *arg);

/* Overlay lost `node` (see overlay_lost_t). */
void fence_lost(struct fence *f, uint32_t node);

/* Free everything without calling any `done` (the PMIx server is gone). */
void fence_destroy(struct fence *f);

#endif /* PMIXEV_PMIX_FENCE_H_ */
