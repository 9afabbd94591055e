/*
 * wireup/spawn.c - root's part of a PMIx_Spawn on the requester's node
 * (agent thread; see spawn.h).
 */
#include "config.h"

#include "wireup/spawn.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/event.h>
#include <pmix_common.h>

#include "base/agent.h"
#include "base/layout_family.h"
#include "events/inject.h"
#include "events/notify.h"
#include "overlay/overlay.h"
#include "pmixd/carry.h"
#include "pmixd/chan.h"
#include "pmixd/nspaces.h"
#include "overlay/xstep.h"
#include "pmixev_base64.h"
#include "pmixev_frame.h"
#include "pmixev_log.h"
#include "pmixev_pmixd_spawn.h"
#include "pmixev_spawn_cmd.h"
#include "pmixev_xstep.h"
#include "pmixev_xstep_ctl.h"

#define MARGIN_SEC 5
#define KIDS_MAX   256 /* child steps whose events reach their spawner */

/* A spawn srun has not answered yet. */
struct pending {
	struct spawn *sp;
	struct pending *next;
	uint64_t id; /* the pmix side's */
	uint32_t rank;
	uint32_t nprocs; /* asked for */
	bool notify_end; /* PMIX_NOTIFY_COMPLETION or _JOB_EVENTS */
	struct event *deadline;
	/* READY came: the child's namespace, waiting for the pmix side to
	 * register it before the answer ("" while not). */
	char child[PMIXEV_NSPACE_MAX];
};

/* A child step spawned here: its ranks' ends go to the spawner, and
 * the step's end when it asked (`ended` then counts the ranks). */
struct kid {
	uint32_t job, step;
	uint32_t rank; /* the spawner */
	uint32_t nprocs, nended;
	uint8_t *ended;	   /* [nprocs / 8 + 1] bits, when asked */
	int32_t exit_code; /* the first rank's that was not 0 */
	bool abnormal;	   /* a rank did not end normally */
};

struct spawn {
	struct step *s;
	struct pending *live;
	struct kid kids[KIDS_MAX];
	unsigned nkids;
	/* Steps whose layout srun passed and the pmix side is registering:
	 * srun waits for their NSPACE_ACK (one per namespace nspaces sent). */
	uint32_t owed[NSPACES_MAX][2];
	unsigned nowed;
	uint64_t requests, failed, dropped; /* dropped: srun's bad frames */
};

static void send_done(struct spawn *sp, uint64_t id, uint32_t rank,
		      pmix_status_t status, const char *nspace, const char *why)
{
	const struct layout *lay = &sp->s->lay;
	struct pmixev_pmixd_spawn_done d = {.id = id, .status = status};
	struct pmixev_buf b;

	snprintf(d.nspace, sizeof(d.nspace), "%s", nspace);
	snprintf(d.reason, sizeof(d.reason), "%s", why);
	if (status == PMIX_SUCCESS) {
		PMIXEV_INFO("spawn: step %u.%u rank %u: %s is up",
			    lay->step.job_id, lay->step.step_id, rank, nspace);
	} else {
		sp->failed++;
		PMIXEV_INFO("spawn: step %u.%u rank %u: failed (PMIx status "
			    "%d): %s",
			    lay->step.job_id, lay->step.step_id, rank,
			    (int)status, why);
	}
	pmixev_buf_init(&b);
	chan_frame_begin(&b);
	if ((pmixev_pmixd_spawn_done_pack(&b, &d) < 0 ||
	     chan_send(sp->s->chan, PMIXEV_PMIXD_SPAWN_DONE, &b) < 0) &&
	    chan_is_open(sp->s->chan))
		PMIXEV_ERROR("spawn: step %u.%u: cannot answer the pmix side's "
			     "request %llu",
			     lay->step.job_id, lay->step.step_id,
			     (unsigned long long)id);
	pmixev_buf_release(&b);
}

static void pending_free(struct pending *p)
{
	struct pending **pp = &p->sp->live;

	while (*pp && *pp != p)
		pp = &(*pp)->next;
	if (*pp)
		*pp = p->next;
	if (p->deadline)
		event_free(p->deadline);
	pmixev_pmixd_budget_give(&p->sp->s->pmixd_budget, PMIXEV_PMIXD_SPAWN);
	free(p);
}

static void cancel_child(struct spawn *sp, uint64_t id)
{
	struct pmixev_buf b;

	pmixev_buf_init(&b);
	if (pmixev_spawn_cancel_pack(&b, id) == 0)
		overlay_send(sp->s->ov, PMIXEV_NODE_SRUN,
			     PMIXEV_MSG_SPAWN_CANCEL, b.data, b.len);
	pmixev_buf_release(&b);
}

static void on_deadline(evutil_socket_t fd, short what, void *arg)
{
	struct pending *p = arg;

	(void)fd;
	(void)what;
	cancel_child(p->sp, p->id);
	send_done(p->sp, p->id, p->rank, PMIX_ERR_TIMEOUT, "",
		  "srun did not start the child step in time");
	pending_free(p);
}

static pmix_status_t state_status(enum pmixev_spawn_state st)
{
	switch (st) {
	case PMIXEV_SPAWN_BUSY:
		return PMIX_ERR_OUT_OF_RESOURCE;
	case PMIXEV_SPAWN_DENIED:
		return PMIX_ERR_NO_PERMISSIONS;
	case PMIXEV_SPAWN_NO_JOB:
		return PMIX_ERR_NOT_FOUND;
	default:
		return PMIX_ERR_JOB_FAILED_TO_LAUNCH;
	}
}

/* Tell srun that the pmix side answered the NSPACE_ADD of (job, step)'s
 * layout, which srun passed (its spawner's answer waits for it). */
static void send_ack(struct spawn *sp, uint32_t job, uint32_t step,
		     int32_t status)
{
	const struct pmixev_nspace_ack a = {
		.job = job, .step = step, .status = status};
	struct pmixev_buf b;

	pmixev_buf_init(&b);
	if (pmixev_nspace_ack_pack(&b, &a) < 0 ||
	    overlay_send(sp->s->ov, PMIXEV_NODE_SRUN, PMIXEV_MSG_NSPACE_ACK,
			 b.data, b.len) < 0)
		PMIXEV_ERROR("spawn: step %s: cannot tell srun that step "
			     "%u.%u is registered here: its spawner's answer "
			     "waits for srun's deadline",
			     sp->s->lay.step.id, job, step);
	pmixev_buf_release(&b);
}

/* The pmix side registered (or failed to register) `nspace`: the spawns
 * that wait for it are answered, and srun told if it waits for it. */
static void on_added(void *ctx, const char *nspace, int32_t status)
{
	struct spawn *sp = ctx;
	struct pending *p = sp->live, *next;
	char owed[PMIXEV_NSPACE_MAX];

	/* (status: logged by nspaces; the child runs all the same) */
	for (; p; p = next) {
		next = p->next;
		if (strcmp(p->child, nspace))
			continue;
		send_done(sp, p->id, p->rank, PMIX_SUCCESS, nspace, "");
		pending_free(p);
	}
	for (unsigned i = 0; i < sp->nowed; i++) {
		pmixev_xstep_nspace(sp->owed[i][0], sp->owed[i][1], owed,
				    sizeof(owed));
		if (strcmp(owed, nspace))
			continue;
		send_ack(sp, sp->owed[i][0], sp->owed[i][1], status);
		sp->owed[i][0] = sp->owed[--sp->nowed][0];
		sp->owed[i][1] = sp->owed[sp->nowed][1];
		break;
	}
}

/* Child step (job, step) of `p` is up: keep it (room checked). */
static void kid_add(struct spawn *sp, const struct pending *p, uint32_t job,
		    uint32_t step)
{
	struct kid *k = &sp->kids[sp->nkids++];

	*k = (struct kid){
		.job = job, .step = step, .rank = p->rank, .nprocs = p->nprocs};
	if (p->notify_end && !(k->ended = calloc(p->nprocs / 8 + 1, 1)))
		PMIXEV_ERROR("spawn: step %s: out of memory: rank %u will not "
			     "hear of step %u.%u's end",
			     sp->s->lay.step.id, p->rank, job, step);
}

/* srun's SPAWN_STATUS (the owner's word, checked by its codec). */
static void on_status(void *ctx, uint32_t src, const uint8_t *data, size_t len)
{
	struct spawn *sp = ctx;
	struct pmixev_spawn_status m;
	struct pmixev_buf b;
	struct pending *p;
	char nspace[PMIXEV_NSPACE_MAX];

	(void)src;
	pmixev_buf_reader(&b, data, len);
	if (pmixev_spawn_status_unpack(&b, &m) < 0) {
		if (pmixev_log_worth(++sp->dropped))
			PMIXEV_ERROR("spawn: step %s: a malformed SPAWN_STATUS "
				     "from srun (%llu dropped so far)",
				     sp->s->lay.step.id,
				     (unsigned long long)sp->dropped);
		return;
	}
	for (p = sp->live; p && p->id != m.id; p = p->next)
		;
	if (!p || p->child[0]) {
		PMIXEV_DEBUG(1,
			     "spawn: step %s: srun's status of spawn %llu, "
			     "which nobody waits for",
			     sp->s->lay.step.id, (unsigned long long)m.id);
		return;
	}
	if (m.state == PMIXEV_SPAWN_LAUNCHED) {
		PMIXEV_DEBUG(1,
			     "spawn: step %s: srun started the child step "
			     "of request %llu",
			     sp->s->lay.step.id, (unsigned long long)m.id);
		return;
	}
	if (m.state == PMIXEV_SPAWN_READY) {
		pmixev_xstep_nspace(m.job, m.step, nspace, sizeof(nspace));
		if (sp->nkids < KIDS_MAX)
			kid_add(sp, p, m.job, m.step);
		else
			PMIXEV_ERROR("spawn: step %s: %u child steps already: "
				     "the ends of %s's ranks will not reach "
				     "rank %u",
				     sp->s->lay.step.id, KIDS_MAX, nspace,
				     p->rank);
		if (nspaces_state(sp->s->nspaces, nspace) == NSPACES_SENT) {
			/* answered once the pmix side has it (on_added) */
			snprintf(p->child, sizeof(p->child), "%s", nspace);
			return;
		}
		if (nspaces_state(sp->s->nspaces, nspace) == NSPACES_UNKNOWN)
			PMIXEV_ERROR("spawn: step %s: %s is up, but its layout "
				     "did not come: the spawn's answer "
				     "carries none of its job data",
				     sp->s->lay.step.id, nspace);
		send_done(sp, p->id, p->rank, PMIX_SUCCESS, nspace, "");
	} else {
		send_done(sp, p->id, p->rank, state_status(m.state), "",
			  m.reason);
	}
	pending_free(p);
}

static struct kid *kid_of(struct spawn *sp, uint32_t job, uint32_t step)
{
	for (unsigned i = 0; i < sp->nkids; i++)
		if (sp->kids[i].job == job && sp->kids[i].step == step)
			return &sp->kids[i];
	return NULL;
}

/*
 * Rank `ev->rank` of child step `k` ended: when it was the last, and the
 * spawner asked (PMIX_NOTIFY_COMPLETION), PMIX_EVENT_JOB_END for it (a
 * CHILD event with no rank; its value the job's PMIX_JOB_TERM_STATUS).
 */
static void kid_rank_ended(struct spawn *sp, struct kid *k,
			   const struct pmixev_event_msg *ev)
{
	struct pmixev_pmixd_inject in = {.kind = PMIXEV_PMIXD_INJECT_CHILD,
					 .origin = sp->s->lay.nodeid,
					 .to_rank = k->rank};
	uint32_t r = ev->rank;

	if (!k->ended || r >= k->nprocs || k->ended[r / 8] & (1u << r % 8))
		return;
	k->ended[r / 8] |= (uint8_t)(1u << r % 8);
	if (ev->code != PMIX_EVENT_PROC_TERMINATED || ev->exit_code)
		k->abnormal = true;
	if (ev->exit_code && !k->exit_code)
		k->exit_code = ev->exit_code;
	if (++k->nended < k->nprocs)
		return;
	pmixev_xstep_nspace(k->job, k->step, in.child, sizeof(in.child));
	in.ev = (struct pmixev_event_msg){
		.code = PMIX_EVENT_JOB_END,
		.rank = PMIXEV_EVENT_NO_RANK,
		.exit_code = k->exit_code,
		.flags = PMIXEV_EVENT_NON_DEFAULT,
		.value = k->abnormal ? PMIX_ERR_JOB_TERMINATED : PMIX_SUCCESS,
		.time = (uint64_t)time(NULL)};
	snprintf(in.ev.text, sizeof(in.ev.text), "%s ended: %u process(es)%s",
		 in.child, k->nprocs, k->abnormal ? ", not all normally" : "");
	PMIXEV_INFO("spawn: step %s: %s ended (%s), told rank %u",
		    sp->s->lay.step.id, in.child,
		    k->abnormal ? "not all normally" : "normally", k->rank);
	inject_send(sp->s->inject, &in, in.child);
	free(k->ended);
	k->ended = NULL;
}

/*
 * srun's XSTEP: a rank of a child step ended (the child's stepd's event,
 * passed by the sruns to every node of this step: the owner's word,
 * checked by its codecs). The spawner, when the step was spawned here,
 * and this node's ranks connected to the child step (the pmix side knows
 * which) get it as an event from the child process.
 */
static void on_event(void *ctx, const struct pmixev_xstep_hdr *h,
		     struct pmixev_buf *b, const uint8_t *data, size_t len)
{
	struct spawn *sp = ctx;
	const struct layout *lay = &sp->s->lay;
	struct pmixev_pmixd_inject in = {.kind = PMIXEV_PMIXD_INJECT_CHILD,
					 .origin = lay->nodeid};
	struct pmixev_xstep_event xe;
	struct pmixev_buf peek = *b;
	struct kid *k = NULL;
	uint8_t form = 0;

	(void)data;
	(void)len;
	pmixev_buf_get_u8(&peek, &form);
	if (h->dst_node == PMIXEV_XSTEP_ALL &&
	    form != PMIXEV_XSTEP_EV_OBSERVED) { /* a family step's client's */
		notify_from_step(sp->s->notify, h, b);
		return;
	}
	k = kid_of(sp, h->src_job, h->src_step);
	if (h->dst_job != lay->step.job_id ||
	    h->dst_step != lay->step.step_id ||
	    (!k && !nspaces_member(sp->s->nspaces, h->src_job, h->src_step)) ||
	    pmixev_xstep_event_unpack(b, 0, &xe) < 0 ||
	    xe.form != PMIXEV_XSTEP_EV_OBSERVED ||
	    xe.ev.rank == PMIXEV_EVENT_NO_RANK ||
	    xe.ev.rank >= (k ? k->nprocs
			     : nspaces_ntasks(sp->s->nspaces, h->src_job,
					      h->src_step))) {
		if (pmixev_log_worth(++sp->dropped))
			PMIXEV_ERROR("spawn: step %s: dropping an XSTEP from "
				     "srun: %s (%llu dropped so far)",
				     lay->step.id,
				     k || nspaces_member(sp->s->nspaces,
							 h->src_job,
							 h->src_step)
					     ? "not a rank's end"
					     : "not from a family step known "
					       "here",
				     (unsigned long long)sp->dropped);
		return;
	}
	pmixev_xstep_nspace(h->src_job, h->src_step, in.child,
			    sizeof(in.child));
	in.to_rank = k ? k->rank : PMIXEV_PMIXD_NO_RANK;
	in.ev = xe.ev;
	inject_send(sp->s->inject, &in, in.child);
	if (k)
		kid_rank_ended(sp, k, &xe.ev);
}

/*
 * srun's LAYOUT of a family member (a child step spawned here or on
 * another node): registered by the pmix side; srun is told once it is
 * (NSPACE_ACK), or at once when it already was or was dropped.
 */
static void on_layout(void *ctx, const struct pmixev_xstep_hdr *h,
		      struct pmixev_buf *b, const uint8_t *data, size_t len)
{
	struct spawn *sp = ctx;
	const struct layout *lay = &sp->s->lay;
	char nspace[PMIXEV_NSPACE_MAX];
	enum nspaces_state st;

	(void)b;
	if (!pmixev_xstep_for_me(h, lay->step.job_id, lay->step.step_id,
				 lay->nodeid, lay->nodeid == 0)) {
		if (pmixev_log_worth(++sp->dropped))
			PMIXEV_ERROR("spawn: step %s: dropping a layout from "
				     "srun: not for this node (%llu dropped "
				     "so far)",
				     lay->step.id,
				     (unsigned long long)sp->dropped);
		return;
	}
	nspaces_layout(sp->s->nspaces, h, data + PMIXEV_XSTEP_HDR_LEN,
		       len - PMIXEV_XSTEP_HDR_LEN);
	pmixev_xstep_nspace(h->src_job, h->src_step, nspace, sizeof(nspace));
	st = nspaces_state(sp->s->nspaces, nspace);
	for (unsigned i = 0; st == NSPACES_SENT && i < sp->nowed; i++)
		if (sp->owed[i][0] == h->src_job &&
		    sp->owed[i][1] == h->src_step)
			return; /* a repeated layout: one answer */
	if (st == NSPACES_SENT && sp->nowed < NSPACES_MAX) {
		sp->owed[sp->nowed][0] = h->src_job;
		sp->owed[sp->nowed++][1] = h->src_step;
		return;
	}
	send_ack(sp, h->src_job, h->src_step,
		 st == NSPACES_UNKNOWN ? PMIX_ERR_BAD_PARAM : PMIX_SUCCESS);
}

/*
 * This step's layout into `b`, for the child step to register this
 * step's namespace; left empty (logged) when it is too large for the
 * child's environment.
 */
static void own_layout(struct spawn *sp, struct pmixev_buf *b)
{
	const struct layout *lay = &sp->s->lay;

	if (layout_family_pack(lay, b) == 0 &&
	    pmixev_base64_len(b->len) <= PMIXEV_SPAWN_APPS_MAX)
		return;
	b->len = 0;
	PMIXEV_ERROR("spawn: step %s: its layout (%u ranks) is too large to "
		     "give a child step: the children will not know %s",
		     lay->step.id, lay->step.ntasks, lay->nspace);
}

/* Pass the checked `m` to srun; answered there or by the deadline. */
static void carry(struct spawn *sp, const struct pmixev_pmixd_spawn *m)
{
	const struct step *s = sp->s;
	uint32_t t = m->timeout_ms ? (m->timeout_ms + 999) / 1000
				   : s->conf.timeout_sec;
	struct timeval tv = {2 * (time_t)t + MARGIN_SEC, 0};
	struct pmixev_buf body, frame, layout;
	struct pending *p = NULL;
	const char *why = "out of memory";

	pmixev_buf_init(&body);
	pmixev_buf_init(&frame);
	pmixev_buf_init(&layout);
	if (!s->conf.spawn) {
		PMIXEV_INFO("spawn: step %s rank %u asks for a spawn: refused, "
			    "PMIxevSpawn is no",
			    s->lay.step.id, m->rank);
		send_done(sp, m->id, m->rank, PMIX_ERR_NOT_SUPPORTED, "",
			  "spawning is turned off for this step "
			  "(PMIxevSpawn=no)");
		goto out;
	}
	if (!carry_take(&sp->s->pmixd_budget, PMIXEV_PMIXD_SPAWN)) {
		send_done(sp, m->id, m->rank, PMIX_ERR_OUT_OF_RESOURCE, "",
			  "too many spawns in flight on this node");
		goto out;
	}
	if (!(p = calloc(1, sizeof(*p)))) {
		pmixev_pmixd_budget_give(&sp->s->pmixd_budget,
					 PMIXEV_PMIXD_SPAWN);
		goto fail;
	}
	*p = (struct pending){.sp = sp,
			      .id = m->id,
			      .rank = m->rank,
			      .nprocs = pmixev_pmixd_spawn_nprocs(m),
			      .notify_end = m->flags &
					    (PMIXEV_PMIXD_SPAWN_NOTIFY_DONE |
					     PMIXEV_PMIXD_SPAWN_NOTIFY_JOB)};
	p->next = sp->live;
	sp->live = p;
	if (!(p->deadline = evtimer_new(agent_base(s->agent), on_deadline, p)))
		goto fail;
	own_layout(sp, &layout);
	if (pmixev_pmixd_spawn_pack(&body, m) < 0 ||
	    pmixev_spawn_req_pack(&frame, &(struct pmixev_spawn_req){
						  .id = m->id,
						  .body = body.data,
						  .nbody = body.len,
						  .layout = layout.data,
						  .nlayout = layout.len}) < 0)
		goto fail;
	if (overlay_send(s->ov, PMIXEV_NODE_SRUN, PMIXEV_MSG_SPAWN_REQ,
			 frame.data, frame.len) < 0) {
		why = "srun is unreachable";
		goto fail;
	}
	evtimer_add(p->deadline, &tv);
	PMIXEV_INFO("spawn: step %s rank %u asks for %u process(es) in %u "
		    "application(s): passed to srun",
		    s->lay.step.id, m->rank, pmixev_pmixd_spawn_nprocs(m),
		    m->napps);
	goto out;
fail:
	send_done(sp, m->id, m->rank, PMIX_ERR_JOB_FAILED_TO_LAUNCH, "", why);
	if (p)
		pending_free(p);
out:
	pmixev_buf_release(&body);
	pmixev_buf_release(&frame);
	pmixev_buf_release(&layout);
}

/* A SPAWN frame of the pmix side. */
static int on_spawn(void *ctx, struct pmixev_buf *body)
{
	struct spawn *sp = ctx;
	struct pmixev_pmixd_spawn m = {0};

	if (pmixev_pmixd_spawn_unpack(body, &sp->s->pmixd_lim,
				      PMIXEV_PMIXD_SPAWN_BYTES, &m) < 0)
		return -1;
	sp->requests++;
	carry(sp, &m);
	pmixev_pmixd_spawn_release(&m);
	return 0;
}

struct spawn *spawn_create(struct step *s)
{
	struct spawn *sp = calloc(1, sizeof(*sp));

	if (!sp)
		return NULL;
	sp->s = s;
	if (nspaces_on_added(s->nspaces, on_added, sp) < 0) {
		free(sp);
		return NULL;
	}
	chan_on(s->chan, PMIXEV_PMIXD_SPAWN, on_spawn, sp);
	overlay_on(s->ov, PMIXEV_MSG_SPAWN_STATUS, on_status, sp);
	if (xstep_on(s->xstep, PMIXEV_XSTEP_EVENT, on_event, sp) < 0 ||
	    xstep_on(s->xstep, PMIXEV_XSTEP_LAYOUT, on_layout, sp) < 0) {
		free(sp);
		return NULL;
	}
	return sp;
}

void spawn_destroy(struct spawn *sp)
{
	if (!sp)
		return;
	while (sp->live)
		pending_free(sp->live);
	for (unsigned i = 0; i < sp->nkids; i++)
		free(sp->kids[i].ended);
	if (sp->requests || sp->dropped)
		PMIXEV_INFO("spawn: step %s: %llu request(s), %llu failed; "
			    "%llu frame(s) of srun dropped",
			    sp->s->lay.step.id,
			    (unsigned long long)sp->requests,
			    (unsigned long long)sp->failed,
			    (unsigned long long)sp->dropped);
	free(sp);
}
