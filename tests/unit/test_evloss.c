/*
 * Unit tests for common/pmixev_evloss.c: the mirror of OpenPMIx's event
 * cache evicts the oldest live event when full, forgets events past their
 * lifetime without counting them, and counts per source.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "pmixev_evloss.h"

static struct pmixev_evloss_counts counts_of(const struct pmixev_evloss *l,
					     const char *name)
{
	struct pmixev_evloss_counts c = {0};

	for (size_t i = 0; i < pmixev_evloss_nsources(l); i++)
		if (!strcmp(pmixev_evloss_source(l, i, &c), name))
			return c;
	fail_msg("source %s not found", name);
	return c;
}

static void test_full_cache_evicts_oldest(void **state)
{
	struct pmixev_evloss *l = pmixev_evloss_create(3);
	const char *from = NULL;

	assert_non_null(l);
	assert_false(pmixev_evloss_cached(l, "site@n2", 10, &from));
	assert_false(pmixev_evloss_cached(l, "stepd@n1", 10, &from));
	assert_false(pmixev_evloss_cached(l, "stepd@n1", 11, &from));
	assert_null(from);
	/* Fourth event: the site's (oldest) goes. */
	assert_true(pmixev_evloss_cached(l, "rank@4", 12, &from));
	assert_string_equal(from, "site@n2");
	assert_true(pmixev_evloss_cached(l, "rank@4", 12, &from));
	assert_string_equal(from, "stepd@n1");
	assert_int_equal(counts_of(l, "site@n2").evicted, 1);
	assert_int_equal(counts_of(l, "site@n2").cached, 1);
	assert_int_equal(counts_of(l, "stepd@n1").evicted, 1);
	assert_int_equal(counts_of(l, "stepd@n1").cached, 2);
	assert_int_equal(counts_of(l, "rank@4").evicted, 0);
	assert_int_equal(pmixev_evloss_nsources(l), 3);
	pmixev_evloss_destroy(l);
}

static void test_expired_events_are_not_evicted(void **state)
{
	struct pmixev_evloss *l = pmixev_evloss_create(2);
	const char *from = NULL;
	uint64_t t = 1000;

	assert_false(pmixev_evloss_cached(l, "a", t, &from));
	assert_false(pmixev_evloss_cached(l, "a", t + 1, &from));
	/* The first left by itself at t + lifetime. */
	t += PMIXEV_EVLOSS_LIFETIME_SEC;
	assert_false(pmixev_evloss_cached(l, "b", t, &from));
	/* The second lives until t + 1: the cache is full again. */
	assert_true(pmixev_evloss_cached(l, "b", t, &from));
	assert_string_equal(from, "a");
	assert_int_equal(counts_of(l, "a").evicted, 1);
	/* Much later everything has expired: nothing is evicted. */
	t += 10 * PMIXEV_EVLOSS_LIFETIME_SEC;
	assert_false(pmixev_evloss_cached(l, "c", t, &from));
	assert_false(pmixev_evloss_cached(l, "c", t, &from));
	assert_int_equal(counts_of(l, "b").evicted, 0);
	pmixev_evloss_destroy(l);
}

static void test_many_events_one_slot(void **state)
{
	struct pmixev_evloss *l = pmixev_evloss_create(1);
	const char *from = NULL;

	for (unsigned i = 0; i < 10000; i++)
		pmixev_evloss_cached(l, i % 2 ? "odd" : "even", 5, &from);
	assert_int_equal(counts_of(l, "even").evicted, 5000);
	assert_int_equal(counts_of(l, "odd").evicted, 4999);
	pmixev_evloss_destroy(l);
}

static void test_undelivered_counts_per_source(void **state)
{
	struct pmixev_evloss *l = pmixev_evloss_create(512);
	char name[32];

	for (unsigned i = 0; i < 100; i++) {
		snprintf(name, sizeof(name), "rank@%u", i % 20);
		pmixev_evloss_undelivered(l, name);
	}
	assert_int_equal(pmixev_evloss_nsources(l), 20);
	assert_int_equal(pmixev_evloss_undelivered(l, "rank@7"), 6);
	assert_int_equal(counts_of(l, "rank@7").cached, 0);
	assert_int_equal(counts_of(l, "rank@7").evicted, 0);
	pmixev_evloss_destroy(l);
}

static void test_zero_slots_refused(void **state)
{
	assert_null(pmixev_evloss_create(0));
	pmixev_evloss_destroy(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_cache_evicts_oldest),
		cmocka_unit_test(test_expired_events_are_not_evicted),
		cmocka_unit_test(test_many_events_one_slot),
		cmocka_unit_test(test_undelivered_counts_per_source),
		cmocka_unit_test(test_zero_slots_refused),
	};

	return cmocka_run_group_tests_name("evloss", tests, NULL, NULL);
}
