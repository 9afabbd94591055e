/*
 * Unit tests for plugins/mpi_pmixev/pmixside/xlinks.c: which local ranks a
 * cross-step connect links to which steps, a disconnect unlinks, and the
 * bound. The step: 2 nodes, 8 tasks in blocks, this node 0 (ranks 0-3).
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pmixev_log.h"
#include "pmixside/xlinks.h"

static int errors;

void pmixev_log(enum pmixev_log_level level, const char *fmt, ...)
{
	(void)fmt;
	errors += level == PMIXEV_LOG_ERROR;
}

void pmixev_log_debug(unsigned dbg, const char *fmt, ...)
{
	(void)dbg;
	(void)fmt;
}

static struct layout lay;

static int setup(void **state)
{
	char err[128];

	(void)state;
	lay.step.job_id = 7;
	lay.step.ntasks = 8;
	lay.nodeid = 0;
	snprintf(lay.step.id, sizeof(lay.step.id), "7.0");
	return pmixev_taskmap_parse(&lay.map, "0-3;4-7", 2, 8, err,
				    sizeof(err));
}

static int teardown(void **state)
{
	(void)state;
	pmixev_taskmap_free(&lay.map);
	return 0;
}

/* A (dis)connect of `ranks` (NULL: all) of this step with steps 7.s[]
 * that succeeds, or fails (`fail`): what it links while it runs. */
static void run(struct xlinks *x, enum pmixev_coll_kind kind, uint32_t *ranks,
		uint32_t nranks, const uint32_t *steps, uint32_t nsteps,
		bool fail)
{
	struct pmixev_pmixd_part parts[1200] = {{0}};
	struct pmixev_pmixd_fence m = {.kind = kind,
				       .all = !ranks,
				       .ranks = ranks,
				       .nranks = nranks,
				       .nparts = nsteps,
				       .parts = parts};
	struct xlinks_note *n;

	for (uint32_t i = 0; i < nsteps; i++)
		parts[i] = (struct pmixev_pmixd_part){
			.job = 7, .step = steps[i], .all = true};
	n = xlinks_note_make(&lay, &m);
	assert_non_null(n);
	xlinks_begin(x, n);
	if (kind == PMIXEV_COLL_CONNECT && !fail)
		assert_true(xlinks_ranks(x, 7, steps[0], (uint32_t[8]){0}, 8) >
			    0);
	xlinks_end(x, n, !fail);
	xlinks_note_free(n);
}

static void apply(struct xlinks *x, enum pmixev_coll_kind kind, uint32_t *ranks,
		  uint32_t nranks, const uint32_t *steps, uint32_t nsteps)
{
	run(x, kind, ranks, nranks, steps, nsteps, false);
}

static void expect(struct xlinks *x, uint32_t step, const uint32_t *want,
		   size_t nwant)
{
	uint32_t got[16];

	assert_int_equal(xlinks_ranks(x, 7, step, got, 16), nwant);
	if (nwant)
		assert_memory_equal(got, want, nwant * sizeof(*got));
}

static void test_connect_disconnect(void **state)
{
	struct xlinks *x = xlinks_create(&lay);
	uint32_t two[] = {3, 0}, some[] = {1, 5}, got[2];

	(void)state;
	assert_non_null(x);
	/* All ranks with steps 1 and 2: the local ones, 0-3, to each. */
	apply(x, PMIXEV_COLL_CONNECT, NULL, 0, (uint32_t[]){1, 2}, 2);
	expect(x, 1, (uint32_t[]){0, 1, 2, 3}, 4);
	expect(x, 2, (uint32_t[]){0, 1, 2, 3}, 4);
	expect(x, 3, NULL, 0);
	/* Twice: no duplicates. A disconnect of 1 and 5 (not local) from
	 * step 1 leaves 0, 2, 3; step 2 keeps its four. */
	apply(x, PMIXEV_COLL_CONNECT, NULL, 0, (uint32_t[]){1}, 1);
	apply(x, PMIXEV_COLL_DISCONNECT, some, 2, (uint32_t[]){1}, 1);
	expect(x, 1, (uint32_t[]){0, 2, 3}, 3);
	expect(x, 2, (uint32_t[]){0, 1, 2, 3}, 4);
	/* In increasing order whatever the order they came in; at most
	 * `max`. */
	apply(x, PMIXEV_COLL_CONNECT, two, 2, (uint32_t[]){4}, 1);
	expect(x, 4, (uint32_t[]){0, 3}, 2);
	assert_int_equal(xlinks_ranks(x, 7, 2, got, 2), 2);
	assert_int_equal(got[1], 1);
	/* Another job's step of the same number is another step. */
	assert_int_equal(xlinks_ranks(x, 8, 1, got, 2), 0);
	/* A connect links while it runs: failed, it takes back its links
	 * only (step 4's ranks 0 and 3 stay, 1 and 2 go); a failed
	 * disconnect unlinks nothing. */
	run(x, PMIXEV_COLL_CONNECT, NULL, 0, (uint32_t[]){4}, 1, true);
	expect(x, 4, (uint32_t[]){0, 3}, 2);
	run(x, PMIXEV_COLL_DISCONNECT, NULL, 0, (uint32_t[]){4}, 1, true);
	expect(x, 4, (uint32_t[]){0, 3}, 2);
	run(x, PMIXEV_COLL_DISCONNECT, NULL, 0, (uint32_t[]){4}, 1, false);
	expect(x, 4, NULL, 0);
	xlinks_begin(x, NULL);
	xlinks_end(x, NULL, true);
	xlinks_destroy(x);
	assert_int_equal(errors, 0);
}

static void test_no_note(void **state)
{
	struct pmixev_pmixd_part part = {.job = 7, .step = 1, .all = true};
	struct pmixev_pmixd_fence fence = {.kind = PMIXEV_COLL_FENCE,
					   .all = true,
					   .nparts = 1,
					   .parts = &part},
				  within = {.kind = PMIXEV_COLL_CONNECT,
					    .all = true};

	(void)state;
	assert_null(xlinks_note_make(&lay, &fence));
	assert_null(xlinks_note_make(&lay, &within));
	xlinks_note_free(NULL);
}

static void test_bound(void **state)
{
	struct xlinks *x = xlinks_create(&lay);
	uint32_t steps[1100], got[4];
	size_t kept = 0;

	(void)state;
	for (uint32_t i = 0; i < 1100; i++)
		steps[i] = i + 1;
	errors = 0;
	/* 4 local ranks x 1100 steps: 4096 kept, the rest counted. */
	apply(x, PMIXEV_COLL_CONNECT, NULL, 0, steps, 1100);
	for (uint32_t i = 0; i < 1100; i++)
		kept += xlinks_ranks(x, 7, steps[i], got, 4);
	assert_int_equal(kept, XLINKS_MAX);
	assert_true(errors > 0);
	/* A disconnect makes room again. */
	apply(x, PMIXEV_COLL_DISCONNECT, NULL, 0, steps, 1);
	apply(x, PMIXEV_COLL_CONNECT, NULL, 0, &steps[1099], 1);
	assert_int_equal(xlinks_ranks(x, 7, 1100, got, 4), 4);
	xlinks_destroy(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_connect_disconnect),
		cmocka_unit_test(test_no_note),
		cmocka_unit_test(test_bound),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
