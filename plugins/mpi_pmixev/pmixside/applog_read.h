/*
 * pmixside/applog_read.h - a PMIx_Log request read into a LOG frame
 * (common/pmixev_pmixd_ctl.h): one message per channel item, in the order
 * given, and the directives. An item the library marked done is skipped;
 * one that cannot be delivered (not a string, over 64 KiB, a malformed
 * email, out of memory) stays in its place with its status in `bad`, for
 * root to count and log. At most PMIXEV_PMIXD_MSGS_MAX messages, the rest
 * dropped. PMIx progress thread.
 */
#ifndef PMIXEV_PMIXSIDE_APPLOG_READ_H_
#define PMIXEV_PMIXSIDE_APPLOG_READ_H_

#include <stddef.h>

#include <pmix_common.h>

#include "pmixev_pmixd_ctl.h"

/*
 * Read `data` and `directives` of a request of step `step_id` into `m`
 * (its `who` and `level` set: the default priority); release with
 * pmixev_pmixd_log_release.
 */
void applog_read(struct pmixev_pmixd_log *m, const char *step_id,
		 const pmix_info_t data[], size_t ndata,
		 const pmix_info_t directives[], size_t ndirs);

/* Message `x` refused with `st`: its text, address and subject dropped. */
void applog_refuse(struct pmixev_pmixd_log_msg *x, pmix_status_t st);

#endif /* PMIXEV_PMIXSIDE_APPLOG_READ_H_ */
