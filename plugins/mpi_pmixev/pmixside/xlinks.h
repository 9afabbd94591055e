/*
 * pmixside/xlinks.h - which of this node's ranks are connected to which
 * other steps of the spawn family (doc/spawn.md §5.4): a cross-step
 * PMIx_Connect links its local participants to every other step it named
 * from the moment this node takes part in it (before any process can
 * return from it, so no end is missed) unless it fails; a PMIx_Disconnect
 * that succeeded unlinks them. The end of a linked step's rank is then
 * told to them too, not only to its spawner (inject_pmix.c).
 *
 * A note is made and begun on the PMIx progress thread when the upcall is
 * sent; it is ended, and the links read, on the pmix side's agent thread.
 */
#ifndef PMIXEV_PMIXSIDE_XLINKS_H_
#define PMIXEV_PMIXSIDE_XLINKS_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/layout.h"
#include "pmixev_pmixd_coll.h"

/* At most this many (rank, step) links per node; more are counted and
 * logged, not kept. */
#define XLINKS_MAX 4096
/* At most this many linked ranks of a node are told of one end (a node
 * serves fewer ranks). */
#define XLINKS_TOLD 1024

struct xlinks;
struct xlinks_note;

struct xlinks *xlinks_create(const struct layout *lay);
void xlinks_destroy(struct xlinks *x);

/*
 * What the collective `m` (a FENCE frame's fields) changes: NULL for a
 * fence, one within the step, or no memory (then the links stay as they
 * were; logged).
 */
struct xlinks_note *xlinks_note_make(const struct layout *lay,
				     const struct pmixev_pmixd_fence *m);
void xlinks_note_free(struct xlinks_note *n);

/* The collective of `n` starts here: a connect links. NULL-safe. */
void xlinks_begin(struct xlinks *x, const struct xlinks_note *n);

/* It ended (`ok`: succeeded): a failed connect takes its links back, a
 * disconnect that succeeded unlinks. NULL-safe. */
void xlinks_end(struct xlinks *x, const struct xlinks_note *n, bool ok);

/*
 * This node's ranks linked to step (job, step), at most `max` into
 * `ranks`, in increasing order. Their number.
 */
size_t xlinks_ranks(struct xlinks *x, uint32_t job, uint32_t step,
		    uint32_t *ranks, size_t max);

#endif /* PMIXEV_PMIXSIDE_XLINKS_H_ */
