/*
 * jobmgmt/logmail.h - PMIx_Log's email item read into a mail for the owner
 * helper (common/pmixev_helper_msg.h): PMIX_LOG_EMAIL is an array of
 * PMIX_LOG_EMAIL_ADDR (comma-separated; none: the job owner),
 * PMIX_LOG_EMAIL_SUBJECT (default "Slurm step J.S rank R") and
 * PMIX_LOG_EMAIL_MSG (at most 1023 bytes). PMIx progress thread.
 */
#ifndef PMIXEV_PMIX_LOGMAIL_H_
#define PMIXEV_PMIX_LOGMAIL_H_

#include <pmix_common.h>

#include "pmixev_helper_msg.h"

/* The mail of value `v` (from rank `who`), without its command; NULL with
 * the reason in `st` (PMIX_ERR_BAD_PARAM, PMIX_ERR_NOMEM). */
struct pmixev_owner_mail *logmail_read(const pmix_value_t *v, const char *who,
				       pmix_status_t *st);

#endif /* PMIXEV_PMIX_LOGMAIL_H_ */
