/*
 * pmixside/alloc_pmix.h - PMIx_Allocation_request on the pmix side: the
 * `allocate` upcall reads the request (pmixside/alloc_read.h) and sends it
 * to root as an ALLOC frame (jobmgmt/alloc.h says what root does); root's
 * ALLOC_DONE answers PMIx on the pmix side's agent. A granted or released
 * allocation is answered with PMIX_ALLOC_ID (the Slurm job id, as a
 * string), PMIX_ALLOC_NODE_LIST, PMIX_ALLOC_NUM_NODES, PMIX_ALLOC_NUM_CPUS
 * (uint64_t), PMIX_ALLOC_TIME (uint32_t seconds under OpenPMIx 4.x, the
 * seconds as a string under 5.x), PMIX_ALLOC_QUEUE and PMIX_ALLOC_REQ_ID
 * as far as known; a failure with PMIXEV_ALLOC_REASON. Never blocks the
 * PMIx thread.
 */
#ifndef PMIXEV_PMIXSIDE_ALLOC_PMIX_H_
#define PMIXEV_PMIXSIDE_ALLOC_PMIX_H_

#include <pmix_server.h>

struct pmixside;

/* The pmix side's agent takes root's ALLOC_DONE frames. */
void alloc_pmix_listen(struct pmixside *p);

/* The `allocate` upcall (PMIx progress thread). */
pmix_status_t alloc_upcall(const pmix_proc_t *client,
			   pmix_alloc_directive_t directive,
			   const pmix_info_t data[], size_t ndata,
			   pmix_info_cbfunc_t cbfunc, void *cbdata);

#endif /* PMIXEV_PMIXSIDE_ALLOC_PMIX_H_ */
