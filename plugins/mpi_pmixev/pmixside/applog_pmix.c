/*
 * pmixside/applog_pmix.c - PMIx_Log on the pmix side (see applog_pmix.h).
 */
#include "config.h"

#include "pmixside/applog_pmix.h"

#include <stdio.h>
#include <stdlib.h>
#include <syslog.h>

#include <pmix.h>

#include "base/step.h"
#include "pmixbase/status.h"
#include "pmixev_log.h"
#include "pmixev_pmixd_ctl.h"
#include "pmixside/applog_read.h"
#include "pmixside/calls.h"

/* A request waiting for root. */
struct lg_call {
	struct call call;	   /* first: see calls.h */
	enum pmixev_result unsent; /* why it was not sent */
	pmix_op_cbfunc_t cbfunc;
	void *cbdata;
};

/* --- pmix side's agent ---------------------------------------------------- */

/* Root will not answer: the channel closed first, or it never got it. */
static void answer_call(struct call *call, enum pmixev_result result,
			const uint8_t *data, size_t ndata)
{
	struct lg_call *c = (struct lg_call *)call;

	c->cbfunc(status_to_pmix(result), c->cbdata);
	free(c);
}

static int on_done(void *ctx, struct pmixev_buf *body)
{
	struct pmixside *p = ctx;
	struct pmixev_pmixd_status m;
	struct lg_call *c;

	if (pmixev_pmixd_status_unpack(body, &m) < 0)
		return -1;
	c = (struct lg_call *)calls_take(pmixside_calls(p), m.id,
					 PMIXEV_PMIXD_LOG_DONE);
	if (!c)
		return -1; /* an id root was never given */
	c->cbfunc(m.status, c->cbdata);
	free(c);
	return 0;
}

/* A request that never reached root. */
static void unsent_agent(void *arg)
{
	struct lg_call *c = arg;

	answer_call(&c->call, c->unsent, NULL, 0);
}

void applog_pmix_listen(struct pmixside *p)
{
	chan_on(pmixside_chan(p), PMIXEV_PMIXD_LOG_DONE, on_done, p);
}

/* --- PMIx progress thread ------------------------------------------------- */

/* Who asks: a task of the step on this node, or a tool as it says. */
static void read_client(const struct layout *lay, const pmix_proc_t *client,
			struct pmixev_pmixd_log *m)
{
	m->rank = client ? client->rank : PMIX_RANK_UNDEF;
	m->task = client && PMIX_CHECK_NSPACE(client->nspace, lay->nspace) &&
		  layout_is_local(lay, m->rank);
	if (m->task)
		snprintf(m->who, sizeof(m->who), "rank %u", m->rank);
	else
		snprintf(m->who, sizeof(m->who), "tool %.*s:%u", PMIX_MAX_NSLEN,
			 client ? client->nspace : "?", m->rank);
}

/*
 * Send `m` as a LOG frame for `c`, which root answers from now on (`c`
 * may be gone when this returns). PMIXEV_OK, or why it was not sent.
 */
static enum pmixev_result send_log(struct pmixside *p, struct lg_call *c,
				   const struct pmixev_pmixd_log *m)
{
	struct pmixev_buf frame;

	pmixev_buf_init(&frame);
	chan_frame_begin(&frame);
	if (pmixev_pmixd_log_pack(&frame, m) < 0) {
		pmixev_buf_release(&frame);
		return PMIXEV_ERR_BAD_REQUEST;
	}
	if (calls_send(pmixside_calls(p), &c->call, PMIXEV_PMIXD_LOG, &frame) <
	    0)
		return PMIXEV_ERR_UNREACH;
	return PMIXEV_OK;
}

void applog_upcall(const pmix_proc_t *client, const pmix_info_t data[],
		   size_t ndata, const pmix_info_t directives[], size_t ndirs,
		   pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	struct pmixside *p = step_served()->pside;
	const struct layout *lay = pmixside_layout(p);
	struct pmixev_pmixd_log *m = calloc(1, sizeof(*m));
	struct lg_call *c = calloc(1, sizeof(*c));
	enum pmixev_result rc;

	if (!m || !c) {
		PMIXEV_ERROR("log: a request dropped: out of memory");
		free(m);
		free(c);
		return;
	}
	c->call.id = calls_new_id(pmixside_calls(p));
	c->call.done_type = PMIXEV_PMIXD_LOG_DONE;
	c->call.answer = answer_call;
	c->cbfunc = cbfunc;
	c->cbdata = cbdata;
	m->id = c->call.id;
	m->level = LOG_ERR;
	read_client(lay, client, m);
	applog_read(m, lay->step.id, data, ndata, directives, ndirs);
	rc = send_log(p, c, m);
	if (rc != PMIXEV_OK) {
		/* Never answered from here (see applog_pmix.h). */
		c->unsent = rc;
		if (agent_post(pmixside_agent(p), unsent_agent, c) < 0) {
			PMIXEV_ERROR("log: a request from %s dropped: %s, "
				     "and the pmix side's agent, which would "
				     "refuse it, is stopping",
				     m->who,
				     rc == PMIXEV_ERR_UNREACH
					     ? "the channel to root is closed"
					     : "it does not fit a LOG frame");
			free(c);
		}
	}
	pmixev_pmixd_log_release(m);
	free(m);
}
