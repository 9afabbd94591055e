/*
 * test_owner_write.c - the owner helper's writer messages
 * (common/pmixev_owner_write.c): round trips, limits, strict decoding.
 */
#include "config.h"

#include <errno.h>

#include "pmixev_owner_write.h"
#include "proto_strict.h"

static int unpack_write(const uint8_t *data, size_t len)
{
	struct pmixev_owner_write m;
	struct pmixev_buf r;

	pmixev_buf_reader(&r, data, len);
	return pmixev_owner_write_unpack(&r, &m);
}

static int unpack_written(const uint8_t *data, size_t len)
{
	struct pmixev_owner_written m;
	struct pmixev_buf r;

	pmixev_buf_reader(&r, data, len);
	return pmixev_owner_written_unpack(&r, &m);
}

static void test_write(void **state)
{
	static const char text[] = "a line\n";
	struct pmixev_owner_write in = {.id = 9,
					.timeout_ms = 5000,
					.data = (const uint8_t *)text,
					.len = sizeof(text) - 1},
				  out;
	struct pmixev_buf w, r;

	(void)state;
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_owner_write_pack(&w, &in), 0);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_owner_write_unpack(&r, &out), 0);
	assert_int_equal(out.id, 9);
	assert_int_equal(out.timeout_ms, 5000);
	assert_int_equal(out.len, in.len);
	assert_memory_equal(out.data, text, in.len);
	assert_strict(&w, unpack_write);
	pmixev_buf_release(&w);
}

static void test_write_limits(void **state)
{
	static uint8_t big[PMIXEV_OWNER_WRITE_TEXT + 1];
	struct pmixev_owner_write m = {.id = 1, .timeout_ms = 1, .data = big};
	struct pmixev_buf w;

	(void)state;
	m.len = 0; /* nothing to write */
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_owner_write_pack(&w, &m), -1);
	m.len = sizeof(big); /* too long */
	assert_int_equal(pmixev_owner_write_pack(&w, &m), -1);
	m.len = sizeof(big) - 1;
	m.timeout_ms = 0; /* no deadline */
	assert_int_equal(pmixev_owner_write_pack(&w, &m), -1);
	m.timeout_ms = PMIXEV_OWNER_WRITE_MS_MAX + 1;
	assert_int_equal(pmixev_owner_write_pack(&w, &m), -1);
	m.timeout_ms = PMIXEV_OWNER_WRITE_MS_MAX;
	assert_int_equal(pmixev_owner_write_pack(&w, &m), 0);
	assert_int_equal(unpack_write(w.data, w.len), 0);
	pmixev_buf_release(&w);
}

static void test_written(void **state)
{
	struct pmixev_owner_written in = {.id = 3,
					  .err = ETIMEDOUT,
					  .done = 17},
				    out;
	struct pmixev_buf w, r;

	(void)state;
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_owner_written_pack(&w, &in), 0);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_owner_written_unpack(&r, &out), 0);
	assert_int_equal(out.id, 3);
	assert_int_equal(out.err, ETIMEDOUT);
	assert_int_equal(out.done, 17);
	assert_strict(&w, unpack_written);
	pmixev_buf_release(&w);
}

/* What root reads from the helper: an errno and a count in range. */
static void test_written_bounds(void **state)
{
	struct pmixev_owner_written m = {.id = 1, .err = -1};
	struct pmixev_buf w;

	(void)state;
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_owner_written_pack(&w, &m), -1);
	m.err = 0;
	m.done = PMIXEV_OWNER_WRITE_TEXT + 1;
	assert_int_equal(pmixev_owner_written_pack(&w, &m), -1);
	pmixev_buf_release(&w);
	/* Forged on the wire: refused when read. */
	pmixev_buf_init(&w);
	pmixev_buf_put_u32(&w, 1);
	pmixev_buf_put_i32(&w, -5);
	pmixev_buf_put_u32(&w, 0);
	assert_int_equal(unpack_written(w.data, w.len), -1);
	pmixev_buf_release(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write),
		cmocka_unit_test(test_write_limits),
		cmocka_unit_test(test_written),
		cmocka_unit_test(test_written_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
