/*
 * events/spawned.c - a spawned step's node tells its srun when its ranks
 * registered (agent thread; see spawned.h).
 */
#include "config.h"

#include "events/spawned.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix_common.h>

#include "base/agent.h"
#include "base/layout_family.h"
#include "overlay/overlay.h"
#include "pmixd/nspaces.h"
#include "pmixev_frame.h"
#include "pmixev_log.h"
#include "pmixev_pmixd_spawn.h"
#include "pmixev_xstep.h"

struct spawned {
	struct step *s;
	uint32_t parent_job, parent_step;
	bool *connected; /* [ntasks]; NULL when not spawned */
	uint32_t nconnected;
	bool parent_known; /* the pmix side answered the parent's NSPACE_ADD */
	bool told;
};

static void tell(struct spawned *sd, const struct pmixev_xstep_ready *r)
{
	struct pmixev_buf b;

	if (sd->told)
		return;
	sd->told = true;
	pmixev_buf_init(&b);
	if (pmixev_xstep_ready_pack(&b, r) < 0 ||
	    overlay_send(sd->s->ov, PMIXEV_NODE_SRUN, PMIXEV_MSG_NODE_READY,
			 b.data, b.len) < 0)
		PMIXEV_ERROR("spawn: step %s: cannot tell srun that this "
			     "node's ranks %s",
			     sd->s->lay.step.id,
			     r->status == PMIXEV_OK ? "registered"
						    : "failed to register");
	else
		PMIXEV_DEBUG(1, "spawn: step %s: this node's ranks %s",
			     sd->s->lay.step.id,
			     r->status == PMIXEV_OK ? "registered"
						    : "failed to register");
	pmixev_buf_release(&b);
}

/* An observed end `m` of a local rank to step (job, step)'s nodes ("to"
 * ALL: not one of them in particular). */
static void send_end(struct spawned *sd, const struct pmixev_event_msg *m,
		     uint32_t job, uint32_t step, uint32_t to)
{
	const struct layout *lay = &sd->s->lay;
	const struct pmixev_xstep_hdr h = {.src_job = lay->step.job_id,
					   .src_step = lay->step.step_id,
					   .src_node = lay->nodeid,
					   .dst_job = job,
					   .dst_step = step,
					   .dst_node = to,
					   .inner = PMIXEV_XSTEP_EVENT};
	struct pmixev_xstep_event xe = {.form = PMIXEV_XSTEP_EV_OBSERVED,
					.ev = *m};
	struct pmixev_buf b;

	pmixev_buf_init(&b);
	if (pmixev_xstep_hdr_pack(&b, &h) < 0 ||
	    pmixev_xstep_event_pack(&b, &xe) < 0 ||
	    overlay_send(sd->s->ov, PMIXEV_NODE_SRUN, PMIXEV_MSG_XSTEP, b.data,
			 b.len) < 0)
		PMIXEV_ERROR("spawn: step %s: cannot tell step %u.%u that rank "
			     "%u ended",
			     lay->step.id, job, step, m->rank);
	pmixev_buf_release(&b);
}

struct end_to {
	struct spawned *sd;
	const struct pmixev_event_msg *m;
};

static void end_to_child(void *ctx, uint32_t job, uint32_t step)
{
	struct end_to *t = ctx;
	struct spawned *sd = t->sd;

	if (sd->connected && job == sd->parent_job && step == sd->parent_step)
		return; /* the parent: spawned_rank_ended */
	send_end(sd, t->m, job, step, PMIXEV_XSTEP_ALL);
}

void spawned_tell_children(struct spawned *sd, const struct pmixev_event_msg *m)
{
	struct end_to t = {sd, m};

	if (sd && (m->code != PMIX_EVENT_PROC_TERMINATED || m->exit_code))
		nspaces_each(sd->s->nspaces, end_to_child, &t);
}

void spawned_rank_ended(struct spawned *sd, const struct pmixev_event_msg *m)
{
	if (sd && sd->connected)
		send_end(sd, m, sd->parent_job, sd->parent_step,
			 PMIXEV_XSTEP_ROOT);
}

/*
 * The tree root's word to the parent step: this step's layout, so that
 * its nodes register this step's namespace. Sent before this node's
 * NODE_READY on the same link, so that it leaves before the step's READY.
 */
static void send_layout(struct spawned *sd)
{
	const struct layout *lay = &sd->s->lay;
	const struct pmixev_xstep_hdr h = {.src_job = lay->step.job_id,
					   .src_step = lay->step.step_id,
					   .src_node = lay->nodeid,
					   .dst_job = sd->parent_job,
					   .dst_step = sd->parent_step,
					   .dst_node = PMIXEV_XSTEP_ALL,
					   .inner = PMIXEV_XSTEP_LAYOUT};
	struct pmixev_buf b;

	pmixev_buf_init(&b);
	if (pmixev_xstep_hdr_pack(&b, &h) < 0 ||
	    layout_family_pack(lay, &b) < 0 ||
	    b.len > PMIXEV_XSTEP_LAYOUT_MAX ||
	    overlay_send(sd->s->ov, PMIXEV_NODE_SRUN, PMIXEV_MSG_XSTEP, b.data,
			 b.len) < 0)
		PMIXEV_ERROR("spawn: step %s: cannot send its layout (%zu "
			     "bytes, at most %u) to the parent step %u.%u: its "
			     "namespace stays unknown there",
			     lay->step.id, b.len, PMIXEV_XSTEP_LAYOUT_MAX,
			     sd->parent_job, sd->parent_step);
	pmixev_buf_release(&b);
}

/*
 * This node is ready once every local rank connected (or at once, for
 * processes that will not call PMIx_Init: PMIX_NON_PMI) and its pmix side
 * knows the parent step (so that no child's READY leaves the step before
 * every node has it): the tree root's layout, then NODE_READY.
 */
static void maybe_ready(struct spawned *sd)
{
	const struct layout *lay = &sd->s->lay;

	if (sd->told ||
	    (!lay->spawn_nonpmi && sd->nconnected < layout_nlocal(lay)) ||
	    !sd->parent_known)
		return;
	if (lay->nodeid == 0)
		send_layout(sd);
	tell(sd,
	     &(struct pmixev_xstep_ready){.spawn_id = lay->spawn_id,
					  .status = PMIXEV_OK,
					  .failed_rank = PMIXEV_XSTEP_NO_RANK});
}

static void ready_now(void *arg)
{
	maybe_ready(arg);
}

void spawned_connected(struct spawned *sd, uint32_t rank)
{
	const struct layout *lay;

	if (!sd || !sd->connected)
		return;
	lay = &sd->s->lay;
	if (!layout_is_local(lay, rank) || sd->connected[rank])
		return;
	sd->connected[rank] = true;
	sd->nconnected++;
	maybe_ready(sd);
}

/* The pmix side answered an NSPACE_ADD: the parent's, this node may be
 * ready. */
static void on_added(void *ctx, const char *nspace, int32_t status)
{
	struct spawned *sd = ctx;

	(void)status; /* logged by nspaces; the step runs all the same */
	if (strcmp(nspace, sd->s->lay.parent))
		return;
	sd->parent_known = true;
	maybe_ready(sd);
}

/* A rank ended: before it connected, this node's ranks cannot all
 * register. */
static void on_rank_gone(void *ctx, uint32_t rank)
{
	struct spawned *sd = ctx;
	struct pmixev_xstep_ready r = {.spawn_id = sd->s->lay.spawn_id,
				       .status = PMIXEV_ERR_FAILED,
				       .failed_rank = rank};

	if (sd->told || !layout_is_local(&sd->s->lay, rank) ||
	    sd->connected[rank] || sd->s->lay.spawn_nonpmi)
		return;
	snprintf(r.reason, sizeof(r.reason),
		 "it ended before it connected to the PMIx server on %s",
		 sd->s->lay.step.node);
	tell(sd, &r);
}

struct spawned *spawned_create(struct step *s)
{
	struct spawned *sd = calloc(1, sizeof(*sd));

	if (!sd)
		return NULL;
	sd->s = s;
	if (!s->lay.spawn_id)
		return sd;
	if (!pmixev_pmixd_step_nspace(s->lay.parent, &sd->parent_job,
				      &sd->parent_step)) {
		spawned_destroy(sd);
		return NULL;
	}
	if (!(sd->connected =
		      calloc(s->lay.step.ntasks, sizeof(*sd->connected))) ||
	    step_on_rank_gone(s, on_rank_gone, sd) < 0 ||
	    nspaces_on_added(s->nspaces, on_added, sd) < 0) {
		spawned_destroy(sd);
		return NULL;
	}
	/* Without the parent's layout (too large, or not sent: logged),
	 * nothing to wait for. */
	sd->parent_known =
		!s->lay.parent_layout || nspaces_add_parent(s->nspaces) < 0;
	/* Processes that will not call PMIx_Init: nothing more to wait for
	 * when the parent is known already. */
	if (s->lay.spawn_nonpmi && sd->parent_known &&
	    agent_post(s->agent, ready_now, sd) < 0) {
		spawned_destroy(sd);
		return NULL;
	}
	return sd;
}

void spawned_destroy(struct spawned *sd)
{
	if (!sd)
		return;
	free(sd->connected);
	free(sd);
}
