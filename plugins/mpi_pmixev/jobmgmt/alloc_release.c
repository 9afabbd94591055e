/*
 * jobmgmt/alloc_release.c - PMIX_ALLOC_RELEASE: nodes of a job of the
 * owner given back through the owner helper, the step told first when
 * they are its own job's; PMIX_ALLOC_EXTEND: the site's command asked, as
 * the owner (see alloc.h). Agent thread.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/agent.h"
#include "events/events.h"
#include "jobmgmt/alloc_int.h"
#include "ownerhelper/helper.h"
#include "slurm_compat.h"

#define RELEASE_GRACE_SEC 2 /* from the event to the shrink */
#define RELEASE_TEXT	  "released by PMIx_Allocation_request"

static uint32_t tell_offline(struct step *s, const char *nodes);

static void on_shrunk(void *arg, const struct pmixev_owner_resp *r)
{
	struct alloc_call *c = arg;
	struct pmixev_pmixd_alloc_done d = {.job = c->job};

	if (r && !r->ctl.rc) {
		if (c->m.nodes[0] || c->m.nnodes) {
			snprintf(d.nodes, sizeof(d.nodes), "%s", r->ctl.reason);
			d.nnodes = alloc_count_nodes(d.nodes);
		}
		/* Nodes pmixev picked: the step learns of them now. */
		if (!c->m.nodes[0] && c->m.nnodes &&
		    c->job == c->al->s->lay.step.job_id)
			tell_offline(c->al->s, d.nodes);
		alloc_finish(c, &d);
		return;
	}
	d.status = r ? helper_pmix_status(r->ctl.rc) : PMIX_ERR_UNREACH;
	snprintf(d.reason, sizeof(d.reason),
		 "Slurm refused to release %s "
		 "of job %u: %s",
		 c->m.nodes[0] || c->m.nnodes ? "nodes" : "the whole job",
		 c->job, r ? r->ctl.reason : "the owner helper failed");
	alloc_finish(c, &d);
}

/* PMIX_EVENT_NODE_OFFLINE to every process of the step for each node of
 * hostlist text `nodes`. How many nodes it named. */
static uint32_t tell_offline(struct step *s, const char *nodes)
{
	char **names = NULL;
	uint32_t n = 0;

	if (!nodes[0] || !s->events ||
	    pmixev_slurm_expand_nodelist(nodes, 65536, &names, &n) < 0)
		return 0;
	for (uint32_t i = 0; i < n; i++) {
		events_node_offline(s->events, names[i], PMIXEV_NODE_DOWN,
				    RELEASE_TEXT, RELEASE_TEXT);
		free(names[i]);
	}
	free(names);
	return n;
}

static void shrink(struct alloc_call *c)
{
	if (helper_alloc(c->al->s->helper, PMIXEV_OWNER_SHRINK, c->job,
			 &c->shrink, on_shrunk, c) < 0)
		on_shrunk(c, NULL);
}

static void on_grace(evutil_socket_t fd, short what, void *arg)
{
	shrink(arg);
}

/* Nodes of a job given back, or a whole other job. */
void alloc_release_start(struct alloc_call *c)
{
	struct step *s = c->al->s;
	struct pmixev_owner_alloc *a = &c->shrink;
	uint32_t own = s->lay.step.job_id;
	struct timeval grace = {RELEASE_GRACE_SEC, 0};
	size_t used = 0;

	c->job = c->m.job ? c->m.job : own;
	if (!c->m.nodes[0] && !c->m.nnodes) {
		if (c->job == own) {
			alloc_finish_st(
				c, PMIX_ERR_BAD_PARAM,
				"releasing the whole job of this step would "
				"end it: name nodes (PMIX_ALLOC_NODE_LIST) or "
				"a count (PMIX_ALLOC_NUM_NODES)");
			return;
		}
		alloc_forget(c->al, c->job);
		if (helper_control(s->helper, PMIXEV_CTL_CANCEL_JOB, c->job, 0,
				   0, 0, on_shrunk, c) < 0)
			on_shrunk(c, NULL);
		return;
	}
	a->nnodes = c->m.nnodes;
	if (snprintf(a->nodes, sizeof(a->nodes), "%s", c->m.nodes) >=
	    (int)sizeof(a->nodes)) {
		alloc_finish_st(c, PMIX_ERR_BAD_PARAM,
				"the node list is too long");
		return;
	}
	/* This step's own nodes go last. */
	for (uint32_t i = 0; c->job == own && i < s->lay.nnames; i++) {
		int n = snprintf(a->exclude + used, sizeof(a->exclude) - used,
				 "%s%s", used ? "," : "", s->lay.nodes[i]);

		if (n < 0 || (size_t)n >= sizeof(a->exclude) - used) {
			a->exclude[used] = '\0';
			break;
		}
		used += (size_t)n;
	}
	/* Nodes named of the own job: the step is told first, and its
	 * processes there get a grace time. */
	if (c->job == own && c->m.nodes[0] && tell_offline(s, c->m.nodes) &&
	    (c->tick = evtimer_new(agent_base(s->agent), on_grace, c))) {
		evtimer_add(c->tick, &grace);
		return;
	}
	shrink(c);
}

static void on_extended(void *arg, const struct pmixev_owner_resp *r)
{
	struct alloc_call *c = arg;
	struct pmixev_pmixd_alloc_done d = {
		.job = c->job, .nnodes = c->m.nnodes, .seconds = c->m.seconds};
	char why[PMIXEV_MSG_TEXT_MAX];

	if (r && r->ctl.rc == 0) {
		alloc_finish(c, &d);
		return;
	}
	snprintf(why, sizeof(why),
		 "the site's command refused to extend job "
		 "%u: %s",
		 c->job, r ? r->ctl.reason : "the owner helper failed");
	alloc_finish_st(c, r ? PMIX_ERR_JOB_ALLOC_FAILED : PMIX_ERR_UNREACH,
			why);
}

/* More time or nodes: only a site command may grant it, run as the owner. */
void alloc_extend_start(struct alloc_call *c)
{
	struct step *s = c->al->s;
	struct pmixev_owner_alloc a = {.minutes = (c->m.seconds + 59) / 60,
				       .nnodes = c->m.nnodes};

	c->job = c->m.job ? c->m.job : s->lay.step.job_id;
	if (!s->conf.alloc_extend[0]) {
		alloc_finish_st(c, PMIX_ERR_NOT_SUPPORTED,
				"Slurm lets only operators extend a running "
				"job");
		return;
	}
	if (!a.minutes && !a.nnodes) {
		alloc_finish_st(c, PMIX_ERR_BAD_PARAM,
				"an extension of nothing: give PMIX_ALLOC_TIME "
				"or PMIX_ALLOC_NUM_NODES");
		return;
	}
	snprintf(a.cmd, sizeof(a.cmd), "%s", s->conf.alloc_extend);
	if (helper_alloc(s->helper, PMIXEV_OWNER_EXTEND, c->job, &a,
			 on_extended, c) < 0)
		on_extended(c, NULL);
}
