/*
 * proto_strict.h - the strictness check the message codec tests share.
 * Header-only (static inline): each test is a single translation unit.
 */
#ifndef PMIXEV_PROTO_STRICT_H_
#define PMIXEV_PROTO_STRICT_H_

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pmixev_buf.h"

typedef int (*unpack_f)(const uint8_t *data, size_t len);

/*
 * `w` holds one valid body: it unpacks, but no proper prefix does and
 * neither does the body with one trailing byte. Releases `w`.
 */
static inline void assert_strict(struct pmixev_buf *w, unpack_f unpack)
{
	uint8_t *copy;

	assert_true(pmixev_buf_ok(w));
	assert_int_equal(unpack(w->data, w->len), 0);
	for (size_t n = 0; n < w->len; n++) {
		/* A heap copy of just n bytes lets ASan see over-reads. */
		copy = malloc(n ? n : 1);
		assert_non_null(copy);
		memcpy(copy, w->data, n);
		assert_int_equal(unpack(copy, n), -1);
		free(copy);
	}
	assert_int_equal(pmixev_buf_put_u8(w, 0), 0);
	assert_int_equal(unpack(w->data, w->len), -1);
	pmixev_buf_release(w);
}

#endif /* PMIXEV_PROTO_STRICT_H_ */
