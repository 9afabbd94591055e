/*
 * pmixbase/nspace_foreign.c - registration info of a family member's
 * namespace (see nspace_foreign.h).
 */
#include "config.h"

#include "pmixbase/nspace_foreign.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "pmixbase/nspace_int.h"
#include "pmixev_step.h"

/* Each node of `lay` by its id in `own`'s numbering (see the header). */
static uint32_t *node_ids(const struct layout *own, const struct layout *lay)
{
	uint32_t *id = calloc(lay->step.nnodes, sizeof(*id));
	uint32_t next = own->step.nnodes;

	if (!id)
		return NULL;
	for (uint32_t i = 0; i < lay->step.nnodes; i++) {
		uint32_t k = 0;

		while (k < own->step.nnodes &&
		       strcmp(own->nodes[k], lay->nodes[i]))
			k++;
		id[i] = k < own->step.nnodes ? k : next++;
	}
	return id;
}

static pmix_status_t job_info(void *list, const struct layout *lay)
{
	uint32_t napps = lay->apps.nnodes;
	struct nspace_maps m = {0};
	char id[32];
	pmix_status_t rc = PMIX_ERR_NOMEM;

	pmixev_step_id_format(lay->step.job_id, lay->step.step_id, id,
			      sizeof(id));
	if (nspace_maps_build(lay, &m) < 0)
		return rc;
	/* No node or proc map: from them a client's library works out
	 * which of the member's ranks share its node, and only the
	 * spawner's has them (in the spawn's answer), so the two sides of a
	 * connect would disagree on who is local (Open MPI 5 then hangs in
	 * collectives over the intercommunicator). Both take the other
	 * step's ranks for remote. */
	free(m.node_regex);
	m.node_regex = NULL;
	if ((rc = nspace_job_keys(list, lay, id, &m)))
		goto out;
	for (uint32_t a = 0; a < napps && rc == PMIX_SUCCESS; a++) {
		void *sub = PMIx_Info_list_start();

		if (!sub) {
			rc = PMIX_ERR_NOMEM;
			break;
		}
		if ((rc = nspace_app_keys(sub, lay, a))) {
			PMIx_Info_list_release(sub);
			break;
		}
		rc = nspace_add_array(list, PMIX_APP_INFO_ARRAY, sub);
	}
out:
	nspace_maps_free(&m);
	return rc;
}

static pmix_status_t proc_info(void *list, const struct layout *lay,
			       pmix_rank_t rank, uint32_t nodeid)
{
	void *sub = PMIx_Info_list_start();
	uint32_t appnum = lay->apps.node_of[rank];
	pmix_rank_t app_rank = lay->apps.local_of[rank];
	const char *host = lay->nodes[lay->map.node_of[rank]];
	pmix_status_t rc;

	if (!sub)
		return PMIX_ERR_NOMEM;
	if ((rc = PMIx_Info_list_add(sub, PMIX_RANK, &rank, PMIX_PROC_RANK)) ||
	    (rc = PMIx_Info_list_add(sub, PMIX_APP_RANK, &app_rank,
				     PMIX_PROC_RANK)) ||
	    (rc = PMIx_Info_list_add(sub, PMIX_APPNUM, &appnum, PMIX_UINT32)) ||
	    (rc = PMIx_Info_list_add(sub, PMIX_NODEID, &nodeid, PMIX_UINT32)) ||
	    (rc = PMIx_Info_list_add(sub, PMIX_HOSTNAME, host, PMIX_STRING))) {
		PMIx_Info_list_release(sub);
		return rc;
	}
	return nspace_add_array(list, PMIX_PROC_INFO_ARRAY, sub);
}

int nspace_foreign_build(const struct layout *own, const struct layout *lay,
			 pmix_info_t **info, size_t *ninfo, char *err,
			 size_t errlen)
{
	void *list = PMIx_Info_list_start();
	uint32_t *ids = node_ids(own, lay);
	pmix_data_array_t da = {0};
	pmix_status_t rc = PMIX_ERR_NOMEM;
	const char *what = "job info";

	if (!list || !ids)
		goto fail;
	if ((rc = job_info(list, lay)) != PMIX_SUCCESS)
		goto fail;
	what = "proc info";
	for (pmix_rank_t r = 0; r < lay->step.ntasks; r++)
		if ((rc = proc_info(list, lay, r, ids[lay->map.node_of[r]])) !=
		    PMIX_SUCCESS)
			goto fail;
	what = "info list";
	if ((rc = PMIx_Info_list_convert(list, &da)) != PMIX_SUCCESS)
		goto fail;
	PMIx_Info_list_release(list);
	free(ids);
	*info = da.array;
	*ninfo = da.size;
	return 0;
fail:
	if (list)
		PMIx_Info_list_release(list);
	free(ids);
	snprintf(err, errlen, "cannot build %s of %s: %s", what, lay->nspace,
		 PMIx_Error_string(rc));
	return -1;
}
