/*
 * pmixside/jobctl_read.h - a PMIx_Job_control request read into the JOBCTL
 * frame root carries out (pmixev_pmixd_ctl.h): its one action, its ids and
 * checkpoint method, then its targets. What root could not carry out is
 * refused here, with the reason: no action or more than one, a bad signal
 * or id, single ranks or a checkpoint of another step, more than
 * PMIXEV_PMIXD_TARGETS_MAX targets (pmixside/jobctl_pmix.h says what each
 * target means). PMIx progress thread.
 */
#ifndef PMIXEV_PMIXSIDE_JOBCTL_READ_H_
#define PMIXEV_PMIXSIDE_JOBCTL_READ_H_

#include <stddef.h>

#include <pmix_common.h>

#include "base/layout.h"
#include "pmixev_pmixd_ctl.h"

/* A request being read, for the step laid out in `lay`. */
struct jobctl_req {
	const struct layout *lay;
	struct pmixev_pmixd_jobctl m; /* its id and requester: the caller's */
	char why[PMIXEV_PMIXD_REASON_MAX]; /* why it is refused */
};

/*
 * Read the directives, then the targets (none: the requester's own step)
 * into r->m. PMIX_SUCCESS, or why the request is refused, with the reason
 * in r->why.
 */
pmix_status_t jobctl_read(struct jobctl_req *r, const pmix_proc_t targets[],
			  size_t ntargets, const pmix_info_t dirs[],
			  size_t ndirs);

#endif /* PMIXEV_PMIXSIDE_JOBCTL_READ_H_ */
