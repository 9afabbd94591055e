/*
 * xstep_test.h - what the XSTEP codec tests share: unpackers as
 * proto_strict.h wants them, refusal and canonical-encoding checks.
 * Header-only (macros and static inline): each test is a single
 * translation unit.
 */
#ifndef PMIXEV_XSTEP_TEST_H_
#define PMIXEV_XSTEP_TEST_H_

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "pmixev_buf.h"

#define BIG (1u << 20) /* the data bound the unpackers give */

/* An unpacker as proto_strict.h wants it; `call` reads `r` into `m`. */
#define UNPACKER(name, type, call)                                             \
	static int name(const uint8_t *data, size_t len)                       \
	{                                                                      \
		struct pmixev_buf r;                                           \
		type m;                                                        \
		memset(&m, 0, sizeof(m));                                      \
		pmixev_buf_reader(&r, data, len);                              \
		return call;                                                   \
	}

/* A pack that must refuse: -1, EINVAL, nothing written. */
#define REFUSED(pack_call, w)                                                  \
	do {                                                                   \
		size_t len_ = (w)->len;                                        \
		errno = 0;                                                     \
		assert_int_equal(pack_call, -1);                               \
		assert_int_equal(errno, EINVAL);                               \
		assert_int_equal((w)->len, len_);                              \
	} while (0)

/* Canonical: `again` (packed from what `w` unpacked to) holds `w`'s
 * bytes. Releases `again`. */
static inline void assert_same(const struct pmixev_buf *w,
			       struct pmixev_buf *again)
{
	assert_int_equal(again->len, w->len);
	assert_memory_equal(again->data, w->data, w->len);
	pmixev_buf_release(again);
}

#endif /* PMIXEV_XSTEP_TEST_H_ */
