/*
 * srun/spawn_link.c - a child srun's hub link (see spawn_link.h).
 */
#include "config.h"

#include "srun/spawn_link.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "overlay/conn.h"
#include "pmixev_frame.h"
#include "pmixev_log.h"
#include "pmixev_xstep.h"

#define HUB_FRAME_MAX (1u << 20)

void spawn_link_status(struct child *c, enum pmixev_spawn_state state,
		       const char *reason)
{
	struct spawns *sp = c->sp;
	struct pmixev_spawn_status m = {.id = c->req_id, .state = state};
	struct pmixev_buf b;

	if (state == PMIXEV_SPAWN_READY) {
		m.job = c->job;
		m.step = c->step;
		c->ready = true;
	} else if (state != PMIXEV_SPAWN_LAUNCHED) {
		snprintf(m.reason, sizeof(m.reason), "%s", reason);
	}
	if (state != PMIXEV_SPAWN_LAUNCHED)
		c->answered = true;
	pmixev_buf_init(&b);
	if (pmixev_spawn_status_pack(&b, &m) < 0 ||
	    sp->cfg.send(sp->cfg.send_ctx, c->node, PMIXEV_MSG_SPAWN_STATUS,
			 &b) < 0)
		PMIXEV_ERROR("step %s: spawn %llu: cannot tell node %u how it "
			     "went",
			     sp->step, (unsigned long long)c->spawn_id,
			     c->node);
	pmixev_buf_release(&b);
}

static const char *ready_failure(const struct pmixev_xstep_ready *r, char *buf,
				 size_t len)
{
	if (r->failed_rank != PMIXEV_XSTEP_NO_RANK)
		snprintf(buf, len, "child rank %u: %.900s", r->failed_rank,
			 r->reason[0] ? r->reason : "it ended");
	else
		snprintf(buf, len, "%s",
			 r->reason[0] ? r->reason
				      : "the child step did not register");
	return buf;
}

/*
 * A child's event to every node of this step: the spawner's, and those of
 * the ranks connected to the child step (their pmix sides know which).
 * A node whose stepd ended (with its ranks: a parent that did not wait for
 * its children) has nobody to tell: counted, and said at the end
 * (spawns_destroy).
 */
static void send_event(struct child *c, const struct pmixev_buf *b)
{
	struct spawns *sp = c->sp;

	for (uint32_t n = 0; n < sp->cfg.map->nnodes; n++) {
		if (sp->cfg.send(sp->cfg.send_ctx, n, PMIXEV_MSG_XSTEP, b) == 0)
			continue;
		sp->late_events++;
		PMIXEV_DEBUG(1,
			     "step %s: spawn %llu: node %u ended: a child's "
			     "event is dropped there",
			     sp->step, (unsigned long long)c->spawn_id, n);
	}
}

/*
 * A rank of the child step ended: to the spawner's node, once the spawn
 * is answered (its node knows the child step then); before, kept. After a
 * failed spawn, nobody waits for them.
 */
static int pass_event(struct child *c, const uint8_t *data, size_t len)
{
	struct pmixev_buf b;

	pmixev_buf_init(&b);
	pmixev_buf_put_raw(&b, data, len);
	if (c->ready) {
		send_event(c, &b);
	} else if (!c->answered && c->nearly < c->nprocs && c->early) {
		c->early[c->nearly++] = b;
		return 0;
	} else if (!c->answered) {
		PMIXEV_ERROR("step %s: spawn %llu: more ends than children "
			     "before the step was ready: one dropped",
			     c->sp->step, (unsigned long long)c->spawn_id);
	}
	pmixev_buf_release(&b);
	return 0;
}

/*
 * The child step's layout, once, before its READY: to every node of this
 * step, so that each registers the child's namespace; READY waits for
 * their NSPACE_ACKs. The spawner's node gets it before READY's status on
 * the same link.
 */
static int pass_layout(struct child *c, const uint8_t *data, size_t len)
{
	struct spawns *sp = c->sp;
	uint32_t nnodes = sp->cfg.map->nnodes;
	struct pmixev_buf b;
	uint32_t failed = 0;

	if (c->answered || c->layout || c->held) {
		PMIXEV_ERROR("step %s: spawn %llu: the child srun sent a "
			     "layout %s",
			     sp->step, (unsigned long long)c->spawn_id,
			     c->layout ? "twice" : "after the answer");
		return -1;
	}
	c->layout = true;
	if ((c->unacked = malloc(nnodes))) {
		memset(c->unacked, 1, nnodes);
		c->nunacked = nnodes;
	} else {
		PMIXEV_ERROR("step %s: spawn %llu: out of memory: its answer "
			     "will not wait for every node to know step "
			     "%u.%u",
			     sp->step, (unsigned long long)c->spawn_id, c->job,
			     c->step);
	}
	pmixev_buf_init(&b);
	pmixev_buf_put_raw(&b, data, len);
	for (uint32_t n = 0; n < nnodes; n++) {
		if (sp->cfg.send(sp->cfg.send_ctx, n, PMIXEV_MSG_XSTEP, &b) ==
		    0)
			continue;
		failed++;
		spawn_link_node_gone(c, n);
	}
	if (failed)
		PMIXEV_ERROR("step %s: spawn %llu: %u node(s) of %u did not "
			     "get step %u.%u's layout",
			     sp->step, (unsigned long long)c->spawn_id, failed,
			     nnodes, c->job, c->step);
	pmixev_buf_release(&b);
	return 0;
}

/* READY was sent: the ends that came before it follow. */
static void flush_early(struct child *c)
{
	for (uint32_t i = 0; i < c->nearly; i++) {
		send_event(c, &c->early[i]);
		pmixev_buf_release(&c->early[i]);
	}
	c->nearly = 0;
}

/* How long READY waits for the nodes: the spawn's timeout, at most
 * SPAWN_LINK_ACK_MS. */
static uint32_t hold_ms(const struct child *c)
{
	return c->timeout_ms && c->timeout_ms < SPAWN_LINK_ACK_MS
		       ? c->timeout_ms
		       : SPAWN_LINK_ACK_MS;
}

/* READY to the spawner's node, unless the spawn was answered meanwhile
 * (cancelled); the ends that came before it follow. */
static void pass_ready(struct child *c)
{
	c->held = false;
	if (c->hold)
		evtimer_del(c->hold);
	if (c->answered)
		return;
	spawn_link_status(c, PMIXEV_SPAWN_READY, "");
	flush_early(c);
}

/* The nodes' wait ran out: the ones that did not answer are logged. */
static void on_hold(evutil_socket_t fd, short what, void *arg)
{
	struct child *c = arg;
	char list[128] = "";
	size_t at = 0;
	bool more = false;

	(void)fd;
	(void)what;
	for (uint32_t n = 0; n < c->sp->cfg.map->nnodes; n++) {
		if (!c->unacked[n])
			continue;
		if (at > sizeof(list) - 16) {
			more = true;
			break;
		}
		at += (size_t)snprintf(list + at, sizeof(list) - at, "%s%u",
				       at ? "," : "", n);
	}
	PMIXEV_ERROR("step %s: spawn %llu: %u node(s) (%s%s) did not "
		     "register step %u.%u within %u ms: answered all the "
		     "same; their ranks may not find it yet",
		     c->sp->step, (unsigned long long)c->spawn_id, c->nunacked,
		     list, more ? ",..." : "", c->job, c->step, hold_ms(c));
	pass_ready(c);
}

/* READY came: passed once every node has registered the child, or held
 * until then (or the wait runs out). */
static void ready(struct child *c)
{
	struct timeval tv = {hold_ms(c) / 1000, hold_ms(c) % 1000 * 1000};

	if (!c->nunacked) {
		pass_ready(c);
		return;
	}
	if (!c->hold && !(c->hold = evtimer_new(c->sp->base, on_hold, c))) {
		PMIXEV_ERROR("step %s: spawn %llu: out of memory: answered "
			     "before %u node(s) registered step %u.%u",
			     c->sp->step, (unsigned long long)c->spawn_id,
			     c->nunacked, c->job, c->step);
		pass_ready(c);
		return;
	}
	c->held = true;
	evtimer_add(c->hold, &tv);
	PMIXEV_DEBUG(1,
		     "step %s: spawn %llu: its answer waits for %u node(s) "
		     "to register step %u.%u",
		     c->sp->step, (unsigned long long)c->spawn_id, c->nunacked,
		     c->job, c->step);
}

int spawn_link_ack(struct child *c, uint32_t node,
		   const struct pmixev_nspace_ack *a)
{
	if (!c->unacked || node >= c->sp->cfg.map->nnodes || !c->unacked[node])
		return -1;
	if (a->status)
		PMIXEV_ERROR("step %s: spawn %llu: node %u could not register "
			     "step %u.%u (status %d): its ranks will not "
			     "find it",
			     c->sp->step, (unsigned long long)c->spawn_id, node,
			     c->job, c->step, (int)a->status);
	spawn_link_node_gone(c, node);
	return 0;
}

void spawn_link_node_gone(struct child *c, uint32_t node)
{
	if (!c->unacked || node >= c->sp->cfg.map->nnodes || !c->unacked[node])
		return;
	c->unacked[node] = 0;
	if (!--c->nunacked && c->held)
		pass_ready(c);
}

bool spawn_link_leads_to(const struct child *c, uint32_t job, uint32_t step)
{
	if (c->job == job && c->step == step)
		return true;
	for (uint32_t i = 0; i < c->nbelow; i++)
		if (c->below[i][0] == job && c->below[i][1] == step)
			return true;
	return false;
}

/* A frame the family routes (a PUBSUB request, or pmixev_xstep_routed)
 * from the child srun: its step's or a step's below it, remembered (at
 * most a family's worth) so that frames for it come back down. */
static int pass_routed(struct child *c, const struct pmixev_xstep_hdr *h,
		       const uint8_t *data, size_t len)
{
	uint32_t(*more)[2];

	if (!spawn_link_leads_to(c, h->src_job, h->src_step)) {
		if (c->nbelow >= PMIXEV_XSTEP_FAMILY_MAX ||
		    !(more = realloc(c->below,
				     (c->nbelow + 1) * sizeof(*more)))) {
			PMIXEV_ERROR("step %s: a frame of step %u.%u "
				     "dropped: too many steps below",
				     c->sp->step, h->src_job, h->src_step);
			return 0;
		}
		c->below = more;
		c->below[c->nbelow][0] = h->src_job;
		c->below[c->nbelow++][1] = h->src_step;
	}
	c->sp->cfg.route(c->sp->cfg.send_ctx, data, len);
	return 0;
}

/* The child step's READY, or one of its ranks' ends, from its srun. */
static int on_xstep(struct child *c, const uint8_t *data, size_t len)
{
	struct spawns *sp = c->sp;
	struct pmixev_xstep_hdr h;
	struct pmixev_xstep_ready r;
	struct pmixev_buf b;
	char why[PMIXEV_XSTEP_REASON_MAX];
	bool bad;

	pmixev_buf_reader(&b, data, len);
	bad = pmixev_xstep_hdr_unpack(&b, &h) < 0;
	if (!bad &&
	    (h.inner == PMIXEV_XSTEP_PUBSUB_REQ || pmixev_xstep_routed(&h)))
		return pass_routed(c, &h, data, len);
	if (bad || h.src_job != c->job || h.src_step != c->step ||
	    h.dst_job != sp->cfg.job_id || h.dst_step != sp->cfg.step_id) {
		PMIXEV_ERROR("step %s: spawn %llu: the child srun sent an "
			     "XSTEP that is not its step's for this one",
			     sp->step, (unsigned long long)c->spawn_id);
		return -1;
	}
	if (h.inner == PMIXEV_XSTEP_EVENT)
		return pass_event(c, data, len);
	if (h.inner == PMIXEV_XSTEP_LAYOUT)
		return pass_layout(c, data, len);
	if (h.inner != PMIXEV_XSTEP_READY ||
	    pmixev_xstep_ready_unpack(&b, &r) < 0 ||
	    r.spawn_id != c->spawn_id || c->answered || c->held) {
		PMIXEV_ERROR("step %s: spawn %llu: the child srun sent a frame "
			     "that is not its step's one READY",
			     sp->step, (unsigned long long)c->spawn_id);
		return -1;
	}
	if (r.status == PMIXEV_OK) {
		PMIXEV_DEBUG(1,
			     "step %s: spawn %llu: step %u.%u is up, every "
			     "rank registered",
			     sp->step, (unsigned long long)c->spawn_id, c->job,
			     c->step);
		ready(c);
		return 0;
	}
	ready_failure(&r, why, sizeof(why));
	PMIXEV_ERROR("step %s: spawn %llu: step %u.%u failed to start: %s",
		     sp->step, (unsigned long long)c->spawn_id, c->job, c->step,
		     why);
	spawn_link_status(c, PMIXEV_SPAWN_FAILED, why);
	return 0;
}

static int on_hello(struct child *c, const uint8_t *data, size_t len)
{
	struct spawns *sp = c->sp;
	struct pmixev_hub_hello m;
	struct pmixev_buf b;

	pmixev_buf_reader(&b, data, len);
	if (pmixev_hub_hello_unpack(&b, &m) < 0 || m.job != c->job ||
	    m.spawn_id != c->spawn_id || c->step != PMIXEV_XSTEP_NONE) {
		PMIXEV_ERROR("step %s: spawn %llu: a bad hello from the child "
			     "srun",
			     sp->step, (unsigned long long)c->spawn_id);
		return -1;
	}
	c->step = m.step;
	PMIXEV_DEBUG(1, "step %s: spawn %llu of node %u is step %u.%u",
		     sp->step, (unsigned long long)c->spawn_id, c->node, c->job,
		     c->step);
	return 0;
}

static int on_hub_frame(struct conn *conn, const struct pmixev_frame_hdr *hdr,
			const uint8_t *payload, void *ctx)
{
	struct child *c = ctx;

	(void)conn;
	if (hdr->type == PMIXEV_MSG_HUB_HELLO)
		return on_hello(c, payload, hdr->len);
	if (hdr->type == PMIXEV_MSG_XSTEP && c->step != PMIXEV_XSTEP_NONE)
		return on_xstep(c, payload, hdr->len);
	PMIXEV_ERROR("step %s: spawn %llu: unexpected %s from the child srun",
		     c->sp->step, (unsigned long long)c->spawn_id,
		     pmixev_msg_type_name(hdr->type));
	return -1;
}

/* Tell this step's root (node 0) that family step (job, step) ended
 * (LEFT): what it has in flight with that step fails at once, not at its
 * deadline. Once node 0 ended too, there is nothing in flight to fail. */
static void tell_left(struct spawns *sp, uint32_t job, uint32_t step)
{
	struct pmixev_buf b;

	pmixev_buf_init(&b);
	if (pmixev_xstep_left_pack(&b, job, step, sp->cfg.job_id,
				   sp->cfg.step_id) == 0 &&
	    sp->cfg.send(sp->cfg.send_ctx, 0, PMIXEV_MSG_XSTEP, &b) < 0)
		PMIXEV_DEBUG(1,
			     "step %s: step %u.%u ended, after this step's "
			     "node 0",
			     sp->step, job, step);
	pmixev_buf_release(&b);
}

static void on_hub_close(struct conn *conn, enum conn_close reason,
			 const char *why, void *ctx)
{
	struct child *c = ctx;
	struct timeval now = {0, 0};

	(void)conn;
	(void)reason;
	PMIXEV_DEBUG(1, "step %s: spawn %llu: the child srun's link closed: %s",
		     c->sp->step, (unsigned long long)c->spawn_id, why);
	c->hub = NULL;
	evtimer_add(c->reap, &now);
	if (c->ready)
		tell_left(c->sp, c->job, c->step);
}

int spawn_link_watch(struct child *c, int fd)
{
	c->hub = conn_create(c->sp->base, fd, NULL, 0, HUB_FRAME_MAX,
			     on_hub_frame, on_hub_close, c);
	if (c->hub)
		return 0;
	on_hub_close(NULL, CONN_ERROR, "no link", c);
	return -1;
}
