/*
 * pmixside/alloc_pmix.c - PMIx_Allocation_request on the pmix side (see
 * alloc_pmix.h).
 */
#include "config.h"

#include "pmixside/alloc_pmix.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "base/step.h"
#include "pmixbase/infos.h"
#include "pmixbase/status.h"
#include "pmixev_events.h"
#include "pmixev_log.h"
#include "pmixside/alloc_read.h"
#include "pmixside/calls.h"
#include "pmixside/side.h"

/* A request waiting for root. */
struct al_call {
	struct call call; /* first: see calls.h */
	pmix_info_cbfunc_t cbfunc;
	void *cbdata;
	char reqid[PMIXEV_PMIXD_ALLOC_REQID]; /* echoed */
};

/* --- pmix side's agent ---------------------------------------------------- */

static void load_str(struct infos *a, const char *key, const char *val)
{
	if (val && val[0])
		PMIX_INFO_LOAD(&a->info[a->n++], key, val, PMIX_STRING);
}

static void load_u64(struct infos *a, const char *key, uint64_t val)
{
	if (val)
		PMIX_INFO_LOAD(&a->info[a->n++], key, &val, PMIX_UINT64);
}

/* The time granted: uint32_t seconds in OpenPMIx 4.x, a string in 5.x. */
static void load_time(struct infos *a, uint32_t sec)
{
#if PMIX_VERSION_MAJOR >= 5
	char text[16];

	snprintf(text, sizeof(text), "%u", sec);
	if (sec)
		load_str(a, PMIX_ALLOC_TIME, text);
#else
	if (sec)
		PMIX_INFO_LOAD(&a->info[a->n++], PMIX_ALLOC_TIME, &sec,
			       PMIX_UINT32);
#endif
}

/* Answer PMIx with root's `d` (NULL: `status` alone); frees `c`. */
static void answer(struct al_call *c, pmix_status_t status,
		   const struct pmixev_pmixd_alloc_done *d)
{
	struct infos *a = infos_create(8);
	char job[16];

	if (a && d && d->status == PMIX_SUCCESS) {
		if (d->job) {
			snprintf(job, sizeof(job), "%u", d->job);
			load_str(a, PMIX_ALLOC_ID, job);
		}
		load_str(a, PMIX_ALLOC_NODE_LIST, d->nodes);
		load_u64(a, PMIX_ALLOC_NUM_NODES, d->nnodes);
		load_u64(a, PMIX_ALLOC_NUM_CPUS, d->ncpus);
		load_time(a, d->seconds);
		load_str(a, PMIX_ALLOC_QUEUE, d->queue);
		load_str(a, PMIX_ALLOC_REQ_ID, c->reqid);
	} else if (a && d) {
		load_str(a, PMIXEV_ALLOC_REASON, d->reason);
	}
	if (a && !a->n) {
		infos_release(a);
		a = NULL;
	}
	c->cbfunc(status, a ? a->info : NULL, a ? a->n : 0, c->cbdata,
		  a ? infos_release : NULL, a);
	free(c);
}

/* The channel closed before root answered. */
static void answer_call(struct call *call, enum pmixev_result result,
			const uint8_t *data, size_t ndata)
{
	answer((struct al_call *)call, status_to_pmix(result), NULL);
}

static int on_done(void *ctx, struct pmixev_buf *body)
{
	struct pmixside *p = ctx;
	struct pmixev_pmixd_alloc_done *m = malloc(sizeof(*m));
	struct call *c = NULL;

	if (!m)
		return 0; /* the request stays unanswered, as if lost */
	if (pmixev_pmixd_alloc_done_unpack(body, m) == 0)
		c = calls_take(pmixside_calls(p), m->id,
			       PMIXEV_PMIXD_ALLOC_DONE);
	if (c)
		answer((struct al_call *)c, m->status, m);
	free(m);
	return c ? 0 : -1;
}

void alloc_pmix_listen(struct pmixside *p)
{
	chan_on(pmixside_chan(p), PMIXEV_PMIXD_ALLOC_DONE, on_done, p);
}

/* The request's codec, as calls_request takes it. */
static int pack_msg(struct pmixev_buf *b, const void *m)
{
	return pmixev_pmixd_alloc_pack(b, m);
}

/* --- PMIx progress thread ------------------------------------------------- */

/* Send the request read into `r` to root. PMIX_SUCCESS, or why not. */
static pmix_status_t send_call(struct pmixside *p, struct alloc_req *r,
			       pmix_info_cbfunc_t cbfunc, void *cbdata)
{
	struct al_call *c = calloc(1, sizeof(*c));
	enum pmixev_result rc;

	if (!c) {
		snprintf(r->why, sizeof(r->why), "out of memory");
		return PMIX_ERR_NOMEM;
	}
	c->call.done_type = PMIXEV_PMIXD_ALLOC_DONE;
	c->call.answer = answer_call;
	c->cbfunc = cbfunc;
	c->cbdata = cbdata;
	snprintf(c->reqid, sizeof(c->reqid), "%s", r->m.reqid);
	rc = calls_request(pmixside_calls(p), &c->call, &r->m.id,
			   PMIXEV_PMIXD_ALLOC, pack_msg, &r->m, r->why,
			   sizeof(r->why));
	return status_to_pmix(rc);
}

pmix_status_t alloc_upcall(const pmix_proc_t *client,
			   pmix_alloc_directive_t directive,
			   const pmix_info_t data[], size_t ndata,
			   pmix_info_cbfunc_t cbfunc, void *cbdata)
{
	struct pmixside *p = step_served()->pside;
	const struct layout *lay = pmixside_layout(p);
	struct alloc_req *r = calloc(1, sizeof(*r));
	pmix_status_t rc;

	if (!r)
		return PMIX_ERR_NOMEM;
	/* Root takes a rank of the step, or none (a tool's, as claimed). */
	r->m.rank = client && client->rank < lay->map.ntasks
			    ? client->rank
			    : PMIXEV_PMIXD_NO_RANK;
	rc = alloc_read(r, (unsigned)directive, data, ndata);
	if (rc == PMIX_SUCCESS)
		rc = send_call(p, r, cbfunc, cbdata);
	if (rc != PMIX_SUCCESS)
		PMIXEV_INFO("allocation: step %u.%u: a request from rank %u "
			    "refused (%s): %s",
			    lay->step.job_id, lay->step.step_id, r->m.rank,
			    PMIx_Error_string(rc), r->why);
	free(r);
	return rc;
}
