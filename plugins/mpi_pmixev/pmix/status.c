/*
 * pmix/status.c - answers to upcalls through their PMIx callbacks. Agent
 * thread.
 */
#include "config.h"

#include "pmix/status.h"

#include <stdlib.h>
#include <string.h>

static void release_data(void *cbdata)
{
	free(cbdata);
}

void status_answer_modex(pmix_modex_cbfunc_t cbfunc, void *cbdata,
			 pmix_status_t status, const uint8_t *data,
			 size_t ndata)
{
	char *copy = ndata ? malloc(ndata) : NULL;

	if (copy)
		memcpy(copy, data, ndata);
	else if (ndata)
		status = PMIX_ERR_NOMEM;
	cbfunc(status, copy, copy ? ndata : 0, cbdata, release_data, copy);
}
