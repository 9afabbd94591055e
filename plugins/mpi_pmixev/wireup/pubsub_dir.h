/*
 * wireup/pubsub_dir.h - PMIx publish/lookup/unpublish across the step's nodes.
 *
 * The step's directory lives in the root stepd (node 0); requests from any
 * node are routed there over the overlay (pubsub_msg.h). A lookup with
 * PMIX_WAIT is held until every key is published or its timeout expires.
 * Values travel as PMIx-packed pmix_value_t. All calls on the agent thread.
 *
 * Ranges (PMIx's values): PMIX_RANGE_LOCAL reaches the ranks on the
 * publisher's node, PMIX_RANGE_PROC_LOCAL the publisher alone, any other
 * (default, NAMESPACE, SESSION, GLOBAL) the whole step. An entry is seen
 * by a lookup when its range reaches the looking rank and the publisher is
 * within the lookup's own range; an unpublish removes the caller's entries
 * that reach no further than its range (default: the step). Keys are
 * unique in the directory whatever their range. PMIX_PERSIST_FIRST_READ
 * removes an entry when a lookup first returns it; every other
 * persistence keeps it until unpublished or the step ends.
 *
 * Across a spawn family (doc/spawn.md §5.3): the default, SESSION and
 * GLOBAL requests of a spawned step go, through the sruns, to the
 * directory of the family root step (the one no step spawned), whose
 * own requests stay here. There, an entry of one step is seen by
 * another's lookup only when both ranges leave a step.
 */
#ifndef PMIXEV_PMIX_PUBSUB_DIR_H_
#define PMIXEV_PMIX_PUBSUB_DIR_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/step.h"
#include "pmixev_result.h"
#include "pmixev_xstep.h"
#include "wireup/pubsub_msg.h"

struct pubsub;

/* Result, and (lookup) the entries found, valid during the call. */
typedef void (*pubsub_done_fn)(enum pmixev_result result,
			       const struct pubsub_entry *e, size_t n,
			       void *arg);

/* For step `s`: the directory (on the tree's root) holds at most
 * PMIxevPublishMax of keys and values and of lookups waiting for keys (a
 * publish or a waiting lookup beyond fails with PMIXEV_ERR_OVER_BUDGET);
 * default timeout PMIxevTimeout; follows the step's node loss. */
struct pubsub *pubsub_create(struct step *s);

/*
 * Run `op` for `rank` (a rank of this node) as `how` says, with `n`
 * entries (values only for publish; copied). `done` runs exactly once.
 */
void pubsub_request(struct pubsub *ps, enum pubsub_op op, uint32_t rank,
		    const struct pubsub_how *how, const struct pubsub_entry *e,
		    size_t n, pubsub_done_fn done, void *arg);

/* Free everything without calling any `done`. */
void pubsub_destroy(struct pubsub *ps);

#endif /* PMIXEV_PMIX_PUBSUB_DIR_H_ */
