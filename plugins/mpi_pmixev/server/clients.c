/*
 * server/clients.c - the life of the step's local processes as the PMIx
 * server sees it: connected, finalized, aborted. The upcalls (PMIx progress
 * thread) post it to the agent thread, where events.c keeps each rank's
 * state for classifying its exit, and an abort goes on to srun.
 */
#include "config.h"

#include "server/clients.h"

#include <stdio.h>
#include <stdlib.h>

#include "base/agent.h"
#include "base/step.h"
#include "overlay/overlay.h"
#include "pmixbase/confine.h"
#include "events/events.h"
#include "gate/gate.h"
#include "pmixev_buf.h"
#include "pmixev_frame.h"
#include "pmixev_log.h"
#include "pmixev_proto.h"

/* Connection state of a local rank, for classifying its exit. */
struct state_call {
	uint32_t rank;
	void (*set)(struct events *ev, uint32_t rank);
};

static void state_agent(void *arg)
{
	const struct step *s = step_served();
	struct state_call *c = arg;

	c->set(s->events, c->rank);
	free(c);
}

static void post_state(uint32_t rank,
		       void (*set)(struct events *ev, uint32_t rank))
{
	struct state_call *c = malloc(sizeof(*c));
	const struct step *s = step_served();

	if (!c)
		return;
	c->rank = rank;
	c->set = set;
	if (agent_post(s->agent, state_agent, c) < 0)
		free(c);
}

pmix_status_t clients_upcall_connected(const pmix_proc_t *proc,
				       void *server_object,
				       pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	const struct step *s = step_served();

	PMIXEV_DEBUG(2, "rank %u connected", proc->rank);
	if (!confine_pmix_thread(s->lay.uid, s->lay.gid))
		return PMIX_ERR_NO_PERMISSIONS;
	pmix_gate_client_connected(s->gate, proc->rank);
	post_state(proc->rank, events_client_connected);
	/* Done here: cbfunc is never called. OpenPMIx 6+ passes one and,
	 * on PMIX_SUCCESS, holds the client's connection until it runs. */
	return PMIX_OPERATION_SUCCEEDED;
}

pmix_status_t clients_upcall_finalized(const pmix_proc_t *proc,
				       void *server_object,
				       pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	PMIXEV_DEBUG(2, "rank %u finalized", proc->rank);
	post_state(proc->rank, events_client_finalized);
	return PMIX_OPERATION_SUCCEEDED;
}

struct abort_call {
	struct pmixev_abort_msg msg;
	pmix_op_cbfunc_t cbfunc;
	void *cbdata;
};

static void abort_agent(void *arg)
{
	const struct step *s = step_served();
	struct abort_call *c = arg;
	struct pmixev_buf b;
	pmix_status_t rc = PMIX_SUCCESS;

	PMIXEV_INFO("rank %u requested abort with status %d: %s", c->msg.rank,
		    c->msg.status, c->msg.text);
	events_client_aborted(s->events, c->msg.rank);
	pmixev_buf_init(&b);
	if (pmixev_abort_pack(&b, &c->msg) < 0 ||
	    overlay_send(s->ov, PMIXEV_NODE_SRUN, PMIXEV_MSG_ABORT, b.data,
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

pmix_status_t clients_upcall_abort(const pmix_proc_t *proc, void *server_object,
				   int status, const char msg[],
				   pmix_proc_t procs[], size_t nprocs,
				   pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	struct abort_call *c = calloc(1, sizeof(*c));
	const struct step *s = step_served();

	if (!c)
		return PMIX_ERR_NOMEM;
	c->msg.status = status;
	c->msg.rank = proc->rank;
	snprintf(c->msg.text, sizeof(c->msg.text), "%s",
		 msg ? msg : "(no message)");
	c->cbfunc = cbfunc;
	c->cbdata = cbdata;
	if (agent_post(s->agent, abort_agent, c) == 0)
		return PMIX_SUCCESS;
	free(c);
	return PMIX_ERR_UNREACH;
}
