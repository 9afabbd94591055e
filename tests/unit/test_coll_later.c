/*
 * Unit tests for the collective engine's answer from the tree root later
 * (wireup/coll.h: at_root's COLL_LATER, coll_root_finish, root_failed),
 * which collectives across steps wait with (wireup/coll_xstep.h): each
 * node's call answered once, on success, timeout or another step's word.
 */
#include "config.h"

#include "coll_world.h"

#define XSIG "7.0:*@7.1:*"

/* The root waits; the kind's answer goes down to every node, once. */
static void test_later(void **state)
{
	struct coll_id id = {.kind = PMIXEV_COLL_FENCE, .sig = XSIG, .seq = 1};
	struct answer a[NNODES] = {0};

	w.verdict = COLL_LATER;
	for (int n = NNODES - 1; n >= 0; n--)
		local((uint32_t)n, XSIG, "d", &a[n]);
	pump();
	assert_int_equal(w.at_root, 1);
	assert_string_equal(w.root_in, "ddd");
	for (int n = 0; n < NNODES; n++)
		assert_int_equal(a[n].n, 0);
	/* Not for a collective that is not there, nor twice. */
	id.seq = 2;
	assert_false(coll_root_finish(w.coll[0], &id, PMIXEV_OK, NULL, 0));
	id.seq = 1;
	assert_true(coll_root_finish(w.coll[0], &id, PMIXEV_OK,
				     (const uint8_t *)"all", 3));
	pump();
	for (int n = 0; n < NNODES; n++) {
		assert_int_equal(a[n].n, 1);
		assert_int_equal(a[n].result, PMIXEV_OK);
		assert_string_equal(a[n].data, "all");
	}
	assert_false(coll_root_finish(w.coll[0], &id, PMIXEV_OK, NULL, 0));
	assert_int_equal(w.root_failed, 0);
}

/* Another step's failure before the root has it all: every node fails at
 * once (also the one that calls later), and the kind is not told back. */
static void test_failed_early(void **state)
{
	struct coll_id id = {.kind = PMIXEV_COLL_FENCE, .sig = XSIG, .seq = 1};
	struct answer a[NNODES] = {0};

	local(2, XSIG, "c", &a[2]);
	local(1, XSIG, "b", &a[1]);
	pump();
	assert_true(
		coll_root_finish(w.coll[0], &id, PMIXEV_ERR_UNREACH, NULL, 0));
	pump();
	assert_true(a[2].n == 1 && a[2].result == PMIXEV_ERR_UNREACH);
	assert_true(a[1].n == 1 && a[1].result == PMIXEV_ERR_UNREACH);
	local(0, XSIG, "a", &a[0]);
	pump();
	assert_true(a[0].n == 1 && a[0].result == PMIXEV_ERR_UNREACH);
	assert_int_equal(w.at_root, 0);
	assert_int_equal(w.root_failed, 0);
	assert_int_equal(coll_done(w.coll[0], PMIXEV_COLL_FENCE, XSIG), 1);
}

/* Another step failed one this step has not started: its calls get the
 * failure when they come, and the next one is number 2 on every node. */
static void test_failed_before(void **state)
{
	struct coll_id id = {.kind = PMIXEV_COLL_FENCE, .sig = XSIG, .seq = 1};
	struct answer a[NNODES] = {0}, b[NNODES] = {0};

	assert_true(
		coll_root_finish(w.coll[0], &id, PMIXEV_ERR_TIMEOUT, NULL, 0));
	pump();
	for (int n = NNODES - 1; n >= 0; n--)
		local((uint32_t)n, XSIG, "x", &a[n]);
	pump();
	for (int n = 0; n < NNODES; n++)
		assert_true(a[n].n == 1 && a[n].result == PMIXEV_ERR_TIMEOUT);
	assert_int_equal(w.at_root, 0);
	/* Not again for it. */
	assert_false(
		coll_root_finish(w.coll[0], &id, PMIXEV_ERR_TIMEOUT, NULL, 0));
	w.verdict = COLL_LATER;
	for (int n = NNODES - 1; n >= 0; n--)
		local((uint32_t)n, XSIG, "y", &b[n]);
	pump();
	assert_int_equal(w.at_root, 1);
	id.seq = 2;
	assert_true(coll_root_finish(w.coll[0], &id, PMIXEV_OK,
				     (const uint8_t *)"ok", 2));
	pump();
	for (int n = 0; n < NNODES; n++)
		assert_true(b[n].n == 1 && b[n].result == PMIXEV_OK);
	assert_int_equal(w.root_failed, 0);
}

/* The deadline passes while the root waits for the kind: every call gets
 * PMIXEV_ERR_TIMEOUT once, and the kind hears of it at the root. */
static void test_later_timeout(void **state)
{
	struct answer a[NNODES] = {0};

	w.verdict = COLL_LATER;
	for (int n = NNODES - 1; n >= 0; n--)
		local((uint32_t)n, XSIG, "d", &a[n]);
	pump();
	assert_int_equal(w.at_root, 1);
	while (a[0].n + a[1].n + a[2].n < NNODES)
		assert_int_equal(event_base_loop(w.base, EVLOOP_ONCE), 0);
	pump();
	for (int n = 0; n < NNODES; n++) {
		assert_int_equal(a[n].n, 1);
		assert_int_equal(a[n].result, PMIXEV_ERR_TIMEOUT);
	}
	assert_int_equal(w.root_failed, 1);
	assert_int_equal(w.root_why, PMIXEV_ERR_TIMEOUT);
}

int main(void)
{
	static int quick = 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_later, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_early, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_failed_before, setup,
						teardown),
		cmocka_unit_test_prestate_setup_teardown(
			test_later_timeout, setup, teardown, &quick),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
