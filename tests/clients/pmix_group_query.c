/*
 * pmix_group_query - the group queries of a step's live groups
 * (PMIX_QUERY_NUM_GROUPS, _GROUP_NAMES, _GROUP_MEMBERSHIP).
 *
 * usage: pmix_group_query     (at least 3 ranks; L is the last rank)
 *
 * Every rank constructs group "qa" (every rank), ranks 0 and L "qb", and
 * ranks 1 and L each alone "qd" (two disjoint groups with one id), all
 * with PMIX_GROUP_ASSIGN_CONTEXT_ID (so that OpenPMIx 4.2 hands even the
 * one-rank ones to the host). After a barrier each rank asks how many
 * groups there are and their names, the members of "qb", "qd" and "nosuch",
 * and the number and names with PMIX_RANGE = PMIX_RANGE_LOCAL. After
 * another, ranks 0 and L destruct "qb", and after a third each rank asks
 * the number and names again. Then the other groups are destructed.
 *
 * Prints, per rank, "pmix_group_query: rank R on HOST: groups: STATUS N:
 * ID ..." (the names sorted), "... members ID: STATUS R ..." (the ranks
 * sorted), "... local groups: STATUS N: ID ...", "... after destruct
 * groups: STATUS N: ID ...", and "... construct ID: STATUS" or
 * "... destruct ID: STATUS" for a failed call. Exit status 0 when every
 * construct and destruct succeeded.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

#define PROG "pmix_group_query"
#include "client_util.h"

static pmix_proc_t me;
static int failures;

static void say(const char *fmt, ...)
{
	char line[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	printf(PROG ": rank %u on %s: %s\n", me.rank, client_host(), line);
}

/* Construct (`build`) or destruct group `id` of `n` ranks (`n` 0: every
 * rank, as the namespace's wildcard). */
static void group(bool build, const char *id, const uint32_t *ranks, size_t n)
{
	pmix_proc_t procs[2];
	pmix_info_t info, *res = NULL;
	size_t nres = 0;
	pmix_status_t rc;
	bool yes = true;

	PMIX_LOAD_PROCID(&procs[0], me.nspace, PMIX_RANK_WILDCARD);
	for (size_t i = 0; i < n; i++)
		PMIX_LOAD_PROCID(&procs[i], me.nspace, ranks[i]);
	if (build) {
		PMIX_INFO_LOAD(&info, PMIX_GROUP_ASSIGN_CONTEXT_ID, &yes,
			       PMIX_BOOL);
		rc = PMIx_Group_construct(id, procs, n ? n : 1, &info, 1, &res,
					  &nres);
		PMIX_INFO_DESTRUCT(&info);
		if (res)
			PMIX_INFO_FREE(res, nres);
	} else {
		rc = PMIx_Group_destruct(id, NULL, 0);
	}
	if (rc != PMIX_SUCCESS) {
		say("%s %s: %s", build ? "construct" : "destruct", id,
		    PMIx_Error_string(rc));
		failures++;
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_rank(const void *a, const void *b)
{
	pmix_rank_t x = ((const pmix_proc_t *)a)->rank;
	pmix_rank_t y = ((const pmix_proc_t *)b)->rank;

	return x < y ? -1 : x > y;
}

/* Ask `keys` (NULL-terminated) with the range qualifier if `local`, or
 * with PMIX_GROUP_ID `grpid`; the answers in *res. */
static pmix_status_t ask(const char *const *keys, bool local, const char *grpid,
			 pmix_info_t **res, size_t *nres)
{
	pmix_data_range_t range = PMIX_RANGE_LOCAL;
	pmix_query_t *q;
	pmix_status_t rc;

	*res = NULL;
	*nres = 0;
	PMIX_QUERY_CREATE(q, 1);
	for (size_t i = 0; keys[i]; i++)
		PMIX_ARGV_APPEND(rc, q[0].keys, keys[i]);
	if (local || grpid) {
		PMIX_INFO_CREATE(q[0].qualifiers, 1);
		q[0].nqual = 1;
		if (local)
			PMIX_INFO_LOAD(&q[0].qualifiers[0], PMIX_RANGE, &range,
				       PMIX_DATA_RANGE);
		else
			PMIX_INFO_LOAD(&q[0].qualifiers[0], PMIX_GROUP_ID,
				       grpid, PMIX_STRING);
	}
	rc = PMIx_Query_info(q, 1, res, nres);
	PMIX_QUERY_FREE(q, 1);
	return rc;
}

/* "STATUS N: ID ..." from the count and names asked. */
static void groups(const char *what, bool local)
{
	static const char *const keys[] = {PMIX_QUERY_NUM_GROUPS,
					   PMIX_QUERY_GROUP_NAMES, NULL};
	char list[2048] = "", count[32] = "?";
	pmix_info_t *res;
	size_t nres, off = 0;
	pmix_status_t rc = ask(keys, local, NULL, &res, &nres);

	for (size_t i = 0; i < nres; i++) {
		pmix_value_t *v = &res[i].value;

		if (PMIX_CHECK_KEY(&res[i], PMIX_QUERY_NUM_GROUPS) &&
		    v->type == PMIX_SIZE)
			snprintf(count, sizeof(count), "%zu", v->data.size);
		if (PMIX_CHECK_KEY(&res[i], PMIX_QUERY_GROUP_NAMES) &&
		    v->type == PMIX_DATA_ARRAY && v->data.darray &&
		    v->data.darray->type == PMIX_STRING) {
			char **s = v->data.darray->array;
			size_t n = v->data.darray->size;

			if (n)
				qsort(s, n, sizeof(*s), cmp_str);
			for (size_t k = 0; k < n && off < sizeof(list); k++)
				off += (size_t)snprintf(list + off,
							sizeof(list) - off,
							" %s", s[k]);
		}
	}
	say("%s: %s %s:%s", what, PMIx_Error_string(rc), count, list);
	if (res)
		PMIX_INFO_FREE(res, nres);
}

/* "members ID: STATUS R ..." */
static void members(const char *grpid)
{
	static const char *const keys[] = {PMIX_QUERY_GROUP_MEMBERSHIP, NULL};
	char list[2048] = "";
	pmix_info_t *res;
	size_t nres, off = 0;
	pmix_status_t rc = ask(keys, false, grpid, &res, &nres);

	for (size_t i = 0; i < nres; i++) {
		pmix_value_t *v = &res[i].value;

		if (PMIX_CHECK_KEY(&res[i], PMIX_QUERY_GROUP_MEMBERSHIP) &&
		    v->type == PMIX_DATA_ARRAY && v->data.darray &&
		    v->data.darray->type == PMIX_PROC) {
			pmix_proc_t *p = v->data.darray->array;
			size_t n = v->data.darray->size;

			if (n)
				qsort(p, n, sizeof(*p), cmp_rank);
			for (size_t k = 0; k < n && off < sizeof(list); k++)
				off += (size_t)snprintf(list + off,
							sizeof(list) - off,
							" %u", p[k].rank);
		}
	}
	say("members %s: %s%s", grpid, PMIx_Error_string(rc), list);
	if (res)
		PMIX_INFO_FREE(res, nres);
}

/* A barrier over every rank, or a failure. */
static void sync_all(unsigned tag)
{
	pmix_status_t rc = client_sync(&me, tag);

	if (rc != PMIX_SUCCESS) {
		say("barrier %u: %s", tag, PMIx_Error_string(rc));
		failures++;
	}
}

int main(void)
{
	uint32_t size, pair[2], one[1];
	bool in_qb, in_qd;
	pmix_status_t rc;

	client_watchdog(PROG, 0);
	if ((rc = PMIx_Init(&me, NULL, 0)) != PMIX_SUCCESS) {
		printf(PROG ": PMIx_Init: %s\n", PMIx_Error_string(rc));
		return 1;
	}
	if ((size = client_job_size(&me)) < 3) {
		say("needs at least 3 ranks, has %u", size);
		PMIx_Finalize(NULL, 0);
		return 1;
	}
	pair[0] = 0;
	pair[1] = size - 1;
	one[0] = me.rank;
	in_qb = me.rank == 0 || me.rank == size - 1;
	in_qd = me.rank == 1 || me.rank == size - 1;
	group(true, "qa", NULL, 0);
	if (in_qb)
		group(true, "qb", pair, 2);
	if (in_qd)
		group(true, "qd", one, 1);
	sync_all(1);
	groups("groups", false);
	members("qb");
	members("qd");
	members("nosuch");
	groups("local groups", true);
	sync_all(2);
	if (in_qb)
		group(false, "qb", pair, 2);
	sync_all(3);
	groups("after destruct groups", false);
	sync_all(4);
	if (in_qd)
		group(false, "qd", one, 1);
	group(false, "qa", NULL, 0);
	PMIx_Finalize(NULL, 0);
	return failures ? 1 : 0;
}
