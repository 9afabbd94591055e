/*
 * wireup/pubsub_dir.h - PMIx publish/lookup/unpublish across the step's nodes.
 *
 * The step's directory lives in the root stepd (node 0); requests from any
 * node are routed there over the overlay. A lookup with PMIX_WAIT is held
 * until every key is published or its timeout expires. Values travel as
 * PMIx-packed pmix_value_t. All calls on the agent thread.
 */
#ifndef PMIXEV_PMIX_PUBSUB_DIR_H_
#define PMIXEV_PMIX_PUBSUB_DIR_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pmix_common.h>

#include "base/step.h"
#include "pmixev_result.h"

struct pubsub;

enum pubsub_op { PUBSUB_PUBLISH = 1, PUBSUB_LOOKUP, PUBSUB_UNPUBLISH };

/* One key, and for publish/lookup results its packed value. */
struct pubsub_entry {
	char key[PMIX_MAX_KEYLEN + 1];
	uint32_t rank; /* publisher */
	uint8_t *value;
	size_t nvalue;
};

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
 * Run `op` for `rank` with `n` entries (values only for publish; copied).
 * `done` runs exactly once.
 */
void pubsub_request(struct pubsub *ps, enum pubsub_op op, uint32_t rank,
		    bool wait, unsigned timeout_sec,
		    const struct pubsub_entry *e, size_t n, pubsub_done_fn done,
		    void *arg);

/* Free everything without calling any `done`. */
void pubsub_destroy(struct pubsub *ps);

#endif /* PMIXEV_PMIX_PUBSUB_DIR_H_ */
