/*
 * pmixbase/procs.h - the processes an upcall names, as ranks of the step: the
 * participants of a fence, connect or disconnect, or the rank a direct
 * modex asks for. Called on the PMIx progress thread, before an upcall
 * posts its copy to the agent (any thread would do: it only reads the
 * layout).
 */
#ifndef PMIXEV_PMIX_PROCS_H_
#define PMIXEV_PMIX_PROCS_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pmix_common.h>

#include "base/layout.h"
#include "pmixev_pmixd_coll.h"
#include "pmixev_result.h"

/*
 * The ranks of `procs` (all in the step's namespace) into *ranks (malloc'd,
 * `nprocs` entries; PMIX_RANK_WILDCARD sets *all). PMIXEV_OK, or
 * PMIXEV_ERR_BAD_REQUEST (none, or a rank beyond the step),
 * PMIXEV_ERR_NOT_SUPPORTED (another namespace), PMIXEV_ERR_NOMEM; on
 * error nothing is allocated.
 */
enum pmixev_result procs_to_ranks(const struct layout *lay,
				  const pmix_proc_t procs[], size_t nprocs,
				  bool *all, uint32_t **ranks);

/*
 * Is `nspace` the namespace of another step of the spawn family that this
 * PMIx server registered? Then its (job, step) too. Any thread.
 */
typedef bool (*procs_known_fn)(const char *nspace, uint32_t *job,
			       uint32_t *step);

/*
 * A collective's processes (doc/spawn.md §5.1) into m->all, m->ranks and
 * m->nranks (the step's own, sorted and distinct; at least one) and
 * m->parts, m->nparts (the other steps' that `known` names, sorted by
 * (job, step), each `all` or its ranks sorted and distinct; at most
 * PMIXEV_PMIXD_PARTS_MAX). PMIXEV_OK, or PMIXEV_ERR_BAD_REQUEST (no
 * process of the own step, a rank beyond the step or not a rank, a
 * namespace `known` does not name: its index in *bad, else *bad is
 * nprocs), PMIXEV_ERR_OVER_BUDGET (more steps), PMIXEV_ERR_NOMEM; on error
 * nothing is allocated. Free with pmixev_pmixd_fence_release.
 */
enum pmixev_result procs_to_parts(const struct layout *lay,
				  const pmix_proc_t procs[], size_t nprocs,
				  procs_known_fn known,
				  struct pmixev_pmixd_fence *m, size_t *bad);

/*
 * Sort `ranks` and drop repeats (frames want strictly increasing sets; a
 * collective's signature is the same). The new count.
 */
uint32_t procs_sort_unique(uint32_t *ranks, size_t n);

/* Is `rank` in the strictly increasing `set` of `n`? */
bool procs_in_set(const uint32_t *set, uint32_t n, uint32_t rank);

#endif /* PMIXEV_PMIX_PROCS_H_ */
