/*
 * events/watcher.c - polling slurmctld for the job's scheduler events.
 */
#include "config.h"

#include "events/watcher.h"

#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#include <event2/event.h>
#include <pmix_common.h>

#include "base/agent.h"
#include "events/events.h"
#include "pmixev_events.h"
#include "pmixev_jobwatch.h"
#include "pmixev_log.h"
#include "pmixev_nodewatch.h"
#include "ownerhelper/helper.h"
#include "ownerhelper/jobinfo.h"

#define BACKOFF_MAX_SEC 60
#define YOUNG_SEC	60 /* a step this young retries at its interval */
/*
 * Signal-driven looks are at least this far apart: the job's user may
 * signal its own step (and helper) in a loop, and each look is an RPC to
 * slurmctld. Slurm's own signals come in bursts a few ms long.
 */
#define SIGNAL_LOOK_MS 250

struct watcher {
	struct agent *agent;
	struct helper *helper;
	struct events *ev;
	struct jobinfo *ji; /* queries use the watcher's looks too */
	unsigned interval_sec, delay_sec; /* delay: now, with backoff */
	unsigned mask;			  /* kinds announced */
	unsigned node_every;		  /* a node look every so many, or 0 */
	uint64_t looks;			  /* answered or not */
	struct event *timer;
	struct event *soon;	 /* a signal-driven look held back */
	uint64_t signal_look_ms; /* when the last one went out */
	struct pmixev_jobwatch jw;
	struct pmixev_nodewatch nw;
	struct pmixev_nodeev nev[PMIXEV_NODEEV_MAX];
	uint32_t omitted; /* offline nodes the last answer could not hold */
	uint64_t requests;
	time_t started, outage;	  /* outage: since when, or 0 */
	unsigned helper_failures; /* in a row */
	bool asking;		  /* a look is in flight */
	bool again;		  /* a signal came meanwhile: look once more */
	uint64_t signalled;	  /* signals the helper reported */
};

static const int codes[] = {
	[PMIXEV_JOBEV_PREEMPT] = PMIX_JCTRL_PREEMPT_ALERT,
	[PMIXEV_JOBEV_TIME_WARNING] = PMIXEV_EVENT_TIME_LIMIT,
	[PMIXEV_JOBEV_TIME_CHANGED] = PMIXEV_EVENT_TIME_LIMIT,
	[PMIXEV_JOBEV_SUSPENDED] = PMIXEV_EVENT_JOB_SUSPENDED,
	[PMIXEV_JOBEV_RESUMED] = PMIXEV_EVENT_JOB_RESUMED,
	[PMIXEV_JOBEV_REQUEUED] = PMIXEV_EVENT_JOB_REQUEUED,
	[PMIXEV_JOBEV_CANCELLED] = PMIX_ERR_JOB_CANCELED,
	[PMIXEV_JOBEV_ENDED] = PMIX_EVENT_JOB_END,
};

static void arm(struct watcher *w)
{
	struct timeval tv = {(time_t)w->delay_sec, 0};

	evtimer_add(w->timer, &tv);
}

/*
 * No answer: Slurm error `rc`, or (rc < 0) the helper died, which Slurm
 * does to it at the step's end: only the third time in a row is news. In
 * the step's first minute (when a preemption is likeliest to matter) the
 * next look comes after the watch interval as usual; later the wait
 * doubles up to BACKOFF_MAX_SEC.
 */
static void outage(struct watcher *w, int rc)
{
	bool young = time(NULL) - w->started < YOUNG_SEC;
	unsigned cap = young				   ? w->interval_sec
		       : w->interval_sec > BACKOFF_MAX_SEC ? w->interval_sec
							   : BACKOFF_MAX_SEC;

	if (rc < 0 && ++w->helper_failures < 3)
		return;
	w->delay_sec = w->delay_sec * 2 > cap ? cap : w->delay_sec * 2;
	if (!w->outage) {
		w->outage = time(NULL);
		PMIXEV_ERROR("watcher: no answer from slurmctld (%s %d); "
			     "retrying every %u s in the step's first %d s, "
			     "then with backoff up to %d s",
			     rc < 0 ? "owner helper failures:" : "Slurm error",
			     rc < 0 ? (int)w->helper_failures : rc,
			     w->interval_sec, YOUNG_SEC, BACKOFF_MAX_SEC);
	}
}

/* An answer came: the outage, if any, is over. */
static void answered(struct watcher *w)
{
	w->helper_failures = 0;
	if (w->outage) {
		PMIXEV_INFO("watcher: slurmctld answers again after %lld s; "
			    "catching up with the job's state",
			    (long long)(time(NULL) - w->outage));
		w->outage = 0;
	}
	w->delay_sec = w->interval_sec;
}

static void on_job(struct watcher *w, const struct pmixev_job_state *job)
{
	struct pmixev_jobev out[PMIXEV_JOBEV_MAX];
	size_t n = pmixev_jobwatch_update(&w->jw, job, out);

	for (size_t i = 0; i < n; i++) {
		uint32_t detail = out[i].kind == PMIXEV_JOBEV_TIME_CHANGED
					  ? 1
					  : out[i].detail;

		PMIXEV_INFO("watcher: %s%s", out[i].text,
			    w->mask & PMIXEV_JOBEV_BIT(out[i].kind)
				    ? ""
				    : " (not announced: the job did not ask)");
		if (w->mask & PMIXEV_JOBEV_BIT(out[i].kind))
			events_job(w->ev, codes[out[i].kind], out[i].value,
				   detail, out[i].text);
	}
}

static void on_nodes(struct watcher *w, const struct pmixev_nodes_state *s)
{
	size_t n = pmixev_nodewatch_update(&w->nw, s, w->nev);

	if (s->omitted && s->omitted != w->omitted)
		PMIXEV_ERROR("watcher: %u more of the job's nodes are out of "
			     "service than one answer holds (%d); they are "
			     "announced once others are back",
			     (unsigned)s->omitted, PMIXEV_OWNER_NODES_MAX);
	w->omitted = s->omitted;
	for (size_t i = 0; i < n; i++) {
		const struct pmixev_node_state *node = &w->nev[i].node;

		PMIXEV_INFO("watcher: %s", w->nev[i].text);
		if (node->avail != PMIXEV_NODE_UP)
			events_node_offline(w->ev, node->name, node->avail,
					    node->reason, w->nev[i].text);
	}
}

static void signal_look(struct watcher *w);

/* After an answer: the next look, soon if a signal came meanwhile. */
static void next(struct watcher *w)
{
	if (!w->again) {
		arm(w);
		return;
	}
	w->again = false;
	signal_look(w);
}

static void on_answer(void *arg, const struct pmixev_owner_resp *resp)
{
	struct watcher *w = arg;
	int32_t rc = !resp				   ? -1
		     : resp->op == PMIXEV_OWNER_NODE_STATE ? resp->nodes.rc
							   : resp->job.rc;

	w->asking = false;
	if (rc) {
		outage(w, rc);
		next(w);
		return;
	}
	answered(w);
	if (resp->op == PMIXEV_OWNER_NODE_STATE) {
		on_nodes(w, &resp->nodes);
	} else {
		jobinfo_feed(w->ji, resp);
		on_job(w, &resp->job);
	}
	next(w);
}

/*
 * Each look is one request. A node look takes the place of the last job
 * look of every node_every, never an early one: a preemption right after
 * the start (a likely time) is seen at the next look.
 */
static enum pmixev_owner_op next_look(struct watcher *w)
{
	uint64_t k = w->looks++;

	if (w->node_every && k % w->node_every == w->node_every - 1)
		return PMIXEV_OWNER_NODE_STATE;
	return PMIXEV_OWNER_JOB_STATE;
}

static void look(struct watcher *w, enum pmixev_owner_op op)
{
	evtimer_del(w->timer);
	if (helper_request(w->helper, op, 0, on_answer, w) < 0) {
		outage(w, -1);
		arm(w);
		return;
	}
	w->asking = true;
	w->requests++;
}

static void on_timer(evutil_socket_t fd, short what, void *arg)
{
	struct watcher *w = arg;

	look(w, next_look(w));
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/*
 * A look at the job because of a signal: now, or after the one in flight,
 * or - within SIGNAL_LOOK_MS of the last one - when that time is up.
 */
static void signal_look(struct watcher *w)
{
	uint64_t now = now_ms(), since = now - w->signal_look_ms;

	if (w->asking) {
		w->again = true;
		return;
	}
	if (w->signal_look_ms && since < SIGNAL_LOOK_MS) {
		uint64_t wait = SIGNAL_LOOK_MS - since;
		struct timeval tv = {0, (suseconds_t)(wait * 1000)};

		if (!evtimer_pending(w->soon, NULL) &&
		    evtimer_add(w->soon, &tv) < 0)
			arm(w);
		return;
	}
	w->signal_look_ms = now;
	look(w, PMIXEV_OWNER_JOB_STATE);
}

static void on_soon(evutil_socket_t fd, short what, void *arg)
{
	signal_look(arg);
}

/*
 * The helper says the step got a signal: Slurm's when it acts on the job
 * (preemption, scancel, time limit, suspend, resume), or one the owner
 * sent the helper, which runs as the owner. Either way it is a hint, never
 * an event: look now, not at the next interval, and announce only what
 * slurmctld's answer shows. One look for a burst (SIGCONT+SIGTERM), right
 * after the one in flight if any, and at most one per SIGNAL_LOOK_MS
 * however often the helper says so.
 */
static void on_signal(void *arg, uint32_t signo)
{
	struct watcher *w = arg;

	w->signalled++;
	PMIXEV_DEBUG(1,
		     "watcher: the owner helper says the step got signal %u "
		     "(the owner's word): looking at the job now",
		     signo);
	signal_look(w);
}

struct watcher *watcher_create(const struct step *s)
{
	unsigned interval_sec = s->conf.watch_sec, mask = s->conf.sched_events,
		 node_sec = s->conf.node_sec;
	struct watcher *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->agent = s->agent;
	w->helper = s->helper;
	w->ev = s->events;
	w->ji = s->jobinfo;
	w->interval_sec = w->delay_sec = interval_sec ? interval_sec : 1;
	w->mask = mask;
	if (node_sec && (mask & PMIXEV_JOBEV_BIT(PMIXEV_JOBEV_NODE_OFFLINE))) {
		/* At least every other look is the job's. */
		w->node_every =
			(node_sec + w->interval_sec - 1) / w->interval_sec;
		if (w->node_every < 2)
			w->node_every = 2;
	}
	helper_on_signal(w->helper, on_signal, w);
	pmixev_jobwatch_init(&w->jw, (int64_t)s->conf.warn_sec);
	pmixev_nodewatch_init(&w->nw);
	return w;
}

int watcher_start(struct watcher *w)
{
	struct timeval now = {0, 0};

	w->timer = evtimer_new(agent_base(w->agent), on_timer, w);
	w->soon = evtimer_new(agent_base(w->agent), on_soon, w);
	if (!w->timer || !w->soon || evtimer_add(w->timer, &now) < 0) {
		PMIXEV_ERROR("watcher: cannot start its timer");
		return -1;
	}
	w->started = time(NULL);
	PMIXEV_DEBUG(1,
		     "watcher: asking slurmctld every %u s (time-limit "
		     "warning %lld s before the end, events 0x%03x; one look "
		     "in %u at the job's nodes, 0: none)",
		     w->interval_sec, (long long)w->jw.lead, w->mask,
		     w->node_every);
	return 0;
}

void watcher_destroy(struct watcher *w)
{
	if (!w)
		return;
	if (w->started && w->signalled)
		PMIXEV_INFO("watcher: %llu request(s) to slurmctld in %lld s; "
			    "the owner helper reported %llu signal(s)",
			    (unsigned long long)w->requests,
			    (long long)(time(NULL) - w->started),
			    (unsigned long long)w->signalled);
	else if (w->started)
		PMIXEV_INFO("watcher: %llu request(s) to slurmctld in %lld s",
			    (unsigned long long)w->requests,
			    (long long)(time(NULL) - w->started));
	if (w->timer)
		event_free(w->timer);
	if (w->soon)
		event_free(w->soon);
	free(w);
}
