/*
 * pmixbase/values.c - directive values read alike by several upcalls (see
 * values.h).
 */
#include "config.h"

#include "pmixbase/values.h"

#include <errno.h>
#include <stdlib.h>

int values_uint(const pmix_value_t *v, uint64_t *out)
{
	int64_t s;

	switch (v->type) {
	case PMIX_UINT64:
		*out = v->data.uint64;
		return 0;
	case PMIX_UINT32:
		*out = v->data.uint32;
		return 0;
	case PMIX_UINT16:
		*out = v->data.uint16;
		return 0;
	case PMIX_UINT8:
		*out = v->data.uint8;
		return 0;
	case PMIX_UINT:
		*out = v->data.uint;
		return 0;
	case PMIX_SIZE:
		*out = v->data.size;
		return 0;
	case PMIX_INT:
		s = v->data.integer;
		break;
	case PMIX_INT32:
		s = v->data.int32;
		break;
	case PMIX_INT64:
		s = v->data.int64;
		break;
	default:
		return -1;
	}
	if (s < 0)
		return -1;
	*out = (uint64_t)s;
	return 0;
}

int values_job(const pmix_value_t *v, uint32_t *job)
{
	char *end;
	unsigned long id;

	if (v->type != PMIX_STRING || !v->data.string ||
	    v->data.string[0] < '1' || v->data.string[0] > '9')
		return -1;
	errno = 0;
	id = strtoul(v->data.string, &end, 10);
	if (errno || *end || id >= 0xfffffff0UL)
		return -1;
	*job = (uint32_t)id;
	return 0;
}
