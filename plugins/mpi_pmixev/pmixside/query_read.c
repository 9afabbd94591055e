/*
 * pmixside/query_read.c - a PMIx_Query_info request read into its items
 * and root's part of them (see query_read.h). PMIx progress thread.
 */
#include "config.h"

#include "pmixside/query_read.h"

#include <string.h>

#include <pmix.h>

#include "base/psets.h"
#include "pmixev_events.h"
#include "pmixev_step.h"
#include "pmixside/inject_pmix.h"
#include "pmixside/side.h"

static const char *const qkey_names[] = {
	[Q_NAMESPACES] = PMIX_QUERY_NAMESPACES,
	[Q_NAMESPACE_INFO] = PMIX_QUERY_NAMESPACE_INFO,
	[Q_SPAWN_SUPPORT] = PMIX_QUERY_SPAWN_SUPPORT,
	[Q_DEBUG_SUPPORT] = PMIX_QUERY_DEBUG_SUPPORT,
	[Q_SERVER_URI] = PMIX_SERVER_URI,
	[Q_NUM_PSETS] = PMIX_QUERY_NUM_PSETS,
	[Q_PSET_NAMES] = PMIX_QUERY_PSET_NAMES,
	[Q_PSET_MEMBERSHIP] = PMIX_QUERY_PSET_MEMBERSHIP,
	[Q_EVENTS] = PMIXEV_QUERY_EVENTS,
	[Q_PROC_TABLE] = PMIX_QUERY_PROC_TABLE,
	[Q_LOCAL_PROC_TABLE] = PMIX_QUERY_LOCAL_PROC_TABLE,
	[Q_MEMORY_USAGE] = PMIX_QUERY_MEMORY_USAGE,
	[Q_NUM_GROUPS] = PMIX_QUERY_NUM_GROUPS,
	[Q_GROUP_NAMES] = PMIX_QUERY_GROUP_NAMES,
	[Q_GROUP_MEMBERSHIP] = PMIX_QUERY_GROUP_MEMBERSHIP,
	[Q_JOB_STATUS] = PMIX_QUERY_JOB_STATUS,
	[Q_JOB_STATE] = PMIXEV_QUERY_JOB_STATE,
	[Q_TIME_REMAINING] = PMIX_TIME_REMAINING,
	[Q_ALLOC_STATUS] = PMIX_QUERY_ALLOC_STATUS,
	[Q_PREEMPTIBLE] = PMIX_JOB_CTRL_PREEMPTIBLE,
	[Q_QUEUE_LIST] = PMIX_QUERY_QUEUE_LIST,
	[Q_QUEUE_STATUS] = PMIX_QUERY_QUEUE_STATUS,
};

const char *query_key_name(enum qkey key)
{
	return key < Q_UNKNOWN ? qkey_names[key] : "";
}

static enum qkey qkey_of(const char *key)
{
	for (size_t k = 0; k < Q_UNKNOWN; k++)
		if (!strcmp(key, qkey_names[k]))
			return (enum qkey)k;
	return Q_UNKNOWN;
}

/* What one query's qualifiers say. */
struct quals {
	bool procid, nspace, has_rank;
	bool named;    /* a job or step is named */
	bool bad_name; /* ... in a way that names none */
	uint32_t job, step;
	pmix_rank_t rank; /* of PMIX_PROCID or PMIX_RANK, or wildcard */
	bool avg, minmax;
	const char *queue;
	const char *pset;  /* PMIX_PSET_NAME */
	const char *grpid; /* PMIX_GROUP_ID */
	bool local;	   /* PMIX_RANGE LOCAL or PROC_LOCAL */
	bool refresh;
	unsigned timeout_sec;
};

static void name_job(struct quals *q, const char *ref)
{
	uint32_t job, step;

	q->named = true;
	if (pmixev_job_ref_parse(ref, &job, &step) < 0) {
		q->bad_name = true;
		return;
	}
	q->job = job;
	q->step = step;
}

static void read_quals(const pmix_query_t *query, struct quals *q)
{
	*q = (struct quals){.step = PMIXEV_STEP_ANY,
			    .rank = PMIX_RANK_WILDCARD};
	for (size_t i = 0; i < query->nqual; i++) {
		const pmix_info_t *in = &query->qualifiers[i];
		const pmix_value_t *v = &in->value;
		bool str = v->type == PMIX_STRING && v->data.string;

		if (PMIX_CHECK_KEY(in, PMIX_PROCID)) {
			q->procid = true;
			if (v->type == PMIX_PROC && v->data.proc) {
				name_job(q, v->data.proc->nspace);
				q->rank = v->data.proc->rank;
			}
		} else if (PMIX_CHECK_KEY(in, PMIX_NSPACE)) {
			q->nspace = true;
			if (str)
				name_job(q, v->data.string);
		} else if (PMIX_CHECK_KEY(in, PMIX_RANK)) {
			q->has_rank = true;
			if (v->type == PMIX_PROC_RANK)
				q->rank = v->data.rank;
		} else if (PMIX_CHECK_KEY(in, PMIX_QUERY_REPORT_AVG)) {
			q->avg = PMIX_INFO_TRUE(in);
		} else if (PMIX_CHECK_KEY(in, PMIX_QUERY_REPORT_MINMAX)) {
			q->minmax = PMIX_INFO_TRUE(in);
		} else if ((PMIX_CHECK_KEY(in, PMIX_JOBID) ||
			    PMIX_CHECK_KEY(in, PMIX_ALLOC_ID)) &&
			   str) {
			name_job(q, v->data.string);
		} else if (PMIX_CHECK_KEY(in, PMIX_ALLOC_QUEUE) && str) {
			q->queue = v->data.string;
		} else if (PMIX_CHECK_KEY(in, PMIX_PSET_NAME) && str) {
			q->pset = v->data.string;
		} else if (PMIX_CHECK_KEY(in, PMIX_GROUP_ID) && str) {
			q->grpid = v->data.string;
		} else if (PMIX_CHECK_KEY(in, PMIX_RANGE) &&
			   v->type == PMIX_DATA_RANGE) {
			q->local = v->data.range == PMIX_RANGE_LOCAL ||
				   v->data.range == PMIX_RANGE_PROC_LOCAL;
		} else if (PMIX_CHECK_KEY(in, PMIX_QUERY_REFRESH_CACHE)) {
			q->refresh = PMIX_INFO_TRUE(in);
		} else if (PMIX_CHECK_KEY(in, PMIX_TIMEOUT) &&
			   v->type == PMIX_INT && v->data.integer > 0) {
			q->timeout_sec = (unsigned)v->data.integer;
		}
	}
}

/* The index of root's item for `key` about `job`, added once. */
static uint32_t ask_root(struct pmixev_pmixd_query *ask, enum qkey key,
			 uint32_t job)
{
	struct pmixev_pmixd_qitem it = {.key = PMIXEV_PMIXD_Q_PTABLE};

	if (key == Q_LOCAL_PROC_TABLE)
		it.local = true;
	else if (key >= Q_NUM_GROUPS && key <= Q_GROUP_MEMBERSHIP)
		it.key = PMIXEV_PMIXD_Q_GROUPS;
	else if (key >= Q_FIRST_QUEUE)
		it.key = PMIXEV_PMIXD_Q_PARTS;
	else if (key >= Q_FIRST_JOB)
		it = (struct pmixev_pmixd_qitem){PMIXEV_PMIXD_Q_JOB, job,
						 false};
	for (uint32_t i = 0; i < ask->n; i++)
		if (ask->item[i].key == it.key && ask->item[i].job == it.job &&
		    ask->item[i].local == it.local)
			return i;
	ask->item[ask->n] = it;
	return ask->n++;
}

/* Add `key` about what `q` names to `r`, once; or note it unanswerable. */
static void add_item(struct query_req *r, const struct layout *lay,
		     enum qkey key, const struct quals *q)
{
	const struct pmixev_step *me = &lay->step;
	bool own_job = !q->named || (!q->bad_name && q->job == me->job_id);
	bool own_step = own_job && (!q->named || q->step == me->step_id ||
				    q->step == PMIXEV_STEP_ANY);
	struct query_item it = {.key = key, .ask = QUERY_NO_ASK};

	if (key == Q_UNKNOWN || (key < Q_FIRST_JOB && !own_step) ||
	    (key >= Q_FIRST_JOB && key < Q_FIRST_QUEUE && q->bad_name) ||
	    (key == Q_QUEUE_STATUS && q->queue &&
	     strlen(q->queue) >= sizeof(it.queue)) ||
	    (key == Q_PSET_MEMBERSHIP &&
	     psets_app_of(lay, q->pset, &it.app) < 0) ||
	    (key == Q_GROUP_MEMBERSHIP &&
	     (!q->grpid || strlen(q->grpid) >= sizeof(it.grpid)))) {
		r->unanswerable = true;
		return;
	}
	if (key >= Q_FIRST_JOB && key < Q_FIRST_QUEUE && !own_job)
		it.job = q->job;
	if (key == Q_QUEUE_STATUS && q->queue)
		strcpy(it.queue, q->queue);
	if (key == Q_GROUP_MEMBERSHIP)
		strcpy(it.grpid, q->grpid);
	it.local = key >= Q_NUM_GROUPS && key <= Q_GROUP_MEMBERSHIP && q->local;
	it.rank = key == Q_MEMORY_USAGE ? q->rank : PMIX_RANK_WILDCARD;
	it.avg = key == Q_MEMORY_USAGE && q->avg;
	it.minmax = key == Q_MEMORY_USAGE && q->minmax;
	for (size_t i = 0; i < r->nitems; i++)
		if (r->items[i].key == key && r->items[i].job == it.job &&
		    !strcmp(r->items[i].queue, it.queue) &&
		    r->items[i].rank == it.rank && r->items[i].avg == it.avg &&
		    r->items[i].minmax == it.minmax &&
		    r->items[i].app == it.app &&
		    !strcmp(r->items[i].grpid, it.grpid) &&
		    r->items[i].local == it.local)
			return;
	if (r->nitems == QUERY_ITEMS_MAX) {
		r->unanswerable = true;
		return;
	}
	if (key >= Q_FIRST_TASKS)
		it.ask = ask_root(&r->ask, key, it.job);
	r->items[r->nitems++] = it;
}

pmix_status_t query_read(struct query_req *r, const struct layout *lay,
			 const pmix_query_t *queries, size_t nqueries)
{
	unsigned timeout_sec = 0;
	bool any = false;

	for (size_t n = 0; n < nqueries; n++) {
		struct quals q;

		read_quals(&queries[n], &q);
		if (q.procid && (q.nspace || q.has_rank))
			return PMIX_ERR_BAD_PARAM;
		r->ask.refresh |= q.refresh;
		if (q.timeout_sec &&
		    (!timeout_sec || q.timeout_sec < timeout_sec))
			timeout_sec = q.timeout_sec;
		for (size_t k = 0; queries[n].keys && queries[n].keys[k]; k++) {
			enum qkey key = qkey_of(queries[n].keys[k]);

			any = true;
			/* Open MPI 5.0 (ompi_instance_get_num_psets_complete)
			 * unloads the count into a NULL pointer, fails, and
			 * keeps only the names it read before: they come
			 * first. */
			if (key == Q_NUM_PSETS)
				add_item(r, lay, Q_PSET_NAMES, &q);
			add_item(r, lay, key, &q);
		}
	}
	r->ask.timeout_sec = pmixside_frame_timeout(timeout_sec);
	return any ? PMIX_SUCCESS : PMIX_ERR_BAD_PARAM;
}
