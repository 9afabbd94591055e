/*
 * pmixbase/wire.h - PMIx data as bytes for the overlay: one value, or an array
 * of infos, packed with the PMIx library's own pack functions. Every stepd
 * of a step loads the same libpmix, so what one packs another unpacks;
 * the bytes are untrusted all the same (a count above `max` is refused
 * before anything is allocated). Any thread.
 */
#ifndef PMIXEV_PMIX_WIRE_H_
#define PMIXEV_PMIX_WIRE_H_

#include <stddef.h>
#include <stdint.h>

#include <pmix_common.h>

/* `v` as bytes, malloc'd into `out` (free with PMIX_BYTE_OBJECT_DESTRUCT). */
pmix_status_t wire_pack_value(const pmix_value_t *v, pmix_byte_object_t *out);

/* The value packed in `bytes` into `v` (PMIX_VALUE_DESTRUCT it). */
pmix_status_t wire_unpack_value(const uint8_t *bytes, size_t len,
				pmix_value_t *v);

/* `ninfo` infos (a count, then the infos) as bytes, malloc'd into `out`. */
pmix_status_t wire_pack_infos(const pmix_info_t info[], size_t ninfo,
			      pmix_byte_object_t *out);

/*
 * The infos packed in `bytes`: *info (PMIX_INFO_FREE it with *ninfo, NULL
 * when none) and *ninfo. PMIX_ERR_BAD_PARAM for more than `max`.
 */
pmix_status_t wire_unpack_infos(const uint8_t *bytes, size_t len, size_t max,
				pmix_info_t **info, size_t *ninfo);

#endif /* PMIXEV_PMIX_WIRE_H_ */
