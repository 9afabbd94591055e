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
#include "srun/spawn_link.h"
#include "srun/spawn_proc.h"

#define REAP_MS 100

/* A request refused before any child srun: answered at once. */
static void refuse(struct spawns *sp, uint32_t node, uint64_t id,
		   enum pmixev_spawn_state state, const char *why)
{
	struct child c = {.sp = sp, .node = node, .req_id = id};

	sp->refused++;
	PMIXEV_ERROR("step %s: spawn request %llu of node %u refused: %s",
		     sp->step, (unsigned long long)id, node, why);
	spawn_link_status(&c, state, why);
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
	free(c->unacked);
	if (c->hold)
		event_free(c->hold);
	spawn_proc_destroy(c->proc);
	free(c);
}

/* The child srun exited with wait status `st`. */
static void child_ended(struct child *c, int st)
{
	struct spawns *sp = c->sp;
	struct timeval tv = {0, REAP_MS * 1000};
	char reason[PMIXEV_XSTEP_REASON_MAX];

	atomic_fetch_sub(&sp->live, 1);
	c->ended = true;
	if (c->held) {
		/* Short-lived children: READY still waits for this step's
		 * nodes, and c with it (on_reap frees it after). */
		PMIXEV_DEBUG(1,
			     "step %s: spawned step %u.%u ended before its "
			     "answer",
			     sp->step, c->job, c->step);
		evtimer_add(c->reap, &tv);
		return;
	}
	if (!c->answered) {
		spawn_proc_reason(c->proc, st, reason, sizeof(reason));
		PMIXEV_ERROR("step %s: spawn %llu failed: %s", sp->step,
			     (unsigned long long)c->spawn_id, reason);
		spawn_link_status(c, spawn_proc_state(c->proc), reason);
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
	if (c->ended && !c->held)
		child_free(c);
	else if (!c->ended && spawn_proc_reaped(c->proc, &st))
		child_ended(c, st);
	else
		evtimer_add(c->reap, &tv);
}

int spawns_pass_down(struct spawns *sp, uint32_t job, uint32_t step,
		     const uint8_t *data, size_t len)
{
	for (struct child *c = sp ? sp->children : NULL; c; c = c->next)
		if (c->hub && c->step != PMIXEV_XSTEP_NONE &&
		    spawn_link_leads_to(c, job, step))
			return conn_send(c->hub, PMIXEV_MSG_XSTEP, 0, 0, data,
					 len);
	return -1;
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
	c->timeout_ms = m->timeout_ms;
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
	if (spawn_link_watch(c, hub_fd) < 0) {
		PMIXEV_ERROR("step %s: spawn %llu: cannot watch the child "
			     "srun's link; ending it",
			     sp->step, (unsigned long long)c->spawn_id);
		spawn_proc_signal(c->proc, SIGKILL);
		return;
	}
	PMIXEV_DEBUG(1,
		     "step %s: spawn %llu: rank %u of node %u starts %u "
		     "process(es): %s",
		     sp->step, (unsigned long long)c->spawn_id, m->rank, node,
		     pmixev_pmixd_spawn_nprocs(m), spawn_proc_cmdline(c->proc));
	spawn_link_status(c, PMIXEV_SPAWN_LAUNCHED, "");
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

int spawns_nspace_ack(struct spawns *sp, uint32_t node, const uint8_t *data,
		      size_t len)
{
	struct pmixev_nspace_ack a;
	struct pmixev_buf b;
	struct child *c;

	pmixev_buf_reader(&b, data, len);
	if (pmixev_nspace_ack_unpack(&b, &a) < 0) {
		PMIXEV_ERROR("step %s: a malformed NSPACE_ACK from node %u",
			     sp->step, node);
		return -1;
	}
	for (c = sp->children; c; c = c->next)
		if (c->step != PMIXEV_XSTEP_NONE && c->job == a.job &&
		    c->step == a.step)
			break;
	if (!c || spawn_link_ack(c, node, &a) < 0)
		PMIXEV_DEBUG(1,
			     "step %s: node %u registered step %u.%u, which "
			     "no spawn waits for from it: ignored",
			     sp->step, node, a.job, a.step);
	return 0;
}

void spawns_node_gone(struct spawns *sp, uint32_t node)
{
	for (struct child *c = sp ? sp->children : NULL; c; c = c->next)
		spawn_link_node_gone(c, node);
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
	if (sp->late_events)
		PMIXEV_INFO("step %s: %llu event(s) of spawned processes came "
			    "after the node they were for had ended: dropped",
			    sp->step, (unsigned long long)sp->late_events);
	if (sp->requests)
		PMIXEV_DEBUG(1, "step %s: %llu spawn request(s), %llu refused",
			     sp->step, (unsigned long long)sp->requests,
			     (unsigned long long)sp->refused);
	free(sp);
}
