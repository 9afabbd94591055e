/*
 * Unit tests for common/pmixev_taskmap.c: formatting of step layouts,
 * round trips through the parser, the parsed tables, and every way the
 * parser rejects a task map.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pmixev_taskmap.h"

#define MAXN 16

/* A step layout as srun has it: per-node sorted rank lists. */
struct layout {
	uint32_t nnodes, ntasks;
	uint16_t count[MAXN];
	uint32_t *ranks[MAXN];
	uint32_t *node_of;
};

/* Build the layout that puts rank r on node where(r). */
static void layout_init(struct layout *l, uint32_t nnodes, uint32_t ntasks,
			uint32_t (*where)(uint32_t r, uint32_t nnodes))
{
	memset(l, 0, sizeof(*l));
	l->nnodes = nnodes;
	l->ntasks = ntasks;
	l->node_of = malloc(ntasks * sizeof(*l->node_of));
	assert_non_null(l->node_of);
	for (uint32_t n = 0; n < nnodes; n++) {
		l->ranks[n] = malloc(ntasks * sizeof(uint32_t));
		assert_non_null(l->ranks[n]);
	}
	for (uint32_t r = 0; r < ntasks; r++) {
		uint32_t n = where(r, nnodes);

		l->node_of[r] = n;
		l->ranks[n][l->count[n]++] = r;
	}
}

static void layout_free(struct layout *l)
{
	for (uint32_t n = 0; n < l->nnodes; n++)
		free(l->ranks[n]);
	free(l->node_of);
}

static uint32_t cyclic(uint32_t r, uint32_t nnodes)
{
	return r % nnodes;
}

static uint32_t plane4(uint32_t r, uint32_t nnodes)
{
	return (r / 4) % nnodes;
}

/* Blocks of 100 ranks per node, the last node taking the rest. */
static uint32_t block(uint32_t r, uint32_t nnodes)
{
	return r < 100 * (nnodes - 1) ? r / 100 : nnodes - 1;
}

/* Format the layout, parse it back and check every table of the map. */
static void round_trip(const struct layout *l, const char *want)
{
	struct pmixev_taskmap m;
	uint16_t count[MAXN];
	char err[128] = "";
	char *text, *again;

	text = pmixev_taskmap_format(l->nnodes, l->count, l->ranks);
	assert_non_null(text);
	if (want)
		assert_string_equal(text, want);
	assert_int_equal(pmixev_taskmap_parse(&m, text, l->nnodes, l->ntasks,
					      err, sizeof(err)),
			 0);
	assert_string_equal(err, "");
	assert_int_equal(m.nnodes, l->nnodes);
	assert_int_equal(m.ntasks, l->ntasks);
	for (uint32_t n = 0; n < l->nnodes; n++) {
		assert_int_equal(m.count[n], l->count[n]);
		assert_memory_equal(m.ranks[n], l->ranks[n],
				    l->count[n] * sizeof(uint32_t));
		count[n] = (uint16_t)m.count[n];
	}
	for (uint32_t r = 0; r < l->ntasks; r++) {
		uint32_t n = l->node_of[r];

		assert_int_equal(m.node_of[r], n);
		assert_int_equal(l->ranks[n][m.local_of[r]], r);
	}
	again = pmixev_taskmap_format(m.nnodes, count, m.ranks);
	assert_non_null(again);
	assert_string_equal(again, text);
	free(again);
	free(text);
	pmixev_taskmap_free(&m);
}

static void test_format_examples(void **state)
{
	uint32_t a[] = {0, 1, 5, 6, 7}, b[] = {2, 3, 4};
	uint32_t c[] = {4294967294u, 4294967295u}, d[] = {UINT32_MAX, 0};
	uint32_t *two[] = {a, b}, *gap[] = {b, NULL, a};
	uint16_t n2[] = {5, 3}, ngap[] = {3, 0, 1};
	char *s;

	s = pmixev_taskmap_format(2, n2, two);
	assert_string_equal(s, "0-1,5-7;2-4");
	free(s);
	s = pmixev_taskmap_format(3, ngap, gap);
	assert_string_equal(s, "2-4;;0");
	free(s);
	two[0] = c;
	two[1] = d;
	n2[0] = 2;
	n2[1] = 2;
	s = pmixev_taskmap_format(2, n2, two);
	/* no run across the 32-bit wrap */
	assert_string_equal(s, "4294967294-4294967295;4294967295,0");
	free(s);
	s = pmixev_taskmap_format(0, NULL, NULL);
	assert_string_equal(s, "");
	free(s);
	assert_null(pmixev_taskmap_format(1, NULL, two));
	assert_null(pmixev_taskmap_format(1, n2, NULL));
}

static void test_round_trips(void **state)
{
	struct layout l;

	layout_init(&l, 3, 6, cyclic);
	round_trip(&l, "0,3;1,4;2,5");
	layout_free(&l);

	layout_init(&l, 3, 24, plane4);
	round_trip(&l, "0-3,12-15;4-7,16-19;8-11,20-23");
	layout_free(&l);

	layout_init(&l, 2, 10, plane4);
	round_trip(&l, "0-3,8-9;4-7");
	layout_free(&l);

	layout_init(&l, 4, 2, cyclic);
	round_trip(&l, "0;1;;");
	layout_free(&l);

	layout_init(&l, 10, 1000, block);
	round_trip(&l, "0-99;100-199;200-299;300-399;400-499;500-599;"
		       "600-699;700-799;800-899;900-999");
	layout_free(&l);

	layout_init(&l, 7, 1000, cyclic);
	round_trip(&l, NULL);
	layout_free(&l);

	layout_init(&l, 16, 3001, plane4);
	round_trip(&l, NULL);
	layout_free(&l);

	layout_init(&l, 1, 1, cyclic);
	round_trip(&l, "0");
	layout_free(&l);
}

static void test_parsed_tables(void **state)
{
	static const uint32_t node_of[] = {0, 0, 0, 0, 1, 2};
	static const uint32_t local_of[] = {0, 1, 2, 3, 0, 0};
	struct pmixev_taskmap m;
	char err[128];

	assert_int_equal(
		pmixev_taskmap_parse(&m, "0-3;4;5", 3, 6, err, sizeof(err)), 0);
	assert_memory_equal(m.node_of, node_of, sizeof(node_of));
	assert_memory_equal(m.local_of, local_of, sizeof(local_of));
	assert_int_equal(m.count[0], 4);
	assert_int_equal(m.count[1], 1);
	assert_int_equal(m.count[2], 1);
	assert_int_equal(m.ranks[0][3], 3);
	assert_int_equal(m.ranks[1][0], 4);
	assert_int_equal(m.ranks[2][0], 5);
	pmixev_taskmap_free(&m);

	assert_int_equal(pmixev_taskmap_parse(&m, "3,5-6;;0-2,4", 3, 7, err,
					      sizeof(err)),
			 0);
	assert_int_equal(m.count[0], 3);
	assert_int_equal(m.count[1], 0);
	assert_int_equal(m.count[2], 4);
	assert_int_equal(m.node_of[4], 2);
	assert_int_equal(m.local_of[4], 3);
	assert_int_equal(m.node_of[6], 0);
	assert_int_equal(m.local_of[6], 2);
	assert_int_equal(m.ranks[0][1], 5);
	assert_int_equal(m.ranks[2][3], 4);
	pmixev_taskmap_free(&m);

	/* the largest step accepted */
	assert_int_equal(pmixev_taskmap_parse(&m, "0-16777215", 1, 1u << 24,
					      err, sizeof(err)),
			 0);
	assert_int_equal(m.count[0], 1u << 24);
	assert_int_equal(m.local_of[(1u << 24) - 1], (1u << 24) - 1);
	pmixev_taskmap_free(&m);
}

static void test_rejects(void **state)
{
	static const struct {
		const char *text;
		uint32_t nnodes, ntasks;
		const char *err;
	} bad[] = {
		{"", 1, 1, "rank 0 is missing"},
		{"0-3;4", 3, 6, "expected 3 node groups, found 2"},
		{"0-3;4;5;", 3, 6, "expected 3 node groups, found 4"},
		{"0-5", 3, 6, "expected 3 node groups, found 1"},
		{"0-3;4;4", 3, 6, "rank 4 appears twice"},
		{"0-3;3-4;5", 3, 6, "rank 3 appears twice"},
		{"0-3,2;4;5", 3, 6, "rank 2 appears twice"},
		{"0,0;4;5", 3, 6, "rank 0 appears twice"},
		{"0-3;4;+5", 3, 6, "bad number at offset 6"},
		{"0-3;4;-5", 3, 6, "bad number at offset 6"},
		{"0-3;4; 5", 3, 6, "bad number at offset 6"},
		{"0-3;4;05", 3, 6, "bad number at offset 6"},
		{"00-3;4;5", 3, 6, "bad number at offset 0"},
		{"0-03;4;5", 3, 6, "bad number at offset 2"},
		{"0-3,;4;5", 3, 6, "bad number at offset 4"},
		{",0-3;4;5", 3, 6, "bad number at offset 0"},
		{"0-;4;5", 3, 6, "bad number at offset 2"},
		{"0-3;4;5 ", 3, 6, "unexpected character at offset 7"},
		{"0-3;4;5x", 3, 6, "unexpected character at offset 7"},
		{"0-3-4;5;", 3, 6, "unexpected character at offset 3"},
		{"0-3;4;5\xff", 3, 6, "unexpected character at offset 7"},
		{"3-0;4;5", 3, 6, "bad range 3-0 at offset 0"},
		{"0-0,1-3;4;5", 3, 6, "bad range 0-0 at offset 0"},
		{"1,0,2-3;4;5", 3, 6, "rank 0 out of order at offset 2"},
		{"0,2-3,1;4;5", 3, 6, "rank 1 out of order at offset 6"},
		{"0-3;4;6", 3, 6, "rank 6 >= ntasks 6"},
		{"0-9;4;5", 3, 6, "rank 9 >= ntasks 6"},
		{"0-3;4;4294967295", 3, 6, "rank 4294967295 >= ntasks 6"},
		{"0-3;4;4294967296", 3, 6, "number too large at offset 6"},
		{"0-3;4;99999999999999999999", 3, 6,
		 "number too large at offset 6"},
		{"0-2;4;5", 3, 6, "rank 3 is missing"},
		{"0-4;;", 3, 6, "rank 5 is missing"},
		{"0-3;4;5", 0, 6, "step has no nodes"},
		{"", 1, 0, "step has no tasks"},
		{"0", 1, (1u << 24) + 1,
		 "16777217 tasks exceed the limit of "
		 "16777216"},
		{NULL, 1, 1, "no task map"},
	};
	struct pmixev_taskmap m, orig;
	char err[128];

	memset(&orig, 0xa5, sizeof(orig));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memcpy(&m, &orig, sizeof(m));
		err[0] = '\0';
		assert_int_equal(
			pmixev_taskmap_parse(&m, bad[i].text, bad[i].nnodes,
					     bad[i].ntasks, err, sizeof(err)),
			-1);
		assert_string_equal(err, bad[i].err);
		assert_memory_equal(&m, &orig, sizeof(m));
	}
	/* no room for a message is fine, and so is a truncated one */
	assert_int_equal(pmixev_taskmap_parse(&m, "x", 1, 1, NULL, 0), -1);
	assert_int_equal(pmixev_taskmap_parse(&m, "0;0", 2, 1, err, 5), -1);
	assert_string_equal(err, "rank");
	assert_memory_equal(&m, &orig, sizeof(m));
}

/* The ANL notation of `text` (nnodes, ntasks) is `anl`. */
static void anl_is(const char *text, uint32_t nnodes, uint32_t ntasks,
		   const char *anl)
{
	struct pmixev_taskmap map;
	char err[128], *got;

	assert_int_equal(pmixev_taskmap_parse(&map, text, nnodes, ntasks, err,
					      sizeof(err)),
			 0);
	got = pmixev_taskmap_anl(&map);
	assert_non_null(got);
	assert_string_equal(got, anl);
	free(got);
	pmixev_taskmap_free(&map);
}

static void test_anl(void **state)
{
	struct pmixev_taskmap none = {0};

	(void)state;
	anl_is("0-1;2-3;4-5", 3, 6, "(vector,(0,3,2))");
	anl_is("0,3;1,4;2,5", 3, 6, "(vector,(0,3,1),(0,3,1))");
	anl_is("0-3;4;5", 3, 6, "(vector,(0,1,4),(1,2,1))");
	anl_is("0", 1, 1, "(vector,(0,1,1))");
	/* a node without tasks breaks the triple */
	anl_is("0-1;;2-3", 3, 4, "(vector,(0,1,2),(2,1,2))");
	/* plane: runs of two, then the rest */
	anl_is("0-1,4;2-3", 2, 5, "(vector,(0,2,2),(0,1,1))");
	anl_is("1;0", 2, 2, "(vector,(1,1,1),(0,1,1))");
	assert_null(pmixev_taskmap_anl(&none));
	assert_null(pmixev_taskmap_anl(NULL));
}

static void test_map_free(void **state)
{
	struct pmixev_taskmap m;
	char err[128];

	pmixev_taskmap_free(NULL);
	memset(&m, 0, sizeof(m));
	pmixev_taskmap_free(&m);
	assert_int_equal(
		pmixev_taskmap_parse(&m, "1;0", 2, 2, err, sizeof(err)), 0);
	assert_non_null(m.ranks);
	pmixev_taskmap_free(&m);
	assert_null(m.node_of);
	assert_null(m.local_of);
	assert_null(m.count);
	assert_null(m.ranks);
	assert_int_equal(m.nnodes, 0);
	assert_int_equal(m.ntasks, 0);
	pmixev_taskmap_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_examples),
		cmocka_unit_test(test_round_trips),
		cmocka_unit_test(test_parsed_tables),
		cmocka_unit_test(test_rejects),
		cmocka_unit_test(test_anl),
		cmocka_unit_test(test_map_free),
	};

	return cmocka_run_group_tests_name("taskmap", tests, NULL, NULL);
}
