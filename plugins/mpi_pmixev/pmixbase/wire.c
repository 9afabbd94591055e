/*
 * pmixbase/wire.c - PMIx values and info arrays to bytes and back.
 */
#include "config.h"

#include "pmixbase/wire.h"

#include <stdlib.h>
#include <string.h>

#include <pmix.h>

/* A buffer reading a private copy of `bytes` (PMIx takes ownership). */
static pmix_status_t load(pmix_data_buffer_t *buf, const uint8_t *bytes,
			  size_t len)
{
	pmix_byte_object_t bo = {.bytes = malloc(len ? len : 1), .size = len};
	pmix_status_t rc;

	PMIX_DATA_BUFFER_CONSTRUCT(buf);
	if (!bo.bytes)
		return PMIX_ERR_NOMEM;
	memcpy(bo.bytes, bytes, len);
	rc = PMIx_Data_load(buf, &bo);
	if (rc != PMIX_SUCCESS)
		PMIX_BYTE_OBJECT_DESTRUCT(&bo);
	return rc;
}

pmix_status_t wire_pack_value(const pmix_value_t *v, pmix_byte_object_t *out)
{
	pmix_data_buffer_t buf;
	pmix_status_t rc;

	PMIX_BYTE_OBJECT_CONSTRUCT(out);
	PMIX_DATA_BUFFER_CONSTRUCT(&buf);
	rc = PMIx_Data_pack(NULL, &buf, (void *)v, 1, PMIX_VALUE);
	if (rc == PMIX_SUCCESS)
		rc = PMIx_Data_unload(&buf, out);
	PMIX_DATA_BUFFER_DESTRUCT(&buf);
	return rc;
}

pmix_status_t wire_unpack_value(const uint8_t *bytes, size_t len,
				pmix_value_t *v)
{
	pmix_data_buffer_t buf;
	int32_t cnt = 1;
	pmix_status_t rc = load(&buf, bytes, len);

	if (rc == PMIX_SUCCESS)
		rc = PMIx_Data_unpack(NULL, &buf, v, &cnt, PMIX_VALUE);
	PMIX_DATA_BUFFER_DESTRUCT(&buf);
	return rc;
}

pmix_status_t wire_pack_infos(const pmix_info_t info[], size_t ninfo,
			      pmix_byte_object_t *out)
{
	pmix_data_buffer_t buf;
	int32_t n = (int32_t)ninfo;
	pmix_status_t rc;

	PMIX_BYTE_OBJECT_CONSTRUCT(out);
	if (ninfo > INT32_MAX)
		return PMIX_ERR_BAD_PARAM;
	PMIX_DATA_BUFFER_CONSTRUCT(&buf);
	rc = PMIx_Data_pack(NULL, &buf, &n, 1, PMIX_INT32);
	if (rc == PMIX_SUCCESS && n > 0)
		rc = PMIx_Data_pack(NULL, &buf, (void *)info, n, PMIX_INFO);
	if (rc == PMIX_SUCCESS)
		rc = PMIx_Data_unload(&buf, out);
	PMIX_DATA_BUFFER_DESTRUCT(&buf);
	return rc;
}

pmix_status_t wire_unpack_infos(const uint8_t *bytes, size_t len, size_t max,
				pmix_info_t **info, size_t *ninfo)
{
	pmix_data_buffer_t buf;
	int32_t n = 0, cnt = 1;
	pmix_status_t rc = load(&buf, bytes, len);

	*info = NULL;
	*ninfo = 0;
	if (rc == PMIX_SUCCESS)
		rc = PMIx_Data_unpack(NULL, &buf, &n, &cnt, PMIX_INT32);
	if (rc == PMIX_SUCCESS && (n < 0 || (size_t)n > max))
		rc = PMIX_ERR_BAD_PARAM;
	if (rc == PMIX_SUCCESS && n > 0) {
		PMIX_INFO_CREATE(*info, (size_t)n);
		cnt = n;
		rc = *info ? PMIx_Data_unpack(NULL, &buf, *info, &cnt,
					      PMIX_INFO)
			   : PMIX_ERR_NOMEM;
		if (*info)
			*ninfo = (size_t)n;
	}
	PMIX_DATA_BUFFER_DESTRUCT(&buf);
	return rc;
}
