/*
 * events/notify.c - relaying clients' events between nodes (see notify.h).
 */
#include "config.h"

#include "events/notify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix_common.h>

#include "events/inject.h"
#include "overlay/overlay.h"
#include "pmixd/chan.h"
#include "pmixd/nspaces.h"
#include "pmixev_buf.h"
#include "pmixev_frame.h"
#include "pmixev_log.h"
#include "pmixev_pmixd_msg.h"
#include "pmixev_proto.h"
#include "overlay/xstep.h"

struct notify {
	struct step *s;
	struct overlay *ov;
	const struct layout *lay;
	struct inject *inject;
	const struct pmixev_pmixd_bounds *lim;
};

/* A range that reaches the spawn family's steps. */
static bool crosses(uint8_t range)
{
	return range == PMIX_RANGE_UNDEF || range == PMIX_RANGE_SESSION ||
	       range == PMIX_RANGE_GLOBAL;
}

struct to_family {
	struct notify *n;
	const struct pmixev_buf *body; /* XSTEP EVENT's */
	const struct pmixev_notify_msg *m;
};

static void to_step(void *ctx, uint32_t job, uint32_t step)
{
	struct to_family *t = ctx;
	char source[PMIXEV_NSPACE_MAX + 16];

	if (xstep_send(t->n->s->xstep, job, step, PMIXEV_XSTEP_ALL,
		       PMIXEV_XSTEP_EVENT, t->body->data,
		       t->body->len) == PMIXEV_OK)
		return;
	snprintf(source, sizeof(source), "rank@%u", t->m->rank);
	inject_undelivered(t->n->inject, source,
			   "not sent to a step of the spawn family: srun is "
			   "unreachable");
}

/* The event to every node of each family step this node knows. */
static void send_family(struct notify *n, const struct pmixev_notify_msg *m)
{
	struct pmixev_xstep_event xe = {.form = PMIXEV_XSTEP_EV_NOTIFY,
					.notify = *m};
	struct pmixev_buf b;
	struct to_family t = {.n = n, .body = &b, .m = m};

	pmixev_buf_init(&b);
	if (pmixev_xstep_event_pack(&b, &xe) == 0)
		nspaces_each(n->s->nspaces, to_step, &t);
	pmixev_buf_release(&b);
}

/*
 * A NOTIFY frame from the pmix side: checked, then relayed as it is (its
 * body is the overlay's NOTIFY body, and unpacking is strict: repacking
 * what was read would give the same bytes).
 */
static int on_frame(void *ctx, struct pmixev_buf *body)
{
	struct notify *n = ctx;
	const uint8_t *bytes = body->data;
	size_t len = body->len;
	struct pmixev_notify_msg m;
	char source[64];

	if (pmixev_pmixd_notify_unpack(body, n->lim, &m) < 0)
		return -1;
	if (overlay_broadcast(n->ov, PMIXEV_MSG_NOTIFY, bytes, len)) {
		snprintf(source, sizeof(source), "rank@%u", m.rank);
		inject_undelivered(n->inject, source,
				   "not relayed to every node: over "
				   "PMIxevOverlayMax");
	}
	if (crosses(m.range))
		send_family(n, &m);
	return 0;
}

/* A client's event from another node, for this node's pmix side. */
static void on_notify(void *ctx, uint32_t src, const uint8_t *data, size_t len)
{
	struct notify *n = ctx;
	struct pmixev_pmixd_inject in = {.kind = PMIXEV_PMIXD_INJECT_NOTIFY,
					 .origin = src};
	char name[PMIXEV_NODENAME_MAX + 8];
	struct pmixev_buf b;

	snprintf(name, sizeof(name), "stepd@%s",
		 src < n->lay->step.nnodes ? n->lay->nodes[src] : "?");
	pmixev_buf_reader(&b, data, len);
	if (src >= n->lay->step.nnodes ||
	    pmixev_notify_unpack(&b, &in.nt) < 0 ||
	    in.nt.range > PMIXEV_PMIXD_RANGE_MAX ||
	    in.nt.ninfo > n->lim->event_max) {
		inject_undelivered(n->inject, name,
				   "malformed client event frame");
		return;
	}
	inject_send(n->inject, &in, name);
}

void notify_from_step(struct notify *n, const struct pmixev_xstep_hdr *h,
		      struct pmixev_buf *b)
{
	struct pmixev_pmixd_inject in = {.kind = PMIXEV_PMIXD_INJECT_NOTIFY,
					 .origin = n->lay->nodeid};
	struct pmixev_xstep_event xe;
	char ns[PMIXEV_NSPACE_MAX], name[PMIXEV_NSPACE_MAX + 16];

	pmixev_xstep_nspace(h->src_job, h->src_step, ns, sizeof(ns));
	snprintf(name, sizeof(name), "%s:*", ns);
	/* SENT: the member's layout came and its registration is on the
	 * channel ahead of this event (a child may notify before its
	 * parent's nodes finished registering it). */
	if (nspaces_state(n->s->nspaces, ns) == NSPACES_UNKNOWN ||
	    pmixev_xstep_event_unpack(b, n->lim->event_max, &xe) < 0 ||
	    xe.form != PMIXEV_XSTEP_EV_NOTIFY || strcmp(xe.notify.nspace, ns) ||
	    !crosses(xe.notify.range)) {
		inject_undelivered(
			n->inject, name,
			"a family step's event that is not its "
			"own client's in a range that crosses steps");
		return;
	}
	in.nt = xe.notify;
	inject_send(n->inject, &in, name);
}

struct notify *notify_create(struct step *s)
{
	struct notify *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->s = s;
	n->ov = s->ov;
	n->lay = &s->lay;
	n->inject = s->inject;
	n->lim = &s->pmixd_lim;
	overlay_on(s->ov, PMIXEV_MSG_NOTIFY, on_notify, n);
	chan_on(s->chan, PMIXEV_PMIXD_NOTIFY, on_frame, n);
	return n;
}

void notify_destroy(struct notify *n)
{
	free(n);
}
