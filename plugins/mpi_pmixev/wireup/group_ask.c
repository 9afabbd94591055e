/*
 * wireup/group_ask.c - requests to node 0's registry of live groups (see
 * group_ask.h). Agent thread.
 */
#include "config.h"

#include "wireup/group_ask.h"

#include <stdlib.h>

#include "base/agent.h"
#include "base/pending.h"
#include "overlay/overlay.h"
#include "pmixev_frame.h"
#include "pmixev_log.h"
#include "wireup/group_root.h"

#define GRACE_SEC 5 /* past the timeout, as publish/lookup requests */

struct group_ask {
	struct step *s;
	struct pending_set *requests;
};

/* A request of this node, until node 0 answers. */
struct request {
	struct pending *p;
	group_ask_fn done;
	void *arg;
};

static void request_end(struct request *q, enum pmixev_result result,
			struct pmixev_group_list *l)
{
	struct pmixev_group_list none = {0};

	pending_end(q->p);
	q->done(result, l ? l : &none, q->arg);
	free(q);
}

/* Its deadline passed, or node 0 is lost. */
static void request_fail(void *req, enum pmixev_result why, uint32_t lost)
{
	PMIXEV_ERROR("group query: no answer from node 0, which keeps the "
		     "step's groups (%s)",
		     why == PMIXEV_ERR_TIMEOUT ? "timed out" : "node lost");
	request_end(req, why, NULL);
}

static void on_resp(void *ctx, uint32_t src, const uint8_t *buf, size_t len)
{
	struct group_ask *ga = ctx;
	struct pmixev_groups_resp m;
	struct request *q;

	if (pmixev_groups_resp_unpack(buf, len, ga->s->lay.map.ntasks, &m) <
	    0) {
		PMIXEV_ERROR("group query: malformed answer from node %u, "
			     "dropped",
			     src);
		return;
	}
	if ((q = pending_get(ga->requests, m.id, src)))
		request_end(q, m.result, &m.l);
	pmixev_group_list_release(&m.l);
}

/* Node 0: the registry's list for request `id` of node `dst`. */
static void serve(struct group_ask *ga, uint32_t dst, uint64_t id)
{
	struct pmixev_groups_resp m = {.id = id};
	struct request *q;
	struct pmixev_buf b;

	m.result = group_root_list(ga->s->group_root, &m.l);
	if (dst == overlay_self(ga->s->ov)) {
		if ((q = pending_get(ga->requests, id, dst)))
			request_end(q, m.result, &m.l);
		pmixev_group_list_release(&m.l);
		return;
	}
	pmixev_buf_init(&b);
	if (pmixev_groups_resp_pack(&b, &m, ga->s->lay.map.ntasks) < 0 ||
	    overlay_send(ga->s->ov, dst, PMIXEV_MSG_GROUPS_RESP, b.data,
			 b.len) < 0)
		PMIXEV_ERROR("group query: cannot answer node %u (out of "
			     "memory or node lost); its request times out",
			     dst);
	pmixev_buf_release(&b);
	pmixev_group_list_release(&m.l);
}

static void on_req(void *ctx, uint32_t src, const uint8_t *buf, size_t len)
{
	struct group_ask *ga = ctx;
	uint64_t id;

	if (src >= ga->s->lay.step.nnodes ||
	    pmixev_groups_req_unpack(buf, len, &id) < 0) {
		PMIXEV_ERROR("group query: malformed request from node %u, "
			     "dropped",
			     src);
		return;
	}
	if (overlay_self(ga->s->ov) != 0) {
		PMIXEV_ERROR("group query: node %u asked this node, which "
			     "keeps no groups (only node 0 does), dropped",
			     src);
		return;
	}
	serve(ga, src, id);
}

void group_ask(struct group_ask *ga, unsigned timeout_sec, group_ask_fn done,
	       void *arg)
{
	unsigned t = timeout_sec ? timeout_sec : ga->s->conf.timeout_sec;
	struct request *q = calloc(1, sizeof(*q));
	struct pmixev_group_list none = {0};
	struct pmixev_buf b;

	if (!q || !(q->p = pending_add(ga->requests, q, 0, t + GRACE_SEC))) {
		free(q);
		done(PMIXEV_ERR_NOMEM, &none, arg);
		return;
	}
	q->done = done;
	q->arg = arg;
	if (overlay_self(ga->s->ov) == 0) {
		serve(ga, 0, pending_id(q->p));
		return;
	}
	pmixev_buf_init(&b);
	if (pmixev_groups_req_pack(&b, pending_id(q->p)) < 0 ||
	    overlay_send(ga->s->ov, 0, PMIXEV_MSG_GROUPS_REQ, b.data, b.len) <
		    0) {
		PMIXEV_ERROR("group query: cannot ask node 0, which keeps the "
			     "step's groups (lost or out of memory)");
		request_end(q, PMIXEV_ERR_UNREACH, NULL);
	}
	pmixev_buf_release(&b);
}

/* The groups live on node 0: requests waiting on it fail. */
static void on_node_gone(void *ctx, uint32_t node, bool lost)
{
	struct group_ask *ga = ctx;

	pending_lost(ga->requests, node);
}

struct group_ask *group_ask_create(struct step *s)
{
	struct group_ask *ga = calloc(1, sizeof(*ga));

	if (!ga)
		return NULL;
	ga->s = s;
	if (!(ga->requests = pending_set_create(agent_base(s->agent),
						request_fail, NULL)) ||
	    step_on_node_gone(s, on_node_gone, ga) < 0) {
		pending_set_destroy(ga->requests, NULL);
		free(ga);
		return NULL;
	}
	overlay_on(s->ov, PMIXEV_MSG_GROUPS_REQ, on_req, ga);
	overlay_on(s->ov, PMIXEV_MSG_GROUPS_RESP, on_resp, ga);
	return ga;
}

void group_ask_destroy(struct group_ask *ga)
{
	if (!ga)
		return;
	pending_set_destroy(ga->requests, free);
	free(ga);
}
