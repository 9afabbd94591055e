/*
 * Unit tests for common/pmixev_group_list.c: the list of live groups
 * (round trip, canonical bytes, shared ids, the bounds of 1024 groups and
 * 1 MiB, each refusal of pack and unpack, counts checked before
 * allocation) and the GROUPS_REQ/GROUPS_RESP bodies.
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

#include "pmixev_group_list.h"

#define NTASKS 8

static uint32_t r04[] = {0, 4}, r15[] = {1, 5}, r7[] = {7};

/* Three groups, two sharing the id "qd" (disjoint members). */
static struct pmixev_group_entry three[3];

static int setup(void **state)
{
	(void)state;
	three[0] = (struct pmixev_group_entry){.nranks = 2, .ranks = r04};
	strcpy(three[0].grpid, "qb");
	three[1] = (struct pmixev_group_entry){.nranks = 2, .ranks = r15};
	strcpy(three[1].grpid, "qd");
	three[2] = (struct pmixev_group_entry){.nranks = 1, .ranks = r7};
	strcpy(three[2].grpid, "qd");
	return 0;
}

/* `l` packed, then unpacked from exactly those bytes. */
static void round_trip(const struct pmixev_group_list *l,
		       struct pmixev_group_list *got)
{
	struct pmixev_buf w, r, again;

	pmixev_buf_init(&w);
	assert_int_equal(pmixev_group_list_pack(&w, l, NTASKS), 0);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_group_list_unpack(&r, NTASKS, got), 0);
	pmixev_buf_init(&again);
	assert_int_equal(pmixev_group_list_pack(&again, got, NTASKS), 0);
	assert_int_equal(again.len, w.len);
	assert_memory_equal(again.data, w.data, w.len);
	pmixev_buf_release(&again);
	pmixev_buf_release(&w);
}

static void test_round_trip(void **state)
{
	struct pmixev_group_list l = {.partial = true, .n = 3, .e = three};
	struct pmixev_group_list got, none = {0};

	(void)state;
	round_trip(&l, &got);
	assert_true(got.partial);
	assert_int_equal(got.n, 3);
	assert_string_equal(got.e[1].grpid, "qd");
	assert_string_equal(got.e[2].grpid, "qd");
	assert_int_equal(got.e[0].nranks, 2);
	assert_int_equal(got.e[0].ranks[1], 4);
	assert_int_equal(got.e[2].ranks[0], 7);
	pmixev_group_list_release(&got);
	assert_int_equal(got.n, 0);
	assert_null(got.e);
	round_trip(&none, &got);
	assert_int_equal(got.n, 0);
	assert_false(got.partial);
	pmixev_group_list_release(&got);
	pmixev_group_list_release(NULL);
}

/* Pack refuses what unpack would, and writes nothing then. */
static void test_pack_refuses(void **state)
{
	uint32_t unsorted[] = {4, 0}, twice[] = {3, 3}, big[] = {NTASKS};
	struct pmixev_group_entry e = {.nranks = 2, .ranks = unsorted};
	struct pmixev_group_list l = {.n = 1, .e = &e};
	struct pmixev_buf w;

	(void)state;
	strcpy(e.grpid, "g");
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_group_list_pack(&w, &l, NTASKS), -1);
	assert_int_equal(errno, EINVAL);
	e.ranks = twice;
	assert_int_equal(pmixev_group_list_pack(&w, &l, NTASKS), -1);
	e.ranks = big;
	e.nranks = 1;
	assert_int_equal(pmixev_group_list_pack(&w, &l, NTASKS), -1);
	e.ranks = r7;
	e.nranks = 0;
	assert_int_equal(pmixev_group_list_pack(&w, &l, NTASKS), -1);
	e.nranks = 1;
	e.grpid[0] = '\0';
	assert_int_equal(pmixev_group_list_pack(&w, &l, NTASKS), -1);
	memset(e.grpid, 'x', sizeof(e.grpid)); /* no NUL: too long */
	assert_int_equal(pmixev_group_list_pack(&w, &l, NTASKS), -1);
	strcpy(e.grpid, "g");
	l.n = PMIXEV_GROUP_LIST_MAX + 1;
	assert_int_equal(pmixev_group_list_pack(&w, &l, NTASKS), -1);
	assert_int_equal(w.len, 0);
	l.n = 1;
	assert_int_equal(pmixev_group_list_pack(&w, &l, NTASKS), 0);
	pmixev_buf_release(&w);
}

/* The 1 MiB bound: a list just within packs, one rank more does not. */
static void test_bytes_bound(void **state)
{
	/* One entry, id "g": 5 + 8 + 1 + 4 n bytes. */
	uint32_t n = (PMIXEV_GROUP_LIST_BYTES - 14) / 4,
		 *r = malloc((n + 1) * 4);
	struct pmixev_group_entry e = {.nranks = n, .ranks = r};
	struct pmixev_group_list l = {.n = 1, .e = &e}, got;
	struct pmixev_buf w, b;

	(void)state;
	assert_non_null(r);
	for (uint32_t i = 0; i <= n; i++)
		r[i] = i;
	strcpy(e.grpid, "g");
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_group_list_pack(&w, &l, n + 1), 0);
	assert_true(w.len <= PMIXEV_GROUP_LIST_BYTES);
	pmixev_buf_reader(&b, w.data, w.len);
	assert_int_equal(pmixev_group_list_unpack(&b, n + 1, &got), 0);
	pmixev_group_list_release(&got);
	pmixev_buf_release(&w);
	e.nranks = n + 1;
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_group_list_pack(&w, &l, n + 1), -1);
	pmixev_buf_release(&w);
	free(r);
}

/* Hand-made bytes: u8 partial, u32 n, then entries. */
static int unpack_bytes(const struct pmixev_buf *w)
{
	struct pmixev_group_list got;
	struct pmixev_buf r;
	int rc;

	pmixev_buf_reader(&r, w->data, w->len);
	rc = pmixev_group_list_unpack(&r, NTASKS, &got);
	if (rc == 0)
		pmixev_group_list_release(&got);
	return rc;
}

static void put_entry(struct pmixev_buf *w, const char *id, uint32_t n,
		      const uint32_t *ranks)
{
	pmixev_buf_put_str(w, id);
	pmixev_buf_put_u32(w, n);
	for (uint32_t i = 0; i < n; i++)
		pmixev_buf_put_u32(w, ranks[i]);
}

static void test_unpack_refuses(void **state)
{
	static const struct {
		uint8_t partial;
		uint32_t n;
		const char *id;
		uint32_t nranks;
		uint32_t ranks[3];
	} bad[] = {
		{2, 1, "g", 1, {0}},	  /* partial not a flag */
		{0, 2, "g", 1, {0}},	  /* fewer entries than said */
		{0, 1, "", 1, {0}},	  /* empty id */
		{0, 1, "g", 0, {0}},	  /* no members */
		{0, 1, "g", 2, {3, 3}},	  /* not strictly increasing */
		{0, 1, "g", 2, {4, 1}},	  /* not in order */
		{0, 1, "g", 1, {NTASKS}}, /* beyond the step */
		{0, 1, "g", 3, {0, 1}},	  /* more ranks than bytes */
	};
	struct pmixev_buf w;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		pmixev_buf_init(&w);
		pmixev_buf_put_u8(&w, bad[i].partial);
		pmixev_buf_put_u32(&w, bad[i].n);
		put_entry(&w, bad[i].id, bad[i].nranks == 3 ? 2 : bad[i].nranks,
			  bad[i].ranks);
		if (bad[i].nranks == 3) { /* say 3, give 2 */
			w.data[w.len - 9] = 3;
		}
		assert_int_equal(unpack_bytes(&w), -1);
		pmixev_buf_release(&w);
	}
	/* A NUL in the id; trailing bytes; short bytes. */
	pmixev_buf_init(&w);
	pmixev_buf_put_u8(&w, 0);
	pmixev_buf_put_u32(&w, 1);
	pmixev_buf_put_bytes(&w, "a\0b", 3);
	pmixev_buf_put_u32(&w, 1);
	pmixev_buf_put_u32(&w, 0);
	assert_int_equal(unpack_bytes(&w), -1);
	pmixev_buf_release(&w);
	pmixev_buf_init(&w);
	pmixev_buf_put_u8(&w, 0);
	pmixev_buf_put_u32(&w, 1);
	put_entry(&w, "g", 1, r7);
	assert_int_equal(unpack_bytes(&w), 0);
	pmixev_buf_put_u8(&w, 0);
	assert_int_equal(unpack_bytes(&w), -1);
	w.len -= 2;
	assert_int_equal(unpack_bytes(&w), -1);
	pmixev_buf_release(&w);
}

/* Counts beyond the bytes are refused before anything is allocated. */
static void test_counts_first(void **state)
{
	struct pmixev_buf w;

	(void)state;
	pmixev_buf_init(&w);
	pmixev_buf_put_u8(&w, 0);
	pmixev_buf_put_u32(&w, PMIXEV_GROUP_LIST_MAX);
	put_entry(&w, "g", 1, r7);
	assert_int_equal(unpack_bytes(&w), -1);
	pmixev_buf_release(&w);
	pmixev_buf_init(&w);
	pmixev_buf_put_u8(&w, 0);
	pmixev_buf_put_u32(&w, PMIXEV_GROUP_LIST_MAX + 1);
	assert_int_equal(unpack_bytes(&w), -1);
	pmixev_buf_release(&w);
	pmixev_buf_init(&w);
	pmixev_buf_put_u8(&w, 0);
	pmixev_buf_put_u32(&w, 1);
	pmixev_buf_put_str(&w, "g");
	pmixev_buf_put_u32(&w, UINT32_MAX);
	assert_int_equal(unpack_bytes(&w), -1);
	pmixev_buf_release(&w);
}

static void test_req_resp(void **state)
{
	struct pmixev_groups_resp m = {
		.id = 42, .result = PMIXEV_OK, .l = {.n = 3, .e = three}};
	struct pmixev_groups_resp got;
	struct pmixev_buf w;
	uint64_t id = 0;

	(void)state;
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_groups_req_pack(&w, 7), 0);
	assert_int_equal(pmixev_groups_req_unpack(w.data, w.len, &id), 0);
	assert_int_equal(id, 7);
	assert_int_equal(pmixev_groups_req_unpack(w.data, w.len - 1, &id), -1);
	pmixev_buf_put_u8(&w, 0);
	assert_int_equal(pmixev_groups_req_unpack(w.data, w.len, &id), -1);
	pmixev_buf_release(&w);

	pmixev_buf_init(&w);
	assert_int_equal(pmixev_groups_resp_pack(&w, &m, NTASKS), 0);
	assert_int_equal(pmixev_groups_resp_unpack(w.data, w.len, NTASKS, &got),
			 0);
	assert_int_equal(got.id, 42);
	assert_int_equal(got.result, PMIXEV_OK);
	assert_int_equal(got.l.n, 3);
	pmixev_group_list_release(&got.l);
	/* The same bytes for a smaller step: rank 7 is beyond it. */
	assert_int_equal(pmixev_groups_resp_unpack(w.data, w.len, 7, &got), -1);
	pmixev_buf_release(&w);

	/* A failure carries no list. */
	m.result = PMIXEV_ERR_NOMEM;
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_groups_resp_pack(&w, &m, NTASKS), -1);
	m.l.n = 0;
	assert_int_equal(pmixev_groups_resp_pack(&w, &m, NTASKS), 0);
	assert_int_equal(pmixev_groups_resp_unpack(w.data, w.len, NTASKS, &got),
			 0);
	assert_int_equal(got.result, PMIXEV_ERR_NOMEM);
	assert_int_equal(got.l.n, 0);
	pmixev_buf_put_u8(&w, 0);
	assert_int_equal(pmixev_groups_resp_unpack(w.data, w.len, NTASKS, &got),
			 -1);
	w.data[8] = 200; /* not a result */
	w.len--;
	assert_int_equal(pmixev_groups_resp_unpack(w.data, w.len, NTASKS, &got),
			 -1);
	pmixev_buf_release(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_pack_refuses),
		cmocka_unit_test(test_bytes_bound),
		cmocka_unit_test(test_unpack_refuses),
		cmocka_unit_test(test_counts_first),
		cmocka_unit_test(test_req_resp),
	};

	return cmocka_run_group_tests_name("group_list", tests, setup, NULL);
}
