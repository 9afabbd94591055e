/*
 * pmixside/spawn_pmix.h - PMIx_Spawn on the pmix side (doc/spawn.md §2.1):
 * the `spawn` upcall reads the request (pmixside/spawn_read.h) and sends it
 * to root as a SPAWN frame; root answers SPAWN_DONE once every child has
 * registered, or the spawn failed, and the pmix side's agent answers PMIx:
 * the child step's namespace on success, the status alone otherwise (the
 * reason goes to the log). A request refused here never reaches root.
 * Never blocks the PMIx thread.
 */
#ifndef PMIXEV_PMIXSIDE_SPAWN_PMIX_H_
#define PMIXEV_PMIXSIDE_SPAWN_PMIX_H_

#include <pmix_server.h>

struct pmixside;

/* The pmix side's agent takes root's SPAWN_DONE frames. */
void spawn_pmix_listen(struct pmixside *p);

/* The `spawn` upcall (PMIx progress thread). */
pmix_status_t spawn_upcall(const pmix_proc_t *proc,
			   const pmix_info_t job_info[], size_t ninfo,
			   const pmix_app_t apps[], size_t napps,
			   pmix_spawn_cbfunc_t cbfunc, void *cbdata);

#endif /* PMIXEV_PMIXSIDE_SPAWN_PMIX_H_ */
