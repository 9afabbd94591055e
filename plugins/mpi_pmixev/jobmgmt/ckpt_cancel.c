/*
 * jobmgmt/ckpt_cancel.c - a cancel asked of every node of the step, and
 * their answers counted into one.
 */
#include "config.h"

#include "jobmgmt/ckpt_cancel.h"

#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "base/agent.h"
#include "base/step.h"
#include "overlay/overlay.h"
#include "jobmgmt/ckpt.h"
#include "pmixev_buf.h"
#include "pmixev_frame.h"
#include "pmixev_log.h"

#define DEFAULT_SEC 10
#define PENDING_MAX 16

struct cancel {
	struct ckpt_cancel *cc;
	uint32_t id;
	unsigned waiting; /* nodes yet to answer */
	unsigned cancelled;
	struct event *deadline;
	ckpt_cancel_fn fn;
	void *arg;
	struct cancel *next;
};

struct ckpt_cancel {
	struct step *s;
	uint32_t next_id;
	unsigned npending;
	struct cancel *pending;
};

/* This node's requests with that id ended; how many. */
static unsigned cancel_here(struct ckpt_cancel *cc, const char *ctl_id)
{
	return cc->s->ckpt ? ckpt_cancel_local(cc->s->ckpt, ctl_id) : 0;
}

static void cancel_end(struct cancel *x)
{
	struct ckpt_cancel *cc = x->cc;

	for (struct cancel **p = &cc->pending; *p; p = &(*p)->next)
		if (*p == x) {
			*p = x->next;
			break;
		}
	cc->npending--;
	if (x->deadline)
		event_free(x->deadline);
	x->fn(x->arg, x->cancelled, x->waiting);
	free(x);
}

static void on_deadline(evutil_socket_t fd, short what, void *arg)
{
	struct cancel *x = arg;

	PMIXEV_INFO("job control: %u node(s) did not say in time whether "
		    "they cancelled requests",
		    x->waiting);
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
	struct timeval tv = {(time_t)(timeout_sec ? timeout_sec : DEFAULT_SEC),
			     0};
	struct cancel *x;

	if (cc->npending == PENDING_MAX || !(x = calloc(1, sizeof(*x)))) {
		fn(arg, cancel_here(cc, ctl_id), lay->step.nnodes - 1);
		return;
	}
	*x = (struct cancel){.cc = cc,
			     .id = ++cc->next_id,
			     .fn = fn,
			     .arg = arg,
			     .next = cc->pending};
	cc->pending = x;
	cc->npending++;
	x->cancelled = cancel_here(cc, ctl_id);
	/* A node that left the tree holds no request in progress. */
	for (uint32_t n = 0; n < lay->step.nnodes; n++)
		if (n != lay->nodeid && ask_node(cc, n, x->id, ctl_id) == 0)
			x->waiting++;
	if (x->waiting && (x->deadline = evtimer_new(agent_base(cc->s->agent),
						     on_deadline, x))) {
		evtimer_add(x->deadline, &tv);
		return;
	}
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
	for (x = cc->pending; x && x->id != id; x = x->next)
		;
	if (!x || !x->waiting)
		return; /* answered after the deadline */
	x->cancelled += n;
	if (!--x->waiting)
		cancel_end(x);
}

struct ckpt_cancel *ckpt_cancel_create(struct step *s)
{
	struct ckpt_cancel *cc = calloc(1, sizeof(*cc));

	if (!cc)
		return NULL;
	cc->s = s;
	overlay_on(s->ov, PMIXEV_MSG_CANCEL_REQ, on_req, cc);
	overlay_on(s->ov, PMIXEV_MSG_CANCEL_RESP, on_resp, cc);
	return cc;
}

void ckpt_cancel_destroy(struct ckpt_cancel *cc)
{
	if (!cc)
		return;
	while (cc->pending) {
		struct cancel *x = cc->pending;

		cc->pending = x->next;
		if (x->deadline)
			event_free(x->deadline);
		free(x);
	}
	free(cc);
}
