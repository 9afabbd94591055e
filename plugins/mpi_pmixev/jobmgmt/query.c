/*
 * jobmgmt/query.c - PMIx_Query_info: the upcall checks each query's
 * qualifiers and lists what is asked about which job (PMIx progress
 * thread); the agent thread answers what the step knows at once and what
 * Slurm knows when ownerhelper/jobinfo.h has it, then calls back once.
 */
#include "config.h"

#include "jobmgmt/query.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/event.h>
#include <pmix.h>

#include "base/agent.h"
#include "base/step.h"
#include "pmixside/inject_pmix.h"
#include "pmixside/side.h"
#include "jobmgmt/ptable.h"
#include "jobmgmt/query_procs.h"
#include "jobmgmt/query_slurm.h"
#include "pmixev_events.h"
#include "pmixev_step.h"
#include "ownerhelper/jobinfo.h"

enum qkey {
	/* About this step: answered by the step. */
	Q_NAMESPACES,
	Q_NAMESPACE_INFO,
	Q_SPAWN_SUPPORT,
	Q_DEBUG_SUPPORT,
	Q_SERVER_URI,
	Q_NUM_PSETS,
	Q_PSET_NAMES,
	Q_EVENTS,
	/* About the step's tasks: from the process table (jobmgmt/ptable.h). */
	Q_PROC_TABLE,
	Q_LOCAL_PROC_TABLE,
	Q_MEMORY_USAGE,
	/* About a job (this one by default): answered from Slurm. */
	Q_JOB_STATUS,
	Q_JOB_STATE,
	Q_TIME_REMAINING,
	Q_ALLOC_STATUS,
	Q_PREEMPTIBLE,
	/* About the partitions. */
	Q_QUEUE_LIST,
	Q_QUEUE_STATUS,
	Q_UNKNOWN
};

#define Q_FIRST_TASKS Q_PROC_TABLE
#define Q_FIRST_JOB   Q_JOB_STATUS
#define Q_FIRST_QUEUE Q_QUEUE_LIST

static const char *const qkey_names[] = {
	[Q_NAMESPACES] = PMIX_QUERY_NAMESPACES,
	[Q_NAMESPACE_INFO] = PMIX_QUERY_NAMESPACE_INFO,
	[Q_SPAWN_SUPPORT] = PMIX_QUERY_SPAWN_SUPPORT,
	[Q_DEBUG_SUPPORT] = PMIX_QUERY_DEBUG_SUPPORT,
	[Q_SERVER_URI] = PMIX_SERVER_URI,
	[Q_NUM_PSETS] = PMIX_QUERY_NUM_PSETS,
	[Q_PSET_NAMES] = PMIX_QUERY_PSET_NAMES,
	[Q_EVENTS] = PMIXEV_QUERY_EVENTS,
	[Q_PROC_TABLE] = PMIX_QUERY_PROC_TABLE,
	[Q_LOCAL_PROC_TABLE] = PMIX_QUERY_LOCAL_PROC_TABLE,
	[Q_MEMORY_USAGE] = PMIX_QUERY_MEMORY_USAGE,
	[Q_JOB_STATUS] = PMIX_QUERY_JOB_STATUS,
	[Q_JOB_STATE] = PMIXEV_QUERY_JOB_STATE,
	[Q_TIME_REMAINING] = PMIX_TIME_REMAINING,
	[Q_ALLOC_STATUS] = PMIX_QUERY_ALLOC_STATUS,
	[Q_PREEMPTIBLE] = PMIX_JOB_CTRL_PREEMPTIBLE,
	[Q_QUEUE_LIST] = PMIX_QUERY_QUEUE_LIST,
	[Q_QUEUE_STATUS] = PMIX_QUERY_QUEUE_STATUS,
};

/* Distinct things one request may ask; more are not answered. */
#define ITEMS_MAX 32

struct item {
	enum qkey key;
	uint32_t job;		       /* Q_FIRST_JOB..: 0 = the step's */
	char queue[PMIXEV_OWNER_NAME]; /* Q_QUEUE_STATUS: "" = all */
	pmix_rank_t rank; /* Q_MEMORY_USAGE: one, or wildcard: all */
	bool avg, minmax; /* Q_MEMORY_USAGE: the report directives */
	pmix_status_t st; /* of its answer */
	pmix_info_t *out; /* its slot in the answers */
	struct query_call *c;
};

/*
 * One PMIx_Query_info request. It lives until both the caller has its
 * answer (or its timeout) and every answer asked of jobinfo came back.
 */
struct query_call {
	struct item items[ITEMS_MAX];
	size_t nitems;
	bool unanswerable; /* something asked the step cannot answer */
	bool refresh;
	unsigned timeout_sec; /* PMIX_TIMEOUT, 0: none */
	unsigned outstanding; /* answers awaited from jobinfo */
	bool replied;
	pmix_info_t *answers; /* ITEMS_MAX */
	struct event *deadline;
	pmix_info_cbfunc_t cbfunc;
	void *cbdata;
};

static enum qkey qkey_of(const char *key)
{
	for (size_t k = 0; k < Q_UNKNOWN; k++)
		if (!strcmp(key, qkey_names[k]))
			return (enum qkey)k;
	return Q_UNKNOWN;
}

/* The answers handed to PMIx: `n` loaded infos in one array. */
struct answer_set {
	pmix_info_t *info;
	size_t n;
};

static void release_answer(void *cbdata)
{
	struct answer_set *a = cbdata;

	PMIX_INFO_FREE(a->info, a->n);
	free(a);
}

static void call_free(struct query_call *c)
{
	if (c->deadline)
		event_free(c->deadline);
	PMIX_INFO_FREE(c->answers, ITEMS_MAX);
	free(c);
}

/* Answer the caller with what is answered now, unless done already. */
static void reply(struct query_call *c, pmix_status_t forced)
{
	struct answer_set *a = NULL;
	size_t n = 0;
	bool missed = c->unanswerable;
	pmix_status_t rc = forced;

	if (c->replied)
		return;
	c->replied = true;
	if (c->deadline)
		evtimer_del(c->deadline);
	if (forced != PMIX_SUCCESS)
		goto out;
	/* Nothing answered: not found, unless Slurm could not be asked or
	 * refused, which the caller should know. */
	rc = PMIX_ERR_NOT_FOUND;
	for (size_t i = 0; i < c->nitems; i++) {
		pmix_status_t st = c->items[i].st;

		if (st == PMIX_SUCCESS) {
			n++;
			continue;
		}
		missed = true;
		if (st != PMIX_ERR_NOT_FOUND)
			rc = st;
	}
	if (!n)
		goto out;
	rc = PMIX_ERR_NOMEM;
	if (!(a = calloc(1, sizeof(*a))))
		goto out;
	PMIX_INFO_CREATE(a->info, n);
	if (!a->info) {
		free(a);
		goto out;
	}
	a->n = n;
	n = 0;
	for (size_t i = 0; i < c->nitems; i++)
		if (c->items[i].st == PMIX_SUCCESS)
			PMIX_INFO_XFER(&a->info[n++], c->items[i].out);
	c->cbfunc(missed ? PMIX_ERR_PARTIAL_SUCCESS : PMIX_SUCCESS, a->info,
		  a->n, c->cbdata, release_answer, a);
	return;
out:
	c->cbfunc(rc, NULL, 0, c->cbdata, NULL, NULL);
}

/* One answer came back from jobinfo; the last one completes the call. */
static void settle(struct query_call *c)
{
	if (--c->outstanding)
		return;
	reply(c, PMIX_SUCCESS);
	call_free(c);
}

/* The step's namespace as PMIX_QUERY_NAMESPACE_INFO wants it: an array
 * with one info array per namespace. */
static pmix_status_t namespace_info(const struct layout *lay, pmix_info_t *out)
{
	pmix_info_t *inner = NULL, *outer = NULL;
	pmix_data_array_t da;
	uint32_t size = lay->step.ntasks, nodes = lay->step.nnodes;

	PMIX_INFO_CREATE(inner, 4);
	PMIX_INFO_CREATE(outer, 1);
	if (!inner || !outer) {
		PMIX_INFO_FREE(inner, 4);
		PMIX_INFO_FREE(outer, 1);
		return PMIX_ERR_NOMEM;
	}
	PMIX_INFO_LOAD(&inner[0], PMIX_NSPACE, lay->nspace, PMIX_STRING);
	PMIX_INFO_LOAD(&inner[1], PMIX_JOBID, lay->step.id, PMIX_STRING);
	PMIX_INFO_LOAD(&inner[2], PMIX_JOB_SIZE, &size, PMIX_UINT32);
	PMIX_INFO_LOAD(&inner[3], PMIX_NUM_NODES, &nodes, PMIX_UINT32);
	da = (pmix_data_array_t){.type = PMIX_INFO, .size = 4, .array = inner};
	PMIX_INFO_LOAD(&outer[0], PMIX_QUERY_NAMESPACE_INFO, &da,
		       PMIX_DATA_ARRAY);
	da = (pmix_data_array_t){.type = PMIX_INFO, .size = 1, .array = outer};
	PMIX_INFO_LOAD(out, PMIX_QUERY_NAMESPACE_INFO, &da, PMIX_DATA_ARRAY);
	PMIX_INFO_FREE(inner, 4);
	PMIX_INFO_FREE(outer, 1);
	return PMIX_SUCCESS;
}

/* Answer a key about the step into `out`: PMIX_SUCCESS, or why not. */
static pmix_status_t answer_step(const struct step *s, enum qkey key,
				 pmix_info_t *out)
{
	const char *name = qkey_names[key], *uri;
	size_t none = 0;

	switch (key) {
	case Q_NAMESPACES:
		PMIX_INFO_LOAD(out, name, s->lay.nspace, PMIX_STRING);
		return PMIX_SUCCESS;
	case Q_NAMESPACE_INFO:
		return namespace_info(&s->lay, out);
	case Q_SPAWN_SUPPORT: /* pmixev spawns nothing */
	case Q_DEBUG_SUPPORT: /* nor launches or attaches debuggers */
	case Q_PSET_NAMES:    /* and defines no process sets */
		PMIX_INFO_LOAD(out, name, "", PMIX_STRING);
		return PMIX_SUCCESS;
	case Q_NUM_PSETS:
		PMIX_INFO_LOAD(out, name, &none, PMIX_SIZE);
		return PMIX_SUCCESS;
	case Q_SERVER_URI:
		if (!(uri = s->pmix_uri))
			return PMIX_ERR_NOT_FOUND;
		PMIX_INFO_LOAD(out, name, uri, PMIX_STRING);
		return PMIX_SUCCESS;
	case Q_EVENTS:
		return inject_pmix_report(pmixside_inject(s->pside), out);
	default:
		return PMIX_ERR_NOT_FOUND;
	}
}

/* jobinfo's answer for item `arg` (agent thread). */
static void on_slurm(void *arg, pmix_status_t st,
		     const struct jobinfo_answer *a)
{
	struct item *it = arg;
	const struct step *s = step_served();
	uint32_t job = it->job ? it->job : s->lay.step.job_id;

	if (st != PMIX_SUCCESS || !a)
		it->st = st == PMIX_SUCCESS ? PMIX_ERR_NOT_FOUND : st;
	else if (it->key == Q_JOB_STATUS)
		it->st = qslurm_job_status(&a->job, it->out);
	else if (it->key == Q_JOB_STATE)
		it->st = qslurm_job_state(&a->job, it->out);
	else if (it->key == Q_TIME_REMAINING)
		it->st = qslurm_time_remaining(&a->job, time(NULL), it->out);
	else if (it->key == Q_ALLOC_STATUS)
		it->st = qslurm_alloc_status(job, &a->job, it->out);
	else if (it->key == Q_PREEMPTIBLE)
		it->st = qslurm_preemptible(&a->job, it->out);
	else if (it->key == Q_QUEUE_LIST)
		it->st = qslurm_queue_list(&a->parts, it->out);
	else
		it->st = qslurm_queue_status(
			&a->parts, it->queue[0] ? it->queue : NULL, it->out);
	settle(it->c);
}

/* The process table for item `arg` (agent thread). */
static void on_tasks(void *arg, const struct pmixev_ptable_entry *e, size_t n,
		     bool complete)
{
	struct item *it = arg;
	const struct layout *lay = &step_served()->lay;

	if (it->key == Q_MEMORY_USAGE)
		it->st = qprocs_memory(lay, e, n, it->rank, it->avg, it->minmax,
				       it->out);
	else
		it->st = qprocs_table(lay, qkey_names[it->key], e, n, it->out);
	if (it->st == PMIX_SUCCESS && !complete)
		it->c->unanswerable = true; /* some nodes are missing */
	settle(it->c);
}

static void on_deadline(evutil_socket_t fd, short what, void *arg)
{
	reply(arg, PMIX_ERR_TIMEOUT);
}

static void query_agent(void *arg)
{
	const struct step *s = step_served();
	struct query_call *c = arg;
	struct timeval tv = {(time_t)c->timeout_sec, 0};

	PMIX_INFO_CREATE(c->answers, ITEMS_MAX);
	if (!c->answers) {
		c->cbfunc(PMIX_ERR_NOMEM, NULL, 0, c->cbdata, NULL, NULL);
		free(c);
		return;
	}
	c->outstanding = 1; /* until every item is under way */
	for (size_t i = 0; i < c->nitems; i++) {
		struct item *it = &c->items[i];

		it->c = c;
		it->out = &c->answers[i];
		if (it->key < Q_FIRST_TASKS) {
			it->st = answer_step(s, it->key, it->out);
			continue;
		}
		c->outstanding++;
		if (it->key < Q_FIRST_JOB) {
			ptable_get(s->ptable, it->key == Q_LOCAL_PROC_TABLE,
				   c->timeout_sec, on_tasks, it);
			continue;
		}
		jobinfo_get(s->jobinfo,
			    it->key >= Q_FIRST_QUEUE ? PMIXEV_OWNER_PARTITIONS
			    : it->job		     ? PMIXEV_OWNER_OTHER_JOB
						     : PMIXEV_OWNER_JOB_STATE,
			    it->job, c->refresh, on_slurm, it);
	}
	if (c->timeout_sec && c->outstanding > 1 &&
	    (c->deadline = evtimer_new(agent_base(s->agent), on_deadline, c)))
		evtimer_add(c->deadline, &tv);
	settle(c);
}

/* --- the upcall (PMIx progress thread) ---------------------------------- */

/* What one query's qualifiers say. */
struct quals {
	bool procid, nspace, has_rank;
	bool named;    /* a job or step is named */
	bool bad_name; /* ... in a way that names none */
	uint32_t job, step;
	pmix_rank_t rank; /* of PMIX_PROCID or PMIX_RANK, or wildcard */
	bool avg, minmax;
	const char *queue;
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
		} else if (PMIX_CHECK_KEY(in, PMIX_QUERY_REFRESH_CACHE)) {
			q->refresh = PMIX_INFO_TRUE(in);
		} else if (PMIX_CHECK_KEY(in, PMIX_TIMEOUT) &&
			   v->type == PMIX_INT && v->data.integer > 0) {
			q->timeout_sec = (unsigned)v->data.integer;
		}
	}
}

/* Add `key` about what `q` names to `c`, once; or note it unanswerable. */
static void add_item(struct query_call *c, const struct step *s, enum qkey key,
		     const struct quals *q)
{
	const struct pmixev_step *me = &s->lay.step;
	bool own_job = !q->named || (!q->bad_name && q->job == me->job_id);
	bool own_step = own_job && (!q->named || q->step == me->step_id ||
				    q->step == PMIXEV_STEP_ANY);
	struct item it = {.key = key};

	if (key == Q_UNKNOWN || (key < Q_FIRST_JOB && !own_step) ||
	    (key >= Q_FIRST_JOB && key < Q_FIRST_QUEUE && q->bad_name) ||
	    (key == Q_QUEUE_STATUS && q->queue &&
	     strlen(q->queue) >= sizeof(it.queue))) {
		c->unanswerable = true;
		return;
	}
	if (key >= Q_FIRST_JOB && key < Q_FIRST_QUEUE && !own_job)
		it.job = q->job;
	if (key == Q_QUEUE_STATUS && q->queue)
		strcpy(it.queue, q->queue);
	it.rank = key == Q_MEMORY_USAGE ? q->rank : PMIX_RANK_WILDCARD;
	it.avg = key == Q_MEMORY_USAGE && q->avg;
	it.minmax = key == Q_MEMORY_USAGE && q->minmax;
	for (size_t i = 0; i < c->nitems; i++)
		if (c->items[i].key == key && c->items[i].job == it.job &&
		    !strcmp(c->items[i].queue, it.queue) &&
		    c->items[i].rank == it.rank && c->items[i].avg == it.avg &&
		    c->items[i].minmax == it.minmax)
			return;
	if (c->nitems == ITEMS_MAX) {
		c->unanswerable = true;
		return;
	}
	c->items[c->nitems++] = it;
}

pmix_status_t query_upcall(pmix_proc_t *proct, pmix_query_t *queries,
			   size_t nqueries, pmix_info_cbfunc_t cbfunc,
			   void *cbdata)
{
	const struct step *s = step_served();
	struct query_call *c = calloc(1, sizeof(*c));
	bool any = false;

	if (!c)
		return PMIX_ERR_NOMEM;
	for (size_t n = 0; n < nqueries; n++) {
		struct quals q;

		read_quals(&queries[n], &q);
		if (q.procid && (q.nspace || q.has_rank)) {
			free(c);
			return PMIX_ERR_BAD_PARAM;
		}
		c->refresh |= q.refresh;
		if (q.timeout_sec &&
		    (!c->timeout_sec || q.timeout_sec < c->timeout_sec))
			c->timeout_sec = q.timeout_sec;
		for (size_t k = 0; queries[n].keys && queries[n].keys[k]; k++) {
			any = true;
			add_item(c, s, qkey_of(queries[n].keys[k]), &q);
		}
	}
	if (!any) {
		free(c);
		return PMIX_ERR_BAD_PARAM;
	}
	c->cbfunc = cbfunc;
	c->cbdata = cbdata;
	if (agent_post(s->agent, query_agent, c) == 0)
		return PMIX_SUCCESS;
	free(c);
	return PMIX_ERR_UNREACH;
}
