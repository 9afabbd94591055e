/*
 * jobmgmt/ckpt_cancel.c - a cancel asked of every node of the step, and
 * their answers counted into one.
 */
#include "config.h"

#include "jobmgmt/ckpt_cancel.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/agent.h"
#include "base/pending.h"
#include "base/step.h"
#include "overlay/overlay.h"
#include "jobmgmt/alloc.h"
#include "jobmgmt/ckpt.h"
#include "pmixev_buf.h"
#include "pmixev_frame.h"
#include "pmixev_log.h"

#define DEFAULT_SEC 10
#define PENDING_MAX 16

/* A cancel asked from this node, in the set until every node asked has
 * answered or was lost, or its deadline passed. */
struct cancel {
	struct ckpt_cancel *cc;
	struct pending *p;
	uint32_t id;
	bool *asked;	  /* per node: asked, not answered yet */
	unsigned waiting; /* nodes yet to answer */
	unsigned cancelled;
	ckpt_cancel_fn fn;
	void *arg;
};

struct ckpt_cancel {
	struct step *s;
	unsigned npending;
	struct pending_set *cancels;
};

/* This node's requests with that id ended (checkpoints, and allocation
 * requests by their PMIX_ALLOC_REQ_ID); how many. */
static unsigned cancel_here(struct ckpt_cancel *cc, const char *ctl_id)
{
	return ckpt_cancel_local(cc->s->ckpt, ctl_id) +
	       allocs_cancel_local(cc->s->allocs, ctl_id);
}

static void cancel_free(void *req)
{
	struct cancel *x = req;

	free(x->asked);
	free(x);
}

static void cancel_end(struct cancel *x)
{
	x->cc->npending--;
	pending_end(x->p);
	x->fn(x->arg, x->cancelled, x->waiting);
	cancel_free(x);
}

static bool cancel_waits(void *req, uint32_t node)
{
	return ((struct cancel *)req)->asked[node];
}

/* A node asked was lost: like one gone before the cancel, it holds no
 * request in progress any more, and the cancel goes on for the others.
 * Or the deadline passed. */
static void cancel_fail(void *req, enum pmixev_result why, uint32_t lost)
{
	struct cancel *x = req;

	if (why == PMIXEV_ERR_UNREACH) {
		PMIXEV_INFO("job control: node %u lost before it said whether "
			    "it cancelled requests; none are in progress there "
			    "any more",
			    lost);
		x->asked[lost] = false;
		if (--x->waiting)
			return;
	} else {
		PMIXEV_INFO("job control: %u node(s) did not say in time "
			    "whether they cancelled requests",
			    x->waiting);
	}
	cancel_end(x);
}

static int ask_node(struct ckpt_cancel *cc, uint32_t node, uint32_t id,
		    const char *ctl_id)
{
	struct pmixev_buf b;
	int rc;

	pmixev_buf_init(&b);
	pmixev_buf_put_u32(&b, id);
	pmixev_buf_put_str(&b, ctl_id);
	rc = pmixev_buf_ok(&b)
		     ? overlay_send(cc->s->ov, node, PMIXEV_MSG_CANCEL_REQ,
				    b.data, b.len)
		     : -1;
	pmixev_buf_release(&b);
	return rc;
}

void ckpt_cancel_send(struct ckpt_cancel *cc, const char *ctl_id,
		      unsigned timeout_sec, ckpt_cancel_fn fn, void *arg)
{
	const struct layout *lay = &cc->s->lay;
	struct cancel *x = NULL;

	if (cc->npending == PENDING_MAX || !(x = calloc(1, sizeof(*x))) ||
	    !(x->asked = calloc(lay->step.nnodes, sizeof(*x->asked))) ||
	    !(x->p = pending_add(cc->cancels, x, PENDING_NO_NODE,
				 timeout_sec ? timeout_sec : DEFAULT_SEC))) {
		if (x)
			cancel_free(x);
		fn(arg, cancel_here(cc, ctl_id), lay->step.nnodes - 1);
		return;
	}
	x->cc = cc;
	x->id = (uint32_t)pending_id(x->p);
	x->fn = fn;
	x->arg = arg;
	cc->npending++;
	x->cancelled = cancel_here(cc, ctl_id);
	/* A node that left the tree holds no request in progress. */
	for (uint32_t n = 0; n < lay->step.nnodes; n++)
		if (n != lay->nodeid && ask_node(cc, n, x->id, ctl_id) == 0) {
			x->asked[n] = true;
			x->waiting++;
		}
	if (!x->waiting)
		cancel_end(x);
}

/* A node asks this one to end its requests with an id. */
static void on_req(void *ctx, uint32_t src, const uint8_t *buf, size_t len)
{
	struct ckpt_cancel *cc = ctx;
	char ctl_id[CKPT_ID_MAX];
	uint32_t id, n;
	struct pmixev_buf b;

	pmixev_buf_reader(&b, buf, len);
	pmixev_buf_get_u32(&b, &id);
	pmixev_buf_get_str(&b, ctl_id, sizeof(ctl_id));
	if (src >= cc->s->lay.step.nnodes || !pmixev_buf_ok(&b) ||
	    pmixev_buf_remaining(&b) || !ctl_id[0]) {
		PMIXEV_ERROR("job control: malformed cancel request from node "
			     "%u",
			     src);
		return;
	}
	n = cancel_here(cc, ctl_id);
	pmixev_buf_init(&b);
	pmixev_buf_put_u32(&b, id);
	pmixev_buf_put_u32(&b, n);
	if (!pmixev_buf_ok(&b) ||
	    overlay_send(cc->s->ov, src, PMIXEV_MSG_CANCEL_RESP, b.data,
			 b.len) < 0)
		PMIXEV_ERROR("job control: cannot tell node %u that %u "
			     "request(s) '%s' were cancelled here",
			     src, n, ctl_id);
	pmixev_buf_release(&b);
}

static bool same_id(void *req, const void *id)
{
	return ((struct cancel *)req)->id == *(const uint32_t *)id;
}

/* A node says how many it ended. */
static void on_resp(void *ctx, uint32_t src, const uint8_t *buf, size_t len)
{
	struct ckpt_cancel *cc = ctx;
	uint32_t id, n;
	struct pmixev_buf b;
	struct cancel *x;

	pmixev_buf_reader(&b, buf, len);
	pmixev_buf_get_u32(&b, &id);
	pmixev_buf_get_u32(&b, &n);
	if (src >= cc->s->lay.step.nnodes || !pmixev_buf_ok(&b) ||
	    pmixev_buf_remaining(&b) || n > CKPT_MAX) {
		PMIXEV_ERROR("job control: malformed cancel answer from node "
			     "%u",
			     src);
		return;
	}
	if (!(x = pending_find(cc->cancels, same_id, &id)) || !x->asked[src])
		return; /* answered after the deadline, or not asked */
	x->asked[src] = false;
	x->cancelled += n;
	if (!--x->waiting)
		cancel_end(x);
}

/* A node left the tree: the cancels waiting on it go on without it. */
static void on_node_gone(void *ctx, uint32_t node, bool lost)
{
	struct ckpt_cancel *cc = ctx;

	pending_lost(cc->cancels, node);
}

struct ckpt_cancel *ckpt_cancel_create(struct step *s)
{
	struct ckpt_cancel *cc = calloc(1, sizeof(*cc));

	if (!cc)
		return NULL;
	if (!(cc->cancels = pending_set_create(agent_base(s->agent),
					       cancel_fail, cancel_waits)) ||
	    step_on_node_gone(s, on_node_gone, cc) < 0) {
		pending_set_destroy(cc->cancels, NULL);
		free(cc);
		return NULL;
	}
	cc->s = s;
	overlay_on(s->ov, PMIXEV_MSG_CANCEL_REQ, on_req, cc);
	overlay_on(s->ov, PMIXEV_MSG_CANCEL_RESP, on_resp, cc);
	return cc;
}

void ckpt_cancel_destroy(struct ckpt_cancel *cc)
{
	if (!cc)
		return;
	pending_set_destroy(cc->cancels, cancel_free);
	free(cc);
}
