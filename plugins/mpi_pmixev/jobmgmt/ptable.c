/*
 * jobmgmt/ptable.c - this node's tasks, and the step's gathered from every
 * node.
 */
#include "config.h"

#include "jobmgmt/ptable.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include "base/agent.h"
#include "base/step.h"
#include "overlay/overlay.h"
#include "pmixev_frame.h"
#include "pmixev_log.h"

/* The default wait for the other nodes; gathers in flight at most, so
 * that a job's queries cannot make the stepd hold more. */
#define GATHER_SEC  10
#define GATHERS_MAX 64

struct gather {
	struct ptable *pt;
	uint32_t id;
	uint32_t waiting; /* nodes that have not answered */
	bool *answered;	  /* per node */
	struct pmixev_ptable_entry *e;
	size_t n;
	struct event *deadline;
	ptable_fn fn;
	void *arg;
	struct gather *next;
};

struct ptable {
	struct step *s;
	struct pmixev_ptable_entry *local; /* by local index */
	uint32_t nlocal, next_id;
	unsigned ngathers;
	uint64_t refused; /* gathers refused: too many in flight */
	struct gather *gathers;
};

/* Local index of `rank`, or -1. */
static int local_index(const struct ptable *pt, uint32_t rank)
{
	const struct layout *lay = &pt->s->lay;

	if (rank >= lay->map.ntasks || lay->map.node_of[rank] != lay->nodeid)
		return -1;
	return (int)lay->map.local_of[rank];
}

void ptable_started(struct ptable *pt, uint32_t rank, int32_t pid)
{
	int i = local_index(pt, rank);

	if (i < 0 || pid <= 0)
		return;
	pt->local[i].pid = (uint32_t)pid;
	pt->local[i].run = PMIXEV_PROC_RUNNING;
}

uint32_t ptable_pid(const struct ptable *pt, uint32_t rank)
{
	int i = local_index(pt, rank);

	return i < 0 || pt->local[i].run != PMIXEV_PROC_RUNNING
		       ? 0
		       : pt->local[i].pid;
}

void ptable_exited(struct ptable *pt, uint32_t rank, int status)
{
	int i = local_index(pt, rank);

	if (i < 0)
		return;
	pt->local[i].run = PMIXEV_PROC_EXITED;
	pt->local[i].status = status;
	pt->local[i].rss_kb = 0;
}

/* A running task's name and memory, if its pid still is the job user's. */
static void look(const struct ptable *pt, struct pmixev_ptable_entry *e)
{
	char path[64], text[4096];
	struct pmixev_proc_status st;
	ssize_t n;
	int fd;

	if (e->run != PMIXEV_PROC_RUNNING || !e->pid)
		return;
	snprintf(path, sizeof(path), "/proc/%u/status", (unsigned)e->pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) < 0)
		return;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0 || pmixev_proc_status_parse(text, (size_t)n, &st) < 0 ||
	    st.uid != (uint32_t)pt->s->lay.uid)
		return;
	memcpy(e->name, st.name, sizeof(e->name));
	e->rss_kb = st.rss_kb;
}

/* This node's entries, freshly looked at, into `out` (nlocal). */
static void local_now(struct ptable *pt, struct pmixev_ptable_entry *out)
{
	for (uint32_t i = 0; i < pt->nlocal; i++) {
		out[i] = pt->local[i];
		look(pt, &out[i]);
	}
}

static int by_rank(const void *a, const void *b)
{
	const struct pmixev_ptable_entry *x = a, *y = b;

	return x->rank < y->rank ? -1 : x->rank > y->rank;
}

static void gather_end(struct gather *g)
{
	struct ptable *pt = g->pt;

	for (struct gather **p = &pt->gathers; *p; p = &(*p)->next)
		if (*p == g) {
			*p = g->next;
			break;
		}
	pt->ngathers--;
	if (g->waiting)
		PMIXEV_INFO("process table: %u node(s) did not answer in time; "
			    "their tasks are left out",
			    g->waiting);
	qsort(g->e, g->n, sizeof(*g->e), by_rank);
	g->fn(g->arg, g->e, g->n, !g->waiting);
	if (g->deadline)
		event_free(g->deadline);
	free(g->answered);
	free(g->e);
	free(g);
}

static void on_deadline(evutil_socket_t fd, short what, void *arg)
{
	gather_end(arg);
}

/* Add `n` entries to `g`. */
static int take(struct gather *g, const struct pmixev_ptable_entry *e, size_t n)
{
	struct pmixev_ptable_entry *grown;

	if (!n)
		return 0;
	if (!(grown = realloc(g->e, (g->n + n) * sizeof(*g->e))))
		return -1;
	g->e = grown;
	memcpy(g->e + g->n, e, n * sizeof(*e));
	g->n += n;
	return 0;
}

void ptable_get(struct ptable *pt, bool local, unsigned timeout_sec,
		ptable_fn fn, void *arg)
{
	const struct layout *lay = &pt->s->lay;
	struct pmixev_ptable_msg req = {.count = 0};
	struct timeval tv = {timeout_sec ? timeout_sec : GATHER_SEC, 0};
	struct gather *g = NULL;
	struct pmixev_buf b;

	if (pt->ngathers >= GATHERS_MAX) {
		if (!pt->refused++)
			PMIXEV_ERROR(
				"process table: %d gathers in flight; more are "
				"refused until they end",
				GATHERS_MAX);
		fn(arg, NULL, 0, false);
		return;
	}
	if (!(g = calloc(1, sizeof(*g))) ||
	    !(g->answered = calloc(lay->step.nnodes, 1)) ||
	    !(g->e = calloc(pt->nlocal + 1, sizeof(*g->e)))) {
		if (g)
			free(g->answered);
		free(g);
		fn(arg, NULL, 0, false);
		return;
	}
	local_now(pt, g->e);
	g->n = pt->nlocal;
	g->pt = pt;
	g->id = ++pt->next_id;
	g->fn = fn;
	g->arg = arg;
	g->next = pt->gathers;
	pt->gathers = g;
	pt->ngathers++;
	req.id = g->id;
	for (uint32_t node = 0; !local && node < lay->step.nnodes; node++) {
		if (node == lay->nodeid)
			continue;
		pmixev_buf_init(&b);
		if (pmixev_ptable_pack(&b, &req) == 0 &&
		    overlay_send(pt->s->ov, node, PMIXEV_MSG_PTABLE_REQ, b.data,
				 b.len) == 0)
			g->waiting++;
		pmixev_buf_release(&b);
	}
	if (!g->waiting ||
	    !(g->deadline =
		      evtimer_new(agent_base(pt->s->agent), on_deadline, g)) ||
	    evtimer_add(g->deadline, &tv) < 0) {
		g->waiting = 0;
		gather_end(g);
	}
}

/* Another node wants our tasks. */
static void on_req(void *ctx, uint32_t src, const uint8_t *buf, size_t len)
{
	struct ptable *pt = ctx;
	struct pmixev_ptable_msg m = {0};
	struct pmixev_buf b;

	pmixev_buf_reader(&b, buf, len);
	if (src >= pt->s->lay.step.nnodes || pmixev_ptable_unpack(&b, &m) < 0 ||
	    m.count) {
		PMIXEV_ERROR("process table: malformed request from node %u",
			     src);
		free(m.e);
		return;
	}
	if (!(m.e = calloc(pt->nlocal + 1, sizeof(*m.e))))
		return;
	local_now(pt, m.e);
	m.count = pt->nlocal;
	pmixev_buf_init(&b);
	if (pmixev_ptable_pack(&b, &m) < 0 ||
	    overlay_send(pt->s->ov, src, PMIXEV_MSG_PTABLE_RESP, b.data,
			 b.len) < 0)
		PMIXEV_ERROR("process table: cannot answer node %u", src);
	pmixev_buf_release(&b);
	free(m.e);
}

/* A node's tasks, for the gather that asked. */
static void on_resp(void *ctx, uint32_t src, const uint8_t *buf, size_t len)
{
	struct ptable *pt = ctx;
	const struct layout *lay = &pt->s->lay;
	struct pmixev_ptable_msg m = {0};
	struct pmixev_buf b;
	struct gather *g;

	pmixev_buf_reader(&b, buf, len);
	if (src >= lay->step.nnodes || pmixev_ptable_unpack(&b, &m) < 0) {
		PMIXEV_ERROR("process table: malformed answer from node %u",
			     src);
		return;
	}
	for (g = pt->gathers; g && g->id != m.id; g = g->next)
		;
	/* Only ranks that run on that node count. */
	for (uint32_t i = 0; g && !g->answered[src] && i < m.count; i++)
		if (m.e[i].rank >= lay->map.ntasks ||
		    lay->map.node_of[m.e[i].rank] != src)
			m.count = 0;
	if (g && !g->answered[src]) {
		g->answered[src] = true;
		take(g, m.e, m.count);
		if (!--g->waiting)
			gather_end(g);
	}
	free(m.e);
}

struct ptable *ptable_create(struct step *s)
{
	const struct layout *lay = &s->lay;
	struct ptable *pt = calloc(1, sizeof(*pt));

	if (!pt)
		return NULL;
	pt->s = s;
	pt->nlocal = layout_nlocal(lay);
	if (!(pt->local = calloc(pt->nlocal + 1, sizeof(*pt->local)))) {
		free(pt);
		return NULL;
	}
	for (uint32_t i = 0; i < pt->nlocal; i++)
		pt->local[i].rank = lay->map.ranks[lay->nodeid][i];
	overlay_on(s->ov, PMIXEV_MSG_PTABLE_REQ, on_req, pt);
	overlay_on(s->ov, PMIXEV_MSG_PTABLE_RESP, on_resp, pt);
	return pt;
}

void ptable_destroy(struct ptable *pt)
{
	if (!pt)
		return;
	if (pt->refused)
		PMIXEV_INFO(
			"process table: %llu request(s) refused, %d were in "
			"flight already",
			(unsigned long long)pt->refused, GATHERS_MAX);
	while (pt->gathers) {
		struct gather *g = pt->gathers;

		pt->gathers = g->next;
		if (g->deadline)
			event_free(g->deadline);
		free(g->answered);
		free(g->e);
		free(g);
	}
	free(pt->local);
	free(pt);
}
