/*
 * pmixside/clients_pmix.c - the local processes' claims to root (see
 * clients_pmix.h).
 */
#include "config.h"

#include "pmixside/clients_pmix.h"

#include <stdio.h>
#include <stdlib.h>

#include "base/step.h"
#include "gate/gate.h"
#include "pmixbase/status.h"
#include "pmixev_log.h"
#include "pmixev_pmixd_msg.h"
#include "pmixside/calls.h"

/* --- pmix side's agent ---------------------------------------------------- */

/* A PMIx_Abort, until root forwarded it to srun. */
struct abort_call {
	struct call call; /* first: see calls.h */
	pmix_op_cbfunc_t cbfunc;
	void *cbdata;
};

static void answer(struct abort_call *c, enum pmixev_result result)
{
	status_answer_op(c->cbfunc, c->cbdata, result);
	free(c);
}

/* The channel closed before root answered. */
static void answer_call(struct call *call, enum pmixev_result result,
			const uint8_t *data, size_t ndata)
{
	answer((struct abort_call *)call, result);
}

static int on_abort_done(void *ctx, struct pmixev_buf *body)
{
	struct pmixside *p = ctx;
	struct pmixev_pmixd_done m;
	struct call *c;

	if (pmixev_pmixd_done_unpack(body, &m) < 0 ||
	    !(c = calls_take(pmixside_calls(p), m.id, PMIXEV_PMIXD_ABORT_DONE)))
		return -1;
	answer((struct abort_call *)c, m.result);
	return 0;
}

/* Root's SYNC: everything sent before it is on its way; say so. */
static int on_sync(void *ctx, struct pmixev_buf *body)
{
	struct pmixside *p = ctx;
	struct pmixev_buf b;
	uint64_t seq;

	if (pmixev_pmixd_seq_unpack(body, &seq) < 0)
		return -1;
	pmixev_buf_init(&b);
	chan_frame_begin(&b);
	if (pmixev_pmixd_seq_pack(&b, seq) < 0 ||
	    chan_send_any(pmixside_chan(p), PMIXEV_PMIXD_SYNC_ECHO, &b) < 0) {
		pmixev_buf_release(&b);
		PMIXEV_ERROR("clients: cannot echo root's sync %llu (out of "
			     "memory or the channel closed): root classifies "
			     "the exits when the channel closes",
			     (unsigned long long)seq);
	}
	return 0;
}

void clients_pmix_listen(struct pmixside *p)
{
	chan_on(pmixside_chan(p), PMIXEV_PMIXD_ABORT_DONE, on_abort_done, p);
	chan_on(pmixside_chan(p), PMIXEV_PMIXD_SYNC, on_sync, p);
}

/* --- PMIx progress thread ------------------------------------------------- */

/* Is `proc` one of this node's ranks of the step? */
static bool local_rank(const struct pmixside *p, const pmix_proc_t *proc)
{
	const struct layout *lay = pmixside_layout(p);

	return PMIX_CHECK_NSPACE(proc->nspace, lay->nspace) &&
	       layout_is_local(lay, proc->rank);
}

/* Tell root what rank `proc` did. */
static void send_state(struct pmixside *p, const pmix_proc_t *proc,
		       enum pmixev_pmixd_client state)
{
	struct pmixev_pmixd_client_state m = {.rank = proc->rank,
					      .state = state};
	struct pmixev_buf b;

	pmixev_buf_init(&b);
	chan_frame_begin(&b);
	if (pmixev_pmixd_client_state_pack(&b, &m) < 0 ||
	    chan_send_any(pmixside_chan(p), PMIXEV_PMIXD_CLIENT_STATE, &b) <
		    0) {
		pmixev_buf_release(&b);
		PMIXEV_ERROR("clients: cannot tell root that rank %u %s (out "
			     "of memory or the channel closed): its exit may "
			     "be misread",
			     proc->rank,
			     state == PMIXEV_PMIXD_CONNECTED ? "connected"
							     : "finalized");
	}
}

pmix_status_t clients_upcall_connected(const pmix_proc_t *proc,
				       void *server_object,
				       pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	const struct step *s = step_served();

	PMIXEV_DEBUG(2, "rank %u connected", proc->rank);
	pmix_gate_client_connected(s->gate, proc->rank);
	if (local_rank(s->pside, proc))
		send_state(s->pside, proc, PMIXEV_PMIXD_CONNECTED);
	/* Done here: cbfunc is never called. OpenPMIx 6+ passes one and,
	 * on PMIX_SUCCESS, holds the client's connection until it runs. */
	return PMIX_OPERATION_SUCCEEDED;
}

pmix_status_t clients_upcall_finalized(const pmix_proc_t *proc,
				       void *server_object,
				       pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	struct pmixside *p = step_served()->pside;

	PMIXEV_DEBUG(2, "rank %u finalized", proc->rank);
	if (local_rank(p, proc))
		send_state(p, proc, PMIXEV_PMIXD_FINALIZED);
	return PMIX_OPERATION_SUCCEEDED;
}

pmix_status_t clients_upcall_abort(const pmix_proc_t *proc, void *server_object,
				   int status, const char msg[],
				   pmix_proc_t procs[], size_t nprocs,
				   pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	struct pmixside *p = step_served()->pside;
	struct pmixev_pmixd_abort m = {.rank = proc->rank, .status = status};
	struct abort_call *c;
	struct pmixev_buf b;

	if (!local_rank(p, proc))
		return PMIX_ERR_NOT_SUPPORTED;
	if (!(c = calloc(1, sizeof(*c))))
		return PMIX_ERR_NOMEM;
	c->call.id = calls_new_id(pmixside_calls(p));
	c->call.done_type = PMIXEV_PMIXD_ABORT_DONE;
	c->call.answer = answer_call;
	c->cbfunc = cbfunc;
	c->cbdata = cbdata;
	m.id = c->call.id;
	snprintf(m.text, sizeof(m.text), "%s", msg ? msg : "(no message)");
	pmixev_buf_init(&b);
	chan_frame_begin(&b);
	if (pmixev_pmixd_abort_pack(&b, &m) < 0) {
		pmixev_buf_release(&b);
		free(c);
		return PMIX_ERR_BAD_PARAM;
	}
	if (calls_send(pmixside_calls(p), &c->call, PMIXEV_PMIXD_ABORT, &b) <
	    0) {
		free(c);
		return PMIX_ERR_UNREACH;
	}
	return PMIX_SUCCESS;
}
