/*
 * Unit tests for common/pmixev_group_rec.c: node records (round trips,
 * strictness, refusals, counts before allocation), their merge at the
 * tree root (flags, the leader's uniqueness, the failed set, endpoint
 * data in node order), the result record, and the context ids (format,
 * reserved values, exhaustion).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "calloc_spy.h"
#include "pmixev_group_rec.h"

#define NO_RANK PMIXEV_PMIXD_NO_RANK
#define HERE	PMIXEV_PMIXD_GROUP_LEADER_HERE

/* 7 ranks on 4 nodes: 0-2 on node 0, 3-4 on 1, none on 2, 5-6 on 3. */
static struct pmixev_taskmap map;
/* The group: ranks 0, 2, 3, 6 (nodes 0, 1 and 3). */
static const uint32_t members[4] = {0, 2, 3, 6};
static const struct pmixev_group_set set = {
	.map = &map, .ranks = members, .nranks = 4};
static const struct pmixev_group_set everyone = {.map = &map, .all = true};

static int setup(void **state)
{
	char err[128];

	(void)state;
	return pmixev_taskmap_parse(&map, "0-2;3,4;;5,6", 4, 7, err,
				    sizeof(err));
}

static int teardown(void **state)
{
	(void)state;
	pmixev_taskmap_free(&map);
	return 0;
}

/* Node `node`'s record: its data is the text `endpt`. */
static struct pmixev_group_rec rec(uint32_t node, uint8_t flags,
				   uint32_t leader, const char *endpt)
{
	return (struct pmixev_group_rec){.node = node,
					 .flags = flags,
					 .leader = leader,
					 .endpt = (const uint8_t *)endpt,
					 .nendpt = strlen(endpt)};
}

/* The first record in `w` read against `s`: next's result. */
static int read_one(const struct pmixev_buf *w,
		    const struct pmixev_group_set *s)
{
	struct pmixev_group_rec r = {.ndead = 77};
	struct pmixev_buf b;
	int rc;

	pmixev_buf_reader(&b, w->data, w->len);
	rc = pmixev_group_rec_next(&b, s, &r);
	if (rc == 1)
		pmixev_group_rec_release(&r);
	else
		assert_int_equal(r.ndead, 77); /* untouched */
	return rc;
}

static void test_rec_round_trip(void **state)
{
	static uint32_t dead[1] = {3};
	struct pmixev_group_rec a = rec(0, HERE | 1, 2, "endA"),
				c = rec(1, 0, NO_RANK, "");
	struct pmixev_group_rec got;
	struct pmixev_buf w, b, again;

	(void)state;
	c.ndead = 1;
	c.dead = dead;
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_group_rec_pack(&w, &a), 0);
	assert_int_equal(pmixev_group_rec_pack(&w, &c), 0);
	pmixev_buf_init(&again);
	pmixev_buf_reader(&b, w.data, w.len);
	assert_int_equal(pmixev_group_rec_next(&b, &set, &got), 1);
	assert_int_equal(got.node, 0);
	assert_int_equal(got.flags, HERE | 1);
	assert_int_equal(got.leader, 2);
	assert_int_equal(got.ndead, 0);
	assert_int_equal(got.nendpt, 4);
	assert_memory_equal(got.endpt, "endA", 4);
	assert_int_equal(pmixev_group_rec_pack(&again, &got), 0);
	pmixev_group_rec_release(&got);
	assert_int_equal(pmixev_group_rec_next(&b, &set, &got), 1);
	assert_int_equal(got.node, 1);
	assert_int_equal(got.ndead, 1);
	assert_int_equal(got.dead[0], 3);
	assert_int_equal(got.nendpt, 0);
	assert_int_equal(pmixev_group_rec_pack(&again, &got), 0);
	pmixev_group_rec_release(&got);
	assert_null(got.dead);
	assert_int_equal(pmixev_group_rec_next(&b, &set, &got), 0);
	/* Canonical: the records pack back to the same bytes. */
	assert_int_equal(again.len, w.len);
	assert_memory_equal(again.data, w.data, w.len);
	pmixev_buf_release(&again);
	/* No proper prefix of one record reads; the empty one is the end. */
	pmixev_buf_release(&w);
	assert_int_equal(pmixev_group_rec_pack(&w, &c), 0);
	for (size_t n = 0; n < w.len; n++) {
		uint8_t *copy = malloc(n ? n : 1);

		assert_non_null(copy);
		memcpy(copy, w.data, n);
		pmixev_buf_reader(&b, copy, n);
		assert_int_equal(pmixev_group_rec_next(&b, &set, &got),
				 n ? -1 : 0);
		free(copy);
	}
	/* A trailing byte after a record, or inside its length. */
	pmixev_buf_put_u8(&w, 0);
	pmixev_buf_reader(&b, w.data, w.len);
	assert_int_equal(pmixev_group_rec_next(&b, &set, &got), 1);
	pmixev_group_rec_release(&got);
	assert_int_equal(pmixev_group_rec_next(&b, &set, &got), -1);
	/* A failed read is sticky. */
	assert_int_equal(pmixev_group_rec_next(&b, &set, &got), -1);
	w.data[3]++;
	assert_int_equal(read_one(&w, &set), -1);
	pmixev_buf_release(&w);
}

static void test_rec_refuses(void **state)
{
	static uint32_t dead[2] = {3, 3}, off[1] = {2}, stranger[1] = {4};
	struct pmixev_group_rec r;
	struct pmixev_buf w;

	(void)state;
	pmixev_buf_init(&w);
	/* Pack: unknown flags, a leader without LEADER_HERE, dead unsorted. */
	r = rec(0, 0x20, NO_RANK, "");
	assert_int_equal(pmixev_group_rec_pack(&w, &r), -1);
	r = rec(0, 0, 2, "");
	assert_int_equal(pmixev_group_rec_pack(&w, &r), -1);
	r = rec(1, 0, NO_RANK, "");
	r.ndead = 2;
	r.dead = dead;
	assert_int_equal(pmixev_group_rec_pack(&w, &r), -1);
	r.dead = NULL;
	r.ndead = 1;
	assert_int_equal(pmixev_group_rec_pack(&w, &r), -1);
	assert_int_equal(w.len, 0);
	/* Packable, but not in this group and step. */
	r = rec(4, 0, NO_RANK, ""); /* no such node */
	assert_int_equal(pmixev_group_rec_pack(&w, &r), 0);
	assert_int_equal(read_one(&w, &set), -1);
	pmixev_buf_release(&w);
	r = rec(1, HERE, 2, ""); /* the leader lives on node 0 */
	assert_int_equal(pmixev_group_rec_pack(&w, &r), 0);
	assert_int_equal(read_one(&w, &set), -1);
	pmixev_buf_release(&w);
	r = rec(1, HERE, 4, ""); /* not a member */
	assert_int_equal(pmixev_group_rec_pack(&w, &r), 0);
	assert_int_equal(read_one(&w, &set), -1);
	assert_int_equal(read_one(&w, &everyone), 1);
	pmixev_buf_release(&w);
	r = rec(1, 0, NO_RANK, "");
	r.ndead = 1;
	r.dead = off; /* dead, but on node 0 */
	assert_int_equal(pmixev_group_rec_pack(&w, &r), 0);
	assert_int_equal(read_one(&w, &set), -1);
	pmixev_buf_release(&w);
	r.dead = stranger; /* dead on node 1, not a member */
	assert_int_equal(pmixev_group_rec_pack(&w, &r), 0);
	assert_int_equal(read_one(&w, &set), -1);
	assert_int_equal(read_one(&w, &everyone), 1);
	pmixev_buf_release(&w);
}

/* A record of node 1 claiming `ndead` dead, with `have` of them there. */
static void put_dead_claim(struct pmixev_buf *w, uint32_t ndead, uint32_t have)
{
	pmixev_buf_init(w);
	pmixev_buf_put_u32(w, 4 + 1 + 4 + 4 + 4 * have + 4);
	pmixev_buf_put_u32(w, 1);
	pmixev_buf_put_u8(w, 0);
	pmixev_buf_put_u32(w, NO_RANK);
	pmixev_buf_put_u32(w, ndead);
	for (uint32_t i = 0; i < have; i++)
		pmixev_buf_put_u32(w, 3 + i);
	pmixev_buf_put_u32(w, 0);
}

static void test_rec_counts_first(void **state)
{
	struct pmixev_buf w;

	(void)state;
	put_dead_claim(&w, 2, 2); /* both of node 1's ranks: allocated */
	calloc_max = 0;
	assert_int_equal(read_one(&w, &everyone), 1);
	assert_int_equal(calloc_max, 2 * sizeof(uint32_t));
	pmixev_buf_release(&w);
	put_dead_claim(&w, 3, 3); /* node 1 has only 2 ranks */
	calloc_max = 0;
	assert_int_equal(read_one(&w, &everyone), -1);
	assert_int_equal(calloc_max, 0);
	pmixev_buf_release(&w);
	put_dead_claim(&w, 2, 0); /* the bytes of none */
	calloc_max = 0;
	assert_int_equal(read_one(&w, &everyone), -1);
	assert_int_equal(calloc_max, 0);
	pmixev_buf_release(&w);
	put_dead_claim(&w, UINT32_MAX, 0);
	calloc_max = 0;
	assert_int_equal(read_one(&w, &everyone), -1);
	assert_int_equal(calloc_max, 0);
	pmixev_buf_release(&w);
}

/* Merge the records `r` (packed in that order) with `dead`. */
static int merge(const struct pmixev_group_rec *r, size_t n,
		 const struct pmixev_group_set *s, const uint8_t *dead,
		 struct pmixev_buf *endpt, struct pmixev_group_result *out)
{
	struct pmixev_buf w;
	int rc;

	pmixev_buf_init(&w);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(pmixev_group_rec_pack(&w, &r[i]), 0);
	pmixev_buf_init(endpt);
	rc = pmixev_group_merge(w.data, w.len, s, dead, endpt, out);
	pmixev_buf_release(&w);
	return rc;
}

static void test_merge(void **state)
{
	static uint32_t dead1[1] = {3};
	/* Out of node order; node 1 saw rank 3 die. */
	struct pmixev_group_rec r[3] = {
		rec(3, PMIXEV_PMIXD_GROUP_OPTIONAL, NO_RANK, "C"),
		rec(0, PMIXEV_PMIXD_GROUP_ASSIGN | HERE, 2, "AA"),
		rec(1, 0, NO_RANK, "B")};
	/* The step saw ranks 1 (no member), 6 and 0 die. */
	uint8_t dead[1] = {1u << 1 | 1u << 6 | 1u << 0};
	struct pmixev_group_result out = {.ctxid = 9};
	struct pmixev_buf endpt;

	(void)state;
	r[2].ndead = 1;
	r[2].dead = dead1;
	assert_int_equal(merge(r, 3, &set, dead, &endpt, &out), 0);
	assert_true(out.ctxid == 0);
	assert_int_equal(out.flags, PMIXEV_PMIXD_GROUP_OPTIONAL |
					    PMIXEV_PMIXD_GROUP_ASSIGN | HERE);
	assert_int_equal(out.leader, 2);
	assert_int_equal(out.nfailed, 3);
	assert_int_equal(out.failed[0], 0);
	assert_int_equal(out.failed[1], 3);
	assert_int_equal(out.failed[2], 6);
	assert_int_equal(out.nendpt, 4);
	assert_memory_equal(out.endpt, "AABC", 4);
	pmixev_group_result_release(&out);
	pmixev_buf_release(&endpt);
	/* No dead bitmap; every rank a member: 3 only. */
	assert_int_equal(merge(r, 3, &everyone, NULL, &endpt, &out), 0);
	assert_int_equal(out.nfailed, 1);
	assert_int_equal(out.failed[0], 3);
	pmixev_group_result_release(&out);
	pmixev_buf_release(&endpt);
	/* Only node 3's record (the others' members ended before calling):
	 * their members 0, 2 and 3 failed. */
	assert_int_equal(merge(r, 1, &set, NULL, &endpt, &out), 0);
	assert_int_equal(out.nfailed, 3);
	assert_int_equal(out.failed[0], 0);
	assert_int_equal(out.failed[2], 3);
	assert_int_equal(out.nendpt, 1);
	pmixev_group_result_release(&out);
	pmixev_buf_release(&endpt);
	/* No record at all (every member ended): every member failed. */
	assert_int_equal(merge(r, 0, &set, dead, &endpt, &out), 0);
	assert_int_equal(out.nfailed, 4);
	assert_int_equal(out.failed[1], 2);
	assert_int_equal(out.nendpt, 0);
	assert_int_equal(out.leader, NO_RANK);
	assert_int_equal(out.flags, 0);
	pmixev_group_result_release(&out);
	pmixev_buf_release(&endpt);
}

/* The merged leader of records of nodes 0, 1 and 3 naming `l0`, `l1`,
 * `l3` (with LEADER_HERE where `h0`, `h1`, `h3`). */
static uint32_t leader_of(bool h0, uint32_t l0, bool h1, uint32_t l1, bool h3,
			  uint32_t l3)
{
	struct pmixev_group_rec r[3] = {rec(0, h0 ? HERE : 0, l0, ""),
					rec(1, h1 ? HERE : 0, l1, ""),
					rec(3, h3 ? HERE : 0, l3, "")};
	struct pmixev_group_result out;
	struct pmixev_buf endpt;
	uint32_t leader;

	assert_int_equal(merge(r, 3, &set, NULL, &endpt, &out), 0);
	leader = out.leader;
	pmixev_group_result_release(&out);
	pmixev_buf_release(&endpt);
	return leader;
}

static void test_merge_leader(void **state)
{
	(void)state;
	assert_int_equal(
		leader_of(false, NO_RANK, false, NO_RANK, false, NO_RANK),
		NO_RANK);
	assert_int_equal(leader_of(false, NO_RANK, true, 3, false, NO_RANK), 3);
	/* Two named: none. */
	assert_int_equal(leader_of(true, 0, true, 3, false, NO_RANK), NO_RANK);
	assert_int_equal(leader_of(true, 0, false, NO_RANK, true, 6), NO_RANK);
	/* A leader here, unnamed (several members on its node): none. */
	assert_int_equal(
		leader_of(true, NO_RANK, false, NO_RANK, false, NO_RANK),
		NO_RANK);
	assert_int_equal(leader_of(true, NO_RANK, true, 3, false, NO_RANK),
			 NO_RANK);
	assert_int_equal(leader_of(false, NO_RANK, true, 3, true, NO_RANK),
			 NO_RANK);
}

static void test_merge_refuses(void **state)
{
	struct pmixev_group_rec twice[2] = {rec(1, 0, NO_RANK, "x"),
					    rec(1, 0, NO_RANK, "y")},
				nobody[1] = {rec(2, 0, NO_RANK, "")},
				loner[1] = {rec(1, 0, NO_RANK, "")};
	static const uint32_t node0[2] = {0, 2};
	const struct pmixev_group_set only0 = {
		.map = &map, .ranks = node0, .nranks = 2};
	struct pmixev_group_result out = {.ctxid = 5};
	struct pmixev_buf endpt;
	uint8_t junk[3] = {0, 0, 0};

	(void)state;
	errno = 0;
	assert_int_equal(merge(twice, 2, &set, NULL, &endpt, &out), -1);
	assert_int_equal(errno, EINVAL);
	pmixev_buf_release(&endpt);
	errno = 0; /* node 2 hosts no rank */
	assert_int_equal(merge(nobody, 1, &everyone, NULL, &endpt, &out), -1);
	assert_int_equal(errno, EINVAL);
	pmixev_buf_release(&endpt);
	errno = 0; /* node 1 hosts no member */
	assert_int_equal(merge(loner, 1, &only0, NULL, &endpt, &out), -1);
	assert_int_equal(errno, EINVAL);
	pmixev_buf_release(&endpt);
	errno = 0;
	pmixev_buf_init(&endpt);
	assert_int_equal(pmixev_group_merge(junk, sizeof(junk), &set, NULL,
					    &endpt, &out),
			 -1);
	assert_int_equal(errno, EINVAL);
	pmixev_buf_release(&endpt);
	assert_true(out.ctxid == 5); /* untouched */
}

/* The result `r` packs, and its bytes unpack against `s` as `want`. */
static void result_trip(const struct pmixev_group_result *r,
			const struct pmixev_group_set *s, int want)
{
	struct pmixev_group_result got;
	struct pmixev_buf w, b, again;

	pmixev_buf_init(&w);
	assert_int_equal(pmixev_group_result_pack(&w, r), 0);
	pmixev_buf_reader(&b, w.data, w.len);
	assert_int_equal(pmixev_group_result_unpack(&b, s, &got), want);
	if (!want) {
		assert_true(got.ctxid == r->ctxid);
		assert_int_equal(got.nfailed, r->nfailed);
		pmixev_buf_init(&again);
		assert_int_equal(pmixev_group_result_pack(&again, &got), 0);
		assert_int_equal(again.len, w.len);
		assert_memory_equal(again.data, w.data, w.len);
		pmixev_buf_release(&again);
		pmixev_group_result_release(&got);
		for (size_t n = 0; n < w.len; n++) {
			pmixev_buf_reader(&b, w.data, n);
			assert_int_equal(
				pmixev_group_result_unpack(&b, s, &got), -1);
		}
		pmixev_buf_put_u8(&w, 0);
		pmixev_buf_reader(&b, w.data, w.len);
		assert_int_equal(pmixev_group_result_unpack(&b, s, &got), -1);
	}
	pmixev_buf_release(&w);
}

static void test_result(void **state)
{
	static uint32_t failed[2] = {2, 6}, stranger[1] = {4};
	struct pmixev_group_result r = {.ctxid = (1ULL << 32) | 1,
					.flags = HERE,
					.leader = 3,
					.nfailed = 2,
					.failed = failed,
					.endpt = (const uint8_t *)"ab",
					.nendpt = 2};
	struct pmixev_buf w, b;

	(void)state;
	result_trip(&r, &set, 0);
	r.leader = 4; /* not a member */
	result_trip(&r, &set, -1);
	result_trip(&r, &everyone, 0);
	r.leader = 7; /* beyond the step */
	result_trip(&r, &everyone, -1);
	r.leader = NO_RANK;
	r.failed = stranger;
	r.nfailed = 1;
	result_trip(&r, &set, -1);
	result_trip(&r, &everyone, 0);
	/* Pack refuses the reserved ids, unknown flags, unsorted ranks. */
	pmixev_buf_init(&w);
	r.ctxid = UINT64_MAX;
	assert_int_equal(pmixev_group_result_pack(&w, &r), -1);
	r.ctxid = 0;
	r.flags = 0x80;
	assert_int_equal(pmixev_group_result_pack(&w, &r), -1);
	r.flags = 0;
	r.failed = (uint32_t[]){6, 2};
	r.nfailed = 2;
	assert_int_equal(pmixev_group_result_pack(&w, &r), -1);
	assert_int_equal(w.len, 0);
	/* More failed than the step has ranks: nothing allocated. */
	pmixev_buf_put_u64(&w, 0);
	pmixev_buf_put_u8(&w, 0);
	pmixev_buf_put_u32(&w, NO_RANK);
	pmixev_buf_put_u32(&w, 8);
	for (uint32_t i = 0; i < 8; i++)
		pmixev_buf_put_u32(&w, i);
	pmixev_buf_put_u32(&w, 0);
	pmixev_buf_reader(&b, w.data, w.len);
	calloc_max = 0;
	assert_int_equal(pmixev_group_result_unpack(&b, &everyone, &r), -1);
	assert_int_equal(calloc_max, 0);
	pmixev_buf_release(&w);
}

static void test_ids(void **state)
{
	struct pmixev_group_ids ids;
	uint64_t id = 0;

	(void)state;
	assert_int_equal(pmixev_group_ids_init(&ids, 0), 0);
	assert_int_equal(pmixev_group_ids_next(&ids, &id), 0);
	assert_true(id == (1ULL << 32 | 1));
	assert_int_equal(pmixev_group_ids_init(&ids, 7), 0);
	assert_int_equal(pmixev_group_ids_next(&ids, &id), 0);
	assert_true(id == (8ULL << 32 | 1));
	assert_int_equal(pmixev_group_ids_next(&ids, &id), 0);
	assert_true(id == (8ULL << 32 | 2));
	assert_true(pmixev_pmixd_group_ctxid_ok(id));
	/* The last step id with ids, and its last id. */
	assert_int_equal(pmixev_group_ids_init(&ids, 0xffffffefu), 0);
	ids.last = 0xfffffffdu;
	assert_int_equal(pmixev_group_ids_next(&ids, &id), 0);
	assert_true(id == 0xfffffff0fffffffeULL);
	assert_true(id != UINT64_MAX && id != (uint64_t)SIZE_MAX);
	assert_true(pmixev_pmixd_group_ctxid_ok(id));
	/* Exhausted: n would be 0xffffffff, for ever after. */
	errno = 0;
	id = 0;
	assert_int_equal(pmixev_group_ids_next(&ids, &id), -1);
	assert_int_equal(errno, ENOSPC);
	assert_int_equal(pmixev_group_ids_next(&ids, &id), -1);
	assert_true(id == 0);
	/* Slurm's special step ids (batch, extern, ...) get none. */
	errno = 0;
	assert_int_equal(pmixev_group_ids_init(&ids, PMIXEV_GROUP_STEP_LIMIT),
			 -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(pmixev_group_ids_init(&ids, 0xfffffffbu), -1);
	assert_int_equal(pmixev_group_ids_init(&ids, UINT32_MAX), -1);
	assert_false(pmixev_pmixd_group_ctxid_ok(UINT64_MAX));
	assert_true(pmixev_pmixd_group_ctxid_ok(0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rec_round_trip),
		cmocka_unit_test(test_rec_refuses),
		cmocka_unit_test(test_rec_counts_first),
		cmocka_unit_test(test_merge),
		cmocka_unit_test(test_merge_leader),
		cmocka_unit_test(test_merge_refuses),
		cmocka_unit_test(test_result),
		cmocka_unit_test(test_ids),
	};

	return cmocka_run_group_tests_name("group_rec", tests, setup, teardown);
}
