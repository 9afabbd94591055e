/*
 * Unit tests for common/pmixev_pmixd_coll.c's PUBSUB and PUBSUB_DONE:
 * round trips (strict: no prefix and no trailing byte unpacks), the keys,
 * values and counts root refuses, and the range and persistence a request
 * may travel with.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pmixd_fixture.h"
#include "pmixev_pmixd_coll.h"
#include "proto_strict.h"

UNPACKER(un_pubsub, struct pmixev_pmixd_pubsub,
	 (pmixev_pmixd_pubsub_unpack(&r, &fx, &m) < 0
		  ? -1
		  : (pmixev_pmixd_entries_release(&m.e, &m.n), 0)))
UNPACKER(un_psdone, struct pmixev_pmixd_pubsub_done,
	 (pmixev_pmixd_pubsub_done_unpack(&r, &m) < 0
		  ? -1
		  : (pmixev_pmixd_entries_release(&m.e, &m.n), 0)))

static void test_pubsub(void **state)
{
	struct pmixev_pmixd_entry e[2] = {{.key = "k1"}, {.key = "k2"}};
	struct pmixev_pmixd_pubsub p = {
		.id = 1, .op = PMIXEV_PMIXD_PUBLISH, .rank = 2, .n = 2, .e = e};
	struct pmixev_pmixd_pubsub_done d = {.id = 1, .n = 2, .e = e};
	struct pmixev_buf w;

	(void)state;
	e[0].value = (const uint8_t *)"0123456789";
	e[0].nvalue = 10;
	e[1].value = (const uint8_t *)"abcdef";
	e[1].nvalue = 6; /* 16 bytes: publish_max exactly */
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_pmixd_pubsub_pack(&w, &p), 0);
	assert_strict(&w, un_pubsub);
	e[1].nvalue = 7;
	assert_int_equal(pmixev_pmixd_pubsub_pack(&w, &p), 0);
	assert_int_equal(un_pubsub(w.data, w.len), -1);
	pmixev_buf_release(&w);
	e[1].rank = 6;
	e[1].job = 7; /* a publisher of another step of the family */
	e[1].step = 2;
	assert_int_equal(pmixev_pmixd_pubsub_done_pack(&w, &d), 0);
	assert_strict(&w, un_psdone);
	/* Values on a lookup, wait on a publish, unknown op, no keys. */
	p.op = PMIXEV_PMIXD_LOOKUP;
	assert_int_equal(pmixev_pmixd_pubsub_pack(&w, &p), -1);
	e[0].nvalue = e[1].nvalue = 0;
	p.wait = true;
	assert_int_equal(pmixev_pmixd_pubsub_pack(&w, &p), 0);
	assert_strict(&w, un_pubsub);
	p.op = PMIXEV_PMIXD_UNPUBLISH;
	assert_int_equal(pmixev_pmixd_pubsub_pack(&w, &p), -1);
	p.wait = false;
	p.op = 4;
	assert_int_equal(pmixev_pmixd_pubsub_pack(&w, &p), -1);
	p.op = PMIXEV_PMIXD_UNPUBLISH;
	p.n = 0;
	assert_int_equal(pmixev_pmixd_pubsub_pack(&w, &p), -1);
	p.n = 2;
	e[1].key[0] = '\0';
	assert_int_equal(pmixev_pmixd_pubsub_pack(&w, &p), -1);
	e[1].key[0] = 'k';
	/* A requester off this node. */
	p.rank = 4;
	assert_int_equal(pmixev_pmixd_pubsub_pack(&w, &p), 0);
	assert_int_equal(un_pubsub(w.data, w.len), -1);
	pmixev_buf_release(&w);
	/* A count above ENTRIES_MAX, or above what the bytes hold. */
	pmixev_buf_put_u64(&w, 1);
	pmixev_buf_put_u8(&w, PMIXEV_PMIXD_UNPUBLISH);
	pmixev_buf_put_u32(&w, 0);
	pmixev_buf_put_u8(&w, 0);
	pmixev_buf_put_u32(&w, 0);
	pmixev_buf_put_u8(&w, 0);
	pmixev_buf_put_u8(&w, 0);
	pmixev_buf_put_u32(&w, PMIXEV_PMIXD_ENTRIES_MAX + 1);
	assert_int_equal(un_pubsub(w.data, w.len), -1);
	pmixev_buf_release(&w);
}

/* The range a request travels in, and a publish's persistence. */
static void test_pubsub_scope(void **state)
{
	static const uint8_t served[] = {0, 2, 3, 4, 5, 7};
	struct pmixev_pmixd_entry e[1] = {{.key = "k"}};
	struct pmixev_pmixd_pubsub p = {
		.id = 1, .op = PMIXEV_PMIXD_PUBLISH, .rank = 2, .n = 1, .e = e};
	struct pmixev_buf w;
	size_t at;

	(void)state;
	pmixev_buf_init(&w);
	for (size_t i = 0; i < sizeof(served); i++) {
		p.range = served[i];
		p.persist = PMIXEV_PMIXD_PERSIST_FIRST_READ;
		assert_int_equal(pmixev_pmixd_pubsub_pack(&w, &p), 0);
		assert_strict(&w, un_pubsub);
	}
	/* Not RM (1), not CUSTOM (6), nothing above PROC_LOCAL (7). */
	for (unsigned range = 1; range < 256; range++) {
		p.range = (uint8_t)range;
		if (memchr(served, range, sizeof(served)))
			continue;
		assert_int_equal(pmixev_pmixd_pubsub_pack(&w, &p), -1);
	}
	p.range = PMIXEV_PMIXD_RANGE_SESSION;
	p.persist = PMIXEV_PMIXD_PERSIST_MAX;
	assert_int_equal(pmixev_pmixd_pubsub_pack(&w, &p), 0);
	assert_strict(&w, un_pubsub);
	p.persist = PMIXEV_PMIXD_PERSIST_MAX + 1;
	assert_int_equal(pmixev_pmixd_pubsub_pack(&w, &p), -1);
	/* A persistence only on a publish. */
	p.op = PMIXEV_PMIXD_LOOKUP;
	p.persist = PMIXEV_PMIXD_PERSIST_FIRST_READ;
	assert_int_equal(pmixev_pmixd_pubsub_pack(&w, &p), -1);
	p.persist = 0;
	p.range = PMIXEV_PMIXD_RANGE_PROC_LOCAL;
	assert_int_equal(pmixev_pmixd_pubsub_pack(&w, &p), 0);
	assert_strict(&w, un_pubsub);
	/* The same refusals on the wire: range, then persist, after the
	 * u64 id, u8 op, u32 rank, u8 wait and u32 timeout (18 bytes). */
	at = 8 + 1 + 4 + 1 + 4;
	assert_int_equal(pmixev_pmixd_pubsub_pack(&w, &p), 0);
	w.data[at] = 6;
	assert_int_equal(un_pubsub(w.data, w.len), -1);
	w.data[at] = 4;
	w.data[at + 1] = PMIXEV_PMIXD_PERSIST_FIRST_READ;
	assert_int_equal(un_pubsub(w.data, w.len), -1);
	w.data[at + 1] = 0;
	assert_int_equal(un_pubsub(w.data, w.len), 0);
	pmixev_buf_release(&w);
	p.op = PMIXEV_PMIXD_PUBLISH;
	p.persist = PMIXEV_PMIXD_PERSIST_FIRST_READ;
	assert_int_equal(pmixev_pmixd_pubsub_pack(&w, &p), 0);
	w.data[at + 1] = PMIXEV_PMIXD_PERSIST_MAX + 1;
	assert_int_equal(un_pubsub(w.data, w.len), -1);
	pmixev_buf_release(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pubsub),
		cmocka_unit_test(test_pubsub_scope),
	};

	return cmocka_run_group_tests(tests, fx_setup, fx_teardown);
}
