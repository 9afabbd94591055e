/*
 * events.c - task exits to PMIx events on every node.
 */
#include "config.h"

#include "events.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include <pmix.h>

#include "pmixev_buf.h"
#include "pmixev_frame.h"
#include "pmixev_log.h"
#include "pmixev_proto.h"

/* pmixev's event metadata keys: not in the PMIx standard, and keys
 * starting with "pmix" are reserved to it. */
#define PMIXEV_EVENT_SOURCE "slurm.pmixev.evsrc" /* "stepd@NODE" */
#define PMIXEV_EVENT_SEQ    "slurm.pmixev.evseq" /* uint64, from 1 */

enum client_state { NEVER_CONNECTED, CONNECTED, FINALIZED, ABORTED };

struct events {
	struct overlay *ov;
	const struct layout *lay;
	uint64_t seq;		  /* events this node observed */
	enum client_state *state; /* [ntasks], for local ranks */
};

/* An injected event's info, released when PMIx is done with it. */
struct injected {
	pmix_info_t *info;
	size_t ninfo;
};

static void injected_done(pmix_status_t status, void *cbdata)
{
	struct injected *in = cbdata;

	PMIX_INFO_FREE(in->info, in->ninfo);
	free(in);
}

/* Give the event to this node's PMIx server for its clients. */
static void inject(struct events *ev, uint32_t src_node,
		   const struct pmixev_event_msg *m)
{
	const struct layout *lay = ev->lay;
	struct injected *in = calloc(1, sizeof(*in));
	uint32_t host = lay->map.node_of[m->rank];
	int exit_code = m->exit_code;
	bool yes = true;
	time_t when = (time_t)m->time;
	char source[PMIXEV_NODENAME_MAX + 8];
	pmix_proc_t who;
	pmix_status_t rc;
	size_t n = 0;

	if (!in)
		return;
	PMIX_INFO_CREATE(in->info, 7);
	if (!in->info) {
		free(in);
		return;
	}
	PMIX_LOAD_PROCID(&who, lay->nspace, m->rank);
	snprintf(source, sizeof(source), "stepd@%s", lay->nodes[src_node]);
	/* The only PMIX_PROC-typed info: Open MPI's ULFM takes every one of
	 * them for a failed process. */
	PMIX_INFO_LOAD(&in->info[n++], PMIX_EVENT_AFFECTED_PROC, &who,
		       PMIX_PROC);
	PMIX_INFO_LOAD(&in->info[n++], PMIX_EXIT_CODE, &exit_code, PMIX_INT);
	PMIX_INFO_LOAD(&in->info[n++], PMIX_HOSTNAME, lay->nodes[host],
		       PMIX_STRING);
	PMIX_INFO_LOAD(&in->info[n++], PMIX_EVENT_TEXT_MESSAGE, m->text,
		       PMIX_STRING);
	PMIX_INFO_LOAD(&in->info[n++], PMIX_EVENT_TIMESTAMP, &when, PMIX_TIME);
	PMIX_INFO_LOAD(&in->info[n++], PMIXEV_EVENT_SOURCE, source,
		       PMIX_STRING);
	PMIX_INFO_LOAD(&in->info[n++], PMIXEV_EVENT_SEQ, &m->seq, PMIX_UINT64);
	in->ninfo = n;
	if (m->flags & PMIXEV_EVENT_NON_DEFAULT) {
		pmix_info_t *more;

		PMIX_INFO_CREATE(more, n + 1);
		for (size_t i = 0; more && i < n; i++)
			PMIX_INFO_XFER(&more[i], &in->info[i]);
		if (more) {
			PMIX_INFO_LOAD(&more[n], PMIX_EVENT_NON_DEFAULT, &yes,
				       PMIX_BOOL);
			PMIX_INFO_FREE(in->info, n);
			in->info = more;
			in->ninfo = n + 1;
		}
	}
	/* Source = the dead process: it is never told of its own end. */
	rc = PMIx_Notify_event(m->code, &who, PMIX_RANGE_NAMESPACE, in->info,
			       in->ninfo, injected_done, in);
	if (rc != PMIX_SUCCESS) {
		if (rc != PMIX_OPERATION_SUCCEEDED)
			PMIXEV_ERROR("event %s for rank %u not delivered "
				     "here: %s",
				     PMIx_Error_string(m->code), m->rank,
				     PMIx_Error_string(rc));
		injected_done(rc, in);
	}
}

static void on_event(void *ctx, uint32_t src, const uint8_t *data, size_t len)
{
	struct events *ev = ctx;
	struct pmixev_event_msg m;
	struct pmixev_buf b;

	pmixev_buf_reader(&b, data, len);
	if (pmixev_event_unpack(&b, &m) < 0 || m.rank >= ev->lay->step.ntasks) {
		PMIXEV_ERROR("events: malformed event from node %u", src);
		return;
	}
	PMIXEV_DEBUG(2, "event %s for rank %u from node %u (#%llu)",
		     PMIx_Error_string(m.code), m.rank, src,
		     (unsigned long long)m.seq);
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

void events_task_exit(struct events *ev, uint32_t rank, int status)
{
	struct pmixev_event_msg m = {
		.rank = rank, .seq = ++ev->seq, .time = (uint64_t)time(NULL)};
	struct pmixev_buf b;

	if (rank >= ev->lay->step.ntasks ||
	    ev->lay->map.node_of[rank] != ev->lay->nodeid) {
		PMIXEV_ERROR("events: exit of rank %u, which is not ours",
			     rank);
		return;
	}
	classify(ev, rank, status, &m);
	PMIXEV_DEBUG(1, "%s: %s", PMIx_Error_string(m.code), m.text);
	pmixev_buf_init(&b);
	if (pmixev_event_pack(&b, &m) < 0)
		PMIXEV_ERROR("events: cannot encode the exit of rank %u", rank);
	else
		overlay_broadcast(ev->ov, PMIXEV_MSG_EVENT, b.data, b.len);
	pmixev_buf_release(&b);
	inject(ev, ev->lay->nodeid, &m);
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

struct events *events_create(struct overlay *ov, const struct layout *lay)
{
	struct events *ev = calloc(1, sizeof(*ev));

	if (!ev ||
	    !(ev->state = calloc(lay->step.ntasks, sizeof(*ev->state)))) {
		free(ev);
		return NULL;
	}
	ev->ov = ov;
	ev->lay = lay;
	overlay_on(ov, PMIXEV_MSG_EVENT, on_event, ev);
	return ev;
}

void events_destroy(struct events *ev)
{
	if (!ev)
		return;
	free(ev->state);
	free(ev);
}
