/*
 * events/notify.c - relaying clients' events between nodes (see notify.h).
 */
#include "config.h"

#include "events/notify.h"

#include <stdio.h>
#include <stdlib.h>

#include "events/inject.h"
#include "overlay/overlay.h"
#include "pmixd/chan.h"
#include "pmixev_buf.h"
#include "pmixev_frame.h"
#include "pmixev_log.h"
#include "pmixev_pmixd_msg.h"
#include "pmixev_proto.h"

struct notify {
	struct overlay *ov;
	const struct layout *lay;
	struct inject *inject;
	const struct pmixev_pmixd_bounds *lim;
};

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

struct notify *notify_create(struct step *s)
{
	struct notify *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
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
