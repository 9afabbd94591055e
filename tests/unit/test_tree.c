/*
 * Unit tests for common/pmixev_tree.c: k-ary tree shape, subtree
 * membership, routing and depth, including ids near UINT32_MAX.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "pmixev_tree.h"

#define NONE PMIXEV_TREE_NONE

/* Reference parent, from the definition, in 64 bits. */
static uint64_t ref_parent(uint64_t k, uint64_t id)
{
	return id == 0 ? NONE : (id - 1) / k;
}

/* Reference: is id an ancestor of d (or d itself)? Walks d to the root. */
static bool ref_in_subtree(uint64_t k, uint64_t id, uint64_t d)
{
	for (;;) {
		if (d == id)
			return true;
		if (d == 0)
			return false;
		d = ref_parent(k, d);
	}
}

static uint64_t ref_next_hop(uint64_t k, uint64_t id, uint64_t d)
{
	if (d == id)
		return id;
	if (!ref_in_subtree(k, id, d))
		return ref_parent(k, id);
	while (ref_parent(k, d) != id)
		d = ref_parent(k, d);
	return d;
}

static void test_small_shapes(void **state)
{
	struct pmixev_tree t = {.n = 10, .width = 3};

	assert_int_equal(pmixev_tree_parent(&t, 0), NONE);
	assert_int_equal(pmixev_tree_parent(&t, 3), 0);
	assert_int_equal(pmixev_tree_parent(&t, 4), 1);
	assert_int_equal(pmixev_tree_parent(&t, 9), 2);
	assert_int_equal(pmixev_tree_nchildren(&t, 0), 3);
	assert_int_equal(pmixev_tree_nchildren(&t, 2), 3);
	assert_int_equal(pmixev_tree_nchildren(&t, 3), 0);
	assert_int_equal(pmixev_tree_child(&t, 2, 0), 7);
	assert_int_equal(pmixev_tree_child(&t, 2, 2), 9);
	assert_int_equal(pmixev_tree_child(&t, 2, 3), NONE);
	assert_int_equal(pmixev_tree_child(&t, 3, 0), NONE);

	t.n = 9;
	assert_int_equal(pmixev_tree_nchildren(&t, 2), 2);
	assert_int_equal(pmixev_tree_child(&t, 2, 1), 8);
	assert_int_equal(pmixev_tree_child(&t, 2, 2), NONE);

	t.n = 1;
	assert_int_equal(pmixev_tree_parent(&t, 0), NONE);
	assert_int_equal(pmixev_tree_nchildren(&t, 0), 0);
	assert_int_equal(pmixev_tree_next_hop(&t, 0, 0), 0);
	assert_int_equal(pmixev_tree_depth(&t, 0), 0);
}

static void test_parent_children(void **state)
{
	static const uint32_t widths[] = {1, 2, 3, 50};
	static const uint32_t sizes[] = {1, 2, 3, 10, 1000};
	static uint32_t seen[1000];

	for (size_t w = 0; w < sizeof(widths) / sizeof(widths[0]); w++) {
		for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
			struct pmixev_tree t = {.n = sizes[s],
						.width = widths[w]};
			uint32_t k = t.width;

			memset(seen, 0, sizeof(seen));
			for (uint32_t id = 0; id < t.n; id++) {
				uint32_t nc = pmixev_tree_nchildren(&t, id);
				uint32_t want = 0;

				assert_int_equal(pmixev_tree_parent(&t, id),
						 ref_parent(k, id));
				for (uint64_t c = (uint64_t)k * id + 1;
				     c <= (uint64_t)k * id + k && c < t.n; c++)
					want++;
				assert_int_equal(nc, want);
				for (uint32_t i = 0; i < nc; i++) {
					uint32_t c =
						pmixev_tree_child(&t, id, i);

					assert_int_equal(c, k * id + 1 + i);
					assert_int_equal(
						pmixev_tree_parent(&t, c), id);
					seen[c]++;
				}
				assert_int_equal(pmixev_tree_child(&t, id, nc),
						 NONE);
			}
			/* every non-root node is exactly one node's child */
			assert_int_equal(seen[0], 0);
			for (uint32_t id = 1; id < t.n; id++)
				assert_int_equal(seen[id], 1);
			assert_int_equal(pmixev_tree_parent(&t, t.n), NONE);
			assert_int_equal(pmixev_tree_nchildren(&t, t.n), 0);
			assert_int_equal(pmixev_tree_child(&t, t.n, 0), NONE);
		}
	}
}

static void check_all_pairs(uint32_t n, uint32_t k)
{
	struct pmixev_tree t = {.n = n, .width = k};

	for (uint32_t id = 0; id < n; id++) {
		for (uint32_t d = 0; d < n; d++) {
			assert_int_equal(pmixev_tree_in_subtree(&t, id, d),
					 ref_in_subtree(k, id, d));
			assert_int_equal(pmixev_tree_next_hop(&t, id, d),
					 ref_next_hop(k, id, d));
		}
		assert_false(pmixev_tree_in_subtree(&t, id, n));
		assert_false(pmixev_tree_in_subtree(&t, n, id));
		assert_int_equal(pmixev_tree_next_hop(&t, id, n), NONE);
		assert_int_equal(pmixev_tree_next_hop(&t, n, id), NONE);
		assert_int_equal(pmixev_tree_next_hop(&t, id, UINT32_MAX),
				 NONE);
	}
}

static void test_routing_brute_force(void **state)
{
	struct pmixev_tree t = {.n = 40, .width = 3};

	check_all_pairs(40, 3);
	check_all_pairs(17, 1);
	check_all_pairs(40, 2);
	/* spot checks that do not rely on the reference */
	assert_true(pmixev_tree_in_subtree(&t, 1, 13));
	assert_false(pmixev_tree_in_subtree(&t, 2, 13));
	assert_int_equal(pmixev_tree_next_hop(&t, 0, 13), 1);
	assert_int_equal(pmixev_tree_next_hop(&t, 1, 13), 4);
	assert_int_equal(pmixev_tree_next_hop(&t, 4, 13), 13);
	assert_int_equal(pmixev_tree_next_hop(&t, 13, 39), 4);
	assert_int_equal(pmixev_tree_next_hop(&t, 3, 39), 12);
}

static void test_depth(void **state)
{
	struct pmixev_tree t = {.n = 1000, .width = 3};

	assert_int_equal(pmixev_tree_depth(&t, 0), 0);
	assert_int_equal(pmixev_tree_depth(&t, 1), 1);
	assert_int_equal(pmixev_tree_depth(&t, 3), 1);
	assert_int_equal(pmixev_tree_depth(&t, 4), 2);
	assert_int_equal(pmixev_tree_depth(&t, 12), 2);
	assert_int_equal(pmixev_tree_depth(&t, 13), 3);
	assert_int_equal(pmixev_tree_depth(&t, 999), 6);
	assert_int_equal(pmixev_tree_depth(&t, 1000), NONE);
	for (uint32_t id = 1; id < t.n; id++)
		assert_int_equal(pmixev_tree_depth(&t, id),
				 pmixev_tree_depth(&t, (id - 1) / 3) + 1);

	t.width = 1;
	assert_int_equal(pmixev_tree_depth(&t, 999), 999);
	t.width = 50;
	assert_int_equal(pmixev_tree_depth(&t, 50), 1);
	assert_int_equal(pmixev_tree_depth(&t, 51), 2);
}

static void test_huge(void **state)
{
	const uint32_t n = UINT32_MAX - 2, last = n - 1;
	struct pmixev_tree t = {.n = n, .width = 2};
	const uint32_t p = (last - 1) / 2;

	/* 2 * id + 1 wraps in 32 bits from id = 2^31 on */
	assert_int_equal(pmixev_tree_parent(&t, last), p);
	assert_int_equal(pmixev_tree_nchildren(&t, p), 2);
	assert_int_equal(pmixev_tree_child(&t, p, 1), last);
	assert_int_equal(pmixev_tree_nchildren(&t, p + 1), 0);
	assert_int_equal(pmixev_tree_nchildren(&t, 1u << 31), 0);
	assert_int_equal(pmixev_tree_nchildren(&t, last), 0);
	assert_int_equal(pmixev_tree_child(&t, 1u << 31, 0), NONE);
	assert_int_equal(pmixev_tree_depth(&t, last), 31);
	assert_true(pmixev_tree_in_subtree(&t, 0, last));
	assert_true(pmixev_tree_in_subtree(&t, p, last));
	assert_false(pmixev_tree_in_subtree(&t, last, p));
	assert_false(pmixev_tree_in_subtree(&t, 1, last));
	assert_int_equal(pmixev_tree_next_hop(&t, 0, last),
			 ref_next_hop(2, 0, last));
	assert_int_equal(pmixev_tree_next_hop(&t, 0, last), 2);
	assert_int_equal(pmixev_tree_next_hop(&t, last, 0), p);
	assert_int_equal(pmixev_tree_next_hop(&t, last, last - 1), p);
	assert_int_equal(pmixev_tree_next_hop(&t, p, last), last);
	assert_int_equal(pmixev_tree_next_hop(&t, 0, n), NONE);

	t.width = 1000;
	assert_int_equal(pmixev_tree_nchildren(&t, last), 0);
	assert_int_equal(pmixev_tree_nchildren(&t, 4294967), 292);
	assert_int_equal(pmixev_tree_child(&t, 4294967, 291), last);
	assert_int_equal(pmixev_tree_parent(&t, last), 4294967);
	assert_int_equal(pmixev_tree_depth(&t, last), 4);

	t.width = n;
	assert_int_equal(pmixev_tree_nchildren(&t, 0), n - 1);
	assert_int_equal(pmixev_tree_nchildren(&t, 1), 0);
	assert_int_equal(pmixev_tree_child(&t, 0, n - 2), last);
	assert_int_equal(pmixev_tree_parent(&t, last), 0);
	assert_int_equal(pmixev_tree_next_hop(&t, 0, last), last);
	assert_int_equal(pmixev_tree_next_hop(&t, 7, last), 0);
	assert_int_equal(pmixev_tree_depth(&t, last), 1);

	t.width = UINT32_MAX;
	assert_int_equal(pmixev_tree_nchildren(&t, 0), n - 1);
	assert_int_equal(pmixev_tree_nchildren(&t, last), 0);
	assert_int_equal(pmixev_tree_child(&t, last, 0), NONE);

	t.width = 1;
	assert_int_equal(pmixev_tree_depth(&t, last), last);
	assert_int_equal(pmixev_tree_nchildren(&t, last - 1), 1);
	assert_int_equal(pmixev_tree_nchildren(&t, last), 0);
	assert_true(pmixev_tree_in_subtree(&t, 5, last));
	assert_false(pmixev_tree_in_subtree(&t, last, 5));
	assert_int_equal(pmixev_tree_next_hop(&t, 0, last), 1);
	assert_int_equal(pmixev_tree_next_hop(&t, last, 0), last - 1);
}

static void test_zero_width(void **state)
{
	struct pmixev_tree t = {.n = 5, .width = 0};

	assert_int_equal(pmixev_tree_parent(&t, 3), NONE);
	assert_int_equal(pmixev_tree_nchildren(&t, 0), 0);
	assert_false(pmixev_tree_in_subtree(&t, 0, 3));
	assert_int_equal(pmixev_tree_next_hop(&t, 0, 3), NONE);
	assert_int_equal(pmixev_tree_depth(&t, 3), NONE);
}

/* Deterministic pseudo-random gone sets. */
static uint32_t rnd(uint32_t *state)
{
	*state = *state * 1103515245u + 12345u;
	return *state >> 8;
}

static void test_healed_examples(void **state)
{
	struct pmixev_tree t = {.n = 10, .width = 2};
	bool gone[10] = {false};
	uint32_t root;

	/* No one gone: the static tree. */
	root = pmixev_tree_hroot(&t, gone);
	assert_int_equal(root, 0);
	for (uint32_t i = 0; i < 10; i++)
		assert_int_equal(pmixev_tree_hparent(&t, gone, root, i),
				 pmixev_tree_parent(&t, i));
	/* Inner node 1 gone: its children 3, 4 hang from 0. */
	gone[1] = true;
	assert_int_equal(pmixev_tree_hparent(&t, gone, root, 3), 0);
	assert_int_equal(pmixev_tree_hparent(&t, gone, root, 4), 0);
	assert_int_equal(pmixev_tree_hparent(&t, gone, root, 7), 3);
	assert_int_equal(pmixev_tree_hnext_hop(&t, gone, root, 0, 8), 3);
	assert_int_equal(pmixev_tree_hnext_hop(&t, gone, root, 8, 9), 3);
	assert_int_equal(pmixev_tree_hnext_hop(&t, gone, root, 0, 1), NONE);
	/* Root 0 gone too: 2 is the lowest left and adopts 3 and 4. */
	gone[0] = true;
	root = pmixev_tree_hroot(&t, gone);
	assert_int_equal(root, 2);
	assert_int_equal(pmixev_tree_hparent(&t, gone, root, 2), NONE);
	assert_int_equal(pmixev_tree_hparent(&t, gone, root, 3), 2);
	assert_int_equal(pmixev_tree_hparent(&t, gone, root, 5), 2);
	assert_true(pmixev_tree_in_hsubtree(&t, gone, root, 3, 8));
	assert_false(pmixev_tree_in_hsubtree(&t, gone, root, 3, 5));
	assert_false(pmixev_tree_in_hsubtree(&t, gone, root, 1, 3));
	assert_int_equal(pmixev_tree_hnext_hop(&t, gone, root, 7, 6), 3);
	/* All gone. */
	memset(gone, 1, sizeof(gone));
	assert_int_equal(pmixev_tree_hroot(&t, gone), NONE);
}

static void test_healed_random(void **state)
{
	uint32_t seed = 42;

	for (unsigned trial = 0; trial < 300; trial++) {
		struct pmixev_tree t = {.n = 1 + rnd(&seed) % 40,
					.width = 1 + rnd(&seed) % 4};
		bool gone[40];
		uint32_t root;

		for (uint32_t i = 0; i < t.n; i++)
			gone[i] = rnd(&seed) % 3 == 0;
		root = pmixev_tree_hroot(&t, gone);
		if (root == NONE)
			continue;
		for (uint32_t x = 0; x < t.n; x++) {
			uint32_t p = pmixev_tree_hparent(&t, gone, root, x);

			if (gone[x] || x == root)
				continue;
			/* A parent still there, lower, the static one when it
			 * is there. */
			assert_int_not_equal(p, NONE);
			assert_false(gone[p]);
			assert_true(p < x);
			if (!gone[pmixev_tree_parent(&t, x)])
				assert_int_equal(p, pmixev_tree_parent(&t, x));
			assert_true(
				pmixev_tree_in_hsubtree(&t, gone, root, p, x));
			assert_true(pmixev_tree_in_hsubtree(&t, gone, root,
							    root, x));
		}
		/* Routing reaches every node left along healed edges. */
		for (uint32_t s = 0; s < t.n; s++)
			for (uint32_t d = 0; d < t.n; d++) {
				uint32_t cur = s, hops = 0;

				if (gone[s] || gone[d]) {
					assert_int_equal(
						pmixev_tree_hnext_hop(
							&t, gone, root, s, d),
						NONE);
					continue;
				}
				while (cur != d && hops++ <= t.n) {
					uint32_t nx = pmixev_tree_hnext_hop(
						&t, gone, root, cur, d);

					assert_true(pmixev_tree_hparent(
							    &t, gone, root,
							    cur) == nx ||
						    pmixev_tree_hparent(
							    &t, gone, root,
							    nx) == cur);
					cur = nx;
				}
				assert_int_equal(cur, d);
			}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_shapes),
		cmocka_unit_test(test_parent_children),
		cmocka_unit_test(test_routing_brute_force),
		cmocka_unit_test(test_depth),
		cmocka_unit_test(test_huge),
		cmocka_unit_test(test_zero_width),
		cmocka_unit_test(test_healed_examples),
		cmocka_unit_test(test_healed_random),
	};

	return cmocka_run_group_tests_name("tree", tests, NULL, NULL);
}
