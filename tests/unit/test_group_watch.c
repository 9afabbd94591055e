/*
 * Unit tests for plugins/mpi_pmixev/pmixside/group_watch.c: which ends of
 * which members become PMIX_GROUP_MEMBER_FAILED or _LEADER_FAILED, for
 * whom on this node; destructs that forget a group (as asked, or without
 * its failed members); the bound. inject_pmix_event is replaced by a
 * recorder; the layout is built by hand: 6 ranks, 0-2 on node 0, 3-4 on
 * node 1, 5 on node 2, seen from node 0.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <pmix.h>

#include "pmixev_log.h"
#include "pmixev_pmixd_group.h"
#include "pmixside/group_watch.h"

#define NTASKS 6
#define NS     "slurm.pmixev.1.0"
#define NONE   PMIXEV_PMIXD_NO_RANK

/* What the watch told, the last event's details. */
static struct {
	unsigned n, undelivered, errors;
	pmix_status_t code;
	pmix_rank_t targets[NTASKS], affected;
	size_t ntargets;
	size_t ctxid;
	bool nondefault;
	char id[64];
} got;

void inject_pmix_event(struct inject_pmix *in, const char *source_name,
		       pmix_status_t code, const pmix_proc_t *source,
		       pmix_data_range_t range, pmix_info_t *info,
		       size_t nalloc, size_t ninfo)
{
	assert_int_equal(range, PMIX_RANGE_CUSTOM);
	assert_string_equal(source->nspace, NS ".srv");
	assert_string_equal(source_name, "groups@n1");
	got.n++;
	got.code = code;
	got.ntargets = 0;
	got.ctxid = 0;
	got.nondefault = false;
	for (size_t i = 0; i < ninfo; i++) {
		const pmix_value_t *v = &info[i].value;

		if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_CUSTOM_RANGE)) {
			const pmix_proc_t *p = v->data.darray->array;

			for (size_t k = 0; k < v->data.darray->size; k++)
				got.targets[got.ntargets++] = p[k].rank;
		} else if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC)) {
			got.affected = v->data.proc->rank;
		} else if (PMIX_CHECK_KEY(&info[i], PMIX_GROUP_ID)) {
			snprintf(got.id, sizeof(got.id), "%s", v->data.string);
		} else if (PMIX_CHECK_KEY(&info[i], PMIX_GROUP_CONTEXT_ID)) {
			got.ctxid = v->data.size;
		} else if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_NON_DEFAULT)) {
			got.nondefault = v->data.flag;
		}
	}
	PMIX_INFO_FREE(info, nalloc);
}

void inject_pmix_undelivered(struct inject_pmix *in, const char *source,
			     const char *why)
{
	got.undelivered++;
}

void pmixev_log(enum pmixev_log_level level, const char *fmt, ...)
{
	got.errors += level == PMIXEV_LOG_ERROR;
}

void pmixev_log_debug(unsigned dbg, const char *fmt, ...)
{
}

static uint32_t node_of[NTASKS] = {0, 0, 0, 1, 1, 2};
static uint32_t count[3] = {3, 2, 1};
static uint32_t ranks0[] = {0, 1, 2}, ranks1[] = {3, 4}, ranks2[] = {5};
static uint32_t *ranks[3] = {ranks0, ranks1, ranks2};
static char *names[3] = {"n1", "n2", "n3"};
static struct layout lay;
static struct group_watch *w;

static int setup(void **state)
{
	memset(&lay, 0, sizeof(lay));
	memset(&got, 0, sizeof(got));
	lay.step.ntasks = lay.map.ntasks = NTASKS;
	lay.step.nnodes = lay.map.nnodes = 3;
	lay.map.node_of = node_of;
	lay.map.count = count;
	lay.map.ranks = ranks;
	lay.nodes = names;
	lay.nnames = 3;
	lay.nodeid = 0;
	snprintf(lay.nspace, sizeof(lay.nspace), NS);
	snprintf(lay.srv_nspace, sizeof(lay.srv_nspace), NS ".srv");
	w = group_watch_create(&lay, NULL);
	return w ? 0 : -1;
}

static int teardown(void **state)
{
	group_watch_destroy(w);
	return 0;
}

static bool told(const pmix_rank_t *want, size_t n)
{
	if (got.ntargets != n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (got.targets[i] != want[i])
			return false;
	return true;
}

/* NOTIFY_TERMINATION without a leader: every other local member; with a
 * leader here, the leader only; a group without it: nothing. */
static void test_member_failed(void **state)
{
	static const uint32_t all5[] = {0, 1, 3, 4, 5}, pair[] = {1, 4};

	group_watch_add(w, "g", false, all5, 5, NULL, 0, 7,
			PMIXEV_PMIXD_GROUP_NOTIFY_TERM, NONE);
	group_watch_add(w, "quiet", false, pair, 2, NULL, 0, 0, 0, NONE);
	group_watch_rank_end(w, 5);
	assert_int_equal(got.n, 1);
	assert_int_equal(got.code, PMIX_GROUP_MEMBER_FAILED);
	assert_true(told((const pmix_rank_t[]){0, 1}, 2));
	assert_int_equal(got.affected, 5);
	assert_string_equal(got.id, "g");
	assert_int_equal(got.ctxid, 7);
	assert_true(got.nondefault);
	/* rank 2 is not a member; rank 4 of "quiet": no event */
	group_watch_rank_end(w, 2);
	group_watch_rank_end(w, 4);
	assert_int_equal(got.n, 2); /* "g": rank 4 is its member */
	assert_true(told((const pmix_rank_t[]){0, 1}, 2));
	group_watch_destroy(w);
	w = group_watch_create(&lay, NULL);
	got.n = 0;
	group_watch_add(w, "led", false, all5, 5, NULL, 0, 0,
			PMIXEV_PMIXD_GROUP_NOTIFY_TERM, 1);
	group_watch_rank_end(w, 3);
	assert_int_equal(got.n, 1);
	assert_true(told((const pmix_rank_t[]){1}, 1));
	assert_int_equal(got.ctxid, 0);
}

/* The leader's end: every other local member, with or without
 * NOTIFY_TERMINATION; a leader elsewhere whose node has no other member
 * here tells nobody here. */
static void test_leader_failed(void **state)
{
	static const uint32_t set[] = {0, 2, 3};

	group_watch_add(w, "l", false, set, 3, NULL, 0, 0, 0, 0);
	group_watch_rank_end(w, 0);
	assert_int_equal(got.n, 1);
	assert_int_equal(got.code, PMIX_GROUP_LEADER_FAILED);
	assert_true(told((const pmix_rank_t[]){2}, 1));
	group_watch_add(w, "m", true, NULL, 0, NULL, 0, 0, 0, 3);
	group_watch_rank_end(w, 3);
	assert_int_equal(got.code, PMIX_GROUP_LEADER_FAILED);
	assert_true(told((const pmix_rank_t[]){0, 1, 2}, 3));
}

/* A destruct names a group by its members as asked or as constructed
 * (without the failed); another member set or id forgets nothing. */
static void test_remove(void **state)
{
	static const uint32_t asked[] = {0, 1, 5}, built[] = {0, 1},
			      failed[] = {5};

	group_watch_add(w, "g", false, asked, 3, failed, 1, 0,
			PMIXEV_PMIXD_GROUP_OPTIONAL, NONE);
	group_watch_add(w, "g", false, asked, 3, failed, 1, 0,
			PMIXEV_PMIXD_GROUP_NOTIFY_TERM, NONE);
	group_watch_add(w, "all", true, NULL, 0, failed, 1, 0,
			PMIXEV_PMIXD_GROUP_NOTIFY_TERM, NONE);
	assert_int_equal(group_watch_remove(w, "h", false, asked, 3), 0);
	assert_int_equal(
		group_watch_remove(w, "g", false, (const uint32_t[]){0, 5}, 2),
		0);
	assert_int_equal(group_watch_remove(w, "g", false, built, 2),
			 PMIXEV_PMIXD_GROUP_NOTIFY_TERM);
	assert_int_equal(group_watch_remove(w, "g", false, asked, 3),
			 PMIXEV_PMIXD_GROUP_OPTIONAL);
	assert_int_equal(group_watch_remove(w, "g", false, asked, 3), 0);
	/* all but the failed 5, named one by one */
	assert_int_equal(group_watch_remove(w, "all", false,
					    (const uint32_t[]){0, 1, 2, 3, 4},
					    5),
			 PMIXEV_PMIXD_GROUP_NOTIFY_TERM);
	group_watch_rank_end(w, 1);
	assert_int_equal(got.n, 0);
}

/* Beyond PMIXEV_GROUP_WATCH_MAX groups: not watched, logged once. */
static void test_bound(void **state)
{
	static const uint32_t pair[] = {0, 1};

	for (unsigned i = 0; i < PMIXEV_GROUP_WATCH_MAX + 3; i++)
		group_watch_add(w, "b", false, pair, 2, NULL, 0, 0,
				PMIXEV_PMIXD_GROUP_NOTIFY_TERM, NONE);
	assert_int_equal(got.errors, 1);
	group_watch_rank_end(w, 1);
	assert_int_equal(got.n, PMIXEV_GROUP_WATCH_MAX);
	group_watch_destroy(w);
	w = NULL;
	assert_int_equal(got.errors, 2); /* the count at the end */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_member_failed, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_leader_failed, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_remove, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bound, setup, teardown),
	};

	cmocka_set_message_output(CM_OUTPUT_TAP);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
