/*
 * pmixside/nspace_pmix.h - a family member's namespace in this PMIx server
 * (doc/spawn.md §4.1): root's NSPACE_ADD (a layout root checked) is
 * registered with no local process (pmixbase/nspace_foreign.h), and
 * answered NSPACE_ADDED once the library has it. Root sends each
 * namespace once and at most 256; the library does the rest.
 */
#ifndef PMIXEV_PMIXSIDE_NSPACE_PMIX_H_
#define PMIXEV_PMIXSIDE_NSPACE_PMIX_H_

#include <stdbool.h>
#include <stdint.h>

struct pmixside;

/* The pmix side's agent takes root's NSPACE_ADD frames. */
void nspace_pmix_listen(struct pmixside *p);

/*
 * Is `nspace` a family member's step namespace that this server
 * registered (pmixbase/procs.h's procs_known_fn)? Then its (job, step).
 * Any thread (the collective upcalls ask on the PMIx thread).
 */
bool nspace_pmix_known(const char *nspace, uint32_t *job, uint32_t *step);

#endif /* PMIXEV_PMIXSIDE_NSPACE_PMIX_H_ */
