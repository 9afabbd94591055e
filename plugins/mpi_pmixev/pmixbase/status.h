/*
 * pmixbase/status.h - where pmixev's result codes (pmixev_result.h) and
 * PMIx statuses meet: the one conversion each way, and the answers to upcalls
 * through their PMIx callbacks. The engines (fence, direct modex, the
 * publish directory) and the overlay speak pmixev results only; an
 * upcall's status is made here, from its result, when the upcall returns
 * or answers. Any thread: status_to_pmix on the PMIx thread when an upcall
 * returns, the answers on the agent thread where an upcall's work ends.
 */
#ifndef PMIXEV_PMIX_STATUS_H_
#define PMIXEV_PMIX_STATUS_H_

#include <stddef.h>
#include <stdint.h>

#include <pmix_server.h>

#include "pmixev_result.h"

/* The PMIx status for `r` (PMIX_ERROR for PMIXEV_ERR_FAILED). */
pmix_status_t status_to_pmix(enum pmixev_result r);

/*
 * The result for a status PMIx gave us (PMIx_server_dmodex_request):
 * each status that status_to_pmix makes comes back as its result, any
 * other as PMIXEV_ERR_FAILED.
 */
enum pmixev_result status_from_pmix(pmix_status_t status);

/*
 * Answer a fence or direct modex with `r` and a copy of `data` (PMIx
 * frees the copy through the release callback; PMIX_ERR_NOMEM without
 * data when it cannot be made).
 */
void status_answer_modex(pmix_modex_cbfunc_t cbfunc, void *cbdata,
			 enum pmixev_result r, const uint8_t *data,
			 size_t ndata);

/* Answer a connect, disconnect, publish or unpublish with `r`. */
void status_answer_op(pmix_op_cbfunc_t cbfunc, void *cbdata,
		      enum pmixev_result r);

#endif /* PMIXEV_PMIX_STATUS_H_ */
