/*
 * Unit tests for common/pmixev_hub_route.c: an srun's family table.
 * The srun of step 7.1 (spawned by 7.0) has two child sruns: link 0
 * (7.4, which spawned 7.6) and link 1 (7.5); above it, 7.0 also spawned
 * 7.2 and 9.0. Joins from either side and their refusals (whole batch
 * or nothing), routing, the JOIN and FAMILY it produces, leaves, a link
 * closing, and the family's bound.
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

#include "pmixev_hub_route.h"

#define NONE   PMIXEV_XSTEP_NONE
#define PARENT PMIXEV_HUB_PARENT

/* Join `n` members through `via`: 0, or the errno of a refusal (then
 * the table is as it was). */
static int join(struct pmixev_hub_route *rt, uint32_t via,
		const struct pmixev_xstep_member *m, uint32_t n)
{
	struct pmixev_xstep_members ms = {n, (struct pmixev_xstep_member *)m};
	uint32_t before = pmixev_hub_route_count(rt);

	errno = 0;
	if (pmixev_hub_route_join(rt, via, &ms) == 0)
		return 0;
	assert_int_equal(pmixev_hub_route_count(rt), before);
	return errno;
}

static int leave(struct pmixev_hub_route *rt, uint32_t via,
		 const struct pmixev_xstep_id *ids, uint32_t n)
{
	struct pmixev_hub_leave l = {n, (struct pmixev_xstep_id *)ids};
	uint32_t before = pmixev_hub_route_count(rt);

	errno = 0;
	if (pmixev_hub_route_leave(rt, via, &l) == 0)
		return 0;
	assert_int_equal(pmixev_hub_route_count(rt), before);
	return errno;
}

static struct pmixev_hub_route *family(void)
{
	static const struct pmixev_xstep_member below0[2] = {{7, 4, 7, 1},
							     {7, 6, 7, 4}};
	static const struct pmixev_xstep_member below1[1] = {{7, 5, 7, 1}};
	static const struct pmixev_xstep_member above[3] = {
		{7, 0, NONE, NONE}, {7, 2, 7, 0}, {9, 0, 7, 0}};
	struct pmixev_hub_route *rt = pmixev_hub_route_create(7, 1, 7, 0);

	assert_non_null(rt);
	assert_int_equal(join(rt, 0, below0, 2), 0);
	assert_int_equal(join(rt, 1, below1, 1), 0);
	assert_int_equal(join(rt, PARENT, above, 3), 0);
	assert_int_equal(pmixev_hub_route_count(rt), 7);
	return rt;
}

static void test_create(void **state)
{
	struct pmixev_hub_route *rt;

	(void)state;
	errno = 0;
	assert_null(pmixev_hub_route_create(0, 1, NONE, NONE));
	assert_int_equal(errno, EINVAL);
	assert_null(pmixev_hub_route_create(7, 1, 7, 1));
	assert_null(pmixev_hub_route_create(7, 1, 7, NONE));
	rt = pmixev_hub_route_create(7, 1, 7, 0);
	assert_non_null(rt);
	assert_int_equal(pmixev_hub_route_count(rt), 1);
	assert_int_equal(pmixev_hub_route_next(rt, 7, 1), PMIXEV_HUB_SELF);
	assert_int_equal(pmixev_hub_route_next(rt, 7, 0), PMIXEV_HUB_NONE);
	pmixev_hub_route_destroy(rt);
	pmixev_hub_route_destroy(NULL);
}

static void test_join(void **state)
{
	struct pmixev_hub_route *rt = family();
	struct pmixev_hub_route *top;
	struct pmixev_xstep_member m[2];

	(void)state;
	assert_int_equal(pmixev_hub_route_next(rt, 7, 4), 0);
	assert_int_equal(pmixev_hub_route_next(rt, 7, 6), 0);
	assert_int_equal(pmixev_hub_route_next(rt, 7, 5), 1);
	assert_int_equal(pmixev_hub_route_next(rt, 7, 0), PARENT);
	assert_int_equal(pmixev_hub_route_next(rt, 9, 0), PARENT);
	assert_int_equal(pmixev_hub_route_next(rt, 7, 1), PMIXEV_HUB_SELF);
	assert_int_equal(pmixev_hub_route_next(rt, 7, 3), PMIXEV_HUB_NONE);
	/* A child link names its own subtree only. */
	m[0] = (struct pmixev_xstep_member){7, 7, 7, 4};
	assert_int_equal(join(rt, 1, m, 1), EINVAL); /* 7.4 is link 0's */
	assert_int_equal(join(rt, 0, m, 1), 0);
	m[0] = (struct pmixev_xstep_member){7, 8, 7, 2};
	assert_int_equal(join(rt, 1, m, 1), EINVAL); /* 7.2 is above */
	m[0] = (struct pmixev_xstep_member){7, 8, NONE, NONE};
	assert_int_equal(join(rt, 1, m, 1), EINVAL); /* a root below */
	m[0] = (struct pmixev_xstep_member){7, 8, 7, 9};
	m[1] = (struct pmixev_xstep_member){7, 9, 7, 8};
	assert_int_equal(join(rt, 1, m, 2), EINVAL); /* a cycle */
	m[1] = (struct pmixev_xstep_member){7, 9, 7, 5};
	assert_int_equal(join(rt, 1, m, 2), 0); /* 7.9 joins with 7.8 */
	assert_int_equal(pmixev_hub_route_next(rt, 7, 8), 1);
	/* The parent link names steps outside this srun's subtree. */
	m[0] = (struct pmixev_xstep_member){7, 10, 7, 1};
	assert_int_equal(join(rt, PARENT, m, 1), EINVAL);
	m[0] = (struct pmixev_xstep_member){7, 10, 7, 6};
	assert_int_equal(join(rt, PARENT, m, 1), EINVAL);
	m[0] = (struct pmixev_xstep_member){8, 0, NONE, NONE};
	assert_int_equal(join(rt, PARENT, m, 1), EINVAL); /* two roots */
	m[0] = (struct pmixev_xstep_member){7, 10, 9, 0};
	assert_int_equal(join(rt, PARENT, m, 1), 0);
	/* Known steps, this srun's own, bad links, bad batches. */
	m[0] = (struct pmixev_xstep_member){7, 4, 7, 1};
	assert_int_equal(join(rt, 0, m, 1), EEXIST);
	m[0] = (struct pmixev_xstep_member){7, 1, 7, 0};
	assert_int_equal(join(rt, PARENT, m, 1), EEXIST);
	m[0] = (struct pmixev_xstep_member){7, 11, 7, 1};
	assert_int_equal(join(rt, PMIXEV_HUB_LINKS_MAX, m, 1), EINVAL);
	assert_int_equal(join(rt, PMIXEV_HUB_SELF, m, 1), EINVAL);
	assert_int_equal(join(rt, 0, m, 0), EINVAL);
	m[1] = m[0];
	assert_int_equal(join(rt, 0, m, 2), EINVAL); /* not increasing */
	pmixev_hub_route_destroy(rt);
	/* The family root's srun has no parent link. */
	top = pmixev_hub_route_create(7, 0, NONE, NONE);
	m[0] = (struct pmixev_xstep_member){7, 1, 7, 0};
	assert_int_equal(join(top, PARENT, m, 1), EINVAL);
	assert_int_equal(join(top, 3, m, 1), 0);
	pmixev_hub_route_destroy(top);
}

static void test_members(void **state)
{
	static const struct pmixev_xstep_id sub[4] = {
		{7, 1}, {7, 4}, {7, 5}, {7, 6}};
	struct pmixev_hub_route *rt = family();
	struct pmixev_xstep_members out;

	(void)state;
	assert_int_equal(pmixev_hub_route_members(rt, true, &out), 0);
	assert_int_equal(out.n, 4);
	for (uint32_t i = 0; i < 4; i++) {
		assert_int_equal(out.m[i].job, sub[i].job);
		assert_int_equal(out.m[i].step, sub[i].step);
	}
	assert_true(pmixev_hub_join_ok(&out));
	assert_false(pmixev_xstep_family_ok(&out)); /* 7.0 is above */
	pmixev_xstep_members_release(&out);
	assert_int_equal(pmixev_hub_route_members(rt, false, &out), 0);
	assert_int_equal(out.n, 7);
	assert_true(pmixev_xstep_family_ok(&out));
	assert_int_equal(pmixev_xstep_family_root(&out)->step, 0);
	assert_int_equal(pmixev_xstep_family_find(&out, 7, 6)->parent_step, 4);
	pmixev_xstep_members_release(&out);
	pmixev_hub_route_destroy(rt);
}

static void test_leave_drop(void **state)
{
	struct pmixev_hub_route *rt = family();
	struct pmixev_xstep_id ids[2] = {{7, 4}, {7, 6}};
	struct pmixev_hub_leave gone;

	(void)state;
	assert_int_equal(leave(rt, 0, ids, 1), EINVAL); /* 7.6 stays */
	assert_int_equal(leave(rt, 1, ids, 2), ENOENT); /* not link 1's */
	assert_int_equal(leave(rt, 0, ids, 0), EINVAL);
	assert_int_equal(leave(rt, 0, &ids[1], 1), 0); /* a leaf */
	assert_int_equal(leave(rt, 0, ids, 1), 0);
	assert_int_equal(pmixev_hub_route_next(rt, 7, 4), PMIXEV_HUB_NONE);
	assert_int_equal(leave(rt, 0, ids, 1), ENOENT); /* gone already */
	ids[0] = (struct pmixev_xstep_id){7, 1};
	assert_int_equal(leave(rt, PMIXEV_HUB_SELF, ids, 1), ENOENT);
	assert_int_equal(leave(rt, PARENT, ids, 1), ENOENT);
	/* Link 1 closes; then the parent link. */
	assert_int_equal(pmixev_hub_route_drop(rt, 1, &gone), 0);
	assert_int_equal(gone.n, 1);
	assert_int_equal(gone.ids[0].step, 5);
	assert_true(pmixev_hub_leave_ok(&gone));
	pmixev_hub_leave_release(&gone);
	assert_int_equal(pmixev_hub_route_drop(rt, PARENT, &gone), 0);
	assert_int_equal(gone.n, 3);
	assert_int_equal(gone.ids[0].step, 0);
	assert_int_equal(gone.ids[1].step, 2);
	assert_int_equal(gone.ids[2].job, 9);
	pmixev_hub_leave_release(&gone);
	assert_int_equal(pmixev_hub_route_count(rt), 1);
	assert_int_equal(pmixev_hub_route_drop(rt, 3, &gone), 0);
	assert_int_equal(gone.n, 0);
	assert_null(gone.ids);
	assert_int_equal(pmixev_hub_route_drop(rt, PMIXEV_HUB_SELF, &gone), 0);
	assert_int_equal(gone.n, 0);
	assert_int_equal(pmixev_hub_route_next(rt, 7, 1), PMIXEV_HUB_SELF);
	pmixev_hub_route_destroy(rt);
}

static void test_bound(void **state)
{
	const uint32_t n = PMIXEV_XSTEP_FAMILY_MAX - 1;
	struct pmixev_xstep_member *m = calloc(n, sizeof(*m));
	struct pmixev_hub_route *rt = pmixev_hub_route_create(7, 0, NONE, NONE);
	struct pmixev_xstep_member one = {7, 5000, 7, 0};

	(void)state;
	assert_non_null(m);
	for (uint32_t i = 0; i < n; i++)
		m[i] = (struct pmixev_xstep_member){7, i + 1, 7, 0};
	/* One too many: nothing joins. */
	assert_int_equal(join(rt, 0, &one, 1), 0);
	assert_int_equal(join(rt, 1, m, n), ENOSPC);
	assert_int_equal(leave(rt, 0, &(struct pmixev_xstep_id){7, 5000}, 1),
			 0);
	assert_int_equal(join(rt, 1, m, n), 0);
	assert_int_equal(pmixev_hub_route_count(rt), PMIXEV_XSTEP_FAMILY_MAX);
	assert_int_equal(pmixev_hub_route_next(rt, 7, n), 1);
	assert_int_equal(join(rt, 0, &one, 1), ENOSPC);
	pmixev_hub_route_destroy(rt);
	free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_create),
		cmocka_unit_test(test_join),
		cmocka_unit_test(test_members),
		cmocka_unit_test(test_leave_drop),
		cmocka_unit_test(test_bound),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
