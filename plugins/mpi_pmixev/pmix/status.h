/*
 * pmix/status.h - answering an upcall through its PMIx callback. Called
 * on the agent thread, where the work of an upcall ends.
 */
#ifndef PMIXEV_PMIX_STATUS_H_
#define PMIXEV_PMIX_STATUS_H_

#include <stddef.h>
#include <stdint.h>

#include <pmix_server.h>

/*
 * Answer a fence or direct modex with `status` and a copy of `data` (PMIx
 * frees the copy through the release callback; PMIX_ERR_NOMEM without
 * data when it cannot be made).
 */
void status_answer_modex(pmix_modex_cbfunc_t cbfunc, void *cbdata,
			 pmix_status_t status, const uint8_t *data,
			 size_t ndata);

#endif /* PMIXEV_PMIX_STATUS_H_ */
