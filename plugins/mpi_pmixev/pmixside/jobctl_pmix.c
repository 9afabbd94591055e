/*
 * pmixside/jobctl_pmix.c - PMIx_Job_control on the pmix side (see
 * jobctl_pmix.h).
 */
#include "config.h"

#include "pmixside/jobctl_pmix.h"

#include <stdio.h>
#include <stdlib.h>

#include <pmix.h>

#include "base/step.h"
#include "pmixbase/infos.h"
#include "pmixbase/status.h"
#include "pmixev_events.h"
#include "pmixev_log.h"
#include "pmixside/calls.h"
#include "pmixside/jobctl_read.h"

/* A request waiting for root. */
struct jc_call {
	struct call call; /* first: see calls.h */
	pmix_info_cbfunc_t cbfunc;
	void *cbdata;
};

/* --- pmix side's agent ---------------------------------------------------- */

/* Answer PMIx with `status` and, when it failed, `why`; frees `c`. */
static void answer(struct jc_call *c, pmix_status_t status, const char *why)
{
	struct infos *a = NULL;

	if (status != PMIX_SUCCESS && why[0] && (a = infos_create(1)))
		PMIX_INFO_LOAD(&a->info[a->n++], PMIXEV_JCTRL_REASON, why,
			       PMIX_STRING);
	c->cbfunc(status, a ? a->info : NULL, a ? a->n : 0, c->cbdata,
		  a ? infos_release : NULL, a);
	free(c);
}

/* The channel closed before root answered. */
static void answer_call(struct call *call, enum pmixev_result result,
			const uint8_t *data, size_t ndata)
{
	answer((struct jc_call *)call, status_to_pmix(result), "");
}

static int on_done(void *ctx, struct pmixev_buf *body)
{
	struct pmixside *p = ctx;
	struct pmixev_pmixd_status m;
	struct call *c;

	if (pmixev_pmixd_status_unpack(body, &m) < 0)
		return -1;
	c = calls_take(pmixside_calls(p), m.id, PMIXEV_PMIXD_JOBCTL_DONE);
	if (c)
		answer((struct jc_call *)c, m.status, m.why);
	return c ? 0 : -1;
}

void jobctl_pmix_listen(struct pmixside *p)
{
	chan_on(pmixside_chan(p), PMIXEV_PMIXD_JOBCTL_DONE, on_done, p);
}

/* The request's codec, as calls_request takes it. */
static int pack_msg(struct pmixev_buf *b, const void *m)
{
	return pmixev_pmixd_jobctl_pack(b, m);
}

/* --- PMIx progress thread ------------------------------------------------- */

/* Send the request read into `r` to root, answered to `cbfunc`.
 * PMIX_SUCCESS, or why not (in r->why). */
static pmix_status_t send_call(struct pmixside *p, struct jobctl_req *r,
			       pmix_info_cbfunc_t cbfunc, void *cbdata)
{
	struct jc_call *c = calloc(1, sizeof(*c));
	enum pmixev_result rc;

	if (!c) {
		snprintf(r->why, sizeof(r->why), "out of memory");
		return PMIX_ERR_NOMEM;
	}
	c->call.done_type = PMIXEV_PMIXD_JOBCTL_DONE;
	c->call.answer = answer_call;
	c->cbfunc = cbfunc;
	c->cbdata = cbdata;
	rc = calls_request(pmixside_calls(p), &c->call, &r->m.id,
			   PMIXEV_PMIXD_JOBCTL, pack_msg, &r->m, r->why,
			   sizeof(r->why));
	return status_to_pmix(rc);
}

pmix_status_t jobctl_upcall(const pmix_proc_t *requestor,
			    const pmix_proc_t targets[], size_t ntargets,
			    const pmix_info_t directives[], size_t ndirs,
			    pmix_info_cbfunc_t cbfunc, void *cbdata)
{
	struct pmixside *p = step_served()->pside;
	const struct layout *lay = pmixside_layout(p);
	struct jobctl_req r = {.lay = lay};
	pmix_status_t rc;

	/* Root takes a rank of the step, or none (a tool's, as claimed). */
	r.m.rank = requestor && requestor->rank < lay->map.ntasks
			   ? requestor->rank
			   : PMIXEV_PMIXD_NO_RANK;
	rc = jobctl_read(&r, targets, ntargets, directives, ndirs);
	if (rc == PMIX_SUCCESS && r.m.action == PMIXEV_PMIXD_CHECKPOINT &&
	    !pmixside_ckpt_watched(p)) {
		snprintf(r.why, sizeof(r.why),
			 "checkpoints are off in this step (see the slurmd "
			 "log)");
		rc = PMIX_ERR_NOT_SUPPORTED;
	}
	if (rc == PMIX_SUCCESS)
		rc = send_call(p, &r, cbfunc, cbdata);
	if (rc != PMIX_SUCCESS)
		PMIXEV_INFO("job control: a request from rank %u refused (%s): "
			    "%s",
			    r.m.rank, PMIx_Error_string(rc), r.why);
	return rc;
}
