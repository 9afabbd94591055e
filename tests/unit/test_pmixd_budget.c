/*
 * Unit tests for common/pmixev_pmixd_budget.c: a request type's budget
 * takes requests up to its limit and refuses the next, counting each
 * refusal and flagging only the first; a request given back makes room;
 * types without a budget here are never carried by it.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pmixev_pmixd_budget.h"

static void test_limit_then_refuse(void **state)
{
	static const uint8_t types[] = {PMIXEV_PMIXD_DMODEX,
					PMIXEV_PMIXD_PUBSUB, PMIXEV_PMIXD_QUERY,
					PMIXEV_PMIXD_JOBCTL};

	(void)state;
	for (size_t k = 0; k < sizeof(types); k++) {
		struct pmixev_pmixd_budget b = {0};
		uint8_t t = types[k];
		uint32_t max = pmixev_pmixd_budget_max(t);
		bool first = true;

		assert_true(max >= 64);
		for (uint32_t i = 0; i < max; i++) {
			assert_true(pmixev_pmixd_budget_take(&b, t, &first));
			assert_false(first);
		}
		assert_false(pmixev_pmixd_budget_take(&b, t, &first));
		assert_true(first);
		assert_false(pmixev_pmixd_budget_take(&b, t, &first));
		assert_false(first);
		assert_int_equal(b.refused[t], 2);
		assert_int_equal(b.live[t], max);
		pmixev_pmixd_budget_give(&b, t);
		assert_true(pmixev_pmixd_budget_take(&b, t, NULL));
		assert_false(pmixev_pmixd_budget_take(&b, t, NULL));
		assert_int_equal(b.refused[t], 3);
	}
}

/* Types apart: one spent budget does not refuse another type. */
static void test_types_apart(void **state)
{
	struct pmixev_pmixd_budget b = {0};

	(void)state;
	for (uint32_t i = 0; i < PMIXEV_PMIXD_BUDGET_JOBCTL; i++)
		assert_true(pmixev_pmixd_budget_take(&b, PMIXEV_PMIXD_JOBCTL,
						     NULL));
	assert_false(pmixev_pmixd_budget_take(&b, PMIXEV_PMIXD_JOBCTL, NULL));
	assert_true(pmixev_pmixd_budget_take(&b, PMIXEV_PMIXD_QUERY, NULL));
	assert_int_equal(b.refused[PMIXEV_PMIXD_QUERY], 0);
}

/* Not budgeted here, or not a type: refused, and a give is harmless. */
static void test_unbudgeted(void **state)
{
	struct pmixev_pmixd_budget b = {0};

	(void)state;
	assert_int_equal(pmixev_pmixd_budget_max(PMIXEV_PMIXD_FENCE), 0);
	assert_int_equal(pmixev_pmixd_budget_max(PMIXEV_PMIXD_ALLOC), 8);
	assert_false(pmixev_pmixd_budget_take(&b, PMIXEV_PMIXD_FENCE, NULL));
	assert_false(pmixev_pmixd_budget_take(&b, 250, NULL));
	pmixev_pmixd_budget_give(&b, 250);
	pmixev_pmixd_budget_give(&b, PMIXEV_PMIXD_QUERY);
	assert_int_equal(b.live[PMIXEV_PMIXD_QUERY], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_limit_then_refuse),
		cmocka_unit_test(test_types_apart),
		cmocka_unit_test(test_unbudgeted),
	};

	return cmocka_run_group_tests_name("pmixd_budget", tests, NULL, NULL);
}
