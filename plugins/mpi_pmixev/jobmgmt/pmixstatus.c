/*
 * jobmgmt/pmixstatus.c - PMIx statuses without the library (see the
 * header).
 */
#include "config.h"

#include "jobmgmt/pmixstatus.h"

#include <errno.h>
#include <stddef.h>

#include <pmix_common.h>

int32_t pmixstatus_from_errno(int err)
{
	switch (err) {
	case ETIMEDOUT:
		return PMIX_ERR_TIMEOUT;
	case EHOSTUNREACH:
		return PMIX_ERR_UNREACH;
	case ESRCH:
		return PMIX_ERR_NOT_FOUND;
	case EAGAIN:
	case ENOBUFS:
	case EBUSY:
		return PMIX_ERR_OUT_OF_RESOURCE;
	case EACCES:
	case EPERM:
		return PMIX_ERR_NO_PERMISSIONS;
	case ENOMEM:
		return PMIX_ERR_NOMEM;
	default:
		return PMIX_ERR_NOT_AVAILABLE;
	}
}

/* OpenPMIx 4.2's names (src/util/pmix_error.c), quirks included. */
static const struct {
	int32_t st;
	const char *name;
} names[] = {
	{PMIX_ERROR, "ERROR"},
	{PMIX_ERR_BAD_PARAM, "BAD-PARAM"},
	{PMIX_ERR_NOMEM, "NO-MEM"},
	{PMIX_ERR_NO_PERMISSIONS, "NO-PERMISSIONS"},
	{PMIX_ERR_NOT_SUPPORTED, "NOT-SUPPORTED"},
	{PMIX_ERR_NOT_AVAILABLE, "NOT_AVAILABLE"},
	{PMIX_ERR_OUT_OF_RESOURCE, "OUT-OF-RESOURCE"},
	{PMIX_ERR_TIMEOUT, "TIMEOUT"},
	{PMIX_ERR_UNREACH, "UNREACHABLE"},
	{PMIX_ERR_NOT_FOUND, "NOT-FOUND"},
};

const char *pmixstatus_name(int32_t st)
{
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].st == st)
			return names[i].name;
	return "ERROR STRING NOT FOUND";
}
