/*
 * pmixside/side.c - the pmix side's agent, its end of the channel and the
 * calls waiting on root (see side.h).
 */
#include "config.h"

#include "pmixside/side.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "pmixbase/status.h"
#include "pmixev_log.h"
#include "pmixside/group_watch.h"
#include "pmixside/inject_pmix.h"
#include "pmixside/xlinks.h"

struct pmixside {
	pthread_mutex_t lock; /* ended */
	pthread_cond_t cond;
	bool ended; /* FINI came, or the channel closed */
	struct agent *agent;
	struct chan *chan;
	struct calls *calls;
	struct inject_pmix *inject;
	struct group_watch *groups;
	struct xlinks *xlinks;
	const struct layout *lay;
	size_t event_max;   /* PMIxevEventMax, bytes */
	size_t publish_max; /* PMIxevPublishMax, bytes */
	bool spawns;	    /* PMIxevSpawn */
	atomic_bool ckpt_watched;
};

/* Agent thread: the step ends here (pmixside_wait_end returns). */
static void end(struct pmixside *p)
{
	pthread_mutex_lock(&p->lock);
	p->ended = true;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

/* Agent thread: root is gone; nothing will answer the waiting calls. */
static void chan_closed(void *ctx, const char *why)
{
	struct pmixside *p = ctx;
	size_t n = calls_fail_all(p->calls, PMIXEV_ERR_UNREACH);

	PMIXEV_ERROR("pmix side: the channel to root closed (%s); %zu call(s) "
		     "waiting on root fail, and new ones will",
		     why, n);
	end(p);
}

/* Agent thread: root says the step ended here. */
static int on_fini(void *ctx, struct pmixev_buf *body)
{
	if (pmixev_pmixd_empty_unpack(body) < 0)
		return -1;
	end(ctx);
	return 0;
}

/* Agent thread: write what the PMIx thread could not, or close. */
static void kick_agent(void *arg)
{
	struct pmixside *p = arg;

	chan_kick(p->chan);
}

/* Any thread: chan_send_any left work for the agent. */
static void kick(void *ctx)
{
	struct pmixside *p = ctx;

	if (agent_post(p->agent, kick_agent, p) < 0)
		PMIXEV_ERROR("pmix side: cannot wake its agent to write to "
			     "root (stopping or out of memory); what waits "
			     "is answered when the channel closes");
}

struct pmixside *pmixside_create(const struct layout *lay,
				 const struct pmixev_conf *conf, int fd)
{
	struct pmixside *p = calloc(1, sizeof(*p));

	if (!p || !(p->agent = agent_create())) {
		free(p);
		close(fd);
		return NULL;
	}
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	p->lay = lay;
	p->event_max = (size_t)conf->event_kib << 10;
	p->publish_max = (size_t)conf->publish_mib << 20;
	p->spawns = conf->spawn;
	if (!(p->chan = chan_create(agent_base(p->agent), fd,
				    PMIXEV_PMIXD_FROM_ROOT, chan_closed, p)) ||
	    !(p->calls = calls_create(p->chan)) ||
	    !(p->xlinks = xlinks_create(lay)) ||
	    !(p->inject = inject_pmix_create(lay, conf, p->chan)) ||
	    !(p->groups = group_watch_create(lay, p->inject))) {
		pmixside_destroy(p);
		return NULL;
	}
	inject_pmix_on_rank_end(p->inject, group_watch_rank_end, p->groups);
	inject_pmix_set_links(p->inject, p->xlinks);
	chan_set_kick(p->chan, kick, p);
	chan_on(p->chan, PMIXEV_PMIXD_FINI, on_fini, p);
	return p;
}

int pmixside_start(struct pmixside *p)
{
	return agent_start(p->agent);
}

void pmixside_wait_end(struct pmixside *p)
{
	pthread_mutex_lock(&p->lock);
	while (!p->ended)
		pthread_cond_wait(&p->cond, &p->lock);
	pthread_mutex_unlock(&p->lock);
}

void pmixside_stop(struct pmixside *p)
{
	if (p)
		agent_stop(p->agent);
}

void pmixside_destroy(struct pmixside *p)
{
	if (!p)
		return;
	agent_stop(p->agent);
	/* Events of the channel are freed before their base. */
	chan_destroy(p->chan);
	calls_destroy(p->calls);
	group_watch_destroy(p->groups);
	inject_pmix_destroy(p->inject);
	xlinks_destroy(p->xlinks);
	agent_destroy(p->agent);
	pthread_cond_destroy(&p->cond);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

struct agent *pmixside_agent(struct pmixside *p)
{
	return p->agent;
}

struct chan *pmixside_chan(struct pmixside *p)
{
	return p->chan;
}

const struct layout *pmixside_layout(const struct pmixside *p)
{
	return p->lay;
}

struct calls *pmixside_calls(struct pmixside *p)
{
	return p->calls;
}

bool pmixside_spawns(const struct pmixside *p)
{
	return p->spawns;
}

size_t pmixside_publish_max(const struct pmixside *p)
{
	return p->publish_max;
}

struct inject_pmix *pmixside_inject(struct pmixside *p)
{
	return p->inject;
}

struct group_watch *pmixside_groups(struct pmixside *p)
{
	return p->groups;
}

size_t pmixside_event_max(const struct pmixside *p)
{
	return p->event_max;
}

/* Agent thread: root answered `call` (or the channel is gone). */
static void answer_agent(struct call *call, enum pmixev_result result,
			 const uint8_t *data, size_t ndata)
{
	struct pmixside_call *c = (struct pmixside_call *)call;

	xlinks_end(c->p->xlinks, c->note, result == PMIXEV_OK);
	xlinks_note_free(c->note);
	if (c->modex_cb)
		status_answer_modex(c->modex_cb, c->cbdata, result, data,
				    ndata);
	else
		status_answer_op(c->op_cb, c->cbdata, result);
	free(c);
}

struct pmixside_call *pmixside_call_new(struct pmixside *p, uint8_t type)
{
	struct pmixside_call *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->call.id = calls_new_id(p->calls);
	c->call.done_type = type == PMIXEV_PMIXD_FENCE
				    ? PMIXEV_PMIXD_FENCE_DONE
				    : PMIXEV_PMIXD_DMODEX_DONE;
	c->call.answer = answer_agent;
	c->p = p;
	c->type = type;
	pmixev_buf_init(&c->frame);
	chan_frame_begin(&c->frame);
	return c;
}

void pmixside_call_free(struct pmixside_call *c)
{
	if (!c)
		return;
	xlinks_note_free(c->note);
	pmixev_buf_release(&c->frame);
	free(c);
}

enum pmixev_result pmixside_call_send(struct pmixside_call *c)
{
	xlinks_begin(c->p->xlinks, c->note);
	if (calls_send(c->p->calls, &c->call, c->type, &c->frame) == 0)
		return PMIXEV_OK;
	xlinks_end(c->p->xlinks, c->note, false);
	pmixside_call_free(c);
	return PMIXEV_ERR_UNREACH;
}

uint32_t pmixside_frame_timeout(unsigned timeout_sec)
{
	return timeout_sec > PMIXEV_PMIXD_TIMEOUT_MAX ? PMIXEV_PMIXD_TIMEOUT_MAX
						      : timeout_sec;
}

void pmixside_set_ckpt_watched(struct pmixside *p, bool on)
{
	atomic_store(&p->ckpt_watched, on);
}

bool pmixside_ckpt_watched(struct pmixside *p)
{
	return atomic_load(&p->ckpt_watched);
}
