/*
 * jobmgmt/pmixstatus.h - PMIx statuses as root's halves of the pmix side's
 * requests make them (PMIx_Log's LOG_DONE), without the PMIx library:
 * pmix_common.h's constants only, as int32_t, the way they cross the
 * channel (common/pmixev_pmixd_ctl.h). Pure; any thread.
 */
#ifndef PMIXEV_JOBMGMT_PMIXSTATUS_H_
#define PMIXEV_JOBMGMT_PMIXSTATUS_H_

#include <stdint.h>

/*
 * The status for a system call's failure `err` (an errno value): ETIMEDOUT ->
 * PMIX_ERR_TIMEOUT, EHOSTUNREACH -> _UNREACH, ESRCH -> _NOT_FOUND,
 * EAGAIN/ENOBUFS/EBUSY -> _OUT_OF_RESOURCE, EACCES/EPERM ->
 * _NO_PERMISSIONS, ENOMEM -> _NOMEM, any other -> _NOT_AVAILABLE.
 */
int32_t pmixstatus_from_errno(int err);

/*
 * `st` as OpenPMIx 4.2's PMIx_Error_string names it ("BAD-PARAM"), for
 * the statuses a PMIx_Log message is refused with (the errors above,
 * PMIX_ERROR, _BAD_PARAM, _NOT_SUPPORTED); "ERROR STRING NOT FOUND" for
 * any other, as the library says. Static text.
 */
const char *pmixstatus_name(int32_t st);

#endif /* PMIXEV_JOBMGMT_PMIXSTATUS_H_ */
