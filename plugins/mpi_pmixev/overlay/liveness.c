/*
 * overlay/liveness.c - heartbeats, the bootstrap deadline, and what a lost
 * link means: which kind of gone its peer is, logged once here and told to
 * the layer above (heal.c). On the agent thread.
 */
#include "config.h"

#include "overlay/liveness.h"

#include <stdio.h>
#include <stdlib.h>

#include "pmixev_log.h"

struct liveness {
	struct links *ls;
	struct handshake *hs;
	uint32_t nnodes;
	unsigned timeout_sec;
	unsigned heartbeat_ms;
	struct event *boot_timer;
	struct event *hb_timer;
	liveness_gone_fn gone_fn;
	void *gone_ctx;
};

void liveness_bye(struct link *l)
{
	l->bye = true;
}

static void lost(struct liveness *lv, struct link *l, const char *why,
		 const char *addr, bool was_up);

static void boot_lost(struct liveness *lv, struct link *l, const char *why)
{
	link_cut(l);
	lost(lv, l, why, "?", false);
}

/* The bootstrap cannot finish: links not up yet are lost now. */
static void boot_fail(struct liveness *lv, const char *why)
{
	struct links *ls = lv->ls;

	if (ls->parent.peer != PMIXEV_TREE_NONE && !ls->parent.up &&
	    !ls->parent.dead)
		boot_lost(lv, &ls->parent, why);
	for (uint32_t i = 0; i < ls->nchildren; i++)
		if (!ls->children[i].up && !ls->children[i].dead)
			boot_lost(lv, &ls->children[i], why);
}

/*
 * srun's link closed. Before its table came (srun ended, or its table
 * was refused), no node can be dialled, now or after a heal: every other
 * node is lost to this one at once (not only its neighbours, or a healed
 * tree would wait for nodes it can never reach), so the step's
 * collectives fail and it ends.
 */
static void srun_gone(struct liveness *lv, const char *why)
{
	if (handshake_has_table(lv->hs) || lv->ls->leaving) {
		PMIXEV_DEBUG(1, "overlay: srun connection closed: %s", why);
		return;
	}
	PMIXEV_ERROR("overlay: srun's connection closed before a valid "
		     "address table (%s): bootstrap failed",
		     why);
	if (lv->boot_timer)
		evtimer_del(lv->boot_timer);
	boot_fail(lv, "no address table from srun");
	for (uint32_t node = 0; node < lv->nnodes; node++)
		if (node != lv->ls->self)
			lv->gone_fn(lv->gone_ctx, node, GONE_LOST,
				    "no address table from srun");
}

/*
 * Link `l` (to `addr`; `was_up`: past its handshake) broke, went silent
 * or never came up; its connection is already forgotten.
 */
static void lost(struct liveness *lv, struct link *l, const char *why,
		 const char *addr, bool was_up)
{
	enum gone_kind kind = l->bye		       ? GONE_ENDED
			      : l->adopting && !was_up ? GONE_UNREACHABLE
						       : GONE_LOST;

	l->dead = true;
	if (l->role != LINK_PARENT) /* the next parent takes the queue */
		link_drop_queue(l);
	if (l->role == LINK_SRUN) {
		srun_gone(lv, why);
		return;
	}
	if (kind == GONE_LOST && lv->ls->leaving)
		PMIXEV_DEBUG(1,
			     "overlay: %s node %u (%s) went as this node "
			     "left: %s",
			     link_role_name(l->role), l->peer, addr, why);
	else if (kind == GONE_LOST)
		PMIXEV_ERROR("overlay: lost %s node %u (%s): %s",
			     link_role_name(l->role), l->peer, addr, why);
	else
		PMIXEV_DEBUG(1, "overlay: %s node %u %s",
			     link_role_name(l->role), l->peer,
			     kind == GONE_ENDED ? "ended its part of the step"
						: "did not answer");
	lv->gone_fn(lv->gone_ctx, l->peer, kind, why);
}

static void on_down(void *ctx, struct link *l, const char *why,
		    const char *addr, bool was_up)
{
	lost(ctx, l, why, addr, was_up);
}

static void on_boot_timeout(evutil_socket_t fd, short what, void *arg)
{
	struct liveness *lv = arg;

	if (!handshake_has_table(lv->hs))
		PMIXEV_ERROR("overlay: no address table from srun after %u s",
			     lv->timeout_sec);
	boot_fail(lv, "not connected within the timeout");
}

/*
 * Every heartbeat period: a neighbour that sent nothing for three periods
 * (a cut network, a frozen node) is lost; the others get a heartbeat.
 * Every byte received counts: a large frame in transit is a sign of life.
 */
static void heartbeat_link(struct liveness *lv, struct link *l, uint64_t now)
{
	char why[64], addr[128];

	if (!l->up || l->dead || !l->conn)
		return;
	if (conn_rx_bytes(l->conn) != l->rx_bytes) {
		l->rx_bytes = conn_rx_bytes(l->conn);
		l->last_rx_ms = now;
	}
	if (now - l->last_rx_ms > 3ull * lv->heartbeat_ms) {
		snprintf(why, sizeof(why), "no heartbeat for %llu ms",
			 (unsigned long long)(now - l->last_rx_ms));
		snprintf(addr, sizeof(addr), "%s", conn_peer(l->conn));
		link_cut(l);
		lost(lv, l, why, addr, true);
		return;
	}
	conn_send(l->conn, PMIXEV_MSG_HEARTBEAT, lv->ls->self, l->peer, NULL,
		  0);
}

static void on_heartbeat(evutil_socket_t fd, short what, void *arg)
{
	struct liveness *lv = arg;
	struct links *ls = lv->ls;
	uint64_t now = link_now_ms();

	if (ls->parent.peer != PMIXEV_TREE_NONE)
		heartbeat_link(lv, &ls->parent, now);
	for (uint32_t i = 0; i < ls->nchildren; i++)
		heartbeat_link(lv, &ls->children[i], now);
}

struct liveness *liveness_create(struct links *ls, struct handshake *hs,
				 uint32_t nnodes, unsigned timeout_sec,
				 unsigned heartbeat_ms)
{
	struct liveness *lv = calloc(1, sizeof(*lv));

	if (!lv)
		return NULL;
	lv->ls = ls;
	lv->hs = hs;
	lv->nnodes = nnodes;
	lv->timeout_sec = timeout_sec;
	lv->heartbeat_ms = heartbeat_ms;
	links_on_down(ls, on_down, lv);
	return lv;
}

void liveness_on_gone(struct liveness *lv, liveness_gone_fn fn, void *ctx)
{
	lv->gone_fn = fn;
	lv->gone_ctx = ctx;
}

int liveness_start(struct liveness *lv)
{
	struct timeval tv = {(time_t)lv->timeout_sec, 0};
	struct timeval hb = {lv->heartbeat_ms / 1000,
			     (lv->heartbeat_ms % 1000) * 1000};
	struct event_base *base = lv->ls->base;

	lv->boot_timer = evtimer_new(base, on_boot_timeout, lv);
	if (!lv->boot_timer || evtimer_add(lv->boot_timer, &tv) < 0)
		goto fail;
	if (lv->heartbeat_ms &&
	    (!(lv->hb_timer =
		       event_new(base, -1, EV_PERSIST, on_heartbeat, lv)) ||
	     evtimer_add(lv->hb_timer, &hb) < 0))
		goto fail;
	return 0;
fail:
	PMIXEV_ERROR("overlay: cannot start the bootstrap and heartbeat "
		     "timers: out of memory");
	return -1;
}

void liveness_destroy(struct liveness *lv)
{
	if (!lv)
		return;
	if (lv->boot_timer)
		event_free(lv->boot_timer);
	if (lv->hb_timer)
		event_free(lv->hb_timer);
	free(lv);
}
