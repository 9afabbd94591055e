/*
 * srun/spawn.c - the parent step's srun starts its child steps (see
 * spawn.h).
 */
#include "config.h"

#include "srun/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "overlay/conn.h"
#include "pmixev_frame.h"
#include "pmixev_log.h"
#include "pmixev_pmixd_spawn.h"
#include "pmixev_spawn_cmd.h"
#include "pmixev_xstep.h"
#include "pmixev_xstep_ctl.h"
#include "srun/spawn_proc.h"

#define HUB_FRAME_MAX (1u << 20)
#define REAP_MS	      100

struct child {
	struct spawns *sp;
	struct child *next;
	uint32_t node;	   /* the requesting stepd */
	uint64_t req_id;   /* its request's id */
	uint64_t spawn_id; /* SLURM_PMIXEV_SPAWN_ID */
	uint32_t job;	   /* the child's job (this one, or PMIX_ALLOC_ID's) */
	uint32_t step;	   /* its step, once it said hello */
	struct spawn_proc *proc;
	struct conn *hub; /* NULL once it closed */
	struct event *reap;
	bool answered; /* READY or a failure was sent */
	bool ready;    /* READY was sent */
	bool layout;   /* its layout was passed on */
	/* Ends of child ranks that came before READY (at most one per
	 * process): passed on after it. */
	struct pmixev_buf *early;
	uint32_t nearly, nprocs;
	/* Steps below the child step whose PUBSUB requests it passed up:
	 * their answers go down this link. */
	uint32_t (*below)[2];
	uint32_t nbelow;
};

struct spawns {
	struct spawns_cfg cfg;
	struct event_base *base;
	char step[32];
	char nspace[64];
	uint64_t last_spawn_id;
	struct child *children;
	atomic_uint live; /* child sruns not yet reaped */
	uint64_t requests, refused;
};

static void send_status(struct child *c, enum pmixev_spawn_state state,
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

/* A request refused before any child srun: answered at once. */
static void refuse(struct spawns *sp, uint32_t node, uint64_t id,
		   enum pmixev_spawn_state state, const char *why)
{
	struct child c = {.sp = sp, .node = node, .req_id = id};

	sp->refused++;
	PMIXEV_ERROR("step %s: spawn request %llu of node %u refused: %s",
		     sp->step, (unsigned long long)id, node, why);
	send_status(&c, state, why);
}

static void child_free(struct child *c)
{
	struct child **p;

	for (p = &c->sp->children; *p && *p != c; p = &(*p)->next)
		;
	if (*p)
		*p = c->next;
	conn_destroy(c->hub);
	if (c->reap)
		event_free(c->reap);
	for (uint32_t i = 0; i < c->nearly; i++)
		pmixev_buf_release(&c->early[i]);
	free(c->early);
	free(c->below);
	spawn_proc_destroy(c->proc);
	free(c);
}

/* The child srun exited with wait status `st`. */
static void child_ended(struct child *c, int st)
{
	struct spawns *sp = c->sp;
	char reason[PMIXEV_XSTEP_REASON_MAX];

	atomic_fetch_sub(&sp->live, 1);
	if (!c->answered) {
		spawn_proc_reason(c->proc, st, reason, sizeof(reason));
		PMIXEV_ERROR("step %s: spawn %llu failed: %s", sp->step,
			     (unsigned long long)c->spawn_id, reason);
		send_status(c, spawn_proc_state(c->proc), reason);
	} else {
		PMIXEV_DEBUG(1, "step %s: spawned step %u.%u ended (%s %d)",
			     sp->step, c->job, c->step,
			     WIFEXITED(st) ? "status" : "signal",
			     WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
	}
	child_free(c);
}

static void on_reap(evutil_socket_t fd, short what, void *arg)
{
	struct child *c = arg;
	struct timeval tv = {0, REAP_MS * 1000};
	int st = 0;

	(void)fd;
	(void)what;
	if (spawn_proc_reaped(c->proc, &st))
		child_ended(c, st);
	else
		evtimer_add(c->reap, &tv);
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

static void send_event(struct child *c, const struct pmixev_buf *b)
{
	if (c->sp->cfg.send(c->sp->cfg.send_ctx, c->node, PMIXEV_MSG_XSTEP, b) <
	    0)
		PMIXEV_ERROR("step %s: spawn %llu: node %u is gone: a child's "
			     "event is dropped",
			     c->sp->step, (unsigned long long)c->spawn_id,
			     c->node);
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
 * step, so that each registers the child's namespace. The spawner's node
 * gets it before READY's status on the same link.
 */
static int pass_layout(struct child *c, const uint8_t *data, size_t len)
{
	struct spawns *sp = c->sp;
	struct pmixev_buf b;
	uint32_t failed = 0;

	if (c->answered || c->layout) {
		PMIXEV_ERROR("step %s: spawn %llu: the child srun sent a "
			     "layout %s",
			     sp->step, (unsigned long long)c->spawn_id,
			     c->layout ? "twice" : "after the answer");
		return -1;
	}
	c->layout = true;
	pmixev_buf_init(&b);
	pmixev_buf_put_raw(&b, data, len);
	for (uint32_t n = 0; n < sp->cfg.map->nnodes; n++)
		if (sp->cfg.send(sp->cfg.send_ctx, n, PMIXEV_MSG_XSTEP, &b) < 0)
			failed++;
	if (failed)
		PMIXEV_ERROR("step %s: spawn %llu: %u node(s) of %u did not "
			     "get step %u.%u's layout",
			     sp->step, (unsigned long long)c->spawn_id, failed,
			     sp->cfg.map->nnodes, c->job, c->step);
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

static bool leads_to(const struct child *c, uint32_t job, uint32_t step)
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

	if (!leads_to(c, h->src_job, h->src_step)) {
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

int spawns_pass_down(struct spawns *sp, uint32_t job, uint32_t step,
		     const uint8_t *data, size_t len)
{
	for (struct child *c = sp ? sp->children : NULL; c; c = c->next)
		if (c->hub && c->step != PMIXEV_XSTEP_NONE &&
		    leads_to(c, job, step))
			return conn_send(c->hub, PMIXEV_MSG_XSTEP, 0, 0, data,
					 len);
	return -1;
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
	    r.spawn_id != c->spawn_id || c->answered) {
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
		send_status(c, PMIXEV_SPAWN_READY, "");
		flush_early(c);
		return 0;
	}
	ready_failure(&r, why, sizeof(why));
	PMIXEV_ERROR("step %s: spawn %llu: step %u.%u failed to start: %s",
		     sp->step, (unsigned long long)c->spawn_id, c->job, c->step,
		     why);
	send_status(c, PMIXEV_SPAWN_FAILED, why);
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
}

/* Start the child srun of `m`, giving it this step's `layout` (base64,
 * or NULL). */
static void launch(struct spawns *sp, uint32_t node,
		   const struct pmixev_pmixd_spawn *m, const char *layout)
{
	struct child *c = calloc(1, sizeof(*c));
	struct pmixev_spawn_ctx ctx = {.job_id = sp->cfg.job_id,
				       .job_name = sp->cfg.job_name,
				       .timeout_max = sp->cfg.timeout_max,
				       .parent = sp->nspace,
				       .parent_rank = m->rank,
				       .layout = layout};
	char err[PMIXEV_XSTEP_REASON_MAX];
	int hub_fd = -1;

	if (!c) {
		refuse(sp, node, m->id, PMIXEV_SPAWN_FAILED, "out of memory");
		return;
	}
	*c = (struct child){.sp = sp,
			    .node = node,
			    .req_id = m->id,
			    .spawn_id = ++sp->last_spawn_id,
			    .job = m->alloc_job ? m->alloc_job : sp->cfg.job_id,
			    .step = PMIXEV_XSTEP_NONE};
	ctx.spawn_id = c->spawn_id;
	c->nprocs = pmixev_pmixd_spawn_nprocs(m);
	if (!(c->early = calloc(c->nprocs, sizeof(*c->early))) ||
	    !(c->reap = evtimer_new(sp->base, on_reap, c)) ||
	    !(c->proc = spawn_proc_start(sp->base, m, &ctx, &hub_fd, err,
					 sizeof(err)))) {
		refuse(sp, node, m->id, PMIXEV_SPAWN_FAILED,
		       c->reap && c->early ? err : "out of memory");
		child_free(c);
		return;
	}
	atomic_fetch_add(&sp->live, 1);
	c->next = sp->children;
	sp->children = c;
	if (!(c->hub = conn_create(sp->base, hub_fd, NULL, 0, HUB_FRAME_MAX,
				   on_hub_frame, on_hub_close, c))) {
		PMIXEV_ERROR("step %s: spawn %llu: cannot watch the child "
			     "srun's link; ending it",
			     sp->step, (unsigned long long)c->spawn_id);
		spawn_proc_signal(c->proc, SIGKILL);
		on_hub_close(NULL, CONN_ERROR, "no link", c);
		return;
	}
	PMIXEV_DEBUG(1,
		     "step %s: spawn %llu: rank %u of node %u starts %u "
		     "process(es): %s",
		     sp->step, (unsigned long long)c->spawn_id, m->rank, node,
		     pmixev_pmixd_spawn_nprocs(m), spawn_proc_cmdline(c->proc));
	send_status(c, PMIXEV_SPAWN_LAUNCHED, "");
}

/*
 * The requesting node's layout of this step, for the child step (checked
 * here too: the child's stepds check it again). Its base64 text in
 * *text (malloc'd), or NULL when there is none. 0, or -1 if malformed.
 */
static int own_layout(const struct spawns *sp, const struct pmixev_spawn_req *q,
		      char **text)
{
	struct pmixev_xstep_layout m;
	struct pmixev_buf b;
	bool ours;

	*text = NULL;
	if (!q->nlayout)
		return 0;
	pmixev_buf_reader(&b, q->layout, q->nlayout);
	if (pmixev_xstep_layout_unpack(&b, PMIXEV_PMIXD_SPAWN_BYTES, &m) < 0)
		return -1;
	ours = m.start.step.job_id == sp->cfg.job_id &&
	       m.start.step.step_id == sp->cfg.step_id;
	pmixev_xstep_layout_release(&m);
	if (!ours)
		return -1;
	*text = pmixev_spawn_layout_encode(q->layout, q->nlayout);
	return 0;
}

int spawns_request(struct spawns *sp, uint32_t node, const uint8_t *data,
		   size_t len)
{
	const struct pmixev_pmixd_bounds lim = {.map = sp->cfg.map,
						.nodeid = node};
	struct pmixev_pmixd_spawn m = {0};
	struct pmixev_spawn_req q;
	struct pmixev_buf b;
	char *layout = NULL;

	sp->requests++;
	pmixev_buf_reader(&b, data, len);
	if (node >= sp->cfg.map->nnodes ||
	    pmixev_spawn_req_unpack(&b, PMIXEV_PMIXD_SPAWN_BYTES, &q) < 0) {
		PMIXEV_ERROR("step %s: a malformed spawn request from node %u",
			     sp->step, node);
		return -1;
	}
	pmixev_buf_reader(&b, q.body, q.nbody);
	if (pmixev_pmixd_spawn_unpack(&b, &lim, PMIXEV_PMIXD_SPAWN_BYTES, &m) <
		    0 ||
	    m.id != q.id || own_layout(sp, &q, &layout) < 0) {
		refuse(sp, node, q.id, PMIXEV_SPAWN_FAILED,
		       "the spawn request is malformed");
		pmixev_pmixd_spawn_release(&m);
		return 0;
	}
	if (m.rank == PMIXEV_PMIXD_NO_RANK)
		refuse(sp, node, q.id, PMIXEV_SPAWN_FAILED,
		       "a tool cannot spawn under srun yet");
	else if (m.flags &
		 (PMIXEV_PMIXD_SPAWN_NON_PMI | PMIXEV_PMIXD_SPAWN_TOOL))
		refuse(sp, node, q.id, PMIXEV_SPAWN_FAILED,
		       "PMIX_NON_PMI and PMIX_SPAWN_TOOL are not served yet");
	else
		launch(sp, node, &m, layout);
	pmixev_pmixd_spawn_release(&m);
	free(layout);
	return 0;
}

int spawns_cancel(struct spawns *sp, uint32_t node, const uint8_t *data,
		  size_t len)
{
	struct pmixev_buf b;
	uint64_t id = 0;

	pmixev_buf_reader(&b, data, len);
	if (pmixev_spawn_cancel_unpack(&b, &id) < 0)
		return -1;
	for (struct child *c = sp->children; c; c = c->next) {
		if (c->node != node || c->req_id != id)
			continue;
		PMIXEV_INFO("step %s: spawn %llu cancelled by node %u",
			    sp->step, (unsigned long long)c->spawn_id, node);
		c->answered = true;
		spawn_proc_signal(c->proc, SIGTERM);
	}
	return 0;
}

struct spawns *spawns_create(struct event_base *base,
			     const struct spawns_cfg *cfg)
{
	struct spawns *sp = calloc(1, sizeof(*sp));

	if (!sp)
		return NULL;
	sp->cfg = *cfg;
	sp->base = base;
	atomic_init(&sp->live, 0);
	snprintf(sp->step, sizeof(sp->step), "%u.%u", cfg->job_id,
		 cfg->step_id);
	pmixev_xstep_nspace(cfg->job_id, cfg->step_id, sp->nspace,
			    sizeof(sp->nspace));
	return sp;
}

void spawns_wait(struct spawns *sp, bool abort)
{
	const struct timespec tick = {0, 100 * 1000 * 1000};
	unsigned n, waited = 0;

	if (!sp || !(n = atomic_load(&sp->live)))
		return;
	if (abort) {
		PMIXEV_ERROR("step %s: the step was aborted: ending its %u "
			     "spawned step(s)",
			     sp->step, n);
		spawn_proc_signal_all(SIGTERM);
	}
	for (; (n = atomic_load(&sp->live)); waited++) {
		/* (a child srun that ended is reaped within REAP_MS) */
		if (waited == 10 && !abort)
			PMIXEV_INFO("step %s: waiting for its %u spawned "
				    "step(s) to end",
				    sp->step, n);
		if (abort && waited == sp->cfg.kill_wait * 10 + 10)
			spawn_proc_signal_all(SIGKILL);
		nanosleep(&tick, NULL);
	}
}

void spawns_destroy(struct spawns *sp)
{
	if (!sp)
		return;
	while (sp->children)
		child_free(sp->children);
	if (sp->requests)
		PMIXEV_DEBUG(1, "step %s: %llu spawn request(s), %llu refused",
			     sp->step, (unsigned long long)sp->requests,
			     (unsigned long long)sp->refused);
	free(sp);
}
