/*
 * pmixside/logmail.h - PMIx_Log's email item read into a LOG frame's
 * message (common/pmixev_pmixd_ctl.h), as the owner helper will take it
 * (common/pmixev_helper_msg.h): PMIX_LOG_EMAIL is an array of
 * PMIX_LOG_EMAIL_ADDR (comma-separated; none: the job owner),
 * PMIX_LOG_EMAIL_SUBJECT (default "Slurm step J.S rank R") and
 * PMIX_LOG_EMAIL_MSG (at most 1023 bytes). Root adds the site's command.
 * PMIx progress thread.
 */
#ifndef PMIXEV_PMIXSIDE_LOGMAIL_H_
#define PMIXEV_PMIXSIDE_LOGMAIL_H_

#include <pmix_common.h>

#include "pmixev_pmixd_ctl.h"

/*
 * The mail of value `v` from `who` ("rank R") of step `step_id` into `x`
 * (its text malloc'd). PMIX_SUCCESS, or why not with `x` untouched
 * (PMIX_ERR_BAD_PARAM, PMIX_ERR_NOMEM).
 */
pmix_status_t logmail_read(const pmix_value_t *v, const char *who,
			   const char *step_id, struct pmixev_pmixd_log_msg *x);

#endif /* PMIXEV_PMIXSIDE_LOGMAIL_H_ */
