/*
 * pmixside/nspace_pmix.c - family members' namespaces registered in this
 * PMIx server (see nspace_pmix.h).
 */
#include "config.h"

#include "pmixside/nspace_pmix.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>
#include <pmix_server.h>

#include "base/layout.h"
#include "pmixbase/nspace_foreign.h"
#include "pmixev_log.h"
#include "pmixev_pmixd_spawn.h"
#include "pmixev_xstep.h"
#include "pmixside/nspace_wait.h"
#include "pmixside/side.h"

bool nspace_pmix_known(const char *nspace, uint32_t *job, uint32_t *step)
{
	uint32_t ntasks;

	return nspace_wait_find(nspace, job, step, &ntasks);
}

/* A registration the library has not finished. */
struct reg {
	struct pmixside *p;
	char nspace[PMIXEV_NSPACE_MAX];
	uint32_t job, step, ntasks; /* its step, its size */
	pmix_info_t *info;
	size_t ninfo;
};

/* Any thread: tell root how registering went; frees `r`. */
static void answer(struct reg *r, pmix_status_t status)
{
	struct pmixev_pmixd_nspace_added m = {.status = status};
	const struct layout *own = pmixside_layout(r->p);
	struct pmixev_buf b;

	snprintf(m.nspace, sizeof(m.nspace), "%s", r->nspace);
	nspace_wait_registered(r->nspace, r->job, r->step, r->ntasks,
			       status == PMIX_SUCCESS);
	if (status == PMIX_SUCCESS) {
		PMIXEV_DEBUG(1, "spawn: step %s: %s registered", own->step.id,
			     r->nspace);
	} else {
		PMIXEV_ERROR("spawn: step %s: PMIx_server_register_nspace(%s): "
			     "%s",
			     own->step.id, r->nspace,
			     PMIx_Error_string(status));
	}
	pmixev_buf_init(&b);
	chan_frame_begin(&b);
	if (pmixev_pmixd_nspace_added_pack(&b, &m) < 0 ||
	    chan_send_any(pmixside_chan(r->p), PMIXEV_PMIXD_NSPACE_ADDED, &b) <
		    0)
		PMIXEV_ERROR("spawn: step %s: cannot tell root that %s is "
			     "registered",
			     own->step.id, r->nspace);
	pmixev_buf_release(&b);
	if (r->info)
		PMIX_INFO_FREE(r->info, r->ninfo);
	free(r);
}

/* PMIx progress thread: the library has the namespace (or not). */
static void registered(pmix_status_t status, void *cbdata)
{
	answer(cbdata,
	       status == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : status);
}

/* Agent thread: root's NSPACE_ADD, its layout read by XSTEP's codec. */
static int on_add(void *ctx, struct pmixev_buf *body)
{
	struct pmixside *p = ctx;
	const struct layout *own = pmixside_layout(p);
	struct pmixev_pmixd_nspace_add m;
	struct pmixev_xstep_layout xl = {0};
	struct layout lay = {0};
	struct pmixev_buf b;
	struct reg *r = NULL;
	char err[256];
	pmix_status_t rc;
	int ret = -1;

	if (pmixev_pmixd_nspace_add_unpack(body, &m) < 0)
		return -1;
	pmixev_buf_reader(&b, m.layout, m.nlayout);
	if (pmixev_xstep_layout_unpack(&b, PMIXEV_PMIXD_LAYOUT_MAX, &xl) < 0)
		return -1;
	if (strcmp(xl.start.nspace, m.nspace) ||
	    strcmp(xl.parent_nspace, m.parent) ||
	    xl.parent_rank != m.parent_rank)
		goto out;
	ret = 0;
	if (!(r = calloc(1, sizeof(*r)))) {
		PMIXEV_ERROR("spawn: step %s: out of memory for %s",
			     own->step.id, m.nspace);
		goto out;
	}
	r->p = p;
	snprintf(r->nspace, sizeof(r->nspace), "%s", m.nspace);
	r->job = xl.start.step.job_id;
	r->step = xl.start.step.step_id;
	r->ntasks = xl.start.step.ntasks;
	if (layout_from_start(&lay, &xl.start, err, sizeof(err)) < 0 ||
	    nspace_foreign_build(own, &lay, &r->info, &r->ninfo, err,
				 sizeof(err)) < 0) {
		PMIXEV_ERROR("spawn: step %s: %s: %s", own->step.id, m.nspace,
			     err);
		answer(r, PMIX_ERR_BAD_PARAM);
		goto out;
	}
	rc = PMIx_server_register_nspace(r->nspace, 0, r->info, r->ninfo,
					 registered, r);
	if (rc != PMIX_SUCCESS)
		answer(r, rc == PMIX_OPERATION_SUCCEEDED ? PMIX_SUCCESS : rc);
out:
	layout_free(&lay);
	pmixev_xstep_layout_release(&xl);
	return ret;
}

void nspace_pmix_listen(struct pmixside *p)
{
	nspace_wait_init(p);
	chan_on(pmixside_chan(p), PMIXEV_PMIXD_NSPACE_ADD, on_add, p);
}
