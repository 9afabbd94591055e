/*
 * pmix/fence_sig.h - the participant set of a collective as text, its
 * signature: "*" for every rank of the step, else the sorted ranks as
 * ranges, "0-3,5". Equal sets give equal text on every node, so the
 * signature (with the collective's kind) names a collective across the
 * step. Pure code, called on the agent thread; unit-tested.
 */
#ifndef PMIXEV_PMIX_FENCE_SIG_H_
#define PMIXEV_PMIX_FENCE_SIG_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmixev_taskmap.h"

/*
 * Write the signature of `ranks` (any order, repeats allowed; every rank
 * of the step when `all`) into `sig` of `len` bytes. 0, or -1 with errno
 * ENOMEM, or EINVAL when the set is empty or its text does not fit.
 */
int fence_sig_format(bool all, const uint32_t *ranks, size_t nranks, char *sig,
		     size_t len);

/*
 * Mark in `nodes` (map->nnodes entries) the nodes that host a rank of
 * `sig`. 0, or -1 when `sig` is malformed or names a rank beyond the map.
 */
int fence_sig_nodes(const struct pmixev_taskmap *map, const char *sig,
		    bool *nodes);

#endif /* PMIXEV_PMIX_FENCE_SIG_H_ */
