/*
 * wireup/fence.c - PMIx fences and the barriers behind connect and
 * disconnect (see fence.h). Agent thread: a FENCE frame, checked by its
 * validating unpack, becomes this node's part of a collective (coll_local,
 * which copies its data); the collective's end goes back as FENCE_DONE
 * with the pmix side's id. The data stays opaque: no PMIx here.
 */
#include "config.h"

#include "wireup/fence.h"

#include <errno.h>
#include <stdlib.h>

#include "pmixd/chan.h"
#include "pmixd/nspaces.h"
#include "pmixev_log.h"
#include "pmixev_pmixd_coll.h"
#include "wireup/coll.h"
#include "wireup/coll_xstep.h"
#include "wireup/fence_sig.h"

/* A collective the pmix side asked for, until it ends here. */
struct fence_call {
	struct chan *chan;
	uint64_t id;
};

static void send_done(struct chan *l, uint64_t id, enum pmixev_result result,
		      const uint8_t *data, size_t ndata)
{
	struct pmixev_pmixd_data m = {
		.id = id, .result = result, .data = data, .ndata = ndata};

	if (chan_send_data(l, PMIXEV_PMIXD_FENCE_DONE, &m) < 0 &&
	    chan_is_open(l))
		PMIXEV_ERROR("fence: cannot answer the pmix side's call %llu "
			     "(out of memory)",
			     (unsigned long long)id);
}

/* The tree root has every node's data: the result is all of it, or,
 * across steps, all of every step's (wireup/coll_xstep.h). */
static enum pmixev_result at_root(void *ctx, const struct coll_id *id,
				  struct pmixev_buf *data)
{
	struct step *s = ctx;

	if (!coll_xstep_is(id->sig))
		return PMIXEV_OK;
	return coll_xstep_at_root(s->collx, id, data);
}

static void root_failed(void *ctx, const struct coll_id *id,
			enum pmixev_result result)
{
	struct step *s = ctx;

	if (coll_xstep_is(id->sig))
		coll_xstep_root_failed(s->collx, id, result);
}

/*
 * Whether the other steps `m` names are family members this node
 * registered, their ranks within them (else logged).
 */
static bool parts_known(const struct step *s,
			const struct pmixev_pmixd_fence *m)
{
	for (uint32_t i = 0; i < m->nparts; i++) {
		const struct pmixev_pmixd_part *p = &m->parts[i];
		uint32_t ntasks = nspaces_ntasks(s->nspaces, p->job, p->step);

		if (!ntasks) {
			PMIXEV_ERROR("%s: step %s: step %u.%u is not a spawn "
				     "family member this node registered",
				     fence_kind_name(m->kind), s->lay.step.id,
				     p->job, p->step);
			return false;
		}
		if (!p->all && p->ranks[p->nranks - 1] >= ntasks) {
			PMIXEV_ERROR("%s: step %s: rank %u is beyond step "
				     "%u.%u's %u",
				     fence_kind_name(m->kind), s->lay.step.id,
				     p->ranks[p->nranks - 1], p->job, p->step,
				     ntasks);
			return false;
		}
	}
	return true;
}

/* The collective ended here: answer the pmix side (if it still listens). */
static void deliver(void *ctx, const struct coll_id *id,
		    enum pmixev_result result, const uint8_t *data,
		    size_t ndata, void *call)
{
	struct fence_call *c = call;

	send_done(c->chan, c->id, result, data, ndata);
	free(c);
}

static int on_fence(void *ctx, struct pmixev_buf *body)
{
	struct step *s = ctx;
	struct pmixev_pmixd_fence m;
	char sig[PMIXEV_SIG_MAX];
	struct fence_call *c;

	if (pmixev_pmixd_fence_unpack(body, &s->pmixd_lim, &m) < 0)
		return -1;
	if (!parts_known(s, &m)) {
		send_done(s->chan, m.id, PMIXEV_ERR_BAD_REQUEST, NULL, 0);
		goto out;
	}
	if (fence_sig_format_parts(s->lay.step.job_id, s->lay.step.step_id,
				   m.all, m.ranks, m.nranks, m.parts, m.nparts,
				   sig, sizeof(sig)) < 0) {
		if (errno == ENOMEM) {
			send_done(s->chan, m.id, PMIXEV_ERR_NOMEM, NULL, 0);
		} else {
			PMIXEV_ERROR("%s: step %s: participant set too large "
				     "or empty",
				     fence_kind_name(m.kind), s->lay.step.id);
			send_done(s->chan, m.id, PMIXEV_ERR_BAD_REQUEST, NULL,
				  0);
		}
		goto out;
	}
	if (!(c = malloc(sizeof(*c)))) {
		send_done(s->chan, m.id, PMIXEV_ERR_NOMEM, NULL, 0);
		goto out;
	}
	c->chan = s->chan;
	c->id = m.id;
	coll_local(s->coll, m.kind, sig, m.collect, m.timeout_sec * 1000u,
		   m.data, m.ndata, c);
out:
	pmixev_pmixd_fence_release(&m);
	return 0;
}

int fence_listen(struct step *s)
{
	static const struct coll_kind ops = {.at_root = at_root,
					     .root_failed = root_failed,
					     .deliver = deliver};

	if (!(s->collx = coll_xstep_create(s)) ||
	    coll_kind_set(s->coll, PMIXEV_COLL_FENCE, &ops, s) < 0 ||
	    coll_kind_set(s->coll, PMIXEV_COLL_CONNECT, &ops, s) < 0 ||
	    coll_kind_set(s->coll, PMIXEV_COLL_DISCONNECT, &ops, s) < 0)
		return -1;
	chan_on(s->chan, PMIXEV_PMIXD_FENCE, on_fence, s);
	return 0;
}
