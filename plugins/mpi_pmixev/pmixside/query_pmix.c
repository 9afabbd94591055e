/*
 * pmixside/query_pmix.c - PMIx_Query_info on the pmix side (see
 * query_pmix.h): the step's own keys, root's typed answers as PMIx values,
 * one callback.
 */
#include "config.h"

#include "pmixside/query_pmix.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#include <event2/event.h>
#include <pmix.h>

#include "base/psets.h"
#include "base/step.h"
#include "pmixbase/infos.h"
#include "pmixbase/status.h"
#include "pmixev_log.h"
#include "pmixside/calls.h"
#include "pmixside/inject_pmix.h"
#include "pmixside/query_groups.h"
#include "pmixside/query_procs.h"
#include "pmixside/query_read.h"
#include "pmixside/query_slurm.h"
#include "pmixside/spawn_read.h"

/*
 * One request. Sent to root, it lives until root answered (or the channel
 * closed) and, with PMIX_TIMEOUT, until its deadline was armed: `holds`
 * counts both, the last to let go frees it.
 */
struct query_call {
	struct call call; /* first: see calls.h */
	struct pmixside *p;
	struct query_req req;
	const char *uri; /* this node's PMIx server, or NULL */
	atomic_uint holds;
	bool replied;
	struct event *deadline;
	pmix_info_cbfunc_t cbfunc;
	void *cbdata;
};

/* Let go of `c` (any thread); the last one frees it. */
static void drop(struct query_call *c)
{
	if (atomic_fetch_sub(&c->holds, 1) != 1)
		return;
	/* Only the agent makes the deadline, and lets go of it last. */
	if (c->deadline)
		event_free(c->deadline);
	free(c);
}

/* --- pmix side's agent ---------------------------------------------------- */

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

/* The members of application `app`'s process set, as PMIx procs. */
static pmix_status_t pset_members(const struct layout *lay, uint32_t app,
				  pmix_info_t *out)
{
	uint32_t n = lay->apps.count[app];
	pmix_data_array_t da;
	pmix_proc_t *procs;

	PMIX_DATA_ARRAY_CONSTRUCT(&da, n, PMIX_PROC);
	if (!(procs = da.array))
		return PMIX_ERR_NOMEM;
	for (uint32_t i = 0; i < n; i++)
		PMIX_LOAD_PROCID(&procs[i], lay->nspace,
				 lay->apps.ranks[app][i]);
	PMIX_INFO_LOAD(out, PMIX_QUERY_PSET_MEMBERSHIP, &da, PMIX_DATA_ARRAY);
	PMIX_DATA_ARRAY_DESTRUCT(&da);
	return PMIX_SUCCESS;
}

/* The step's process sets: how many, or their names. */
static pmix_status_t psets(const struct layout *lay, enum qkey key,
			   pmix_info_t *out)
{
	size_t n = psets_count(lay);
	char *names;

	if (key == Q_NUM_PSETS) {
		PMIX_INFO_LOAD(out, PMIX_QUERY_NUM_PSETS, &n, PMIX_SIZE);
		return PMIX_SUCCESS;
	}
	if (!(names = psets_names(lay)))
		return PMIX_ERR_NOMEM;
	PMIX_INFO_LOAD(out, PMIX_QUERY_PSET_NAMES, names, PMIX_STRING);
	free(names);
	return PMIX_SUCCESS;
}

/* The spawn directives pmixev acts on, comma-joined, as PRRTE answers. */
static pmix_status_t spawn_support(const struct pmixside *p, const char *name,
				   pmix_info_t *out)
{
	char *keys = pmixside_spawns(p) ? spawn_read_support() : strdup("");

	if (!keys)
		return PMIX_ERR_NOMEM;
	PMIX_INFO_LOAD(out, name, keys, PMIX_STRING);
	free(keys);
	return PMIX_SUCCESS;
}

/* Answer item `it` about the step into `out`: PMIX_SUCCESS, or why not. */
static pmix_status_t answer_step(const struct query_call *c,
				 const struct query_item *it, pmix_info_t *out)
{
	const struct layout *lay = pmixside_layout(c->p);
	enum qkey key = it->key;
	const char *name = query_key_name(key);

	switch (key) {
	case Q_NAMESPACES:
		PMIX_INFO_LOAD(out, name, lay->nspace, PMIX_STRING);
		return PMIX_SUCCESS;
	case Q_NAMESPACE_INFO:
		return namespace_info(lay, out);
	case Q_SPAWN_SUPPORT:
		return spawn_support(c->p, name, out);
	case Q_DEBUG_SUPPORT: /* pmixev launches and attaches no debuggers */
		PMIX_INFO_LOAD(out, name, "", PMIX_STRING);
		return PMIX_SUCCESS;
	case Q_NUM_PSETS:
	case Q_PSET_NAMES:
		return psets(lay, key, out);
	case Q_PSET_MEMBERSHIP:
		return pset_members(lay, it->app, out);
	case Q_SERVER_URI:
		if (!c->uri)
			return PMIX_ERR_NOT_FOUND;
		PMIX_INFO_LOAD(out, name, c->uri, PMIX_STRING);
		return PMIX_SUCCESS;
	case Q_EVENTS:
		return inject_pmix_report(pmixside_inject(c->p), out);
	default:
		return PMIX_ERR_NOT_FOUND;
	}
}

/* Answer a key about a job or the partitions from Slurm's response. */
static pmix_status_t answer_slurm(const struct layout *lay,
				  const struct query_item *it,
				  const struct pmixev_owner_resp *r,
				  pmix_info_t *out)
{
	uint32_t job = it->job ? it->job : lay->step.job_id;

	switch (it->key) {
	case Q_JOB_STATUS:
		return qslurm_job_status(&r->job, out);
	case Q_JOB_STATE:
		return qslurm_job_state(&r->job, out);
	case Q_TIME_REMAINING:
		return qslurm_time_remaining(&r->job, time(NULL), out);
	case Q_ALLOC_STATUS:
		return qslurm_alloc_status(job, &r->job, out);
	case Q_PREEMPTIBLE:
		return qslurm_preemptible(&r->job, out);
	case Q_QUEUE_LIST:
		return qslurm_queue_list(&r->parts, out);
	default:
		return qslurm_queue_status(
			&r->parts, it->queue[0] ? it->queue : NULL, out);
	}
}

/* Answer a group query from node 0's list `l`; a list the bounds cut
 * short sets *partial. */
static pmix_status_t answer_groups(const struct layout *lay,
				   const struct query_item *it,
				   const struct pmixev_group_list *l,
				   pmix_info_t *out, bool *partial)
{
	pmix_status_t st;

	if (it->key == Q_NUM_GROUPS)
		st = qgroups_count(lay, l, it->local, out);
	else if (it->key == Q_GROUP_NAMES)
		st = qgroups_names(lay, l, it->local, out);
	else
		st = qgroups_members(lay, l, it->local, it->grpid, out);
	if (l->partial && st != PMIX_ERR_NOMEM)
		*partial = true; /* over 1024 groups or 1 MiB */
	return st;
}

/*
 * Answer item `it` into `out`: from the step, or from root's answer in
 * `d` (NULL: root gave none, `failed` says why). A table without some
 * nodes' tasks sets *partial.
 */
static pmix_status_t answer_item(const struct query_call *c,
				 const struct query_item *it,
				 const struct pmixev_pmixd_query_done *d,
				 enum pmixev_result failed, pmix_info_t *out,
				 bool *partial)
{
	const struct layout *lay = pmixside_layout(c->p);
	const struct pmixev_pmixd_qanswer *a;
	pmix_status_t st;

	if (it->ask == QUERY_NO_ASK)
		return answer_step(c, it, out);
	if (!d)
		return status_to_pmix(failed);
	a = &d->a[it->ask];
	if (a->result != PMIXEV_OK)
		return status_to_pmix(a->result);
	if (a->key == PMIXEV_PMIXD_Q_GROUPS)
		return answer_groups(lay, it, a->groups, out, partial);
	if (a->key != PMIXEV_PMIXD_Q_PTABLE)
		return answer_slurm(lay, it, a->resp, out);
	if (it->key == Q_MEMORY_USAGE)
		st = qprocs_memory(lay, a->pt.e, a->pt.count, it->rank, it->avg,
				   it->minmax, out);
	else
		st = qprocs_table(lay, query_key_name(it->key), a->pt.e,
				  a->pt.count, out);
	if (st == PMIX_SUCCESS && !a->complete)
		*partial = true; /* some nodes are missing */
	return st;
}

/* Hand PMIx the answered items of `out` (their statuses in `st`). */
static void deliver(struct query_call *c, pmix_info_t *out,
		    const pmix_status_t *st, bool missed)
{
	struct infos *a = NULL;
	pmix_status_t rc = PMIX_ERR_NOT_FOUND;
	size_t n = 0;

	/* Nothing answered: not found, unless Slurm could not be asked or
	 * refused, which the caller should know. */
	for (size_t i = 0; i < c->req.nitems; i++) {
		if (st[i] == PMIX_SUCCESS) {
			n++;
			continue;
		}
		missed = true;
		if (st[i] != PMIX_ERR_NOT_FOUND)
			rc = st[i];
	}
	if (!n)
		goto out;
	rc = PMIX_ERR_NOMEM;
	if (!(a = infos_create(n)))
		goto out;
	for (size_t i = 0; i < c->req.nitems; i++)
		if (st[i] == PMIX_SUCCESS)
			PMIX_INFO_XFER(&a->info[a->n++], &out[i]);
	c->cbfunc(missed ? PMIX_ERR_PARTIAL_SUCCESS : PMIX_SUCCESS, a->info,
		  a->n, c->cbdata, infos_release, a);
	return;
out:
	c->cbfunc(rc, NULL, 0, c->cbdata, NULL, NULL);
}

/* Answer PMIx once: every item from the step or root's answer `d`. */
static void reply(struct query_call *c, const struct pmixev_pmixd_query_done *d,
		  enum pmixev_result failed)
{
	pmix_status_t st[QUERY_ITEMS_MAX];
	bool missed = c->req.unanswerable;
	pmix_info_t *out = NULL;

	c->replied = true;
	if (c->deadline)
		evtimer_del(c->deadline);
	PMIX_INFO_CREATE(out, QUERY_ITEMS_MAX);
	if (!out) {
		c->cbfunc(PMIX_ERR_NOMEM, NULL, 0, c->cbdata, NULL, NULL);
		return;
	}
	for (size_t i = 0; i < c->req.nitems; i++)
		st[i] = answer_item(c, &c->req.items[i], d, failed, &out[i],
				    &missed);
	deliver(c, out, st, missed);
	PMIX_INFO_FREE(out, QUERY_ITEMS_MAX);
}

/* Root's answer has one answer per item asked, each of its kind. */
static bool matches(const struct query_call *c,
		    const struct pmixev_pmixd_query_done *d)
{
	if (d->n != c->req.ask.n)
		return false;
	for (uint32_t i = 0; i < d->n; i++)
		if (d->a[i].key != c->req.ask.item[i].key)
			return false;
	return true;
}

static int on_done(void *ctx, struct pmixev_buf *body)
{
	struct pmixside *p = ctx;
	struct pmixev_pmixd_query_done m;
	struct query_call *c;
	bool ok;

	if (pmixev_pmixd_query_done_unpack(body, &m) < 0)
		return -1;
	c = (struct query_call *)calls_take(pmixside_calls(p), m.id,
					    PMIXEV_PMIXD_QUERY_DONE);
	ok = c && matches(c, &m);
	if (c && !c->replied)
		reply(c, ok ? &m : NULL, PMIXEV_ERR_BAD_DATA);
	if (c)
		drop(c);
	pmixev_pmixd_query_done_release(&m);
	return ok ? 0 : -1;
}

/* The channel closed before root answered. */
static void answer_call(struct call *call, enum pmixev_result result,
			const uint8_t *data, size_t ndata)
{
	struct query_call *c = (struct query_call *)call;

	if (!c->replied)
		reply(c, NULL, result);
	drop(c);
}

static void on_deadline(evutil_socket_t fd, short what, void *arg)
{
	struct query_call *c = arg;

	c->replied = true;
	c->cbfunc(PMIX_ERR_TIMEOUT, NULL, 0, c->cbdata, NULL, NULL);
}

/* PMIX_TIMEOUT starts counting here, unless root answered already. */
static void arm_agent(void *arg)
{
	struct query_call *c = arg;
	struct timeval tv = {(time_t)c->req.ask.timeout_sec, 0};

	if (!c->replied) {
		c->deadline = evtimer_new(agent_base(pmixside_agent(c->p)),
					  on_deadline, c);
		if (c->deadline)
			evtimer_add(c->deadline, &tv);
		else
			PMIXEV_ERROR("query: out of memory for a PMIX_TIMEOUT "
				     "of %u s; the request waits for root's "
				     "answer",
				     (unsigned)c->req.ask.timeout_sec);
	}
	drop(c);
}

/* Nothing to ask root: answer from the step alone. */
static void step_agent(void *arg)
{
	struct query_call *c = arg;

	reply(c, NULL, PMIXEV_OK);
	free(c);
}

void query_pmix_listen(struct pmixside *p)
{
	chan_on(pmixside_chan(p), PMIXEV_PMIXD_QUERY_DONE, on_done, p);
}

/* --- PMIx progress thread ------------------------------------------------- */

/* Send `c`'s QUERY to root; owns c. */
static pmix_status_t send_call(struct query_call *c)
{
	bool timed = c->req.ask.timeout_sec != 0;
	struct pmixev_buf frame;

	c->call.id = calls_new_id(pmixside_calls(c->p));
	c->call.done_type = PMIXEV_PMIXD_QUERY_DONE;
	c->call.answer = answer_call;
	c->req.ask.id = c->call.id;
	atomic_init(&c->holds, timed ? 2 : 1);
	pmixev_buf_init(&frame);
	chan_frame_begin(&frame);
	if (pmixev_pmixd_query_pack(&frame, &c->req.ask) < 0) {
		pmixev_buf_release(&frame);
		free(c);
		return status_to_pmix(PMIXEV_ERR_BAD_REQUEST);
	}
	if (calls_send(pmixside_calls(c->p), &c->call, PMIXEV_PMIXD_QUERY,
		       &frame) < 0) {
		free(c);
		return status_to_pmix(PMIXEV_ERR_UNREACH);
	}
	/* Timers are the agent's: it arms the deadline. */
	if (timed && agent_post(pmixside_agent(c->p), arm_agent, c) < 0) {
		PMIXEV_ERROR("query: cannot wake the pmix side's agent "
			     "(stopping or out of memory) to time a request; "
			     "it waits for root's answer");
		drop(c);
	}
	return PMIX_SUCCESS;
}

pmix_status_t query_upcall(pmix_proc_t *proct, pmix_query_t *queries,
			   size_t nqueries, pmix_info_cbfunc_t cbfunc,
			   void *cbdata)
{
	const struct step *s = step_served();
	struct query_call *c = calloc(1, sizeof(*c));
	pmix_status_t rc;

	if (!c)
		return PMIX_ERR_NOMEM;
	c->p = s->pside;
	rc = query_read(&c->req, pmixside_layout(c->p), queries, nqueries);
	if (rc != PMIX_SUCCESS) {
		free(c);
		return rc;
	}
	c->uri = s->pmix_uri;
	c->cbfunc = cbfunc;
	c->cbdata = cbdata;
	if (c->req.ask.n)
		return send_call(c);
	if (agent_post(pmixside_agent(c->p), step_agent, c) == 0)
		return PMIX_SUCCESS;
	free(c);
	return PMIX_ERR_UNREACH;
}
