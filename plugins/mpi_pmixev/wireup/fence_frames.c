/*
 * wireup/fence_frames.c - root's end of fences on the pmixd channel (see
 * fence.h). Agent thread: a FENCE frame, checked by its validating
 * unpack, becomes this node's part of a collective (fence_local, which
 * copies its data); the collective's end goes back as FENCE_DONE with the
 * pmix side's id. The data stays opaque: no PMIx here.
 */
#include "config.h"

#include "wireup/fence.h"

#include <stdlib.h>

#include "pmixd/chan.h"
#include "pmixev_log.h"
#include "pmixev_pmixd_coll.h"

/* A collective the pmix side asked for, until it ends here. */
struct fence_frame_call {
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

/* The collective ended here: answer the pmix side (if it still listens). */
static void answer(enum pmixev_result result, const uint8_t *data, size_t ndata,
		   void *arg)
{
	struct fence_frame_call *c = arg;

	send_done(c->chan, c->id, result, data, ndata);
	free(c);
}

static int on_fence(void *ctx, struct pmixev_buf *body)
{
	struct step *s = ctx;
	struct pmixev_pmixd_fence m;
	struct fence_frame_call *c;

	if (pmixev_pmixd_fence_unpack(body, &s->pmixd_lim, &m) < 0)
		return -1;
	if (!(c = malloc(sizeof(*c)))) {
		send_done(s->chan, m.id, PMIXEV_ERR_NOMEM, NULL, 0);
		pmixev_pmixd_fence_release(&m);
		return 0;
	}
	c->chan = s->chan;
	c->id = m.id;
	fence_local(s->fence, m.kind, m.all, m.ranks, m.nranks, m.collect,
		    m.timeout_sec, m.data, m.ndata, answer, c);
	pmixev_pmixd_fence_release(&m);
	return 0;
}

void fence_frames_listen(struct step *s)
{
	chan_on(s->chan, PMIXEV_PMIXD_FENCE, on_fence, s);
}
