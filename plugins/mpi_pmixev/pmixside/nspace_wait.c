/*
 * pmixside/nspace_wait.c - the family namespaces registered here, and
 * the requests that wait for one (see nspace_wait.h). A lock keeps the
 * table and the waits; a wait's timer lives on the agent thread, which
 * alone arms, fires and ends waits, so a registration never misses one:
 * the agent looks at the table when it arms a wait, and a registration
 * posts its release to the agent after it entered the table; a release
 * ends only the waits armed before it. A wait stays in the list until
 * its fn returned, so that the library's second ask with the same key
 * finds it held and is not answered twice.
 */
#include "config.h"

#include "pmixside/nspace_wait.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#include "base/agent.h"
#include "pmixev_log.h"
#include "pmixev_proto.h"
#include "pmixside/side.h"

/* pmixd/nspaces.h's NSPACES_MAX: root sends no more namespaces. */
#define KNOWN_MAX 256

struct known {
	char nspace[PMIXEV_NSPACE_MAX];
	uint32_t job, step, ntasks;
	bool ok; /* registered; else the library refused it */
};

struct wait {
	char nspace[PMIXEV_NSPACE_MAX];
	const void *key; /* the caller's: one wait per key */
	unsigned timeout_sec;
	nspace_wait_fn fn;
	void *arg;
	struct event *timer;
	bool armed;  /* its timer runs (the agent saw it) */
	bool ending; /* its fn is called or about to be */
	struct wait *next, *lnext;
};

/* A release of a namespace's waits, posted to the agent. */
struct release {
	char nspace[PMIXEV_NSPACE_MAX];
	enum pmixev_result result;
};

static struct {
	pthread_mutex_t lock;
	struct agent *agent;
	struct known tab[KNOWN_MAX];
	unsigned n;
	struct wait *waits; /* not over: their keys are held */
	unsigned nwaits;    /* in `waits` */
} g = {.lock = PTHREAD_MUTEX_INITIALIZER};

void nspace_wait_init(struct pmixside *p)
{
	g.agent = pmixside_agent(p);
}

/* Under the lock. */
static const struct known *find(const char *nspace)
{
	for (unsigned i = 0; i < g.n; i++)
		if (!strcmp(g.tab[i].nspace, nspace))
			return &g.tab[i];
	return NULL;
}

bool nspace_wait_find(const char *nspace, uint32_t *job, uint32_t *step,
		      uint32_t *ntasks)
{
	const struct known *k;
	bool ok = false;

	pthread_mutex_lock(&g.lock);
	if ((k = find(nspace)) && k->ok) {
		*job = k->job;
		*step = k->step;
		*ntasks = k->ntasks;
		ok = true;
	}
	pthread_mutex_unlock(&g.lock);
	return ok;
}

bool nspace_wait_family(const struct layout *own, const char *nspace)
{
	unsigned job, step;
	int end = 0;

	if (sscanf(nspace, "slurm.pmixev.%u.%u%n", &job, &step, &end) != 2 ||
	    nspace[end] != '\0')
		return false;
	return job == own->step.job_id && step != own->step.step_id;
}

/* Under the lock: take `w` out of the list. */
static void unlink_wait(struct wait *w)
{
	for (struct wait **pp = &g.waits; *pp; pp = &(*pp)->next)
		if (*pp == w) {
			*pp = w->next;
			g.nwaits--;
			return;
		}
}

/* Agent thread: end `w`, marked `ending`; it stays in the list (its key
 * held) until its fn returned. */
static void end(struct wait *w, enum pmixev_result result)
{
	if (w->timer)
		event_free(w->timer);
	w->fn(w->arg, result);
	pthread_mutex_lock(&g.lock);
	unlink_wait(w);
	pthread_mutex_unlock(&g.lock);
	free(w);
}

static void expired(evutil_socket_t fd, short what, void *arg)
{
	struct wait *w = arg;
	bool mine;

	(void)fd;
	(void)what;
	pthread_mutex_lock(&g.lock);
	mine = !w->ending;
	w->ending = true;
	pthread_mutex_unlock(&g.lock);
	if (!mine)
		return;
	PMIXEV_ERROR("direct modex: namespace %s was not registered here "
		     "within %u s: the request fails (PMIX_ERR_TIMEOUT)",
		     w->nspace, w->timeout_sec);
	end(w, PMIXEV_ERR_TIMEOUT);
}

/* Agent thread: arm `w`, or end it at once if its namespace came. */
static void arm(void *arg)
{
	struct wait *w = arg;
	struct timeval tv = {.tv_sec = w->timeout_sec};
	const struct known *k;
	enum pmixev_result result = PMIXEV_OK;
	bool now = false;

	pthread_mutex_lock(&g.lock);
	if ((k = find(w->nspace))) {
		now = true;
		result = k->ok ? PMIXEV_OK : PMIXEV_ERR_NOT_FOUND;
	} else if (!(w->timer = evtimer_new(agent_base(g.agent), expired, w)) ||
		   evtimer_add(w->timer, &tv) < 0) {
		now = true;
		result = PMIXEV_ERR_NOMEM;
	}
	w->armed = !now;
	w->ending = now;
	pthread_mutex_unlock(&g.lock);
	if (now)
		end(w, result);
}

bool nspace_wait_held(const void *key)
{
	bool held = false;

	pthread_mutex_lock(&g.lock);
	for (const struct wait *w = g.waits; w && !held; w = w->next)
		held = w->key == key;
	pthread_mutex_unlock(&g.lock);
	return held;
}

enum pmixev_result nspace_wait_for(const char *nspace, const void *key,
				   unsigned timeout_sec, nspace_wait_fn fn,
				   void *arg)
{
	enum pmixev_result rc = PMIXEV_OK;
	struct wait *w = calloc(1, sizeof(*w));

	if (!w)
		return PMIXEV_ERR_NOMEM;
	snprintf(w->nspace, sizeof(w->nspace), "%s", nspace);
	w->key = key;
	w->timeout_sec = timeout_sec ? timeout_sec : 1;
	w->fn = fn;
	w->arg = arg;
	pthread_mutex_lock(&g.lock);
	if (g.nwaits == NSPACE_WAIT_MAX) {
		rc = PMIXEV_ERR_OVER_BUDGET;
	} else {
		w->next = g.waits;
		g.waits = w;
		g.nwaits++;
	}
	pthread_mutex_unlock(&g.lock);
	if (rc == PMIXEV_OK && (!g.agent || agent_post(g.agent, arm, w) < 0)) {
		pthread_mutex_lock(&g.lock);
		unlink_wait(w);
		pthread_mutex_unlock(&g.lock);
		rc = PMIXEV_ERR_UNREACH;
	}
	if (rc != PMIXEV_OK)
		free(w);
	return rc;
}

/* Agent thread: end the armed waits for `r->nspace` (those not armed yet
 * see the namespace when they are). */
static void release(void *arg)
{
	struct release *r = arg;
	struct wait *mine = NULL, *w, *next;

	pthread_mutex_lock(&g.lock);
	for (w = g.waits; w; w = w->next)
		if (w->armed && !w->ending && !strcmp(w->nspace, r->nspace)) {
			w->ending = true;
			w->lnext = mine;
			mine = w;
		}
	pthread_mutex_unlock(&g.lock);
	for (w = mine; w; w = next) {
		next = w->lnext;
		end(w, r->result);
	}
	free(r);
}

void nspace_wait_registered(const char *nspace, uint32_t job, uint32_t step,
			    uint32_t ntasks, bool ok)
{
	struct release *r;
	struct known *k;

	pthread_mutex_lock(&g.lock);
	if (!find(nspace) && g.n < KNOWN_MAX) {
		k = &g.tab[g.n++];
		snprintf(k->nspace, sizeof(k->nspace), "%s", nspace);
		k->job = job;
		k->step = step;
		k->ntasks = ntasks;
		k->ok = ok;
	}
	pthread_mutex_unlock(&g.lock);
	if (!(r = calloc(1, sizeof(*r))))
		return; /* its waits end at their timeout */
	snprintf(r->nspace, sizeof(r->nspace), "%s", nspace);
	r->result = ok ? PMIXEV_OK : PMIXEV_ERR_NOT_FOUND;
	if (!g.agent || agent_post(g.agent, release, r) < 0)
		free(r);
}
