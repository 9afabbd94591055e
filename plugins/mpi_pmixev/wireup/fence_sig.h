/*
 * wireup/fence_sig.h - how collectives are named across the step: by their
 * kind (enum pmixev_coll_kind) and participant set as text, the
 * signature: "*" for every rank of the step, else the sorted ranks as
 * ranges, "0-3,5". Equal sets give equal text on every node. The
 * collectives of one kind and signature run one after another, numbered
 * from 1; struct fence_sig keeps their numbers on this node.
 * Agent thread (pure code but for the list of names); unit-tested.
 */
#ifndef PMIXEV_PMIX_FENCE_SIG_H_
#define PMIXEV_PMIX_FENCE_SIG_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmixev_proto.h"
#include "pmixev_result.h"
#include "pmixev_taskmap.h"

/* One name (kind and signature) and the numbers of its collectives. */
struct fence_sig {
	enum pmixev_coll_kind kind;
	char sig[PMIXEV_SIG_MAX];
	uint64_t next_local;	 /* last number this node started locally */
	uint64_t done;		 /* every number <= done has ended */
	enum pmixev_result last; /* result of the last one that ended */
	struct fence_sig *next;
};

/* The entry of `kind` and `sig` in *list, added if new; NULL: no memory. */
struct fence_sig *fence_sig_get(struct fence_sig **list,
				enum pmixev_coll_kind kind, const char *sig);

/* Free a list of names. NULL-safe. */
void fence_sig_free(struct fence_sig *list);

/* "fence", "connect" or "disconnect", for log lines. */
const char *fence_kind_name(enum pmixev_coll_kind kind);

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
