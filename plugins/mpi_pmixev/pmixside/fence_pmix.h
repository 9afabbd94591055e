/*
 * pmixside/fence_pmix.h - the pmix side of fences and of the barriers
 * behind connect and disconnect: their PMIx upcalls. Each becomes a FENCE
 * frame to root, whose tree engine (wireup/fence.h) runs the collective
 * across the nodes; its FENCE_DONE answers PMIx on the pmix side's agent.
 */
#ifndef PMIXEV_PMIXSIDE_FENCE_PMIX_H_
#define PMIXEV_PMIXSIDE_FENCE_PMIX_H_

#include <stddef.h>

#include <pmix_server.h>

/* The upcalls (PMIx progress thread), for the server module's table. */
pmix_status_t fence_upcall_fence_nb(const pmix_proc_t procs[], size_t nprocs,
				    const pmix_info_t info[], size_t ninfo,
				    char *data, size_t ndata,
				    pmix_modex_cbfunc_t cbfunc, void *cbdata);
pmix_status_t fence_upcall_connect(const pmix_proc_t procs[], size_t nprocs,
				   const pmix_info_t info[], size_t ninfo,
				   pmix_op_cbfunc_t cbfunc, void *cbdata);
pmix_status_t fence_upcall_disconnect(const pmix_proc_t procs[], size_t nprocs,
				      const pmix_info_t info[], size_t ninfo,
				      pmix_op_cbfunc_t cbfunc, void *cbdata);

#endif /* PMIXEV_PMIXSIDE_FENCE_PMIX_H_ */
