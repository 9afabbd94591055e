/*
 * jobmgmt/ptable.c - this node's tasks, and the step's gathered from every
 * node.
 */
#include "config.h"

#include "jobmgmt/ptable.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/agent.h"
#include "base/pending.h"
#include "base/step.h"
#include "jobmgmt/taskproc.h"
#include "overlay/overlay.h"
#include "pmixev_frame.h"
#include "pmixev_log.h"

/* The default wait for the other nodes; gathers in flight at most, so
 * that a job's queries cannot make the stepd hold more. */
#define GATHER_SEC  10
#define GATHERS_MAX 64

/* A gather, in the set until every node asked has answered or was lost,
 * or its deadline passed. */
struct gather {
	struct ptable *pt;
	struct pending *p;
	uint32_t id;
	uint32_t waiting; /* nodes that have not answered */
	uint32_t missing; /* nodes lost, or that could not be asked */
	bool *asked;	  /* per node: asked, not answered yet */
	struct pmixev_ptable_entry *e;
	size_t n;
	ptable_fn fn;
	void *arg;
};

struct ptable {
	struct step *s;
	struct pmixev_ptable_entry *local; /* by local index */
	uint32_t nlocal;
	unsigned ngathers;
	uint64_t refused;   /* gathers refused: too many in flight */
	struct event *kill; /* ptable_kill_running */
	struct pending_set *gathers;
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

bool ptable_stop_ends(void *arg)
{
	const struct ptable *pt = arg;
	uint32_t running = 0;

	for (uint32_t i = 0; i < pt->nlocal; i++) {
		const struct pmixev_ptable_entry *e = &pt->local[i];
		siginfo_t si = {0};

		if (e->run != PMIXEV_PROC_RUNNING || !e->pid)
			continue;
		/* Not slurmstepd's child any more: it ended. */
		if (waitid(P_PID, (id_t)e->pid, &si,
			   WSTOPPED | WNOHANG | WNOWAIT) < 0)
			continue;
		if (!si.si_pid || si.si_code != CLD_STOPPED)
			return true;
		running++;
	}
	return running == 0;
}

static void on_kill(evutil_socket_t fd, short what, void *arg)
{
	struct ptable *pt = arg;
	unsigned n = 0;

	for (uint32_t i = 0; i < pt->nlocal; i++)
		if (pt->local[i].run == PMIXEV_PROC_RUNNING &&
		    pt->local[i].pid &&
		    taskproc_signal(pt->local[i].pid, SIGKILL) == 0)
			n++;
	if (n)
		PMIXEV_INFO("killed %u task(s) that still ran without their "
			    "PMIx server",
			    n);
}

void ptable_kill_running(struct ptable *pt, unsigned ms)
{
	struct timeval tv = {ms / 1000, (ms % 1000) * 1000};

	if (!pt->kill &&
	    !(pt->kill = evtimer_new(agent_base(pt->s->agent), on_kill, pt)))
		on_kill(-1, 0, pt);
	else
		evtimer_add(pt->kill, &tv);
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

static void gather_free(void *req)
{
	struct gather *g = req;

	free(g->asked);
	free(g->e);
	free(g);
}

static void gather_end(struct gather *g)
{
	g->pt->ngathers--;
	pending_end(g->p);
	qsort(g->e, g->n, sizeof(*g->e), by_rank);
	g->fn(g->arg, g->e, g->n, !g->waiting && !g->missing);
	gather_free(g);
}

static bool gather_waits(void *req, uint32_t node)
{
	return ((struct gather *)req)->asked[node];
}

/* A node asked was lost (its tasks are left out, the gather goes on for
 * the others), or the deadline passed (the table is what came so far). */
static void gather_fail(void *req, enum pmixev_result why, uint32_t lost)
{
	struct gather *g = req;

	if (why == PMIXEV_ERR_UNREACH) {
		PMIXEV_INFO("process table: node %u lost before it answered; "
			    "its tasks are left out",
			    lost);
		g->asked[lost] = false;
		g->missing++;
		if (--g->waiting)
			return;
	} else {
		PMIXEV_INFO("process table: %u node(s) did not answer in time; "
			    "their tasks are left out",
			    g->waiting);
	}
	gather_end(g);
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
	    !(g->asked = calloc(lay->step.nnodes, sizeof(*g->asked))) ||
	    !(g->e = calloc(pt->nlocal + 1, sizeof(*g->e))) ||
	    !(g->p = pending_add(pt->gathers, g, PENDING_NO_NODE,
				 timeout_sec ? timeout_sec : GATHER_SEC))) {
		if (g)
			gather_free(g);
		fn(arg, NULL, 0, false);
		return;
	}
	local_now(pt, g->e);
	g->n = pt->nlocal;
	g->pt = pt;
	g->id = (uint32_t)pending_id(g->p);
	g->fn = fn;
	g->arg = arg;
	pt->ngathers++;
	req.id = g->id;
	for (uint32_t node = 0; !local && node < lay->step.nnodes; node++) {
		if (node == lay->nodeid)
			continue;
		pmixev_buf_init(&b);
		if (pmixev_ptable_pack(&b, &req) == 0 &&
		    overlay_send(pt->s->ov, node, PMIXEV_MSG_PTABLE_REQ, b.data,
				 b.len) == 0) {
			g->asked[node] = true;
			g->waiting++;
		} else {
			g->missing++;
		}
		pmixev_buf_release(&b);
	}
	if (!g->waiting)
		gather_end(g);
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

static bool same_id(void *req, const void *id)
{
	return ((struct gather *)req)->id == *(const uint32_t *)id;
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
	g = pending_find(pt->gathers, same_id, &m.id);
	/* Only ranks that run on that node count. */
	for (uint32_t i = 0; g && g->asked[src] && i < m.count; i++)
		if (m.e[i].rank >= lay->map.ntasks ||
		    lay->map.node_of[m.e[i].rank] != src)
			m.count = 0;
	if (g && g->asked[src]) {
		g->asked[src] = false;
		take(g, m.e, m.count);
		if (!--g->waiting)
			gather_end(g);
	}
	free(m.e);
}

/* A node left the tree: the gathers waiting on it go on without it. */
static void on_node_gone(void *ctx, uint32_t node, bool lost)
{
	struct ptable *pt = ctx;

	pending_lost(pt->gathers, node);
}

struct ptable *ptable_create(struct step *s)
{
	const struct layout *lay = &s->lay;
	struct ptable *pt = calloc(1, sizeof(*pt));

	if (!pt)
		return NULL;
	pt->s = s;
	pt->nlocal = layout_nlocal(lay);
	if (!(pt->local = calloc(pt->nlocal + 1, sizeof(*pt->local))) ||
	    !(pt->gathers = pending_set_create(agent_base(s->agent),
					       gather_fail, gather_waits)) ||
	    step_on_node_gone(s, on_node_gone, pt) < 0) {
		pending_set_destroy(pt->gathers, NULL);
		free(pt->local);
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
	pending_set_destroy(pt->gathers, gather_free);
	if (pt->kill)
		event_free(pt->kill);
	free(pt->local);
	free(pt);
}
