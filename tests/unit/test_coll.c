/*
 * Unit tests for plugins/mpi_pmixev/wireup/coll.c and coll_tracker.c: the
 * collective engine and its kind hooks, on a few engines in one process
 * joined by a stub overlay (a fixed tree, messages queued and pumped by
 * hand), with real pending sets on a libevent base.
 */
#include "config.h"

#include "coll_world.h"

static void test_kind_set(void **state)
{
	struct coll_kind half = {.deliver = deliver};

	assert_int_equal(coll_kind_set(w.coll[0], 0, &kind, NULL), -1);
	assert_int_equal(coll_kind_set(w.coll[0], 8, &kind, NULL), -1);
	assert_int_equal(
		coll_kind_set(w.coll[0], PMIXEV_COLL_CONNECT, &half, NULL), -1);
	assert_int_equal(
		coll_kind_set(w.coll[0], PMIXEV_COLL_FENCE, &kind, NULL), -1);
	assert_int_equal(
		coll_kind_set(w.coll[0], PMIXEV_COLL_CONNECT, &kind, NULL), 0);
}

/* Every node takes part: the root's hook sees all, every node its result. */
static void test_all(void **state)
{
	struct answer a[NNODES] = {0};

	local(2, "*", "c", &a[2]);
	local(1, "*", "b", &a[1]);
	pump();
	assert_int_equal(w.at_root, 0);
	local(0, "*", "a", &a[0]);
	pump();
	/* In the order they came: node 1's own, node 2's, then the root's. */
	assert_int_equal(w.at_root, 1);
	assert_string_equal(w.root_in, "bca");
	for (int n = 0; n < NNODES; n++) {
		assert_int_equal(a[n].n, 1);
		assert_int_equal(a[n].result, PMIXEV_OK);
		assert_string_equal(a[n].data, "R:bca");
	}
	assert_int_equal(w.errors, 0);
}

/* Only node 2's ranks: node 1 passes it on, the root decides, node 2 gets
 * the result; the next one over the set is a new number. */
static void test_sparse(void **state)
{
	struct answer a = {0}, b = {0};

	local(2, "4-5", "x", &a);
	pump();
	assert_int_equal(w.at_root, 1);
	assert_string_equal(w.root_in, "x");
	assert_int_equal(a.n, 1);
	assert_string_equal(a.data, "R:x");
	local(2, "4-5", "y", &b);
	pump();
	assert_int_equal(w.at_root, 2);
	assert_string_equal(b.data, "R:y");
}

/* The root's hook refuses: every node's call fails with its result. */
static void test_root_refuses(void **state)
{
	struct answer a[NNODES] = {0};

	w.verdict = PMIXEV_ERR_BAD_REQUEST;
	for (int n = NNODES - 1; n >= 0; n--)
		local((uint32_t)n, "*", "d", &a[n]);
	pump();
	for (int n = 0; n < NNODES; n++) {
		assert_int_equal(a[n].n, 1);
		assert_int_equal(a[n].result, PMIXEV_ERR_BAD_REQUEST);
		assert_string_equal(a[n].data, "");
	}
}

/* A node the collective waits on is lost: it fails everywhere, at once. */
static void test_node_lost(void **state)
{
	struct answer a[NNODES] = {0};

	local(0, "*", "a", &a[0]);
	local(1, "*", "b", &a[1]);
	pump();
	step_node_gone(&w.step[1], 2, true);
	pump();
	assert_int_equal(a[0].n, 1);
	assert_int_equal(a[0].result, PMIXEV_ERR_UNREACH);
	assert_int_equal(a[1].n, 1);
	assert_int_equal(a[1].result, PMIXEV_ERR_UNREACH);
	assert_int_equal(w.at_root, 0);
	assert_true(w.errors > 0);
}

/* No news within the (default) timeout. */
static void test_timeout(void **state)
{
	struct answer a = {0};

	local(0, "0-3", "a", &a);
	assert_int_equal(a.n, 0);
	assert_int_equal(event_base_loop(w.base, EVLOOP_ONCE), 0);
	assert_int_equal(a.n, 1);
	assert_int_equal(a.result, PMIXEV_ERR_TIMEOUT);
}

/* PMIxevFenceMax (2 here): a third in flight is refused everywhere. */
static void test_over_fence_max(void **state)
{
	struct answer a = {0}, b = {0}, c = {0}, c2 = {0};

	local(0, "0-2", "a", &a);
	local(0, "0-3", "b", &b);
	local(0, "0-4", "c", &c);
	assert_int_equal(c.n, 1);
	assert_int_equal(c.result, PMIXEV_ERR_OVER_BUDGET);
	pump();
	/* Node 2 hears of the refusal before its own part comes. */
	local(2, "0-4", "c", &c2);
	assert_int_equal(c2.n, 1);
	assert_int_equal(c2.result, PMIXEV_ERR_OVER_BUDGET);
	assert_int_equal(a.n + b.n, 0);
}

/* A bad local call (no rank here) is answered, not held. */
static void test_not_ours(void **state)
{
	struct answer a = {0};

	local(0, "4-5", "a", &a);
	assert_int_equal(a.n, 1);
	assert_int_equal(a.result, PMIXEV_ERR_BAD_REQUEST);
}

/* Node 2 (a leaf hosting none of ranks 0-3) leaves the tree while a
 * collective over 0-3 runs: it goes on. */
static void test_leaf_leaves(void **state)
{
	struct answer a[2] = {0};

	local(1, "0-3", "b", &a[1]);
	pump();
	w.left[2] = true;
	step_node_gone(&w.step[1], 2, false);
	step_node_gone(&w.step[0], 2, false);
	pump();
	assert_int_equal(a[1].n, 0);
	local(0, "0-3", "a", &a[0]);
	pump();
	for (int n = 0; n < 2; n++) {
		assert_int_equal(a[n].n, 1);
		assert_int_equal(a[n].result, PMIXEV_OK);
	}
}

/* The step's dead ranks, as step_rank_gone tells them. */
static void test_dead_ranks(void **state)
{
	assert_false(coll_rank_dead(w.coll[1], 3));
	step_rank_gone(&w.step[1], 3);
	step_rank_gone(&w.step[1], NTASKS); /* beyond the step: ignored */
	assert_true(coll_rank_dead(w.coll[1], 3));
	assert_false(coll_rank_dead(w.coll[1], 2));
	assert_false(coll_rank_dead(w.coll[1], NTASKS));
	assert_false(coll_rank_dead(w.coll[0], 3)); /* node 0 not told */
}

/* A kind whose calls end with a member, and one that goes on without. */
static enum pmixev_result abort_on_death(void *ctx, const struct coll_id *id,
					 void *call)
{
	return call ? PMIXEV_ERR_GROUP_ABORT : PMIXEV_OK;
}

static enum pmixev_result spare_on_death(void *ctx, const struct coll_id *id,
					 void *call)
{
	return PMIXEV_OK;
}

/*
 * A kind that ends with its members: a collective over ranks 4-5 fails on
 * every node as soon as rank 5 ends, and a later one over them at once;
 * a fence over the same ranks waits on.
 */
static void test_ends_with_member(void **state)
{
	static const struct coll_kind dies = {.at_root = at_root,
					      .deliver = deliver,
					      .on_death = abort_on_death};
	struct answer a = {0}, b = {0}, f = {0};

	for (int n = 0; n < NNODES; n++)
		assert_int_equal(coll_kind_set(w.coll[n], PMIXEV_COLL_CONNECT,
					       &dies, NULL),
				 0);
	/* node 2 hosts 4-5; its part waits for node 1's (chain) */
	coll_local(w.coll[2], PMIXEV_COLL_CONNECT, "3-5", true, 0,
		   (const uint8_t *)"x", 1, &a);
	local(2, "4-5", "y", &f);
	pump();
	assert_int_equal(a.n, 0);
	for (int n = 0; n < NNODES; n++)
		step_rank_gone(&w.step[n], 5);
	pump();
	assert_int_equal(a.n, 1);
	assert_int_equal(a.result, PMIXEV_ERR_GROUP_ABORT);
	assert_int_equal(f.n, 1); /* the fence did not wait for node 1 */
	assert_int_equal(f.result, PMIXEV_OK);
	coll_local(w.coll[2], PMIXEV_COLL_CONNECT, "3-5", true, 0,
		   (const uint8_t *)"z", 1, &b);
	pump();
	assert_int_equal(b.n, 1);
	assert_int_equal(b.result, PMIXEV_ERR_GROUP_ABORT);
}

/*
 * A kind that goes on without ended ranks: over ranks 3-5, node 1's only
 * member (3) ends before calling; node 2's call completes without waiting
 * for node 1, and the root runs the kind's at_root.
 */
static void test_goes_on_without(void **state)
{
	static const struct coll_kind spares = {.at_root = at_root,
						.deliver = deliver,
						.on_death = spare_on_death};
	struct answer a = {0};

	for (int n = 0; n < NNODES; n++)
		assert_int_equal(coll_kind_set(w.coll[n], PMIXEV_COLL_CONNECT,
					       &spares, NULL),
				 0);
	coll_local(w.coll[2], PMIXEV_COLL_CONNECT, "3-5", true, 0,
		   (const uint8_t *)"x", 1, &a);
	pump();
	assert_int_equal(a.n, 0); /* node 1 still awaited */
	for (int n = 0; n < NNODES; n++)
		step_rank_gone(&w.step[n], 3);
	pump();
	assert_int_equal(a.n, 1);
	assert_int_equal(a.result, PMIXEV_OK);
	assert_int_equal(w.at_root, 1);
	assert_string_equal(w.root_in, "x");
}

static bool sig_is(const char *sig, void *arg)
{
	return !strcmp(sig, arg);
}

/*
 * A collective failed on one node's word (coll_fail_where): on every node
 * it involves, those still to call included; one that sent its part up
 * already fails it too; others of the set, kind or name go on.
 */
static void test_fail_where(void **state)
{
	const enum pmixev_result ab = PMIXEV_ERR_GROUP_ABORT;
	struct answer a[NNODES] = {0}, b = {0}, c = {0}, d = {0}, e = {0};

	local(0, "*", "a", &a[0]);
	local(1, "*", "b", &a[1]);
	local(1, "2-5", "y", &b);
	pump();
	assert_int_equal(coll_fail_where(w.coll[1], PMIXEV_COLL_FENCE, sig_is,
					 "0-1", ab, "test"),
			 0);
	assert_int_equal(coll_fail_where(w.coll[1], PMIXEV_COLL_CONNECT, sig_is,
					 "*", ab, "test"),
			 0);
	assert_int_equal(coll_fail_where(w.coll[1], PMIXEV_COLL_FENCE, sig_is,
					 "*", ab, "test"),
			 1);
	pump();
	assert_true(a[0].n == 1 && a[0].result == ab);
	assert_true(a[1].n == 1 && a[1].result == ab);
	assert_int_equal(b.n, 0);
	/* node 2 had not called: it gets the failure when it does */
	local(2, "*", "c", &a[2]);
	assert_true(a[2].n == 1 && a[2].result == ab);
	local(2, "2-5", "z", &c);
	pump();
	assert_true(b.n == 1 && b.result == PMIXEV_OK);
	assert_string_equal(c.data, "R:yz");
	assert_int_equal(w.at_root, 1);
	/* node 2 sent its part up already: failed there, failed everywhere */
	local(2, "2-5", "u", &d);
	pump();
	assert_int_equal(coll_fail_where(w.coll[2], PMIXEV_COLL_FENCE, sig_is,
					 "2-5", ab, "test"),
			 1);
	pump();
	assert_true(d.n == 1 && d.result == ab);
	local(1, "2-5", "v", &e);
	pump();
	assert_true(e.n == 1 && e.result == ab);
	assert_int_equal(w.at_root, 1);
}

int main(void)
{
	static int quick = 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_kind_set, setup, teardown),
		cmocka_unit_test_setup_teardown(test_all, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sparse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_root_refuses, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_node_lost, setup,
						teardown),
		cmocka_unit_test_prestate_setup_teardown(test_timeout, setup,
							 teardown, &quick),
		cmocka_unit_test_setup_teardown(test_over_fence_max, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_not_ours, setup, teardown),
		cmocka_unit_test_setup_teardown(test_leaf_leaves, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_dead_ranks, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_ends_with_member, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_goes_on_without, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_fail_where, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
