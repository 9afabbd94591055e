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

#include "base/agent.h"
#include "base/step.h"
#include "pmix/clients.h"
#include "pmix/dmodex.h"
#include "pmix/fence.h"
#include "pmix/notify.h"
#include "pmix/pubsub.h"
#include "pmix/query.h"
#include "pmix/tools.h"
#include "pmixev_frame.h"
#include "pmixev_log.h"
#include "pmixev_proto.h"
#include "pmix/directives.h"

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
		if (!PMIX_CHECK_NSPACE(procs[i].nspace,
				       step_served()->lay.nspace)) {
			free(*ranks);
			*ranks = NULL;
			return PMIX_ERR_NOT_SUPPORTED;
		}
		if (procs[i].rank == PMIX_RANK_WILDCARD)
			*all = true;
		else if (procs[i].rank >= step_served()->lay.step.ntasks) {
			free(*ranks);
			*ranks = NULL;
			return PMIX_ERR_BAD_PARAM;
		}
		(*ranks)[i] = procs[i].rank;
	}
	return PMIX_SUCCESS;
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

	fence_local(step_served()->fence, PMIXEV_COLL_FENCE, c->all, c->ranks,
		    c->nranks, c->collect, c->timeout, c->data, c->ndata,
		    modex_done, c);
}

static pmix_status_t fence_nb(const pmix_proc_t procs[], size_t nprocs,
			      const pmix_info_t info[], size_t ninfo,
			      char *data, size_t ndata,
			      pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
	struct modex_call *c = calloc(1, sizeof(*c));
	pmix_status_t rc = PMIX_ERR_NOMEM;
	struct directives dir;

	if (!c || (ndata && !(c->data = memdup(data, ndata))))
		goto fail;
	if ((rc = to_ranks(procs, nprocs, &c->all, &c->ranks)) != PMIX_SUCCESS)
		goto fail;
	c->nranks = nprocs;
	c->ndata = ndata;
	directives_read(info, ninfo, &dir);
	c->collect = dir.collect;
	c->timeout = dir.timeout_sec;
	c->cbfunc = cbfunc;
	c->cbdata = cbdata;
	if (agent_post(step_served()->agent, fence_work, c) == 0)
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

	dmodex_request(step_served()->dmodex, c->ranks[0], c->timeout,
		       modex_done, c);
}

static pmix_status_t direct_modex(const pmix_proc_t *proc,
				  const pmix_info_t info[], size_t ninfo,
				  pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
	struct modex_call *c;
	struct directives dir;
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
	directives_read(info, ninfo, &dir);
	c->timeout = dir.timeout_sec;
	c->cbfunc = cbfunc;
	c->cbdata = cbdata;
	if (agent_post(step_served()->agent, dmodex_work, c) == 0)
		return PMIX_SUCCESS;
	free(ranks);
	free(c);
	return PMIX_ERR_UNREACH;
}

/* --- connect / disconnect: barriers over the procs ---------------------- */

struct op_call {
	enum pmixev_coll_kind kind;
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

	fence_local(step_served()->fence, c->kind, c->all, c->ranks, c->nranks,
		    false, c->timeout, NULL, 0, op_done, c);
}

static pmix_status_t barrier_op(enum pmixev_coll_kind kind,
				const pmix_proc_t procs[], size_t nprocs,
				const pmix_info_t info[], size_t ninfo,
				pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	struct op_call *c = calloc(1, sizeof(*c));
	pmix_status_t rc = PMIX_ERR_NOMEM;
	struct directives dir;

	if (!c)
		return rc;
	if ((rc = to_ranks(procs, nprocs, &c->all, &c->ranks)) != PMIX_SUCCESS)
		goto fail;
	c->kind = kind;
	c->nranks = nprocs;
	directives_read(info, ninfo, &dir);
	c->timeout = dir.timeout_sec;
	c->cbfunc = cbfunc;
	c->cbdata = cbdata;
	if (agent_post(step_served()->agent, op_work, c) == 0)
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
	return barrier_op(PMIXEV_COLL_CONNECT, procs, nprocs, info, ninfo,
			  cbfunc, cbdata);
}

static pmix_status_t disconnect_fn(const pmix_proc_t procs[], size_t nprocs,
				   const pmix_info_t info[], size_t ninfo,
				   pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	return barrier_op(PMIXEV_COLL_DISCONNECT, procs, nprocs, info, ninfo,
			  cbfunc, cbdata);
}

/* --- tools and queries ---------------------------------------------------- */

pmix_server_module_t module_upcalls = {
	.client_connected = clients_upcall_connected,
	.client_finalized = clients_upcall_finalized,
	.abort = clients_upcall_abort,
	.fence_nb = fence_nb,
	.direct_modex = direct_modex,
	.publish = pubsub_upcall_publish,
	.lookup = pubsub_upcall_lookup,
	.unpublish = pubsub_upcall_unpublish,
	.connect = connect_fn,
	.disconnect = disconnect_fn,
	.register_events = notify_upcall_register,
	.deregister_events = notify_upcall_deregister,
	.notify_event = notify_upcall_event,
	.query = query_upcall,
	.tool_connected = tools_upcall_connected,
};
