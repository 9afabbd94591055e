/*
 * events/events.c - what Slurm, the site and the scheduler report, as PMIx
 * events on every node.
 */
#include "config.h"

#include "events/events.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include <pmix_common.h>

#include "overlay/overlay.h"
#include "events/inject.h"
#include "pmixev_buf.h"
#include "pmixev_events.h"
#include "pmixev_frame.h"
#include "pmixev_jobwatch.h"
#include "pmixev_log.h"
#include "pmixev_nodewatch.h"
#include "pmixev_proto.h"
#include "events/spawned.h"

/* A rank lost with its node ended without PMIx_Finalize as far as anyone
 * can tell. (PRRTE tears the whole job down instead.) */
#define LOST_PROC_CODE PMIX_ERR_PROC_TERM_WO_SYNC

enum client_state { NEVER_CONNECTED, CONNECTED, FINALIZED, ABORTED };

struct events {
	struct step *s;
	struct overlay *ov;
	const struct layout *lay;
	struct inject *inject;
	uint64_t seq;		  /* events this node's stepd observed */
	uint64_t site_seq;	  /* site events given to this node */
	uint64_t job_seq;	  /* job events this node's watcher saw */
	enum client_state *state; /* [ntasks], for local ranks */
	bool *ended;		  /* [ntasks]: its end was told here */
};

/* Hand the event to this node's PMIx server for its clients. */
static void inject(struct events *ev, uint32_t src_node,
		   const struct pmixev_event_msg *m)
{
	struct pmixev_pmixd_inject in = {.kind = PMIXEV_PMIXD_INJECT_EVENT,
					 .origin = src_node,
					 .ev = *m};
	char source[PMIXEV_NODENAME_MAX + 8];
	bool first = false;

	snprintf(source, sizeof(source), "%s@%s",
		 m->flags & PMIXEV_EVENT_SITE  ? "site"
		 : m->flags & PMIXEV_EVENT_JOB ? PMIXEV_EVENT_SOURCE_JOB
					       : "stepd",
		 ev->lay->nodes[src_node]);
	if (m->rank != PMIXEV_EVENT_NO_RANK) {
		first = !ev->ended[m->rank];
		ev->ended[m->rank] = true;
	}
	inject_send(ev->inject, &in, source);
	/* A rank's event is its end: exited here (publish), elsewhere
	 * (on_event) or lost with its node (lost_rank). */
	if (first)
		step_rank_gone(ev->s, m->rank);
}

/* A name for the log: the constant's (the same with every OpenPMIx). */
static const char *code_name(int code, char *buf, size_t len)
{
#define NAME(c)                                                                \
	case c:                                                                \
		return #c
	switch (code) {
		NAME(PMIX_ERR_PROC_ABORTED_BY_SIG);
		NAME(PMIX_ERR_PROC_REQUESTED_ABORT);
		NAME(PMIX_ERR_PROC_TERM_WO_SYNC);
		NAME(PMIX_ERR_EXIT_NONZERO_TERM);
		NAME(PMIX_EVENT_PROC_TERMINATED);
		NAME(PMIX_EVENT_NODE_DOWN);
		NAME(PMIX_EVENT_NODE_OFFLINE);
		NAME(PMIX_JCTRL_PREEMPT_ALERT);
		NAME(PMIXEV_EVENT_TIME_LIMIT);
		NAME(PMIXEV_EVENT_JOB_SUSPENDED);
		NAME(PMIXEV_EVENT_JOB_RESUMED);
		NAME(PMIXEV_EVENT_JOB_REQUEUED);
	}
#undef NAME
	snprintf(buf, len, "event %d", code);
	return buf;
}

static void on_event(void *ctx, uint32_t src, const uint8_t *data, size_t len)
{
	struct events *ev = ctx;
	struct pmixev_event_msg m;
	struct pmixev_buf b;
	char name[32];

	pmixev_buf_reader(&b, data, len);
	if (pmixev_event_unpack(&b, &m) < 0 ||
	    (m.rank == PMIXEV_EVENT_NO_RANK ? m.node >= ev->lay->step.nnodes
					    : m.rank >= ev->lay->step.ntasks)) {
		char from[PMIXEV_NODENAME_MAX + 8];

		snprintf(from, sizeof(from), "stepd@%s",
			 src < ev->lay->step.nnodes ? ev->lay->nodes[src]
						    : "?");
		inject_undelivered(ev->inject, from, "malformed event frame");
		return;
	}
	PMIXEV_DEBUG(2, "event %s from node %u (#%llu): %s",
		     code_name(m.code, name, sizeof(name)), src,
		     (unsigned long long)m.seq, m.text);
	inject(ev, src, &m);
}

static void classify(struct events *ev, uint32_t rank, int status,
		     struct pmixev_event_msg *m)
{
	const char *node = ev->lay->step.node;
	enum client_state st = ev->state[rank];

	if (WIFSIGNALED(status)) {
		m->code = PMIX_ERR_PROC_ABORTED_BY_SIG;
		m->exit_code = WTERMSIG(status);
		snprintf(m->text, sizeof(m->text),
			 "rank %u on %s was killed by signal %d", rank, node,
			 m->exit_code);
		return;
	}
	m->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : status;
	if (st == ABORTED) {
		m->code = PMIX_ERR_PROC_REQUESTED_ABORT;
		snprintf(m->text, sizeof(m->text),
			 "rank %u on %s called PMIx_Abort and exited with "
			 "status %d",
			 rank, node, m->exit_code);
	} else if (st == CONNECTED) {
		m->code = PMIX_ERR_PROC_TERM_WO_SYNC;
		snprintf(m->text, sizeof(m->text),
			 "rank %u on %s exited with status %d without calling "
			 "PMIx_Finalize",
			 rank, node, m->exit_code);
	} else {
		m->code = m->exit_code ? PMIX_ERR_EXIT_NONZERO_TERM
				       : PMIX_EVENT_PROC_TERMINATED;
		m->flags = PMIXEV_EVENT_NON_DEFAULT;
		snprintf(m->text, sizeof(m->text),
			 "rank %u on %s exited with status %d", rank, node,
			 m->exit_code);
	}
}

/* An event this node observed: here, and (`everywhere`) to every node. */
static void publish(struct events *ev, struct pmixev_event_msg *m,
		    bool everywhere)
{
	struct pmixev_buf b;
	char name[32];

	m->seq = m->flags & PMIXEV_EVENT_SITE  ? ++ev->site_seq
		 : m->flags & PMIXEV_EVENT_JOB ? ++ev->job_seq
					       : ++ev->seq;
	m->time = (uint64_t)time(NULL);
	PMIXEV_DEBUG(1, "%s: %s", code_name(m->code, name, sizeof(name)),
		     m->text);
	if (!everywhere) {
		inject(ev, ev->lay->nodeid, m);
		return;
	}
	pmixev_buf_init(&b);
	if (pmixev_event_pack(&b, m) < 0)
		PMIXEV_ERROR("events: cannot encode: %s", m->text);
	else
		overlay_broadcast(ev->ov, PMIXEV_MSG_EVENT, b.data, b.len);
	pmixev_buf_release(&b);
	inject(ev, ev->lay->nodeid, m);
}

void events_task_exit(struct events *ev, uint32_t rank, int status)
{
	struct pmixev_event_msg m = {.rank = rank};

	if (rank >= ev->lay->step.ntasks ||
	    ev->lay->map.node_of[rank] != ev->lay->nodeid) {
		PMIXEV_ERROR("events: exit of rank %u, which is not ours",
			     rank);
		return;
	}
	classify(ev, rank, status, &m);
	publish(ev, &m, true);
	spawned_rank_ended(ev->s->spawned, &m);
	spawned_tell_children(ev->s->spawned, &m);
}

/*
 * A rank of lost node `node` whose end was not told yet: a process
 * failure of its own, as fault-tolerant MPI (ULFM) needs one per process.
 */
static void lost_rank(struct events *ev, uint32_t node, uint32_t rank)
{
	struct pmixev_event_msg m = {
		.code = LOST_PROC_CODE, .rank = rank, .exit_code = -1};

	if (ev->ended[rank])
		return;
	snprintf(m.text, sizeof(m.text),
		 "rank %u on %s is lost with its node (its slurmstepd is "
		 "unreachable)",
		 rank, ev->lay->nodes[node]);
	publish(ev, &m, false);
	/* Every node says it here; the tree's root alone tells the parent
	 * step of a spawned one. */
	if (overlay_parent(ev->ov) == PMIXEV_TREE_NONE) {
		spawned_rank_ended(ev->s->spawned, &m);
		spawned_tell_children(ev->s->spawned, &m);
	}
}

static void on_node_gone(void *ctx, uint32_t node, bool lost)
{
	struct events *ev = ctx;
	const struct layout *lay = ev->lay;
	struct pmixev_event_msg m = {.code = PMIX_EVENT_NODE_DOWN,
				     .rank = PMIXEV_EVENT_NO_RANK,
				     .node = node,
				     .flags = PMIXEV_EVENT_NON_DEFAULT};
	size_t off;

	if (!lost || node >= lay->step.nnodes)
		return;
	off = (size_t)snprintf(m.text, sizeof(m.text),
			       "node %s is lost (its slurmstepd is "
			       "unreachable); ranks",
			       lay->nodes[node]);
	for (uint32_t i = 0; i < lay->map.count[node] && off < sizeof(m.text);
	     i++)
		off += (size_t)snprintf(m.text + off, sizeof(m.text) - off,
					"%s%u", i ? "," : " ",
					lay->map.ranks[node][i]);
	/* Every node learns of the loss (overlay GONE) and says it here. */
	publish(ev, &m, false);
	for (uint32_t i = 0; i < lay->map.count[node]; i++)
		lost_rank(ev, node, lay->map.ranks[node][i]);
}

static void set_state(struct events *ev, uint32_t rank, enum client_state s)
{
	if (rank < ev->lay->step.ntasks && ev->state[rank] != ABORTED)
		ev->state[rank] = s;
}

void events_client_connected(struct events *ev, uint32_t rank)
{
	set_state(ev, rank, CONNECTED);
}

void events_client_finalized(struct events *ev, uint32_t rank)
{
	set_state(ev, rank, FINALIZED);
}

void events_client_aborted(struct events *ev, uint32_t rank)
{
	set_state(ev, rank, ABORTED);
}

struct events *events_create(struct step *s)
{
	const struct layout *lay = &s->lay;
	struct events *ev = calloc(1, sizeof(*ev));

	if (!ev ||
	    !(ev->state = calloc(lay->step.ntasks, sizeof(*ev->state))) ||
	    !(ev->ended = calloc(lay->step.ntasks, sizeof(*ev->ended)))) {
		events_destroy(ev);
		return NULL;
	}
	ev->s = s;
	ev->ov = s->ov;
	ev->lay = lay;
	ev->inject = s->inject;
	if (step_on_node_gone(s, on_node_gone, ev) < 0) {
		events_destroy(ev);
		return NULL;
	}
	overlay_on(s->ov, PMIXEV_MSG_EVENT, on_event, ev);
	return ev;
}

void events_destroy(struct events *ev)
{
	if (!ev)
		return;
	free(ev->state);
	free(ev->ended);
	free(ev);
}

void events_site(struct events *ev, int code, const char *text)
{
	struct pmixev_event_msg m = {.code = code,
				     .rank = PMIXEV_EVENT_NO_RANK,
				     .node = ev->lay->nodeid,
				     .flags = PMIXEV_EVENT_NON_DEFAULT |
					      PMIXEV_EVENT_SITE};

	snprintf(m.text, sizeof(m.text), "%s", text);
	publish(ev, &m, true);
}

void events_job(struct events *ev, int code, int64_t value, uint32_t detail,
		const char *text)
{
	struct pmixev_event_msg m = {.code = code,
				     .rank = PMIXEV_EVENT_NO_RANK,
				     .node = ev->lay->nodeid,
				     .value = value,
				     .detail = detail,
				     .flags = PMIXEV_EVENT_NON_DEFAULT |
					      PMIXEV_EVENT_JOB};

	snprintf(m.text, sizeof(m.text), "%s", text);
	publish(ev, &m, true);
}

void events_node_offline(struct events *ev, const char *host, uint8_t avail,
			 const char *reason, const char *text)
{
	struct pmixev_event_msg m = {.code = PMIX_EVENT_NODE_OFFLINE,
				     .rank = PMIXEV_EVENT_NO_RANK,
				     .node = ev->lay->nodeid,
				     .value = -1,
				     .detail = avail,
				     .flags = PMIXEV_EVENT_NON_DEFAULT |
					      PMIXEV_EVENT_JOB};

	snprintf(m.text, sizeof(m.text), "%s", text);
	snprintf(m.host, sizeof(m.host), "%s", host);
	snprintf(m.reason, sizeof(m.reason), "%s", reason);
	publish(ev, &m, true);
}
