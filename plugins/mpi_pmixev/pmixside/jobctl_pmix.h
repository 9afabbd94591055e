/*
 * pmixside/jobctl_pmix.h - PMIx_Job_control: the pmix side's half (root's,
 * which carries the request out, is jobmgmt/jobctl.h).
 *
 * PMIx progress thread: the upcall reads the request (jobctl_read.h: refused
 * there with the reason in the slurmd log) and sends it as a JOBCTL frame. A
 * checkpoint is refused with PMIX_ERR_NOT_SUPPORTED when this node does not
 * watch for the ranks' completions (ckpt_pmix.h). The pmix side's agent answers
 * PMIx once root's JOBCTL_DONE comes: its status, and when it failed with a
 * reason, PMIXEV_JCTRL_REASON (string); PMIX_ERR_UNREACH when the channel
 * to root closed first.
 */
#ifndef PMIXEV_PMIXSIDE_JOBCTL_PMIX_H_
#define PMIXEV_PMIXSIDE_JOBCTL_PMIX_H_

#include <pmix_server.h>

#include "pmixside/side.h"

/* Answer JOBCTL_DONE frames on `p`'s channel. Before it runs. */
void jobctl_pmix_listen(struct pmixside *p);

/* The upcall, for the server module's table. */
pmix_status_t jobctl_upcall(const pmix_proc_t *requestor,
			    const pmix_proc_t targets[], size_t ntargets,
			    const pmix_info_t directives[], size_t ndirs,
			    pmix_info_cbfunc_t cbfunc, void *cbdata);

#endif /* PMIXEV_PMIXSIDE_JOBCTL_PMIX_H_ */
