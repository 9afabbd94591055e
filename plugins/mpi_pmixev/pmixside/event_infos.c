/*
 * pmixside/event_infos.c - the infos of injected events (see
 * event_infos.h).
 */
#include "config.h"

#include "pmixside/event_infos.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "pmixev_events.h"
#include "pmixev_jobwatch.h"
#include "pmixev_nodewatch.h"
#include "pmixev_proto.h"

/* The procs of node `node`, as a data array (not PMIX_PROC-typed info). */
static pmix_data_array_t *node_procs(const struct layout *lay, uint32_t node)
{
	uint32_t n = lay->map.count[node];
	pmix_data_array_t *da;
	pmix_proc_t *p;

	PMIX_DATA_ARRAY_CREATE(da, n, PMIX_PROC);
	if (!da)
		return NULL;
	p = da->array;
	for (uint32_t i = 0; i < n; i++)
		PMIX_LOAD_PROCID(&p[i], lay->nspace, lay->map.ranks[node][i]);
	return da;
}

/* What a job event (slurmctld, through the watcher) carries. */
static size_t job_infos(const struct pmixev_event_msg *m, pmix_info_t *info)
{
	uint32_t secs = m->value > UINT32_MAX ? UINT32_MAX : (uint32_t)m->value;
	bool changed = m->detail != 0;
	size_t n = 0;

	if (m->value >= 0)
		PMIX_INFO_LOAD(&info[n++], PMIX_TIME_REMAINING, &secs,
			       PMIX_UINT32);
	if (m->code == PMIX_JCTRL_PREEMPT_ALERT)
		PMIX_INFO_LOAD(&info[n++], PMIXEV_PREEMPT_MODE,
			       pmixev_preempt_after_name(m->detail),
			       PMIX_STRING);
	if (m->code == PMIXEV_EVENT_TIME_LIMIT)
		PMIX_INFO_LOAD(&info[n++], PMIXEV_TIME_CHANGED, &changed,
			       PMIX_BOOL);
	return n;
}

/* What a node-offline event (slurmctld, through the watcher) carries. */
static size_t offline_infos(const struct layout *lay,
			    const struct pmixev_event_msg *m, pmix_info_t *info)
{
	pmix_data_array_t *procs;
	size_t n = 0;

	PMIX_INFO_LOAD(&info[n++], PMIX_HOSTNAME, m->host, PMIX_STRING);
	for (uint32_t node = 0; node < lay->step.nnodes; node++) {
		if (strcmp(lay->nodes[node], m->host))
			continue;
		PMIX_INFO_LOAD(&info[n++], PMIX_NODEID, &node, PMIX_UINT32);
		if ((procs = node_procs(lay, node))) {
			PMIX_INFO_LOAD(&info[n++], PMIX_EVENT_AFFECTED_PROCS,
				       procs, PMIX_DATA_ARRAY);
			PMIX_DATA_ARRAY_FREE(procs);
		}
		break;
	}
	PMIX_INFO_LOAD(&info[n++], PMIXEV_NODE_STATE,
		       pmixev_node_avail_name(m->detail), PMIX_STRING);
	PMIX_INFO_LOAD(&info[n++], PMIXEV_NODE_REASON, m->reason, PMIX_STRING);
	return n;
}

/* A node event: from "the stepd of that node", to every process of the
 * step (a namespace range would compare with the source's). */
static size_t node_event(const struct layout *lay,
			 const struct pmixev_event_msg *m,
			 struct event_infos *out)
{
	pmix_data_array_t *procs, everyone = {0};
	pmix_info_t *info = out->info;
	pmix_proc_t all;
	size_t n = 0;

	PMIX_LOAD_PROCID(&out->source, lay->srv_nspace, m->node);
	PMIX_LOAD_PROCID(&all, lay->nspace, PMIX_RANK_WILDCARD);
	everyone = (pmix_data_array_t){
		.type = PMIX_PROC, .size = 1, .array = &all};
	PMIX_INFO_LOAD(&info[n++], PMIX_EVENT_CUSTOM_RANGE, &everyone,
		       PMIX_DATA_ARRAY);
	if (m->flags & PMIXEV_EVENT_JOB && m->code == PMIX_EVENT_NODE_OFFLINE)
		n += offline_infos(lay, m, &info[n]);
	else if (m->flags & PMIXEV_EVENT_JOB)
		n += job_infos(m, &info[n]);
	else if ((procs = node_procs(lay, m->node))) {
		PMIX_INFO_LOAD(&info[n++], PMIX_EVENT_AFFECTED_PROCS, procs,
			       PMIX_DATA_ARRAY);
		PMIX_DATA_ARRAY_FREE(procs);
	}
	if (!(m->flags & PMIXEV_EVENT_JOB))
		PMIX_INFO_LOAD(&info[n++], PMIX_NODEID, &m->node, PMIX_UINT32);
	out->range = PMIX_RANGE_CUSTOM;
	return n;
}

/* A process event: its source is the dead process, never told of its own
 * end. */
static size_t proc_event(const struct layout *lay,
			 const struct pmixev_event_msg *m,
			 struct event_infos *out)
{
	int exit_code = m->exit_code;
	size_t n = 0;

	PMIX_LOAD_PROCID(&out->source, lay->nspace, m->rank);
	/* The only PMIX_PROC-typed info: Open MPI's ULFM takes every one of
	 * them for a failed process. */
	PMIX_INFO_LOAD(&out->info[n++], PMIX_EVENT_AFFECTED_PROC, &out->source,
		       PMIX_PROC);
	PMIX_INFO_LOAD(&out->info[n++], PMIX_EXIT_CODE, &exit_code, PMIX_INT);
	out->range = PMIX_RANGE_NAMESPACE;
	return n;
}

static void build_event(const struct layout *lay,
			const struct pmixev_event_msg *m,
			struct event_infos *out)
{
	bool is_node = m->rank == PMIXEV_EVENT_NO_RANK, yes = true;
	uint32_t host = is_node ? m->node : lay->map.node_of[m->rank];
	time_t when = (time_t)m->time;
	size_t n = is_node ? node_event(lay, m, out) : proc_event(lay, m, out);
	pmix_info_t *info = out->info;

	if (!(m->flags & PMIXEV_EVENT_JOB))
		PMIX_INFO_LOAD(&info[n++], PMIX_HOSTNAME, lay->nodes[host],
			       PMIX_STRING);
	PMIX_INFO_LOAD(&info[n++], PMIX_EVENT_TEXT_MESSAGE, m->text,
		       PMIX_STRING);
	PMIX_INFO_LOAD(&info[n++], PMIX_EVENT_TIMESTAMP, &when, PMIX_TIME);
	PMIX_INFO_LOAD(&info[n++], PMIXEV_EVENT_SOURCE, out->counted_as,
		       PMIX_STRING);
	PMIX_INFO_LOAD(&info[n++], PMIXEV_EVENT_SEQ, &m->seq, PMIX_UINT64);
	if (m->flags & PMIXEV_EVENT_NON_DEFAULT)
		PMIX_INFO_LOAD(&info[n++], PMIX_EVENT_NON_DEFAULT, &yes,
			       PMIX_BOOL);
	/* A normal end (PMIx_Finalize, then status 0) is news for the
	 * handlers registered for it, not kept for later ones: a step's
	 * last moments bring one per task, and would push out of the cache
	 * the events that are. */
	if (m->code == PMIX_EVENT_PROC_TERMINATED) {
		PMIX_INFO_LOAD(&info[n++], PMIX_EVENT_DO_NOT_CACHE, &yes,
			       PMIX_BOOL);
		out->uncached = true;
	}
	out->code = m->code;
	out->ninfo = n;
}

/* A checkpoint request from the stepd of `origin` to one rank or all. */
static void build_ckpt(const struct layout *lay, uint32_t origin,
		       const struct pmixev_event_msg *m,
		       struct event_infos *out)
{
	pmix_data_array_t range;
	pmix_proc_t to;

	PMIX_LOAD_PROCID(&out->source, lay->srv_nspace, origin);
	PMIX_LOAD_PROCID(&to, lay->nspace,
			 m->rank == PMIXEV_EVENT_NO_RANK ? PMIX_RANK_WILDCARD
							 : m->rank);
	range = (pmix_data_array_t){.type = PMIX_PROC, .size = 1, .array = &to};
	PMIX_INFO_LOAD(&out->info[0], PMIX_EVENT_CUSTOM_RANGE, &range,
		       PMIX_DATA_ARRAY);
	PMIX_INFO_LOAD(&out->info[1], PMIX_JOB_CTRL_CHECKPOINT, m->text,
		       PMIX_STRING);
	out->code = PMIX_JCTRL_CHECKPOINT;
	out->range = PMIX_RANGE_CUSTOM;
	out->ninfo = 2;
}

_Static_assert(PMIXEV_PMIXD_JOB_END == PMIX_EVENT_JOB_END,
	       "the codec's restated PMIX_EVENT_JOB_END");

/*
 * A rank of a step this step spawned ended: for the spawner only, from
 * the dead child process, delivered only to handlers registered for its
 * code (a parent's catch-all must not take a child's end for its own).
 */
int event_infos_build_child(const struct layout *lay,
			    const struct pmixev_pmixd_inject *m,
			    const uint32_t *to, size_t nto,
			    struct event_infos *out, const char **why)
{
	const struct pmixev_event_msg *ev = &m->ev;
	pmix_data_array_t range;
	pmix_proc_t *procs, affected;
	time_t when = (time_t)ev->time;
	int exit_code = ev->exit_code;
	bool yes = true;
	pmix_info_t *info;
	size_t n = 0;

	memset(out, 0, sizeof(*out));
	snprintf(out->counted_as, sizeof(out->counted_as), "%.80s:%u", m->child,
		 ev->rank);
	for (size_t i = 0; i < nto; i++)
		if (to[i] >= lay->step.ntasks)
			nto = 0;
	if (!nto || (ev->rank == PMIXEV_EVENT_NO_RANK) !=
			    (ev->code == PMIX_EVENT_JOB_END)) {
		*why = "a spawned step's event for a rank outside the step";
		return -1;
	}
	PMIX_INFO_CREATE(out->info, EVENT_INFOS_MAX);
	PMIX_PROC_CREATE(procs, nto);
	if (!(info = out->info) || !procs) {
		if (procs)
			PMIX_PROC_FREE(procs, nto);
		*why = "out of memory";
		return -1;
	}
	PMIX_LOAD_PROCID(&out->source, m->child, ev->rank);
	for (size_t i = 0; i < nto; i++)
		PMIX_LOAD_PROCID(&procs[i], lay->nspace, to[i]);
	range = (pmix_data_array_t){
		.type = PMIX_PROC, .size = nto, .array = procs};
	if (ev->code == PMIX_EVENT_JOB_END) { /* the whole child step */
		pmix_status_t term = (pmix_status_t)ev->value;

		PMIX_LOAD_PROCID(&out->source, m->child, 0);
		PMIX_LOAD_PROCID(&affected, m->child, PMIX_RANK_WILDCARD);
		PMIX_INFO_LOAD(&info[n++], PMIX_JOB_TERM_STATUS, &term,
			       PMIX_STATUS);
		PMIX_INFO_LOAD(&info[n++], PMIX_NSPACE, m->child, PMIX_STRING);
	}
	PMIX_INFO_LOAD(&info[n++], PMIX_EVENT_AFFECTED_PROC,
		       ev->code == PMIX_EVENT_JOB_END ? &affected
						      : &out->source,
		       PMIX_PROC);
	PMIX_INFO_LOAD(&info[n++], PMIX_EXIT_CODE, &exit_code, PMIX_INT);
	PMIX_INFO_LOAD(&info[n++], PMIX_EVENT_CUSTOM_RANGE, &range,
		       PMIX_DATA_ARRAY);
	PMIX_PROC_FREE(procs, nto);
	PMIX_INFO_LOAD(&info[n++], PMIX_EVENT_NON_DEFAULT, &yes, PMIX_BOOL);
	PMIX_INFO_LOAD(&info[n++], PMIX_EVENT_TEXT_MESSAGE, ev->text,
		       PMIX_STRING);
	PMIX_INFO_LOAD(&info[n++], PMIX_EVENT_TIMESTAMP, &when, PMIX_TIME);
	PMIX_INFO_LOAD(&info[n++], PMIXEV_EVENT_SOURCE, out->counted_as,
		       PMIX_STRING);
	if (ev->code == PMIX_EVENT_PROC_TERMINATED) {
		PMIX_INFO_LOAD(&info[n++], PMIX_EVENT_DO_NOT_CACHE, &yes,
			       PMIX_BOOL);
		out->uncached = true;
	}
	out->code = ev->code;
	out->range = PMIX_RANGE_CUSTOM;
	out->ninfo = n;
	return 0;
}

int event_infos_build(const struct layout *lay,
		      const struct pmixev_pmixd_inject *m,
		      struct event_infos *out, const char **why)
{
	const struct pmixev_event_msg *ev = &m->ev;
	uint32_t nnodes = lay->step.nnodes, ntasks = lay->step.ntasks;

	memset(out, 0, sizeof(*out));
	if (m->kind == PMIXEV_PMIXD_INJECT_CHILD)
		return event_infos_build_child(lay, m, &m->to_rank, 1, out,
					       why);
	if (m->origin >= nnodes) {
		snprintf(out->counted_as, sizeof(out->counted_as), "stepd@?");
		*why = "an event from a node outside the step";
		return -1;
	}
	snprintf(out->counted_as, sizeof(out->counted_as), "%s@%s",
		 m->kind == PMIXEV_PMIXD_INJECT_EVENT &&
				 ev->flags & PMIXEV_EVENT_SITE
			 ? "site"
		 : m->kind == PMIXEV_PMIXD_INJECT_EVENT &&
				 ev->flags & PMIXEV_EVENT_JOB
			 ? PMIXEV_EVENT_SOURCE_JOB
			 : "stepd",
		 lay->nodes[m->origin]);
	if (m->kind == PMIXEV_PMIXD_INJECT_NOTIFY ||
	    (ev->rank == PMIXEV_EVENT_NO_RANK
		     ? m->kind == PMIXEV_PMIXD_INJECT_EVENT &&
			       ev->node >= nnodes
		     : ev->rank >= ntasks)) {
		*why = "an event for a rank or node outside the step";
		return -1;
	}
	PMIX_INFO_CREATE(out->info, EVENT_INFOS_MAX);
	if (!out->info) {
		*why = "out of memory";
		return -1;
	}
	if (m->kind == PMIXEV_PMIXD_INJECT_CKPT)
		build_ckpt(lay, m->origin, ev, out);
	else
		build_event(lay, ev, out);
	return 0;
}
