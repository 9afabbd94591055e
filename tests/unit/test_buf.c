/*
 * Unit tests for common/pmixev_buf.c: byte order, round trips, bounds
 * checks, the sticky error flag, growth and ownership (steal/release).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pmixev_buf.h"

/* The writer's bytes so far must be exactly `want`. */
static void assert_written(const struct pmixev_buf *b, const void *want,
			   size_t len)
{
	assert_true(pmixev_buf_ok(b));
	assert_int_equal(b->len, len);
	assert_memory_equal(b->data, want, len);
}

static void test_put_big_endian(void **state)
{
	static const uint8_t want[] = {
		0xab,						/* u8 */
		0x12, 0x34,					/* u16 */
		0x01, 0x02, 0x03, 0x04,				/* u32 */
		0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, /* u64 */
		0xff, 0xff, 0xff, 0xfe,				/* i32 -2 */
		0x00, 0x00, 0x00, 0x03, 'a',  'b',  'c',	/* bytes */
		0x00, 0x00, 0x00, 0x02, 'h',  'i',		/* str */
		0x00, 0x00, 0x00, 0x00,				/* NULL str */
		'r',  'a',  'w',				/* raw */
	};
	struct pmixev_buf b;

	pmixev_buf_init(&b);
	assert_int_equal(pmixev_buf_put_u8(&b, 0xab), 0);
	assert_int_equal(pmixev_buf_put_u16(&b, 0x1234), 0);
	assert_int_equal(pmixev_buf_put_u32(&b, 0x01020304), 0);
	assert_int_equal(pmixev_buf_put_u64(&b, 0x0123456789abcdefULL), 0);
	assert_int_equal(pmixev_buf_put_i32(&b, -2), 0);
	assert_int_equal(pmixev_buf_put_bytes(&b, "abc", 3), 0);
	assert_int_equal(pmixev_buf_put_str(&b, "hi"), 0);
	assert_int_equal(pmixev_buf_put_str(&b, NULL), 0);
	assert_int_equal(pmixev_buf_put_raw(&b, "raw", 3), 0);
	assert_written(&b, want, sizeof(want));
	pmixev_buf_release(&b);
	assert_null(b.data);
	assert_int_equal(b.len, 0);
}

static void test_round_trip(void **state)
{
	static const uint8_t blob[] = {0, 1, 2, 0xff};
	struct pmixev_buf w, r;
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;
	int32_t i32, imin, imax;
	const uint8_t *p;
	size_t n, m;
	char s[8], empty[1];

	pmixev_buf_init(&w);
	pmixev_buf_put_u8(&w, 0xff);
	pmixev_buf_put_u16(&w, 0xfffe);
	pmixev_buf_put_u32(&w, 0xdeadbeef);
	pmixev_buf_put_u64(&w, UINT64_MAX - 1);
	pmixev_buf_put_i32(&w, -123456);
	pmixev_buf_put_i32(&w, INT32_MIN);
	pmixev_buf_put_i32(&w, INT32_MAX);
	pmixev_buf_put_bytes(&w, blob, sizeof(blob));
	pmixev_buf_put_bytes(&w, NULL, 0);
	pmixev_buf_put_str(&w, "node-1");
	pmixev_buf_put_str(&w, "");
	assert_true(pmixev_buf_ok(&w));

	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_buf_remaining(&r), w.len);
	assert_int_equal(pmixev_buf_get_u8(&r, &u8), 0);
	assert_int_equal(pmixev_buf_get_u16(&r, &u16), 0);
	assert_int_equal(pmixev_buf_get_u32(&r, &u32), 0);
	assert_int_equal(pmixev_buf_get_u64(&r, &u64), 0);
	assert_int_equal(pmixev_buf_get_i32(&r, &i32), 0);
	assert_int_equal(pmixev_buf_get_i32(&r, &imin), 0);
	assert_int_equal(pmixev_buf_get_i32(&r, &imax), 0);
	assert_int_equal(pmixev_buf_get_bytes(&r, &p, &n), 0);
	assert_int_equal(u8, 0xff);
	assert_int_equal(u16, 0xfffe);
	assert_int_equal(u32, 0xdeadbeef);
	assert_true(u64 == UINT64_MAX - 1);
	assert_int_equal(i32, -123456);
	assert_true(imin == INT32_MIN);
	assert_true(imax == INT32_MAX);
	assert_int_equal(n, sizeof(blob));
	assert_memory_equal(p, blob, sizeof(blob));
	/* Zero-copy: the pointer is into the reader's data. */
	assert_ptr_equal(p, w.data + 1 + 2 + 4 + 8 + 3 * 4 + 4);
	assert_int_equal(pmixev_buf_get_bytes(&r, &p, &m), 0);
	assert_int_equal(m, 0);
	assert_int_equal(pmixev_buf_get_str(&r, s, sizeof(s)), 0);
	assert_string_equal(s, "node-1");
	assert_int_equal(pmixev_buf_get_str(&r, empty, sizeof(empty)), 0);
	assert_string_equal(empty, "");
	assert_int_equal(pmixev_buf_remaining(&r), 0);
	assert_true(pmixev_buf_ok(&r));
	pmixev_buf_release(&w);
}

static void test_get_big_endian(void **state)
{
	static const uint8_t in[] = {0x80, 0x00, 0x00, 0x01, 0x7f, 0xff,
				     0xff, 0xff, 0x00, 0x00, 0x00, 0x01};
	struct pmixev_buf r;
	uint32_t u;
	int32_t i;
	uint16_t h;

	pmixev_buf_reader(&r, in, sizeof(in));
	assert_int_equal(pmixev_buf_get_u32(&r, &u), 0);
	assert_int_equal(u, 0x80000001);
	assert_int_equal(pmixev_buf_get_i32(&r, &i), 0);
	assert_int_equal(i, INT32_MAX);
	assert_int_equal(pmixev_buf_get_u16(&r, &h), 0);
	assert_int_equal(h, 0);
	assert_int_equal(pmixev_buf_get_u16(&r, &h), 0);
	assert_int_equal(h, 1);

	pmixev_buf_reader(&r, in, sizeof(in));
	assert_int_equal(pmixev_buf_get_i32(&r, &i), 0);
	assert_int_equal(i, -2147483647);
}

/* Each get fails on one byte too few, and leaves its output alone. */
static void test_short_reads(void **state)
{
	static const uint8_t in[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	struct pmixev_buf r;
	uint8_t u8 = 9;
	uint16_t u16 = 9;
	uint32_t u32 = 9;
	uint64_t u64 = 9;
	int32_t i32 = 9;

	pmixev_buf_reader(&r, in, 0);
	assert_int_equal(pmixev_buf_get_u8(&r, &u8), -1);
	assert_false(pmixev_buf_ok(&r));
	pmixev_buf_reader(&r, in, 1);
	assert_int_equal(pmixev_buf_get_u16(&r, &u16), -1);
	pmixev_buf_reader(&r, in, 3);
	assert_int_equal(pmixev_buf_get_u32(&r, &u32), -1);
	pmixev_buf_reader(&r, in, 3);
	assert_int_equal(pmixev_buf_get_i32(&r, &i32), -1);
	pmixev_buf_reader(&r, in, 7);
	assert_int_equal(pmixev_buf_get_u64(&r, &u64), -1);
	assert_false(pmixev_buf_ok(&r));
	assert_int_equal(u8, 9);
	assert_int_equal(u16, 9);
	assert_int_equal(u32, 9);
	assert_int_equal(u64, 9);
	assert_int_equal(i32, 9);

	pmixev_buf_reader(&r, in, 8);
	assert_int_equal(pmixev_buf_get_u64(&r, &u64), 0);
	assert_int_equal(u64, 0x0102030405060708ULL);
	assert_int_equal(pmixev_buf_get_u8(&r, &u8), -1);
}

static void test_sticky_error(void **state)
{
	static const uint8_t in[] = {0, 0, 0, 9, 'x', 1, 2, 3, 4};
	struct pmixev_buf r;
	const uint8_t *p;
	size_t n;
	uint8_t u8;
	uint32_t u32;

	/* Length 9 but only 5 bytes follow: fails without moving. */
	pmixev_buf_reader(&r, in, sizeof(in));
	assert_int_equal(pmixev_buf_get_bytes(&r, &p, &n), -1);
	assert_false(pmixev_buf_ok(&r));
	/* Data that would fit is refused after the first failure. */
	assert_int_equal(pmixev_buf_get_u8(&r, &u8), -1);
	assert_int_equal(pmixev_buf_get_u32(&r, &u32), -1);
	assert_false(pmixev_buf_ok(&r));

	pmixev_buf_reader(&r, in, sizeof(in));
	assert_true(pmixev_buf_ok(&r));
	assert_int_equal(pmixev_buf_get_u32(&r, &u32), 0);
	assert_int_equal(pmixev_buf_remaining(&r), 5);
}

static void test_bytes_bounds(void **state)
{
	static const uint8_t exact[] = {0, 0, 0, 2, 'a', 'b'};
	static const uint8_t huge[] = {0xff, 0xff, 0xff, 0xff, 'a'};
	struct pmixev_buf r;
	const uint8_t *p = NULL;
	size_t n = 7;

	pmixev_buf_reader(&r, exact, sizeof(exact));
	assert_int_equal(pmixev_buf_get_bytes(&r, &p, &n), 0);
	assert_int_equal(n, 2);
	assert_ptr_equal(p, exact + 4);
	pmixev_buf_reader(&r, exact, sizeof(exact) - 1);
	assert_int_equal(pmixev_buf_get_bytes(&r, &p, &n), -1);
	pmixev_buf_reader(&r, exact, 3);
	assert_int_equal(pmixev_buf_get_bytes(&r, &p, &n), -1);
	pmixev_buf_reader(&r, huge, sizeof(huge));
	p = NULL;
	assert_int_equal(pmixev_buf_get_bytes(&r, &p, &n), -1);
	assert_null(p);
	assert_int_equal(n, 2);
}

static void test_str_rejects(void **state)
{
	static const uint8_t four[] = {0, 0, 0, 4, 'a', 'b', 'c', 'd'};
	static const uint8_t nul[] = {0, 0, 0, 3, 'a', 0, 'c'};
	static const uint8_t nul_end[] = {0, 0, 0, 2, 'a', 0};
	struct pmixev_buf r;
	char out[5];

	/* 4 characters fit 5 bytes, not 4. */
	pmixev_buf_reader(&r, four, sizeof(four));
	assert_int_equal(pmixev_buf_get_str(&r, out, 5), 0);
	assert_string_equal(out, "abcd");
	memcpy(out, "keep", 5);
	pmixev_buf_reader(&r, four, sizeof(four));
	assert_int_equal(pmixev_buf_get_str(&r, out, 4), -1);
	assert_false(pmixev_buf_ok(&r));
	assert_string_equal(out, "keep");
	pmixev_buf_reader(&r, four, sizeof(four));
	assert_int_equal(pmixev_buf_get_str(&r, out, 0), -1);

	pmixev_buf_reader(&r, nul, sizeof(nul));
	assert_int_equal(pmixev_buf_get_str(&r, out, sizeof(out)), -1);
	assert_false(pmixev_buf_ok(&r));
	pmixev_buf_reader(&r, nul_end, sizeof(nul_end));
	assert_int_equal(pmixev_buf_get_str(&r, out, sizeof(out)), -1);
	assert_string_equal(out, "keep");
	/* Truncated text. */
	pmixev_buf_reader(&r, four, sizeof(four) - 1);
	assert_int_equal(pmixev_buf_get_str(&r, out, sizeof(out)), -1);
}

static void test_steal(void **state)
{
	static const uint8_t want[] = {0, 0, 0, 7};
	struct pmixev_buf b;
	uint8_t *p;
	size_t n = 99;

	pmixev_buf_init(&b);
	pmixev_buf_put_u32(&b, 7);
	p = pmixev_buf_steal(&b, &n);
	assert_non_null(p);
	assert_int_equal(n, 4);
	assert_memory_equal(p, want, 4);
	/* The writer is empty and usable again. */
	assert_null(b.data);
	assert_int_equal(b.len, 0);
	assert_int_equal(b.cap, 0);
	assert_true(pmixev_buf_ok(&b));
	assert_int_equal(pmixev_buf_put_u8(&b, 1), 0);
	assert_int_equal(b.len, 1);
	assert_true(b.data != p);
	free(p);
	pmixev_buf_release(&b);

	/* An empty writer still gives an allocation, so NULL is failure. */
	p = pmixev_buf_steal(&b, &n);
	assert_non_null(p);
	assert_int_equal(n, 0);
	free(p);
}

static void test_steal_refused(void **state)
{
	static const uint8_t in[] = {1, 2};
	struct pmixev_buf b;
	size_t n = 99;

	pmixev_buf_reader(&b, in, sizeof(in));
	assert_null(pmixev_buf_steal(&b, &n));
	assert_int_equal(n, 0);

	/* A writer with a failed put must not hand out a partial message. */
	pmixev_buf_init(&b);
	pmixev_buf_put_u32(&b, 1);
	assert_int_equal(pmixev_buf_put_raw(&b, in, SIZE_MAX), -1);
	n = 99;
	assert_null(pmixev_buf_steal(&b, &n));
	assert_int_equal(n, 0);
	assert_null(b.data);
	assert_true(pmixev_buf_ok(&b));
}

static void test_writer_errors(void **state)
{
	struct pmixev_buf b;

	pmixev_buf_init(&b);
	assert_int_equal(pmixev_buf_put_u16(&b, 1), 0);
	/* Sizes that cannot be allocated or encoded fail cleanly. */
	assert_int_equal(pmixev_buf_put_raw(&b, "x", SIZE_MAX - 1), -1);
	assert_false(pmixev_buf_ok(&b));
	/* Sticky: a small put after the failure fails too. */
	assert_int_equal(pmixev_buf_put_u8(&b, 1), -1);
	assert_int_equal(b.len, 2);
	pmixev_buf_release(&b);
	assert_true(pmixev_buf_ok(&b));

	assert_int_equal(pmixev_buf_put_bytes(&b, "x", (size_t)UINT32_MAX + 1),
			 -1);
	assert_false(pmixev_buf_ok(&b));
	assert_int_equal(b.len, 0);
	pmixev_buf_release(&b);
}

static void test_wrong_direction(void **state)
{
	static const uint8_t in[] = {1, 2, 3, 4};
	struct pmixev_buf b;
	uint8_t u8;

	pmixev_buf_reader(&b, in, sizeof(in));
	assert_int_equal(pmixev_buf_put_u8(&b, 1), -1);
	assert_false(pmixev_buf_ok(&b));
	assert_int_equal(b.len, 4);
	/* Releasing a reader must not free the borrowed (static) data. */
	pmixev_buf_release(&b);
	assert_null(b.data);
	pmixev_buf_release(NULL);

	pmixev_buf_init(&b);
	pmixev_buf_put_u8(&b, 5);
	assert_int_equal(pmixev_buf_get_u8(&b, &u8), -1);
	assert_int_equal(pmixev_buf_remaining(&b), 0);
	pmixev_buf_release(&b);
}

/* Many KiB through many reallocations, then read back in full. */
static void test_growth(void **state)
{
	enum { N = 50000 };
	struct pmixev_buf w, r;
	uint32_t v;
	uint8_t u8;
	uint8_t *p;
	size_t n;

	pmixev_buf_init(&w);
	for (uint32_t i = 0; i < N; i++) {
		assert_int_equal(pmixev_buf_put_u32(&w, i * 2654435761u), 0);
		assert_int_equal(pmixev_buf_put_u8(&w, (uint8_t)i), 0);
	}
	assert_int_equal(w.len, 5 * N);
	assert_true(w.cap >= w.len);
	p = pmixev_buf_steal(&w, &n);
	assert_int_equal(n, 5 * N);
	pmixev_buf_reader(&r, p, n);
	for (uint32_t i = 0; i < N; i++) {
		assert_int_equal(pmixev_buf_get_u32(&r, &v), 0);
		assert_int_equal(v, i * 2654435761u);
		assert_int_equal(pmixev_buf_get_u8(&r, &u8), 0);
		assert_int_equal(u8, (uint8_t)i);
	}
	assert_int_equal(pmixev_buf_remaining(&r), 0);
	free(p);
}

/* One big raw append larger than any doubling step. */
static void test_growth_large_append(void **state)
{
	enum { N = 300 * 1024 };
	struct pmixev_buf w;
	uint8_t *big = malloc(N);

	assert_non_null(big);
	for (size_t i = 0; i < N; i++)
		big[i] = (uint8_t)(i * 7);
	pmixev_buf_init(&w);
	pmixev_buf_put_u8(&w, 0x42);
	assert_int_equal(pmixev_buf_put_bytes(&w, big, N), 0);
	assert_int_equal(w.len, 1 + 4 + N);
	assert_int_equal(w.data[0], 0x42);
	assert_int_equal(w.data[1], 0x00);
	assert_int_equal(w.data[2], 0x04);
	assert_int_equal(w.data[3], 0xb0);
	assert_int_equal(w.data[4], 0x00);
	assert_memory_equal(w.data + 5, big, N);
	pmixev_buf_release(&w);
	free(big);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_put_big_endian),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_get_big_endian),
		cmocka_unit_test(test_short_reads),
		cmocka_unit_test(test_sticky_error),
		cmocka_unit_test(test_bytes_bounds),
		cmocka_unit_test(test_str_rejects),
		cmocka_unit_test(test_steal),
		cmocka_unit_test(test_steal_refused),
		cmocka_unit_test(test_writer_errors),
		cmocka_unit_test(test_wrong_direction),
		cmocka_unit_test(test_growth),
		cmocka_unit_test(test_growth_large_append),
	};

	return cmocka_run_group_tests_name("buf", tests, NULL, NULL);
}
