/*
 * pmixside/nspace_wait.h - the spawn family's namespaces this PMIx server
 * registered (pmixside/nspace_pmix.c), as the direct modex upcall needs
 * them (doc/spawn.md §5.2): the step a namespace names and its size, and
 * a way to wait for one that is not registered yet. OpenPMIx 4.2.2 asks
 * the host's direct modex for a namespace it does not know (a parent
 * rank's PMIx_Get of the child before its NSPACE_ADD came here); such a
 * request waits until the namespace is registered, bounded by its
 * timeout, and at most NSPACE_WAIT_MAX wait at once.
 *
 * One pmix side per process. nspace_wait_find and nspace_wait_for run on
 * any thread (the PMIx progress thread); the waits end on the pmix side's
 * agent thread, never blocking the caller.
 */
#ifndef PMIXEV_PMIXSIDE_NSPACE_WAIT_H_
#define PMIXEV_PMIXSIDE_NSPACE_WAIT_H_

#include <stdbool.h>
#include <stdint.h>

#include "base/layout.h"
#include "pmixev_result.h"

struct pmixside;

#define NSPACE_WAIT_MAX 256 /* requests waiting for a namespace */

/* The waits run on `p`'s agent (before it starts). */
void nspace_wait_init(struct pmixside *p);

/* Agent or PMIx thread: the library registered (job, step)'s namespace
 * `nspace` of `ntasks` ranks (`ok`), or refused it; its waits end. */
void nspace_wait_registered(const char *nspace, uint32_t job, uint32_t step,
			    uint32_t ntasks, bool ok);

/* Whether `nspace` is registered here; its step and size if so. */
bool nspace_wait_find(const char *nspace, uint32_t *job, uint32_t *step,
		      uint32_t *ntasks);

/* Whether `nspace` may become a family member's: "slurm.pmixev.J.S" of
 * the job of `own`, another step. */
bool nspace_wait_family(const struct layout *own, const char *nspace);

/* The end of a wait: PMIXEV_OK (registered), PMIXEV_ERR_TIMEOUT or
 * PMIXEV_ERR_NOT_FOUND (the library refused it). Agent thread. */
typedef void (*nspace_wait_fn)(void *arg, enum pmixev_result result);

/*
 * Call fn(arg, ...) once `nspace` is registered (at once if it is), or
 * after `timeout_sec` (at least 1). `key` names the wait: one per key
 * (OpenPMIx 4.2.2 asks the host again for its pending requests when it
 * registers their namespace, with the same callback data: that is the
 * key). PMIXEV_OK (fn will run), or PMIXEV_ERR_OVER_BUDGET
 * (NSPACE_WAIT_MAX wait), PMIXEV_ERR_NOMEM, PMIXEV_ERR_UNREACH (the
 * agent stops): fn will not run.
 */
enum pmixev_result nspace_wait_for(const char *nspace, const void *key,
				   unsigned timeout_sec, nspace_wait_fn fn,
				   void *arg);

/* Whether a wait of `key` is not over (its fn not returned yet). */
bool nspace_wait_held(const void *key);

#endif /* PMIXEV_PMIXSIDE_NSPACE_WAIT_H_ */
