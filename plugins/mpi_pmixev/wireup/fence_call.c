/*
 * wireup/fence_call.c - the PMIx upcalls of fences, connect and disconnect
 * (see fence.h). PMIx progress thread: fence_upcall_* copy their
 * arguments and post them to the agent. Agent thread: the rest, which
 * hands the call to fence_local and answers PMIx when it ends.
 */
#include "config.h"

#include "wireup/fence.h"

#include <stdlib.h>
#include <string.h>

#include <pmix_server.h>

#include "base/agent.h"
#include "base/step.h"
#include "pmixbase/directives.h"
#include "pmixbase/procs.h"
#include "pmixbase/status.h"

/* A fence, connect or disconnect, copied for the agent. */
struct coll_call {
	enum pmixev_coll_kind kind;
	bool all;
	uint32_t *ranks;
	size_t nranks;
	bool collect;
	unsigned timeout_sec;
	uint8_t *data; /* fence: this node's contribution */
	size_t ndata;
	pmix_modex_cbfunc_t modex_cb; /* fence */
	pmix_op_cbfunc_t op_cb;	      /* connect, disconnect */
	void *cbdata;
};

static void call_free(struct coll_call *c)
{
	free(c->ranks);
	free(c->data);
	free(c);
}

/* Agent thread: the collective ended here; answer PMIx. */
static void coll_answer_agent(enum pmixev_result result, const uint8_t *data,
			      size_t ndata, void *arg)
{
	struct coll_call *c = arg;

	if (c->kind == PMIXEV_COLL_FENCE)
		status_answer_modex(c->modex_cb, c->cbdata, result, data,
				    ndata);
	else
		status_answer_op(c->op_cb, c->cbdata, result);
	call_free(c);
}

/* Agent thread: this node's part of the collective. */
static void coll_agent(void *arg)
{
	struct coll_call *c = arg;
	uint8_t *data = c->data; /* copied by fence_local: not held twice */

	c->data = NULL;
	fence_local(step_served()->fence, c->kind, c->all, c->ranks, c->nranks,
		    c->collect, c->timeout_sec, data, c->ndata,
		    coll_answer_agent, c);
	free(data);
}

/* PMIx thread: complete `c` (kind, data, callback) and post it; owns c. */
static enum pmixev_result coll_upcall(struct coll_call *c,
				      const pmix_proc_t procs[], size_t nprocs,
				      const pmix_info_t info[], size_t ninfo)
{
	const struct step *s = step_served();
	struct directives dir;
	enum pmixev_result rc;

	rc = procs_to_ranks(&s->lay, procs, nprocs, &c->all, &c->ranks);
	if (rc != PMIXEV_OK)
		goto fail;
	directives_read(info, ninfo, &dir);
	c->nranks = nprocs;
	c->collect = c->kind == PMIXEV_COLL_FENCE && dir.collect;
	c->timeout_sec = dir.timeout_sec;
	if (agent_post(s->agent, coll_agent, c) == 0)
		return PMIXEV_OK;
	rc = PMIXEV_ERR_UNREACH;
fail:
	call_free(c);
	return rc;
}

pmix_status_t fence_upcall_fence_nb(const pmix_proc_t procs[], size_t nprocs,
				    const pmix_info_t info[], size_t ninfo,
				    char *data, size_t ndata,
				    pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
	struct coll_call *c = calloc(1, sizeof(*c));

	if (!c || (ndata && !(c->data = malloc(ndata)))) {
		free(c);
		return status_to_pmix(PMIXEV_ERR_NOMEM);
	}
	if (ndata)
		memcpy(c->data, data, ndata);
	c->kind = PMIXEV_COLL_FENCE;
	c->ndata = ndata;
	c->modex_cb = cbfunc;
	c->cbdata = cbdata;
	return status_to_pmix(coll_upcall(c, procs, nprocs, info, ninfo));
}

static pmix_status_t barrier_upcall(enum pmixev_coll_kind kind,
				    const pmix_proc_t procs[], size_t nprocs,
				    const pmix_info_t info[], size_t ninfo,
				    pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	struct coll_call *c = calloc(1, sizeof(*c));

	if (!c)
		return status_to_pmix(PMIXEV_ERR_NOMEM);
	c->kind = kind;
	c->op_cb = cbfunc;
	c->cbdata = cbdata;
	return status_to_pmix(coll_upcall(c, procs, nprocs, info, ninfo));
}

pmix_status_t fence_upcall_connect(const pmix_proc_t procs[], size_t nprocs,
				   const pmix_info_t info[], size_t ninfo,
				   pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	return barrier_upcall(PMIXEV_COLL_CONNECT, procs, nprocs, info, ninfo,
			      cbfunc, cbdata);
}

pmix_status_t fence_upcall_disconnect(const pmix_proc_t procs[], size_t nprocs,
				      const pmix_info_t info[], size_t ninfo,
				      pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	return barrier_upcall(PMIXEV_COLL_DISCONNECT, procs, nprocs, info,
			      ninfo, cbfunc, cbdata);
}
