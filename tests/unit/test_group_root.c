/*
 * Unit tests for wireup/group_root.c: the registry of live groups on the
 * tree root (a construct adds, a destruct removes, by signature; the
 * wildcard kept as its range; one id for two disjoint groups; the bound
 * of 16384 groups, counted and logged once) and its list (construct
 * order, members, the 1024-group and 1 MiB bounds as partial).
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pmixev_log.h"
#include "wireup/group_root.h"

#define C PMIXEV_COLL_GROUP_CONSTRUCT
#define D PMIXEV_COLL_GROUP_DESTRUCT

static unsigned errors;

void pmixev_log(enum pmixev_log_level level, const char *fmt, ...)
{
	errors += level == PMIXEV_LOG_ERROR;
}

void pmixev_log_debug(unsigned dbg, const char *fmt, ...)
{
}

/* 6 ranks on 3 nodes: 0-3, 4, 5. */
static struct layout lay;

static int setup(void **state)
{
	char err[128];

	(void)state;
	return pmixev_taskmap_parse(&lay.map, "0-3;4;5", 3, 6, err,
				    sizeof(err));
}

static int teardown(void **state)
{
	(void)state;
	pmixev_taskmap_free(&lay.map);
	return 0;
}

static void expect(const struct pmixev_group_entry *e, const char *id,
		   const char *ranks)
{
	char text[64] = "";
	size_t off = 0;

	for (uint32_t i = 0; i < e->nranks; i++)
		off += (size_t)snprintf(text + off, sizeof(text) - off, "%s%u",
					i ? "," : "", e->ranks[i]);
	assert_string_equal(e->grpid, id);
	assert_string_equal(text, ranks);
}

static void test_add_remove(void **state)
{
	struct group_root *r = group_root_create(&lay);
	struct pmixev_group_list l;

	(void)state;
	assert_non_null(r);
	group_root_note(r, C, "*#qa", 1);
	group_root_note(r, C, "0,5#qb", 2);
	group_root_note(r, C, "1#qd", 3);
	group_root_note(r, C, "5#qd", 4);
	group_root_note(r, C, "5#qd", 5);		 /* again: once */
	group_root_note(r, PMIXEV_COLL_FENCE, "0-5", 0); /* not a group */
	assert_int_equal(group_root_list(r, &l), PMIXEV_OK);
	assert_int_equal(l.n, 4);
	assert_false(l.partial);
	expect(&l.e[0], "qa", "0,1,2,3,4,5");
	expect(&l.e[1], "qb", "0,5");
	expect(&l.e[2], "qd", "1");
	expect(&l.e[3], "qd", "5");
	pmixev_group_list_release(&l);
	/* OpenPMIx 5 destructs with the members it was given back. */
	group_root_note(r, D, "0-5#qa", 0);
	group_root_note(r, D, "0,4#qb", 0); /* not this one */
	group_root_note(r, D, "1#qd", 0);
	assert_int_equal(group_root_list(r, &l), PMIXEV_OK);
	assert_int_equal(l.n, 2);
	expect(&l.e[0], "qb", "0,5");
	expect(&l.e[1], "qd", "5");
	pmixev_group_list_release(&l);
	group_root_note(r, D, "0,5#qb", 0);
	group_root_note(r, D, "5#qd", 0);
	assert_int_equal(group_root_list(r, &l), PMIXEV_OK);
	assert_int_equal(l.n, 0);
	assert_null(l.e);
	assert_int_equal(errors, 0);
	group_root_destroy(r);
	group_root_destroy(NULL);
}

/* 16384 groups registered; beyond, logged once, counted, not listed. */
static void test_registry_bound(void **state)
{
	struct group_root *r = group_root_create(&lay);
	struct pmixev_group_list l;
	char sig[32];

	(void)state;
	errors = 0;
	for (unsigned i = 0; i < 16384 + 3; i++) {
		snprintf(sig, sizeof(sig), "4#g%u", i);
		group_root_note(r, C, sig, 0);
	}
	assert_int_equal(errors, 1);
	/* A destruct makes room again. */
	group_root_note(r, D, "4#g0", 0);
	group_root_note(r, C, "4#late", 0);
	assert_int_equal(errors, 1);
	assert_int_equal(group_root_list(r, &l), PMIXEV_OK);
	assert_int_equal(l.n, PMIXEV_GROUP_LIST_MAX);
	assert_true(l.partial);
	expect(&l.e[0], "g1", "4");
	pmixev_group_list_release(&l);
	group_root_destroy(r); /* says how many in all */
	assert_int_equal(errors, 2);
}

/* A list stops before the group that would pass 1 MiB. */
static void test_list_bytes(void **state)
{
	struct layout big = {0};
	struct group_root *r;
	struct pmixev_group_list l;
	char err[128];

	(void)state;
	assert_int_equal(pmixev_taskmap_parse(&big.map, "0-299999", 1, 300000,
					      err, sizeof(err)),
			 0);
	r = group_root_create(&big);
	group_root_note(r, C, "0-9#small", 0);
	group_root_note(r, C, "0-299999#big", 0);
	group_root_note(r, C, "0#after", 0);
	assert_int_equal(group_root_list(r, &l), PMIXEV_OK);
	assert_int_equal(l.n, 1);
	assert_true(l.partial);
	assert_string_equal(l.e[0].grpid, "small");
	pmixev_group_list_release(&l);
	group_root_destroy(r);
	pmixev_taskmap_free(&big.map);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_add_remove),
		cmocka_unit_test(test_registry_bound),
		cmocka_unit_test(test_list_bytes),
	};

	return cmocka_run_group_tests_name("group_root", tests, setup,
					   teardown);
}
