/*
 * test_pmixd_coll.c - the O<->root codecs of collectives and direct
 * modex (FENCE with the parts of other steps, DMODEX with their step,
 * DMODEX_SERVE, the answers with data): round trips, canonical bytes,
 * every refusal.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pmixd_fixture.h"
#include "pmixev_pmixd_coll.h"
#include "pmixev_pmixd_start.h"
#include "proto_strict.h"

UNPACKER(un_fence, struct pmixev_pmixd_fence,
	 (pmixev_pmixd_fence_unpack(&r, &fx, &m) < 0
		  ? -1
		  : (pmixev_pmixd_fence_release(&m), 0)))
UNPACKER(un_data, struct pmixev_pmixd_data, pmixev_pmixd_data_unpack(&r, &m))
UNPACKER(un_dmodex, struct pmixev_pmixd_dmodex,
	 pmixev_pmixd_dmodex_unpack(&r, &fx, &m))
UNPACKER(un_serve, struct pmixev_pmixd_serve, pmixev_pmixd_serve_unpack(&r, &m))

static uint32_t some_ranks[3] = {1, 5, 7};

static void test_fence(void **state)
{
	static const uint8_t blob[3] = {1, 2, 3};
	struct pmixev_pmixd_fence f = {.id = 1,
				       .kind = PMIXEV_COLL_CONNECT,
				       .nranks = 3,
				       .ranks = some_ranks,
				       .collect = true,
				       .timeout_sec = 60,
				       .data = blob,
				       .ndata = 3};
	struct pmixev_pmixd_fence got;
	struct pmixev_buf w, r;

	(void)state;
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_pmixd_fence_pack(&w, &f), 0);
	fx_reader(&r, &w);
	assert_int_equal(pmixev_pmixd_fence_unpack(&r, &fx, &got), 0);
	assert_int_equal(got.ranks[2], 7);
	assert_memory_equal(got.data, blob, 3);
	pmixev_pmixd_fence_release(&got);
	assert_strict(&w, un_fence);
	f.all = true; /* with ranks */
	assert_int_equal(pmixev_pmixd_fence_pack(&w, &f), -1);
	f.nranks = 0;
	assert_int_equal(pmixev_pmixd_fence_pack(&w, &f), 0);
	assert_strict(&w, un_fence);
	f.all = false; /* and no ranks */
	assert_int_equal(pmixev_pmixd_fence_pack(&w, &f), -1);
	f.nranks = 3;
	some_ranks[1] = 1; /* not increasing */
	assert_int_equal(pmixev_pmixd_fence_pack(&w, &f), -1);
	some_ranks[1] = 5;
	f.kind = PMIXEV_COLL_GROUP_CONSTRUCT; /* groups come as GROUP */
	assert_int_equal(pmixev_pmixd_fence_pack(&w, &f), -1);
	f.kind = PMIXEV_COLL_GROUP_DESTRUCT;
	assert_int_equal(pmixev_pmixd_fence_pack(&w, &f), -1);
	f.kind = PMIXEV_COLL_FENCE;
	f.timeout_sec = 86401;
	assert_int_equal(pmixev_pmixd_fence_pack(&w, &f), -1);
	f.timeout_sec = 0;
	/* Packable, but rank 8 is not the step's. */
	some_ranks[2] = 8;
	assert_int_equal(pmixev_pmixd_fence_pack(&w, &f), 0);
	assert_int_equal(un_fence(w.data, w.len), -1);
	pmixev_buf_release(&w);
	some_ranks[2] = 7;
	/* More ranks than the step has, refused before the allocation. */
	pmixev_buf_put_u64(&w, 1);
	pmixev_buf_put_u8(&w, 1);
	pmixev_buf_put_u8(&w, 0);
	pmixev_buf_put_u32(&w, 9);
	for (uint32_t i = 0; i < 9; i++)
		pmixev_buf_put_u32(&w, i);
	pmixev_buf_put_u8(&w, 0);
	pmixev_buf_put_u32(&w, 0);
	pmixev_buf_put_bytes(&w, NULL, 0);
	pmixev_buf_put_u32(&w, 0);
	assert_int_equal(un_fence(w.data, w.len), -1);
	pmixev_buf_release(&w);
	/* The same body unpacks with FENCE's kinds, not with a group's. */
	for (uint8_t kind = PMIXEV_COLL_FENCE;
	     kind <= PMIXEV_COLL_GROUP_DESTRUCT; kind++) {
		pmixev_buf_put_u64(&w, 1);
		pmixev_buf_put_u8(&w, kind);
		pmixev_buf_put_u8(&w, 1);
		pmixev_buf_put_u32(&w, 0);
		pmixev_buf_put_u8(&w, 0);
		pmixev_buf_put_u32(&w, 0);
		pmixev_buf_put_bytes(&w, NULL, 0);
		pmixev_buf_put_u32(&w, 0);
		assert_int_equal(un_fence(w.data, w.len),
				 kind <= PMIXEV_COLL_DISCONNECT ? 0 : -1);
		pmixev_buf_release(&w);
	}
}

/* A rank of another step of the family: any rank below PMIx's special
 * ones (root checks the step's size), a step a family may hold. */
static void test_dmodex_foreign(void)
{
	struct pmixev_pmixd_dmodex d = {
		.id = 3, .rank = 1000, .timeout_sec = 5, .job = 7, .step = 1};
	struct pmixev_pmixd_dmodex m;
	struct pmixev_buf w, r;

	pmixev_buf_init(&w);
	assert_int_equal(pmixev_pmixd_dmodex_pack(&w, &d), 0);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_pmixd_dmodex_unpack(&r, &fx, &m), 0);
	assert_true(pmixev_pmixd_dmodex_foreign(&m));
	assert_int_equal(m.job, 7);
	assert_int_equal(m.step, 1);
	assert_int_equal(m.rank, 1000);
	assert_strict(&w, un_dmodex);
	pmixev_buf_release(&w);
	/* Packed by hand: what pack refuses, unpack refuses too. */
	for (unsigned i = 0; i < 4; i++) {
		static const uint32_t bad[4][3] = {
			{0, 1, 0},		       /* job 0, step not 0 */
			{UINT32_MAX, 1, 0},	       /* job NONE */
			{7, 0xfffffff0u, 0},	       /* a special step */
			{7, 1, PMIXEV_PMIXD_RANK_MAX}, /* a special rank */
		};
		struct pmixev_pmixd_dmodex b = {.id = 3,
						.job = bad[i][0],
						.step = bad[i][1],
						.rank = bad[i][2]};

		assert_int_equal(pmixev_pmixd_dmodex_pack(&w, &b), -1);
		pmixev_buf_put_u64(&w, 3);
		pmixev_buf_put_u32(&w, bad[i][2]);
		pmixev_buf_put_u32(&w, 5);
		pmixev_buf_put_u32(&w, bad[i][0]);
		pmixev_buf_put_u32(&w, bad[i][1]);
		assert_int_equal(un_dmodex(w.data, w.len), -1);
		pmixev_buf_release(&w);
	}
}

/* A FENCE of all ranks with `n` parts as given (job, step, all, nranks
 * and the ranks 0..nranks-1 on the wire). */
static void fence_with_parts(struct pmixev_buf *w, uint32_t n,
			     const uint32_t (*p)[4])
{
	pmixev_buf_put_u64(w, 1);
	pmixev_buf_put_u8(w, PMIXEV_COLL_FENCE);
	pmixev_buf_put_u8(w, 1);
	pmixev_buf_put_u32(w, 0);
	pmixev_buf_put_u8(w, 0);
	pmixev_buf_put_u32(w, 0);
	pmixev_buf_put_bytes(w, NULL, 0);
	pmixev_buf_put_u32(w, n);
	for (uint32_t i = 0; i < n; i++) {
		pmixev_buf_put_u32(w, p[i][0]);
		pmixev_buf_put_u32(w, p[i][1]);
		pmixev_buf_put_u8(w, (uint8_t)p[i][2]);
		pmixev_buf_put_u32(w, p[i][3]);
		for (uint32_t k = 0; k < p[i][3]; k++)
			pmixev_buf_put_u32(w, k);
	}
}

static void test_fence_parts(void **state)
{
	uint32_t r1[2] = {0, 3}, big[PMIXEV_PMIXD_PARTS_MAX + 1][4];
	struct pmixev_pmixd_part parts[2] = {
		{.job = 7, .step = 1, .all = true},
		{.job = 9, .step = 0, .nranks = 2, .ranks = r1}};
	struct pmixev_pmixd_fence f = {.id = 2,
				       .kind = PMIXEV_COLL_CONNECT,
				       .all = true,
				       .nparts = 2,
				       .parts = parts};
	/* refused on the wire: own step, order, repeats, a bad step id, a
	 * bad flag, all with ranks, no ranks, too many ranks */
	static const uint32_t bad[][2][4] = {
		{{7, 0, 1, 0}},
		{{7, 2, 1, 0}, {7, 1, 1, 0}},
		{{7, 1, 1, 0}, {7, 1, 1, 0}},
		{{0, 1, 1, 0}},
		{{7, 0xfffffff0u, 1, 0}},
		{{0xffffffffu, 1, 1, 0}},
		{{7, 1, 2, 0}},
		{{7, 1, 1, 1}},
		{{7, 1, 0, 0}},
		{{7, 1, 0, PMIXEV_PMIXD_PART_RANKS_MAX + 1}},
	};
	struct pmixev_pmixd_fence got;
	struct pmixev_buf w, r;

	(void)state;
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_pmixd_fence_pack(&w, &f), 0);
	fx_reader(&r, &w);
	assert_int_equal(pmixev_pmixd_fence_unpack(&r, &fx, &got), 0);
	assert_int_equal(got.nparts, 2);
	assert_true(got.parts[0].all);
	assert_int_equal(got.parts[1].job, 9);
	assert_int_equal(got.parts[1].ranks[1], 3);
	pmixev_pmixd_fence_release(&got);
	assert_null(got.parts);
	assert_strict(&w, un_fence);
	/* What pack refuses: out of order, a repeat, job 0, unsorted ranks,
	 * more parts than PARTS_MAX. */
	parts[1].job = 7;
	parts[1].step = 1;
	assert_int_equal(pmixev_pmixd_fence_pack(&w, &f), -1);
	parts[1].step = 0;
	assert_int_equal(pmixev_pmixd_fence_pack(&w, &f), -1);
	parts[1].job = 0;
	assert_int_equal(pmixev_pmixd_fence_pack(&w, &f), -1);
	parts[1].job = 9;
	r1[1] = 0;
	assert_int_equal(pmixev_pmixd_fence_pack(&w, &f), -1);
	r1[1] = 3;
	f.nparts = PMIXEV_PMIXD_PARTS_MAX + 1;
	assert_int_equal(pmixev_pmixd_fence_pack(&w, &f), -1);
	assert_int_equal(w.len, 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		fence_with_parts(&w, bad[i][1][0] ? 2 : 1, bad[i]);
		assert_int_equal(un_fence(w.data, w.len), -1);
		pmixev_buf_release(&w);
	}
	/* 17 parts, well formed each, refused by their count. */
	for (uint32_t i = 0; i <= PMIXEV_PMIXD_PARTS_MAX; i++) {
		big[i][0] = 8;
		big[i][1] = i;
		big[i][2] = 1;
		big[i][3] = 0;
	}
	fence_with_parts(&w, PMIXEV_PMIXD_PARTS_MAX, big);
	assert_int_equal(un_fence(w.data, w.len), 0);
	pmixev_buf_release(&w);
	fence_with_parts(&w, PMIXEV_PMIXD_PARTS_MAX + 1, big);
	assert_int_equal(un_fence(w.data, w.len), -1);
	pmixev_buf_release(&w);
}

static void test_dmodex(void **state)
{
	struct pmixev_pmixd_dmodex d = {.id = 3, .rank = 7, .timeout_sec = 5};
	struct pmixev_pmixd_serve s = {.sid = 4, .rank = 1};
	struct pmixev_pmixd_data a = {.id = 4, .result = PMIXEV_OK};
	struct pmixev_buf w;

	(void)state;
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_pmixd_dmodex_pack(&w, &d), 0);
	assert_strict(&w, un_dmodex);
	d.rank = 8;
	assert_int_equal(pmixev_pmixd_dmodex_pack(&w, &d), 0);
	assert_int_equal(un_dmodex(w.data, w.len), -1);
	pmixev_buf_release(&w);
	d.timeout_sec = 86401;
	assert_int_equal(pmixev_pmixd_dmodex_pack(&w, &d), -1);
	test_dmodex_foreign();
	assert_int_equal(pmixev_pmixd_serve_pack(&w, &s), 0);
	assert_strict(&w, un_serve);
	a.data = (const uint8_t *)"abc";
	a.ndata = 3;
	assert_int_equal(pmixev_pmixd_data_pack(&w, &a), 0);
	assert_strict(&w, un_data);
	a.result = PMIXEV_RESULT_COUNT;
	assert_int_equal(pmixev_pmixd_data_pack(&w, &a), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fence),
		cmocka_unit_test(test_fence_parts),
		cmocka_unit_test(test_dmodex),
	};

	return cmocka_run_group_tests(tests, fx_setup, fx_teardown);
}
