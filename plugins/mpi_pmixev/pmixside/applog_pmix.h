/*
 * pmixside/applog_pmix.h - the PMIx_Log upcall: the pmix side's half of
 * PMIx_Log (root's, with the channels, is jobmgmt/applog.h).
 *
 * PMIx progress thread: the upcall reads the request (applog_read.h)
 * and sends it as a LOG frame itself. The pmix side's agent answers PMIx with
 * the status of root's LOG_DONE, or PMIX_ERR_UNREACH when the channel to root
 * closes first; never the PMIx thread: the library holds a lock around the
 * upcall that its callback takes.
 */
#ifndef PMIXEV_PMIXSIDE_APPLOG_PMIX_H_
#define PMIXEV_PMIXSIDE_APPLOG_PMIX_H_

#include <pmix_server.h>

#include "pmixside/side.h"

/* Answer LOG_DONE frames on `p`'s channel. Before it runs. */
void applog_pmix_listen(struct pmixside *p);

void applog_upcall(const pmix_proc_t *client, const pmix_info_t data[],
		   size_t ndata, const pmix_info_t directives[], size_t ndirs,
		   pmix_op_cbfunc_t cbfunc, void *cbdata);

#endif /* PMIXEV_PMIXSIDE_APPLOG_PMIX_H_ */
