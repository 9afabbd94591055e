/*
 * pmix/module.c - the PMIx server module.
 */
#include "config.h"

#include "pmix/module.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmixev_frame.h"
#include "pmixev_log.h"
#include "pmixev_proto.h"

/*
 * PMIx's module functions carry no host context pointer, so the step's
 * components are reached through this file-static copy: written once
 * before PMIx_server_init, cleared after PMIx_server_finalize, read-only
 * in between.
 */
static struct upcall_deps deps;

const struct upcall_deps *upcalls_deps(void)
{
	return &deps;
}

void upcalls_bind(const struct upcall_deps *d)
{
	if (d)
		deps = *d;
	else
		memset(&deps, 0, sizeof(deps));
}

/* --- helpers ---------------------------------------------------------- */

/* Ranks of `procs` (all in our namespace). 0, or a PMIx error. */
static pmix_status_t to_ranks(const pmix_proc_t procs[], size_t nprocs,
			      bool *all, uint32_t **ranks)
{
	*all = false;
	*ranks = NULL;
	if (!nprocs)
		return PMIX_ERR_BAD_PARAM;
	if (!(*ranks = calloc(nprocs, sizeof(**ranks))))
		return PMIX_ERR_NOMEM;
	for (size_t i = 0; i < nprocs; i++) {
		if (!PMIX_CHECK_NSPACE(procs[i].nspace, deps.lay->nspace)) {
			free(*ranks);
			*ranks = NULL;
			return PMIX_ERR_NOT_SUPPORTED;
		}
		if (procs[i].rank == PMIX_RANK_WILDCARD)
			*all = true;
		else if (procs[i].rank >= deps.lay->step.ntasks) {
			free(*ranks);
			*ranks = NULL;
			return PMIX_ERR_BAD_PARAM;
		}
		(*ranks)[i] = procs[i].rank;
	}
	return PMIX_SUCCESS;
}

static unsigned info_timeout(const pmix_info_t info[], size_t ninfo)
{
	for (size_t i = 0; i < ninfo; i++)
		if (PMIX_CHECK_KEY(&info[i], PMIX_TIMEOUT) &&
		    info[i].value.type == PMIX_INT &&
		    info[i].value.data.integer > 0)
			return (unsigned)info[i].value.data.integer;
	return 0;
}

static bool info_flag(const pmix_info_t info[], size_t ninfo, const char *key)
{
	for (size_t i = 0; i < ninfo; i++)
		if (PMIX_CHECK_KEY(&info[i], key))
			return PMIX_INFO_TRUE(&info[i]);
	return false;
}

static void release_data(void *cbdata)
{
	free(cbdata);
}

static void *memdup(const void *p, size_t n)
{
	void *q = n ? malloc(n) : NULL;

	if (q)
		memcpy(q, p, n);
	return q;
}

/* --- fence and direct modex ------------------------------------------- */

struct modex_call {
	bool all;
	uint32_t *ranks;
	size_t nranks;
	bool collect;
	unsigned timeout;
	uint8_t *data;
	size_t ndata;
	pmix_modex_cbfunc_t cbfunc;
	void *cbdata;
};

static void modex_done(int status, const uint8_t *data, size_t ndata, void *arg)
{
	struct modex_call *c = arg;
	char *copy = memdup(data, ndata);

	if (ndata && !copy)
		status = PMIX_ERR_NOMEM;
	c->cbfunc(status, copy, copy ? ndata : 0, c->cbdata, release_data,
		  copy);
	free(c->ranks);
	free(c->data);
	free(c);
}

static void fence_work(void *arg)
{
	struct modex_call *c = arg;

	fence_local(deps.fence, 'F', c->all, c->ranks, c->nranks, c->collect,
		    c->timeout, c->data, c->ndata, modex_done, c);
}

static pmix_status_t fence_nb(const pmix_proc_t procs[], size_t nprocs,
			      const pmix_info_t info[], size_t ninfo,
			      char *data, size_t ndata,
			      pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
	struct modex_call *c = calloc(1, sizeof(*c));
	pmix_status_t rc = PMIX_ERR_NOMEM;

	if (!c || (ndata && !(c->data = memdup(data, ndata))))
		goto fail;
	if ((rc = to_ranks(procs, nprocs, &c->all, &c->ranks)) != PMIX_SUCCESS)
		goto fail;
	c->nranks = nprocs;
	c->ndata = ndata;
	c->collect = info_flag(info, ninfo, PMIX_COLLECT_DATA);
	c->timeout = info_timeout(info, ninfo);
	c->cbfunc = cbfunc;
	c->cbdata = cbdata;
	if (agent_post(deps.agent, fence_work, c) == 0)
		return PMIX_SUCCESS;
	rc = PMIX_ERR_UNREACH;
fail:
	if (c) {
		free(c->data);
		free(c->ranks);
		free(c);
	}
	return rc;
}

static void dmodex_work(void *arg)
{
	struct modex_call *c = arg;

	dmodex_request(deps.dmodex, c->ranks[0], c->timeout, modex_done, c);
}

static pmix_status_t direct_modex(const pmix_proc_t *proc,
				  const pmix_info_t info[], size_t ninfo,
				  pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
	struct modex_call *c;
	bool all;
	uint32_t *ranks;
	pmix_status_t rc = to_ranks(proc, 1, &all, &ranks);

	if (rc != PMIX_SUCCESS)
		return rc;
	if (all || !(c = calloc(1, sizeof(*c)))) {
		free(ranks);
		return all ? PMIX_ERR_BAD_PARAM : PMIX_ERR_NOMEM;
	}
	c->ranks = ranks;
	c->nranks = 1;
	c->timeout = info_timeout(info, ninfo);
	c->cbfunc = cbfunc;
	c->cbdata = cbdata;
	if (agent_post(deps.agent, dmodex_work, c) == 0)
		return PMIX_SUCCESS;
	free(ranks);
	free(c);
	return PMIX_ERR_UNREACH;
}

/* --- connect / disconnect: barriers over the procs ---------------------- */

struct op_call {
	char kind;
	bool all;
	uint32_t *ranks;
	size_t nranks;
	unsigned timeout;
	pmix_op_cbfunc_t cbfunc;
	void *cbdata;
};

static void op_done(int status, const uint8_t *data, size_t ndata, void *arg)
{
	struct op_call *c = arg;

	c->cbfunc(status, c->cbdata);
	free(c->ranks);
	free(c);
}

static void op_work(void *arg)
{
	struct op_call *c = arg;

	fence_local(deps.fence, c->kind, c->all, c->ranks, c->nranks, false,
		    c->timeout, NULL, 0, op_done, c);
}

static pmix_status_t barrier_op(char kind, const pmix_proc_t procs[],
				size_t nprocs, const pmix_info_t info[],
				size_t ninfo, pmix_op_cbfunc_t cbfunc,
				void *cbdata)
{
	struct op_call *c = calloc(1, sizeof(*c));
	pmix_status_t rc = PMIX_ERR_NOMEM;

	if (!c)
		return rc;
	if ((rc = to_ranks(procs, nprocs, &c->all, &c->ranks)) != PMIX_SUCCESS)
		goto fail;
	c->kind = kind;
	c->nranks = nprocs;
	c->timeout = info_timeout(info, ninfo);
	c->cbfunc = cbfunc;
	c->cbdata = cbdata;
	if (agent_post(deps.agent, op_work, c) == 0)
		return PMIX_SUCCESS;
	rc = PMIX_ERR_UNREACH;
fail:
	free(c->ranks);
	free(c);
	return rc;
}

static pmix_status_t connect_fn(const pmix_proc_t procs[], size_t nprocs,
				const pmix_info_t info[], size_t ninfo,
				pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	return barrier_op('C', procs, nprocs, info, ninfo, cbfunc, cbdata);
}

static pmix_status_t disconnect_fn(const pmix_proc_t procs[], size_t nprocs,
				   const pmix_info_t info[], size_t ninfo,
				   pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	return barrier_op('D', procs, nprocs, info, ninfo, cbfunc, cbdata);
}

/* --- abort ---------------------------------------------------------------- */

struct abort_call {
	struct pmixev_abort_msg msg;
	pmix_op_cbfunc_t cbfunc;
	void *cbdata;
};

static void abort_work(void *arg)
{
	struct abort_call *c = arg;
	struct pmixev_buf b;
	pmix_status_t rc = PMIX_SUCCESS;

	PMIXEV_INFO("rank %u requested abort with status %d: %s", c->msg.rank,
		    c->msg.status, c->msg.text);
	events_client_aborted(deps.events, c->msg.rank);
	pmixev_buf_init(&b);
	if (pmixev_abort_pack(&b, &c->msg) < 0 ||
	    overlay_send(deps.ov, PMIXEV_NODE_SRUN, PMIXEV_MSG_ABORT, b.data,
			 b.len) < 0) {
		PMIXEV_ERROR("cannot forward the abort of rank %u to srun",
			     c->msg.rank);
		rc = PMIX_ERR_UNREACH;
	}
	pmixev_buf_release(&b);
	if (c->cbfunc)
		c->cbfunc(rc, c->cbdata);
	free(c);
}

static pmix_status_t abort_fn(const pmix_proc_t *proc, void *server_object,
			      int status, const char msg[], pmix_proc_t procs[],
			      size_t nprocs, pmix_op_cbfunc_t cbfunc,
			      void *cbdata)
{
	struct abort_call *c = calloc(1, sizeof(*c));

	if (!c)
		return PMIX_ERR_NOMEM;
	c->msg.status = status;
	c->msg.rank = proc->rank;
	snprintf(c->msg.text, sizeof(c->msg.text), "%s",
		 msg ? msg : "(no message)");
	c->cbfunc = cbfunc;
	c->cbdata = cbdata;
	if (agent_post(deps.agent, abort_work, c) == 0)
		return PMIX_SUCCESS;
	free(c);
	return PMIX_ERR_UNREACH;
}

/* --- tools and queries ---------------------------------------------------- */

struct tool_call {
	pmix_tool_connection_cbfunc_t cbfunc;
	void *cbdata;
};

static void tool_work(void *arg)
{
	static unsigned ntools; /* agent thread only */
	struct tool_call *c = arg;
	pmix_proc_t proc;
	char ns[PMIX_MAX_NSLEN + 1];

	snprintf(ns, sizeof(ns), "%.200s.tool.%u.%u", deps.lay->nspace,
		 deps.lay->nodeid, ++ntools);
	PMIX_LOAD_PROCID(&proc, ns, 0);
	PMIXEV_DEBUG(1, "tool connected as %s", ns);
	c->cbfunc(PMIX_SUCCESS, &proc, c->cbdata);
	free(c);
}

static void tool_connected(pmix_info_t *info, size_t ninfo,
			   pmix_tool_connection_cbfunc_t cbfunc, void *cbdata)
{
	struct tool_call *c;

	/*
	 * A tool of another user is shut out here, before the library
	 * answers it, and is never answered: OpenPMIx before 5.0.9 frees
	 * the tool's records twice when a host refuses one (or when the
	 * answer cannot be sent), so the library keeps a small record of
	 * each refused tool until the step ends.
	 */
	if (pmix_gate_sweep(deps.gate) > 0 || !pmix_gate_ready(deps.gate)) {
		PMIXEV_DEBUG(1, "a tool connection was refused: not answered");
		return;
	}
	if ((c = calloc(1, sizeof(*c)))) {
		c->cbfunc = cbfunc;
		c->cbdata = cbdata;
		if (agent_post(deps.agent, tool_work, c) == 0)
			return;
		free(c);
	}
	cbfunc(PMIX_ERR_NOMEM, NULL, cbdata);
}

struct query_call {
	bool namespaces; /* PMIX_QUERY_NAMESPACES was asked */
	bool events;	 /* PMIXEV_QUERY_EVENTS was asked */
	pmix_info_cbfunc_t cbfunc;
	void *cbdata;
};

struct query_answer {
	pmix_info_t *info;
	size_t ninfo;
};

static void release_answer(void *cbdata)
{
	struct query_answer *a = cbdata;

	PMIX_INFO_FREE(a->info, a->ninfo);
	free(a);
}

static void query_work(void *arg)
{
	struct query_call *c = arg;
	struct query_answer *a = calloc(1, sizeof(*a));
	pmix_status_t rc = PMIX_ERR_NOMEM;

	if (a)
		PMIX_INFO_CREATE(a->info, 2);
	if (!a || !a->info)
		goto out;
	if (c->namespaces)
		PMIX_INFO_LOAD(&a->info[a->ninfo++], PMIX_QUERY_NAMESPACES,
			       deps.lay->nspace, PMIX_STRING);
	if (c->events &&
	    inject_report(deps.inject, &a->info[a->ninfo++]) != PMIX_SUCCESS)
		goto out;
	if (!a->ninfo) {
		rc = PMIX_ERR_NOT_FOUND;
		goto out;
	}
	a->ninfo = 2; /* what was allocated */
	c->cbfunc(PMIX_SUCCESS, a->info, c->namespaces + c->events, c->cbdata,
		  release_answer, a);
	free(c);
	return;
out:
	if (a) {
		a->ninfo = 2;
		release_answer(a);
	}
	c->cbfunc(rc, NULL, 0, c->cbdata, NULL, NULL);
	free(c);
}

static pmix_status_t query_fn(pmix_proc_t *proct, pmix_query_t *queries,
			      size_t nqueries, pmix_info_cbfunc_t cbfunc,
			      void *cbdata)
{
	struct query_call *c = calloc(1, sizeof(*c));

	if (!c)
		return PMIX_ERR_NOMEM;
	for (size_t q = 0; q < nqueries; q++)
		for (size_t k = 0; queries[q].keys && queries[q].keys[k]; k++) {
			const char *key = queries[q].keys[k];

			c->namespaces |= !strcmp(key, PMIX_QUERY_NAMESPACES);
			c->events |= !strcmp(key, PMIXEV_QUERY_EVENTS);
		}
	c->cbfunc = cbfunc;
	c->cbdata = cbdata;
	if (agent_post(deps.agent, query_work, c) == 0)
		return PMIX_SUCCESS;
	free(c);
	return PMIX_ERR_UNREACH;
}

/* --- connections and events ----------------------------------------------- */

/* Connection state of a local rank, for classifying its exit. */
struct state_call {
	uint32_t rank;
	void (*set)(struct events *ev, uint32_t rank);
};

static void state_work(void *arg)
{
	struct state_call *c = arg;

	c->set(deps.events, c->rank);
	free(c);
}

static void post_state(uint32_t rank,
		       void (*set)(struct events *ev, uint32_t rank))
{
	struct state_call *c = malloc(sizeof(*c));

	if (!c)
		return;
	c->rank = rank;
	c->set = set;
	if (agent_post(deps.agent, state_work, c) < 0)
		free(c);
}

static pmix_status_t client_connected(const pmix_proc_t *proc,
				      void *server_object,
				      pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	PMIXEV_DEBUG(2, "rank %u connected", proc->rank);
	pmix_gate_sweep(deps.gate);
	post_state(proc->rank, events_client_connected);
	return PMIX_SUCCESS;
}

static pmix_status_t client_finalized(const pmix_proc_t *proc,
				      void *server_object,
				      pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	PMIXEV_DEBUG(2, "rank %u finalized", proc->rank);
	post_state(proc->rank, events_client_finalized);
	return PMIX_OPERATION_SUCCEEDED;
}

/*
 * Clients may register for any code, including the system codes the
 * library asks the host about (node down/offline, ...): pmixev delivers
 * all of them.
 */
static pmix_status_t register_events(pmix_status_t *codes, size_t ncodes,
				     const pmix_info_t info[], size_t ninfo,
				     pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t deregister_events(pmix_status_t *codes, size_t ncodes,
				       pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	return PMIX_OPERATION_SUCCEEDED;
}

static pmix_status_t notify_event(pmix_status_t code, const pmix_proc_t *source,
				  pmix_data_range_t range, pmix_info_t info[],
				  size_t ninfo, pmix_op_cbfunc_t cbfunc,
				  void *cbdata)
{
	return notify_from_client(deps.notify, code, source, range, info,
				  ninfo);
}

pmix_server_module_t upcalls_module = {
	.client_connected = client_connected,
	.client_finalized = client_finalized,
	.abort = abort_fn,
	.fence_nb = fence_nb,
	.direct_modex = direct_modex,
	.publish = upcall_publish,
	.lookup = upcall_lookup,
	.unpublish = upcall_unpublish,
	.connect = connect_fn,
	.disconnect = disconnect_fn,
	.register_events = register_events,
	.deregister_events = deregister_events,
	.notify_event = notify_event,
	.query = query_fn,
	.tool_connected = tool_connected,
};
