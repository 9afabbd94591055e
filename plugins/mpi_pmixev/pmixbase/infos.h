/*
 * pmixbase/infos.h - an array of pmix_info_t handed to the library
 * together with the callback that frees it: the answers of the upcalls
 * (pmix_release_cbfunc_t) and the infos of injected events
 * (pmix_op_cbfunc_t).
 */
#ifndef PMIXEV_PMIXBASE_INFOS_H_
#define PMIXEV_PMIXBASE_INFOS_H_

#include <stddef.h>

#include <pmix_common.h>

struct infos {
	pmix_info_t *info;
	size_t n;      /* loaded, from the first */
	size_t nalloc; /* allocated */
};

/* `nalloc` (at least 1) zeroed infos, none loaded; NULL when out of
 * memory. */
struct infos *infos_create(size_t nalloc);

/* Take `info`, `nalloc` allocated with PMIX_INFO_CREATE, of which `n`
 * loaded; NULL when out of memory (then `info` is freed). */
struct infos *infos_take(pmix_info_t *info, size_t nalloc, size_t n);

/* Free `cbdata` (a struct infos); as a pmix_release_cbfunc_t. NULL-safe. */
void infos_release(void *cbdata);

/* The same, as a pmix_op_cbfunc_t. */
void infos_done(pmix_status_t status, void *cbdata);

#endif /* PMIXEV_PMIXBASE_INFOS_H_ */
