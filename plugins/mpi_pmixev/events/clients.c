/*
 * events/clients.c - the local processes' claims, and their exits in
 * order (see clients.h).
 */
#include "config.h"

#include "events/clients.h"

#include <stdlib.h>
#include <sys/wait.h>

#include "events/events.h"
#include "overlay/overlay.h"
#include "pmixd/chan.h"
#include "pmixev_frame.h"
#include "pmixev_log.h"
#include "pmixev_proto.h"
#include "events/spawned.h"

/* An exit waiting for the echo of sync `seq`. */
struct exit_wait {
	uint64_t seq;
	uint32_t rank;
	int status;
	struct exit_wait *next;
};

struct clients {
	struct step *s;
	uint64_t sent, echoed; /* SYNC sequence numbers */
	struct exit_wait *head, *tail;
};

/* Classify the waiting exits up to sync `seq` (all: UINT64_MAX). */
static void classify_upto(struct clients *c, uint64_t seq)
{
	struct exit_wait *w;

	while ((w = c->head) && w->seq <= seq) {
		c->head = w->next;
		if (!c->head)
			c->tail = NULL;
		events_task_exit(c->s->events, w->rank, w->status);
		free(w);
	}
}

static int on_state(void *ctx, struct pmixev_buf *body)
{
	struct clients *c = ctx;
	struct pmixev_pmixd_client_state m;

	if (pmixev_pmixd_client_state_unpack(body, &c->s->pmixd_lim, &m) < 0)
		return -1;
	if (m.state == PMIXEV_PMIXD_CONNECTED) {
		events_client_connected(c->s->events, m.rank);
		spawned_connected(c->s->spawned, m.rank);
	} else {
		events_client_finalized(c->s->events, m.rank);
	}
	return 0;
}

static int on_echo(void *ctx, struct pmixev_buf *body)
{
	struct clients *c = ctx;
	uint64_t seq;

	if (pmixev_pmixd_seq_unpack(body, &seq) < 0 || seq <= c->echoed ||
	    seq > c->sent)
		return -1; /* a sync root never sent, or again */
	c->echoed = seq;
	classify_upto(c, seq);
	return 0;
}

static void send_abort_done(struct chan *l, uint64_t id,
			    enum pmixev_result result)
{
	struct pmixev_pmixd_done m = {.id = id, .result = result};
	struct pmixev_buf b;

	pmixev_buf_init(&b);
	chan_frame_begin(&b);
	if (pmixev_pmixd_done_pack(&b, &m) < 0 ||
	    chan_send(l, PMIXEV_PMIXD_ABORT_DONE, &b) < 0)
		pmixev_buf_release(&b);
}

static int on_abort(void *ctx, struct pmixev_buf *body)
{
	struct clients *c = ctx;
	struct step *s = c->s;
	struct pmixev_pmixd_abort m;
	struct pmixev_abort_msg out = {0};
	enum pmixev_result result = PMIXEV_OK;
	struct pmixev_buf b;

	if (pmixev_pmixd_abort_unpack(body, &s->pmixd_lim, &m) < 0)
		return -1;
	PMIXEV_INFO("rank %u requested abort with status %d: %s", m.rank,
		    m.status, m.text);
	events_client_aborted(s->events, m.rank);
	out.status = m.status;
	out.rank = m.rank;
	snprintf(out.text, sizeof(out.text), "%s", m.text);
	pmixev_buf_init(&b);
	if (pmixev_abort_pack(&b, &out) < 0 ||
	    overlay_send(s->ov, PMIXEV_NODE_SRUN, PMIXEV_MSG_ABORT, b.data,
			 b.len) < 0) {
		PMIXEV_ERROR("cannot forward the abort of rank %u to srun",
			     m.rank);
		result = PMIXEV_ERR_UNREACH;
	}
	pmixev_buf_release(&b);
	send_abort_done(s->chan, m.id, result);
	return 0;
}

struct clients *clients_create(struct step *s)
{
	struct clients *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->s = s;
	chan_on(s->chan, PMIXEV_PMIXD_CLIENT_STATE, on_state, c);
	chan_on(s->chan, PMIXEV_PMIXD_SYNC_ECHO, on_echo, c);
	chan_on(s->chan, PMIXEV_PMIXD_ABORT, on_abort, c);
	return c;
}

void clients_task_exit(struct clients *c, uint32_t rank, int status)
{
	struct exit_wait *w;
	struct pmixev_buf b;

	/* A signal's kill is told whatever the process claimed: no need to
	 * wait for the claims, unless an earlier exit waits for them. */
	if (WIFSIGNALED(status) && !c->head) {
		events_task_exit(c->s->events, rank, status);
		return;
	}
	if (!(w = malloc(sizeof(*w)))) {
		PMIXEV_ERROR("clients: out of memory: the exit of rank %u is "
			     "classified without waiting for the pmix side",
			     rank);
		events_task_exit(c->s->events, rank, status);
		return;
	}
	*w = (struct exit_wait){
		.seq = ++c->sent, .rank = rank, .status = status};
	if (c->tail)
		c->tail->next = w;
	else
		c->head = w;
	c->tail = w;
	pmixev_buf_init(&b);
	chan_frame_begin(&b);
	if (pmixev_pmixd_seq_pack(&b, w->seq) < 0 ||
	    chan_send(c->s->chan, PMIXEV_PMIXD_SYNC, &b) < 0) {
		pmixev_buf_release(&b);
		classify_upto(c, UINT64_MAX);
	}
}

void clients_pmix_gone(struct clients *c)
{
	if (c)
		classify_upto(c, UINT64_MAX);
}

void clients_destroy(struct clients *c)
{
	struct exit_wait *w;

	if (!c)
		return;
	while ((w = c->head)) {
		c->head = w->next;
		free(w);
	}
	free(c);
}
