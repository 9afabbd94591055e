/*
 * Unit tests for plugins/mpi_pmixev/wireup/fence_sig.c: the canonical text
 * of a participant set, the nodes it names, and the names of collectives:
 * when they are forgotten and how PMIxevFenceMax bounds them.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "wireup/fence_sig.h"

static void test_format(void **state)
{
	static const uint32_t ranks[] = {5, 3, 0, 1, 2, 3, 9, 7, 8};
	static const uint32_t one[] = {4};
	char sig[64];

	assert_int_equal(fence_sig_format(true, NULL, 0, sig, sizeof(sig)), 0);
	assert_string_equal(sig, "*");
	assert_int_equal(fence_sig_format(false, ranks, 9, sig, sizeof(sig)),
			 0);
	assert_string_equal(sig, "0-3,5,7-9");
	assert_int_equal(fence_sig_format(false, one, 1, sig, sizeof(sig)), 0);
	assert_string_equal(sig, "4");
}

static void test_format_refuses(void **state)
{
	static const uint32_t ranks[] = {0, 2, 4, 6};
	char sig[8];

	errno = 0;
	assert_int_equal(fence_sig_format(false, ranks, 0, sig, sizeof(sig)),
			 -1);
	assert_int_equal(errno, EINVAL);
	/* "0,2,4,6" needs 8 bytes with its NUL; 7 are too few. */
	assert_int_equal(fence_sig_format(false, ranks, 4, sig, 8), 0);
	assert_string_equal(sig, "0,2,4,6");
	errno = 0;
	assert_int_equal(fence_sig_format(false, ranks, 4, sig, 7), -1);
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_int_equal(fence_sig_format(true, NULL, 0, sig, 1), -1);
	assert_int_equal(errno, EINVAL);
}

/* 7 ranks on 4 nodes, block: 0-2 on node 0, 3-4 on 1, none on 2, 5-6 on 3. */
static void make_map(struct pmixev_taskmap *map)
{
	char err[128];

	assert_int_equal(pmixev_taskmap_parse(map, "0-2;3,4;;5,6", 4, 7, err,
					      sizeof(err)),
			 0);
}

static void test_nodes(void **state)
{
	struct pmixev_taskmap map;
	bool nodes[4];

	make_map(&map);
	assert_int_equal(fence_sig_nodes(&map, "*", nodes), 0);
	assert_true(nodes[0] && nodes[1] && !nodes[2] && nodes[3]);
	assert_int_equal(fence_sig_nodes(&map, "1-3", nodes), 0);
	assert_true(nodes[0] && nodes[1] && !nodes[2] && !nodes[3]);
	assert_int_equal(fence_sig_nodes(&map, "6", nodes), 0);
	assert_true(!nodes[0] && !nodes[1] && !nodes[2] && nodes[3]);
	assert_int_equal(fence_sig_nodes(&map, "0,5-6", nodes), 0);
	assert_true(nodes[0] && !nodes[1] && !nodes[2] && nodes[3]);
	pmixev_taskmap_free(&map);
}

/* A collective across steps: every part in (job, step) order, the own
 * one where it falls; its own part read by fence_sig_nodes and _ranks. */
static void test_xstep(void **state)
{
	static const uint32_t own[] = {3, 0, 1, 2}, five[] = {5};
	const struct pmixev_pmixd_part parts[] = {
		{.job = 7, .step = 0, .all = true},
		{.job = 9, .step = 2, .nranks = 1, .ranks = (uint32_t *)five}};
	uint32_t j[4], st[4], *ranks = NULL, n = 0;
	struct pmixev_taskmap map;
	char sig[64];
	bool nodes[4], all;

	(void)state;
	assert_int_equal(fence_sig_format_parts(7, 1, false, own, 4, parts, 2,
						sig, sizeof(sig)),
			 0);
	assert_string_equal(sig, "7.0:*@7.1:0-3@9.2:5");
	assert_int_equal(fence_sig_format_parts(7, 1, false, own, 4, parts, 0,
						sig, sizeof(sig)),
			 0);
	assert_string_equal(sig, "0-3");
	assert_int_equal(fence_sig_format_parts(6, 4, true, NULL, 0, parts, 1,
						sig, sizeof(sig)),
			 0);
	assert_string_equal(sig, "6.4:*@7.0:*");
	assert_int_equal(
		fence_sig_format_parts(7, 1, false, own, 4, parts, 2, sig, 19),
		-1);
	assert_int_equal(errno, EINVAL);
	/* The steps, in order; one step's signature names none. */
	assert_int_equal(fence_sig_steps("7.0:*@7.1:0-3@9.2:5", j, st, 4), 3);
	assert_true(j[0] == 7 && st[0] == 0 && j[2] == 9 && st[2] == 2);
	assert_int_equal(fence_sig_steps("0-3", j, st, 4), 0);
	assert_int_equal(fence_sig_steps("0-3#a.1:b", j, st, 4), 0);
	assert_int_equal(fence_sig_steps("7.0:*@7.1:0-3@9.2:5", j, st, 2), -1);
	assert_int_equal(fence_sig_steps("7.1:*@7.0:*", j, st, 4), -1);
	assert_int_equal(fence_sig_steps("7.0:*@7.0:*", j, st, 4), -1);
	assert_int_equal(fence_sig_steps("7.0:*", j, st, 4), -1);
	assert_int_equal(fence_sig_steps("7.0:*@x", j, st, 4), -1);
	/* The own part's rank text, and what reads it. */
	assert_string_equal(fence_sig_part("7.0:*@7.1:4@9.2:5", 7, 1),
			    "4@9.2:5");
	assert_string_equal(fence_sig_part("7.0:*@7.1:4", 7, 0), "*@7.1:4");
	assert_null(fence_sig_part("7.0:*@7.1:4", 9, 2));
	assert_string_equal(fence_sig_part("0-3#a.1:b", 7, 1), "0-3#a.1:b");
	make_map(&map);
	assert_int_equal(fence_sig_nodes(&map, "0,5-6@9.2:5", nodes), 0);
	assert_true(nodes[0] && !nodes[1] && !nodes[2] && nodes[3]);
	assert_int_equal(fence_sig_ranks(&map, "3-4@9.2:5", &all, &ranks, &n),
			 0);
	assert_true(!all && n == 2 && ranks[0] == 3 && ranks[1] == 4);
	free(ranks);
	assert_int_equal(fence_sig_ranks(&map, "*@9.2:5", &all, &ranks, &n), 0);
	assert_true(all);
	pmixev_taskmap_free(&map);
}

static void test_nodes_malformed(void **state)
{
	static const char *bad[] = {
		"",   "x",    "-1",  "3-1", "0-",
		"0,", ",0",   "0;1", "7",   "0-7",
		"1x", "0--2", "**",  " 1",  "99999999999999999999",
		"#x", "0#",   "*#",  "*x",  "0-#x",
		"#",  "0,#x"};
	struct pmixev_taskmap map;
	bool nodes[4];

	make_map(&map);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(fence_sig_nodes(&map, bad[i], nodes), -1);
	pmixev_taskmap_free(&map);
}

/* The ranks of a signature, group ones included; the same refusals. */
static void test_ranks(void **state)
{
	static const char *bad[] = {"",	   "x",	    "3-1", "7",	 "0,", "2,1",
				    "1,1", "0-2,2", "#x",  "0#", "*x", "0-#x"};
	struct pmixev_taskmap map;
	uint32_t *r, n;
	bool all;

	make_map(&map);
	assert_int_equal(fence_sig_ranks(&map, "*", &all, &r, &n), 0);
	assert_true(all);
	assert_null(r);
	assert_int_equal(fence_sig_ranks(&map, "*#g", &all, &r, &n), 0);
	assert_true(all);
	assert_int_equal(fence_sig_ranks(&map, "0,2-3,6#tag-1", &all, &r, &n),
			 0);
	assert_false(all);
	assert_int_equal(n, 4);
	assert_int_equal(r[0], 0);
	assert_int_equal(r[1], 2);
	assert_int_equal(r[2], 3);
	assert_int_equal(r[3], 6);
	free(r);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(fence_sig_ranks(&map, bad[i], &all, &r, &n),
				 -1);
	pmixev_taskmap_free(&map);
}

/* What one node formats, another reads back to the same nodes. */
static void test_round_trip(void **state)
{
	static const uint32_t ranks[] = {6, 0, 4};
	struct pmixev_taskmap map;
	bool nodes[4];
	char sig[32];

	make_map(&map);
	assert_int_equal(fence_sig_format(false, ranks, 3, sig, sizeof(sig)),
			 0);
	assert_string_equal(sig, "0,4,6");
	assert_int_equal(fence_sig_nodes(&map, sig, nodes), 0);
	assert_true(nodes[0] && nodes[1] && !nodes[2] && nodes[3]);
	pmixev_taskmap_free(&map);
}

/* Names are per kind and signature; each is made once. */
static void test_names(void **state)
{
	struct fence_sigs l = {.max = 8};
	struct fence_sig *a, *b, *c;

	a = fence_sig_get(&l, PMIXEV_COLL_FENCE, "*");
	b = fence_sig_get(&l, PMIXEV_COLL_CONNECT, "*");
	c = fence_sig_get(&l, PMIXEV_COLL_FENCE, "0-3");
	assert_non_null(a);
	assert_non_null(b);
	assert_non_null(c);
	assert_ptr_not_equal(a, b);
	assert_ptr_not_equal(a, c);
	assert_ptr_equal(fence_sig_get(&l, PMIXEV_COLL_FENCE, "*"), a);
	assert_ptr_equal(fence_sig_get(&l, PMIXEV_COLL_CONNECT, "*"), b);
	assert_ptr_equal(fence_sig_find(&l, PMIXEV_COLL_FENCE, "0-3"), c);
	assert_null(fence_sig_find(&l, PMIXEV_COLL_DISCONNECT, "0-3"));
	assert_int_equal(l.n, 3);
	assert_int_equal(a->kind, PMIXEV_COLL_FENCE);
	assert_string_equal(c->sig, "0-3");
	assert_true(a->next_local == 0 && a->done == 0 && a->last == PMIXEV_OK);
	assert_true(a->listed && a->live == 0);
	fence_sig_free(&l);
	assert_null(l.head);
	assert_int_equal(l.n, 0);
	fence_sig_free(&l);
	assert_string_equal(fence_kind_name(PMIXEV_COLL_FENCE), "fence");
	assert_string_equal(fence_kind_name(PMIXEV_COLL_CONNECT), "connect");
	assert_string_equal(fence_kind_name(PMIXEV_COLL_DISCONNECT),
			    "disconnect");
	assert_string_equal(fence_kind_name(PMIXEV_COLL_GROUP_CONSTRUCT),
			    "group construct");
	assert_string_equal(fence_kind_name(PMIXEV_COLL_GROUP_DESTRUCT),
			    "group destruct");
}

/* A group's signature: the ranks' text, '#', the id. */
static void test_group_format(void **state)
{
	static const uint32_t ranks[] = {3, 0, 1, 2};
	char sig[16];

	assert_int_equal(fence_sig_format_group(false, ranks, 4, "tag1", sig,
						sizeof(sig)),
			 0);
	assert_string_equal(sig, "0-3#tag1");
	assert_string_equal(fence_sig_group_id(sig), "tag1");
	assert_int_equal(
		fence_sig_format_group(true, NULL, 0, "a#b", sig, sizeof(sig)),
		0);
	assert_string_equal(sig, "*#a#b");
	/* The first '#' splits: an id may hold more. */
	assert_string_equal(fence_sig_group_id(sig), "a#b");
	assert_null(fence_sig_group_id("0-3"));
	assert_null(fence_sig_group_id("*"));
	/* "0-3#tag1" needs 9 bytes with its NUL; 8 are too few. */
	assert_int_equal(
		fence_sig_format_group(false, ranks, 4, "tag1", sig, 9), 0);
	errno = 0;
	assert_int_equal(
		fence_sig_format_group(false, ranks, 4, "tag1", sig, 8), -1);
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_int_equal(
		fence_sig_format_group(false, ranks, 4, "", sig, sizeof(sig)),
		-1);
	assert_int_equal(errno, EINVAL);
	errno = 0;
	assert_int_equal(
		fence_sig_format_group(false, ranks, 0, "x", sig, sizeof(sig)),
		-1);
	assert_int_equal(errno, EINVAL);
}

/* The bound: a 255-byte id leaves PMIXEV_SIG_MAX - 257 bytes of ranks. */
static void test_group_bound(void **state)
{
	uint32_t *ranks = calloc(4096, sizeof(*ranks));
	char id[256], *sig = malloc(PMIXEV_SIG_MAX);
	size_t n = 0, fit;

	assert_non_null(ranks);
	assert_non_null(sig);
	memset(id, 'g', 255);
	id[255] = '\0';
	/* Even ranks from 1000: "1000,1002,..." grows 5 bytes a rank. */
	for (n = 0; n < 4096; n++)
		ranks[n] = 1000 + 2 * (uint32_t)n;
	for (fit = 0; fit < 4096; fit++)
		if (fence_sig_format_group(false, ranks, fit + 1, id, sig,
					   PMIXEV_SIG_MAX) < 0)
			break;
	/* 4 bytes for the first, 5 for each other, '#', the id, NUL. */
	assert_int_equal(fit, (PMIXEV_SIG_MAX - 257 - 4) / 5 + 1);
	assert_int_equal(fence_sig_format_group(false, ranks, fit, id, sig,
						PMIXEV_SIG_MAX),
			 0);
	assert_true(strlen(sig) < PMIXEV_SIG_MAX);
	assert_string_equal(fence_sig_group_id(sig), id);
	free(ranks);
	free(sig);
}

/* The nodes of a group's signature are those of its ranks. */
static void test_group_nodes(void **state)
{
	struct pmixev_taskmap map;
	bool nodes[4];

	make_map(&map);
	assert_int_equal(fence_sig_nodes(&map, "1-3#tag", nodes), 0);
	assert_true(nodes[0] && nodes[1] && !nodes[2] && !nodes[3]);
	assert_int_equal(fence_sig_nodes(&map, "6#0-3", nodes), 0);
	assert_true(!nodes[0] && !nodes[1] && !nodes[2] && nodes[3]);
	assert_int_equal(fence_sig_nodes(&map, "*#x", nodes), 0);
	assert_true(nodes[0] && nodes[1] && !nodes[2] && nodes[3]);
	assert_int_equal(fence_sig_nodes(&map, "0,5-6##", nodes), 0);
	assert_true(nodes[0] && !nodes[1] && !nodes[2] && nodes[3]);
	/* The ranks are still checked against the map. */
	assert_int_equal(fence_sig_nodes(&map, "7#x", nodes), -1);
	pmixev_taskmap_free(&map);
}

/* Which group collectives a member's abort of an id reaches: those of
 * that id (the whole id after the first '#') that hold the member. */
static void test_group_has(void **state)
{
	struct pmixev_taskmap map;

	make_map(&map);
	assert_true(fence_sig_group_has(&map, "1-3,5#tag", "tag", 2));
	assert_true(fence_sig_group_has(&map, "1-3,5#tag", "tag", 5));
	assert_false(fence_sig_group_has(&map, "1-3,5#tag", "tag", 4));
	assert_false(fence_sig_group_has(&map, "1-3,5#tag", "tag", 0));
	assert_false(fence_sig_group_has(&map, "1-3,5#tag", "ta", 2));
	assert_false(fence_sig_group_has(&map, "1-3,5#tag", "tag2", 2));
	assert_true(fence_sig_group_has(&map, "*#a#b", "a#b", 6));
	assert_false(fence_sig_group_has(&map, "*#a#b", "a", 6));
	assert_false(fence_sig_group_has(&map, "*#a#b", "a#b", 7));
	/* Not a group's, or malformed. */
	assert_false(fence_sig_group_has(&map, "1-3", "1-3", 2));
	assert_false(fence_sig_group_has(&map, "3-1#tag", "tag", 2));
	assert_false(fence_sig_group_has(&map, "7#tag", "tag", 7));
	pmixev_taskmap_free(&map);
}

/* A name whose collective ended well, with nothing in flight or owed to
 * a local caller, is forgotten: the next one over the set is number 1. */
static void test_forget_done(void **state)
{
	struct fence_sigs l = {.max = 4};
	struct fence_sig *a, *b;

	a = fence_sig_get(&l, PMIXEV_COLL_FENCE, "0-3");
	a->next_local = 1;
	fence_sig_start(&l, a);
	assert_int_equal(l.live, 1);
	fence_sig_end(&l, a, 1, PMIXEV_OK);
	assert_int_equal(l.live, 0);
	assert_int_equal(l.n, 0);
	assert_null(fence_sig_find(&l, PMIXEV_COLL_FENCE, "0-3"));
	/* A node that hosts none of the ranks forgets it too. */
	b = fence_sig_get(&l, PMIXEV_COLL_FENCE, "4");
	fence_sig_start(&l, b);
	fence_sig_end(&l, b, 1, PMIXEV_OK);
	assert_int_equal(l.n, 0);
	/* Kept while another of its collectives is in flight. */
	a = fence_sig_get(&l, PMIXEV_COLL_FENCE, "0-3");
	a->next_local = 2;
	fence_sig_start(&l, a);
	fence_sig_start(&l, a);
	fence_sig_end(&l, a, 1, PMIXEV_OK);
	assert_ptr_equal(fence_sig_find(&l, PMIXEV_COLL_FENCE, "0-3"), a);
	assert_int_equal(a->done, 1);
	fence_sig_end(&l, a, 2, PMIXEV_OK);
	assert_int_equal(l.n, 0);
	fence_sig_free(&l);
}

/* A failed one is remembered (a local caller still to come gets the
 * failure), until a new name needs its place. */
static void test_failed_kept(void **state)
{
	struct fence_sigs l = {.max = 2};
	struct fence_sig *a, *b, *c;

	a = fence_sig_get(&l, PMIXEV_COLL_FENCE, "0-1");
	fence_sig_start(&l, a);
	fence_sig_end(&l, a, 1, PMIXEV_ERR_TIMEOUT);
	assert_ptr_equal(fence_sig_find(&l, PMIXEV_COLL_FENCE, "0-1"), a);
	assert_true(a->done == 1 && a->last == PMIXEV_ERR_TIMEOUT);
	assert_int_equal(l.live, 0);
	/* Owed to a local caller: kept even when it ended well. */
	b = fence_sig_get(&l, PMIXEV_COLL_FENCE, "2-3");
	fence_sig_start(&l, b);
	fence_sig_start(&l, b);
	fence_sig_end(&l, b, 1, PMIXEV_OK);
	assert_int_equal(l.n, 2);
	/* Full: a new name takes the place of the oldest not in flight. */
	c = fence_sig_get(&l, PMIXEV_COLL_CONNECT, "0-3");
	assert_non_null(c);
	assert_int_equal(l.n, 2);
	assert_null(fence_sig_find(&l, PMIXEV_COLL_FENCE, "0-1"));
	assert_ptr_equal(fence_sig_find(&l, PMIXEV_COLL_FENCE, "2-3"), b);
	fence_sig_free(&l);
}

/* PMIxevFenceMax bounds the names and the collectives in flight. */
static void test_bound(void **state)
{
	struct fence_sigs l = {.max = 3};
	struct fence_sig *ss, standin = {.kind = PMIXEV_COLL_FENCE};
	char sig[16];

	for (int i = 0; i < 3; i++) {
		snprintf(sig, sizeof(sig), "%d", i);
		assert_true(fence_sig_room(&l));
		ss = fence_sig_get(&l, PMIXEV_COLL_FENCE, sig);
		assert_non_null(ss);
		fence_sig_start(&l, ss);
	}
	assert_false(fence_sig_room(&l));
	errno = 0;
	assert_null(fence_sig_get(&l, PMIXEV_COLL_FENCE, "7"));
	assert_int_equal(errno, ENOSPC);
	assert_int_equal(l.n, 3);
	/* A name it holds is still found. */
	assert_non_null(fence_sig_get(&l, PMIXEV_COLL_FENCE, "1"));
	/* A stand-in (refused here) is counted while in flight only. */
	fence_sig_start(&l, &standin);
	assert_int_equal(l.live, 4);
	fence_sig_end(&l, &standin, 1, PMIXEV_ERR_OVER_BUDGET);
	assert_int_equal(l.live, 3);
	assert_int_equal(l.n, 3);
	/* One ends (failed): there is room again, and its place. */
	ss = fence_sig_find(&l, PMIXEV_COLL_FENCE, "0");
	fence_sig_end(&l, ss, 1, PMIXEV_ERR_OVER_BUDGET);
	assert_true(fence_sig_room(&l));
	assert_non_null(fence_sig_get(&l, PMIXEV_COLL_FENCE, "7"));
	assert_null(fence_sig_find(&l, PMIXEV_COLL_FENCE, "0"));
	fence_sig_free(&l);
	assert_int_equal(l.live, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_format_refuses),
		cmocka_unit_test(test_nodes),
		cmocka_unit_test(test_xstep),
		cmocka_unit_test(test_nodes_malformed),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_group_format),
		cmocka_unit_test(test_group_bound),
		cmocka_unit_test(test_group_nodes),
		cmocka_unit_test(test_group_has),
		cmocka_unit_test(test_ranks),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_forget_done),
		cmocka_unit_test(test_failed_kept),
		cmocka_unit_test(test_bound),
	};

	return cmocka_run_group_tests_name("fence_sig", tests, NULL, NULL);
}
