/*
 * pmixside/spawn_pmix.c - PMIx_Spawn on the pmix side (see spawn_pmix.h).
 */
#include "config.h"

#include "pmixside/spawn_pmix.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "base/step.h"
#include "pmixbase/status.h"
#include "pmixev_log.h"
#include "pmixside/calls.h"
#include "pmixside/side.h"
#include "pmixside/spawn_read.h"

/* A spawn waiting for root. */
struct sp_call {
	struct call call; /* first: see calls.h */
	pmix_spawn_cbfunc_t cbfunc;
	void *cbdata;
	uint32_t job, step; /* for the log */
	uint32_t rank;	    /* the requester's, or NO_RANK */
};

/* Who asked, for the log. */
static const char *who(uint32_t rank, char *buf, size_t len)
{
	if (rank == PMIXEV_PMIXD_NO_RANK)
		snprintf(buf, len, "a tool");
	else
		snprintf(buf, len, "rank %u", rank);
	return buf;
}

/* --- pmix side's agent ---------------------------------------------------- */

/* Answer PMIx: the child's namespace on success; frees `c`. */
static void answer(struct sp_call *c, pmix_status_t status, const char *nspace,
		   const char *reason)
{
	pmix_nspace_t ns;
	char w[32];

	if (status == PMIX_SUCCESS) {
		PMIX_LOAD_NSPACE(ns, nspace);
		PMIXEV_DEBUG(1, "spawn: step %u.%u: %s spawned %s", c->job,
			     c->step, who(c->rank, w, sizeof(w)), ns);
	} else {
		PMIXEV_INFO("spawn: step %u.%u: the spawn of %s failed (%s): "
			    "%s",
			    c->job, c->step, who(c->rank, w, sizeof(w)),
			    PMIx_Error_string(status),
			    reason[0] ? reason : "no reason given");
	}
	c->cbfunc(status, status == PMIX_SUCCESS ? ns : NULL, c->cbdata);
	free(c);
}

/* The channel closed before root answered. */
static void answer_call(struct call *call, enum pmixev_result result,
			const uint8_t *data, size_t ndata)
{
	(void)data;
	(void)ndata;
	answer((struct sp_call *)call, status_to_pmix(result), NULL,
	       "the channel to root closed");
}

static int on_done(void *ctx, struct pmixev_buf *body)
{
	struct pmixside *p = ctx;
	struct pmixev_pmixd_spawn_done *m = malloc(sizeof(*m));
	struct call *c = NULL;

	if (!m)
		return 0; /* the spawn stays unanswered, as if lost */
	if (pmixev_pmixd_spawn_done_unpack(body, m) == 0)
		c = calls_take(pmixside_calls(p), m->id,
			       PMIXEV_PMIXD_SPAWN_DONE);
	if (c)
		answer((struct sp_call *)c, m->status, m->nspace, m->reason);
	free(m);
	return c ? 0 : -1;
}

void spawn_pmix_listen(struct pmixside *p)
{
	chan_on(pmixside_chan(p), PMIXEV_PMIXD_SPAWN_DONE, on_done, p);
}

/* The request's codec, as calls_request takes it. */
static int pack_msg(struct pmixev_buf *b, const void *m)
{
	return pmixev_pmixd_spawn_pack(b, m);
}

/* --- PMIx progress thread ------------------------------------------------- */

/* Send the spawn read into `r` to root. PMIX_SUCCESS, or why not. */
static pmix_status_t send_call(struct pmixside *p, struct spawn_req *r,
			       pmix_spawn_cbfunc_t cbfunc, void *cbdata)
{
	struct sp_call *c = calloc(1, sizeof(*c));
	enum pmixev_result rc;

	if (!c) {
		snprintf(r->why, sizeof(r->why), "out of memory");
		return PMIX_ERR_NOMEM;
	}
	c->call.done_type = PMIXEV_PMIXD_SPAWN_DONE;
	c->call.answer = answer_call;
	c->cbfunc = cbfunc;
	c->cbdata = cbdata;
	c->job = pmixside_layout(p)->step.job_id;
	c->step = pmixside_layout(p)->step.step_id;
	c->rank = r->m.rank;
	rc = calls_request(pmixside_calls(p), &c->call, &r->m.id,
			   PMIXEV_PMIXD_SPAWN, pack_msg, &r->m, r->why,
			   sizeof(r->why));
	return status_to_pmix(rc);
}

static bool step_node(const struct layout *lay, const char *name, size_t len)
{
	for (uint32_t i = 0; i < lay->nnames; i++)
		if (strlen(lay->nodes[i]) == len &&
		    !strncmp(lay->nodes[i], name, len))
			return true;
	return false;
}

/*
 * PMIX_SPAWN_TOOL: the tools attach to this step's servers, so they run on
 * its nodes (without hosts: this one, the spawner's), in this job.
 */
static pmix_status_t tool_place(struct spawn_req *r, const struct layout *lay)
{
	struct pmixev_pmixd_spawn *m = &r->m;
	const char *h = m->nodelist;

	if (!(m->flags & PMIXEV_PMIXD_SPAWN_TOOL))
		return PMIX_SUCCESS;
	if (m->alloc_job && m->alloc_job != lay->step.job_id) {
		snprintf(r->why, sizeof(r->why),
			 "%s: a tool runs beside its parent step, not in job "
			 "%u (%s)",
			 PMIX_SPAWN_TOOL, m->alloc_job, PMIX_ALLOC_ID);
		return PMIX_ERR_NOT_SUPPORTED;
	}
	if (!h[0]) {
		char *here = strdup(lay->step.node);

		if (!here)
			return PMIX_ERR_NOMEM;
		free(m->nodelist);
		m->nodelist = here;
		return PMIX_SUCCESS;
	}
	while (*h) {
		size_t n = strcspn(h, ",");

		if (!step_node(lay, h, n)) {
			snprintf(r->why, sizeof(r->why),
				 "%s: host %.*s is not a node of step %s, "
				 "whose server a tool attaches to",
				 PMIX_SPAWN_TOOL, (int)(n > 64 ? 64 : n), h,
				 lay->step.id);
			return PMIX_ERR_NOT_SUPPORTED;
		}
		h += n + (h[n] == ',');
	}
	return PMIX_SUCCESS;
}

pmix_status_t spawn_upcall(const pmix_proc_t *proc,
			   const pmix_info_t job_info[], size_t ninfo,
			   const pmix_app_t apps[], size_t napps,
			   pmix_spawn_cbfunc_t cbfunc, void *cbdata)
{
	struct pmixside *p = step_served()->pside;
	const struct layout *lay = pmixside_layout(p);
	struct spawn_req *r = calloc(1, sizeof(*r));
	pmix_status_t rc;
	char w[32];

	if (!r)
		return PMIX_ERR_NOMEM;
	/* A task of the step on this node, or a tool (none). */
	r->m.rank = proc && PMIX_CHECK_NSPACE(proc->nspace, lay->nspace) &&
				    layout_is_local(lay, proc->rank)
			    ? proc->rank
			    : PMIXEV_PMIXD_NO_RANK;
	rc = spawn_read(r, job_info, ninfo, apps, napps);
	if (rc == PMIX_SUCCESS)
		rc = tool_place(r, lay);
	if (rc == PMIX_SUCCESS)
		rc = send_call(p, r, cbfunc, cbdata);
	if (rc != PMIX_SUCCESS)
		PMIXEV_INFO("spawn: step %u.%u: a spawn from %s refused (%s): "
			    "%s",
			    lay->step.job_id, lay->step.step_id,
			    who(r->m.rank, w, sizeof(w)), PMIx_Error_string(rc),
			    r->why);
	pmixev_pmixd_spawn_release(&r->m);
	free(r);
	return rc;
}
