/*
 * pmixbase/status.c - pmixev results as PMIx statuses and back, and the
 * answers to upcalls (see status.h). The conversions run on any thread,
 * the answers on the agent thread.
 */
#include "config.h"

#include "pmixbase/status.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Each result and its PMIx status, both ways. */
static const pmix_status_t to_pmix[PMIXEV_RESULT_COUNT] = {
	[PMIXEV_OK] = PMIX_SUCCESS,
	[PMIXEV_ERR_FAILED] = PMIX_ERROR,
	[PMIXEV_ERR_TIMEOUT] = PMIX_ERR_TIMEOUT,
	[PMIXEV_ERR_UNREACH] = PMIX_ERR_UNREACH,
	[PMIXEV_ERR_NOMEM] = PMIX_ERR_NOMEM,
	[PMIXEV_ERR_BAD_REQUEST] = PMIX_ERR_BAD_PARAM,
	[PMIXEV_ERR_NOT_FOUND] = PMIX_ERR_NOT_FOUND,
	[PMIXEV_ERR_EXISTS] = PMIX_ERR_DUPLICATE_KEY,
	[PMIXEV_ERR_OVER_BUDGET] = PMIX_ERR_OUT_OF_RESOURCE,
	[PMIXEV_ERR_NOT_SUPPORTED] = PMIX_ERR_NOT_SUPPORTED,
	[PMIXEV_ERR_BAD_DATA] = PMIX_ERR_UNPACK_FAILURE,
	[PMIXEV_ERR_NOT_READY] = PMIX_ERR_INIT,
	[PMIXEV_ERR_UNAVAILABLE] = PMIX_ERR_NOT_AVAILABLE,
	[PMIXEV_ERR_NO_PERMISSIONS] = PMIX_ERR_NO_PERMISSIONS,
	[PMIXEV_ERR_GROUP_ABORT] = PMIX_GROUP_CONSTRUCT_ABORT,
	[PMIXEV_ERR_PARTIAL] = PMIX_ERR_PARTIAL_SUCCESS,
};

pmix_status_t status_to_pmix(enum pmixev_result r)
{
	return pmixev_result_valid(r) ? to_pmix[r] : PMIX_ERROR;
}

enum pmixev_result status_from_pmix(pmix_status_t status)
{
	for (unsigned r = 0; r < PMIXEV_RESULT_COUNT; r++)
		if (to_pmix[r] == status)
			return (enum pmixev_result)r;
	return PMIXEV_ERR_FAILED;
}

static void release_data(void *cbdata)
{
	free(cbdata);
}

void status_answer_modex(pmix_modex_cbfunc_t cbfunc, void *cbdata,
			 enum pmixev_result r, const uint8_t *data,
			 size_t ndata)
{
	char *copy = ndata ? malloc(ndata) : NULL;

	if (copy)
		memcpy(copy, data, ndata);
	else if (ndata)
		r = PMIXEV_ERR_NOMEM;
	cbfunc(status_to_pmix(r), copy, copy ? ndata : 0, cbdata, release_data,
	       copy);
}

void status_answer_op(pmix_op_cbfunc_t cbfunc, void *cbdata,
		      enum pmixev_result r)
{
	cbfunc(status_to_pmix(r), cbdata);
}
