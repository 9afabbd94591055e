/*
 * Unit tests for plugins/mpi_pmixev/pmixside/invite_watch.c: which ends
 * of which processes become PMIX_GROUP_INVITE_FAILED or _LEADER_FAILED,
 * for whom, on which node; joins, completes and the bound. The server's
 * PMIx_Notify_event is replaced by a recorder (this file's definition
 * wins over the library's); the layout is built by hand: 6 ranks, 0-1 on
 * node 0, 2-3 on node 1, 4-5 on node 2.
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
#include "pmixside/invite_watch.h"

#define NTASKS 6
#define NS     "slurm.pmixev.1.0"

/* What the watch notified, the last one's details. */
static struct {
	unsigned n, errors;
	pmix_status_t code;
	pmix_proc_t source, affected;
	pmix_rank_t targets[NTASKS];
	size_t ntargets;
	char id[64];
	bool nondefault, nocache;
} got;

pmix_status_t PMIx_Notify_event(pmix_status_t status, const pmix_proc_t *source,
				pmix_data_range_t range,
				const pmix_info_t info[], size_t ninfo,
				pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	assert_int_equal(range, PMIX_RANGE_CUSTOM);
	got.n++;
	got.code = status;
	got.source = *source;
	got.ntargets = 0;
	got.nondefault = got.nocache = false;
	for (size_t i = 0; i < ninfo; i++) {
		const pmix_value_t *v = &info[i].value;

		if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_CUSTOM_RANGE)) {
			const pmix_proc_t *p = v->data.darray->array;

			assert_int_equal(v->data.darray->type, PMIX_PROC);
			for (size_t k = 0; k < v->data.darray->size; k++) {
				assert_string_equal(p[k].nspace, NS);
				got.targets[got.ntargets++] = p[k].rank;
			}
		} else if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_AFFECTED_PROC))
			got.affected = *v->data.proc;
		else if (PMIX_CHECK_KEY(&info[i], PMIX_GROUP_ID))
			snprintf(got.id, sizeof(got.id), "%s", v->data.string);
		else if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_NON_DEFAULT))
			got.nondefault = v->data.flag;
		else if (PMIX_CHECK_KEY(&info[i], PMIX_EVENT_DO_NOT_CACHE))
			got.nocache = v->data.flag;
	}
	cbfunc(PMIX_SUCCESS, cbdata);
	return PMIX_SUCCESS;
}

void pmixev_log(enum pmixev_log_level level, const char *fmt, ...)
{
	got.errors += level == PMIXEV_LOG_ERROR;
}

void pmixev_log_debug(unsigned dbg, const char *fmt, ...)
{
}

static uint32_t node_of[NTASKS] = {0, 0, 1, 1, 2, 2};

/* The layout as node `node` sees it. */
static void layout_on(struct layout *lay, uint32_t node)
{
	memset(lay, 0, sizeof(*lay));
	lay->step.ntasks = lay->map.ntasks = NTASKS;
	lay->step.nnodes = lay->map.nnodes = 3;
	lay->map.node_of = node_of;
	lay->nodeid = node;
	snprintf(lay->nspace, sizeof(lay->nspace), NS);
	snprintf(lay->srv_nspace, sizeof(lay->srv_nspace), NS ".srv");
}

static void proc(pmix_proc_t *p, pmix_rank_t r)
{
	PMIX_LOAD_PROCID(p, NS, r);
}

/* Rank `from` invites the `n` ranks of `to` to `id` (as the library does:
 * itself first in the custom range). */
static void invite(struct invite_watch *w, pmix_rank_t from, const char *id,
		   const pmix_rank_t *to, size_t n)
{
	pmix_proc_t src, procs[NTASKS + 1];
	pmix_data_array_t da = {.type = PMIX_PROC, .size = n + 1};
	pmix_info_t info[2];

	proc(&src, from);
	proc(&procs[0], from);
	for (size_t i = 0; i < n; i++)
		proc(&procs[i + 1], to[i]);
	da.array = procs;
	PMIX_INFO_LOAD(&info[0], PMIX_EVENT_CUSTOM_RANGE, &da, PMIX_DATA_ARRAY);
	PMIX_INFO_LOAD(&info[1], PMIX_GROUP_ID, id, PMIX_STRING);
	invite_watch_event(w, PMIX_GROUP_INVITED, &src, info, 2);
	PMIX_INFO_DESTRUCT(&info[0]);
	PMIX_INFO_DESTRUCT(&info[1]);
}

/* Rank `who` answers `code` to leader `leader`. */
static void join(struct invite_watch *w, pmix_rank_t who, pmix_rank_t leader,
		 pmix_status_t code)
{
	pmix_proc_t src, l;
	pmix_info_t info;

	proc(&src, who);
	proc(&l, leader);
	PMIX_INFO_LOAD(&info, PMIX_EVENT_CUSTOM_RANGE, &l, PMIX_PROC);
	invite_watch_event(w, code, &src, &info, 1);
	PMIX_INFO_DESTRUCT(&info);
}

static void complete(struct invite_watch *w, pmix_rank_t from, const char *id)
{
	pmix_proc_t src;
	pmix_info_t info;

	proc(&src, from);
	PMIX_INFO_LOAD(&info, PMIX_GROUP_ID, id, PMIX_STRING);
	invite_watch_event(w, PMIX_GROUP_CONSTRUCT_COMPLETE, &src, &info, 1);
	PMIX_INFO_DESTRUCT(&info);
}

static const pmix_rank_t to_3_4[] = {3, 4};

/* An invitee that ends unanswered fails the invitation on the inviter's
 * node only, once, from that node's server proc. */
static void test_invitee_ends(void **state)
{
	struct layout on0, on1;
	struct invite_watch *w0, *w1;

	(void)state;
	memset(&got, 0, sizeof(got));
	layout_on(&on0, 0);
	layout_on(&on1, 1);
	assert_non_null(w0 = invite_watch_create(&on0));
	assert_non_null(w1 = invite_watch_create(&on1));
	invite(w0, 0, "g", to_3_4, 2);
	invite(w1, 0, "g", to_3_4, 2);
	invite_watch_ended(w1, 4);
	assert_int_equal(got.n, 0);
	invite_watch_ended(w0, 4);
	assert_int_equal(got.n, 1);
	assert_int_equal(got.code, PMIX_GROUP_INVITE_FAILED);
	assert_string_equal(got.source.nspace, NS ".srv");
	assert_int_equal(got.source.rank, 0);
	assert_int_equal(got.ntargets, 1);
	assert_int_equal(got.targets[0], 0);
	assert_int_equal(got.affected.rank, 4);
	assert_string_equal(got.id, "g");
	assert_true(got.nondefault && got.nocache);
	/* Once: 4 no longer waited for. */
	invite_watch_ended(w0, 4);
	assert_int_equal(got.n, 1);
	/* An invitee that answered, then ends: nothing. */
	join(w0, 3, 0, PMIX_GROUP_INVITE_ACCEPTED);
	invite_watch_ended(w0, 3);
	assert_int_equal(got.n, 1);
	/* A rank not invited: nothing. */
	invite_watch_ended(w0, 5);
	assert_int_equal(got.n, 1);
	invite_watch_destroy(w0);
	invite_watch_destroy(w1);
	assert_int_equal(got.errors, 0);
}

/* The inviter ends: each node tells its own invitees that still wait. */
static void test_inviter_ends(void **state)
{
	static const pmix_rank_t to[] = {1, 2, 3, 4};
	struct layout on1;
	struct invite_watch *w;

	(void)state;
	memset(&got, 0, sizeof(got));
	layout_on(&on1, 1);
	assert_non_null(w = invite_watch_create(&on1));
	invite(w, 0, "g", to, 4);
	join(w, 2, 0, PMIX_GROUP_INVITE_DECLINED);
	invite_watch_ended(w, 0);
	assert_int_equal(got.n, 1);
	assert_int_equal(got.code, PMIX_GROUP_LEADER_FAILED);
	assert_int_equal(got.source.rank, 1);
	assert_int_equal(got.ntargets, 1);
	assert_int_equal(got.targets[0], 3);
	assert_int_equal(got.affected.rank, 0);
	/* Closed: the invitees' ends mean nothing now. */
	invite_watch_ended(w, 3);
	assert_int_equal(got.n, 1);
	invite_watch_destroy(w);
}

/* A complete closes the invitation; a join answers the oldest invitation
 * of the leader it names. */
static void test_complete_and_join(void **state)
{
	static const pmix_rank_t to_4[] = {4};
	struct layout on0;
	struct invite_watch *w;

	(void)state;
	memset(&got, 0, sizeof(got));
	layout_on(&on0, 0);
	assert_non_null(w = invite_watch_create(&on0));
	invite(w, 0, "a", to_4, 1);
	complete(w, 0, "a");
	invite_watch_ended(w, 4);
	assert_int_equal(got.n, 0);
	invite(w, 0, "b", to_4, 1);
	invite(w, 0, "c", to_4, 1);
	invite(w, 1, "d", to_4, 1);
	join(w, 4, 0, PMIX_GROUP_INVITE_ACCEPTED);
	/* "c" and "d" still wait for 4 (both inviters are local). */
	invite_watch_ended(w, 4);
	assert_int_equal(got.n, 2);
	invite_watch_destroy(w);
}

/* Beyond INVITE_WATCH_MAX open invitations: not watched, logged. */
static void test_bound(void **state)
{
	static const pmix_rank_t to_2[] = {2};
	struct layout on0;
	struct invite_watch *w;
	char id[32];

	(void)state;
	memset(&got, 0, sizeof(got));
	layout_on(&on0, 0);
	assert_non_null(w = invite_watch_create(&on0));
	for (unsigned i = 0; i <= INVITE_WATCH_MAX; i++) {
		snprintf(id, sizeof(id), "g%u", i);
		invite(w, 0, id, to_2, 1);
	}
	assert_int_equal(got.errors, 1);
	invite_watch_ended(w, 2);
	assert_int_equal(got.n, INVITE_WATCH_MAX);
	assert_string_not_equal(got.id, "g256");
	invite_watch_destroy(w);
}

/* Events of other codes, of tools, and malformed ones change nothing. */
static void test_ignored(void **state)
{
	struct layout on0;
	struct invite_watch *w;
	pmix_proc_t tool;
	pmix_info_t info;

	(void)state;
	memset(&got, 0, sizeof(got));
	layout_on(&on0, 0);
	assert_non_null(w = invite_watch_create(&on0));
	PMIX_LOAD_PROCID(&tool, "tool.1", 0);
	PMIX_INFO_LOAD(&info, PMIX_GROUP_ID, "t", PMIX_STRING);
	invite_watch_event(w, PMIX_GROUP_INVITED, &tool, &info, 1);
	PMIX_INFO_DESTRUCT(&info);
	/* An invitation without a range or an id. */
	invite(w, 0, "x", NULL, 0);
	proc(&tool, 0);
	invite_watch_event(w, PMIX_GROUP_INVITED, &tool, NULL, 0);
	for (pmix_rank_t r = 0; r < NTASKS; r++)
		invite_watch_ended(w, r);
	assert_int_equal(got.n, 0);
	invite_watch_destroy(NULL);
	invite_watch_destroy(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_invitee_ends),
		cmocka_unit_test(test_inviter_ends),
		cmocka_unit_test(test_complete_and_join),
		cmocka_unit_test(test_bound),
		cmocka_unit_test(test_ignored),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
