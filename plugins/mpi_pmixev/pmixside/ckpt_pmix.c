/*
 * pmixside/ckpt_pmix.c - the ranks' checkpoint completions to root (see
 * ckpt_pmix.h).
 */
#include "config.h"

#include "pmixside/ckpt_pmix.h"

#include <stdio.h>
#include <string.h>

#include <pmix.h>

#include "base/step.h"
#include "pmixev_log.h"

/* Tell root that `rank` completed the checkpoint `info` names, if any. */
static void send_done(struct pmixside *p, uint32_t rank,
		      const pmix_info_t info[], size_t ninfo)
{
	struct pmixev_pmixd_ckpt_done m = {.rank = rank};
	struct pmixev_buf frame;

	for (size_t i = 0; i < ninfo; i++) {
		const char *id = info[i].value.data.string;

		if (!PMIX_CHECK_KEY(&info[i], PMIX_JOB_CTRL_CHECKPOINT) ||
		    info[i].value.type != PMIX_STRING || !id)
			continue;
		if (strlen(id) >= sizeof(m.id)) {
			PMIXEV_DEBUG(1,
				     "checkpoint: rank %u completed a "
				     "checkpoint whose id is longer than "
				     "any request's: not counted",
				     rank);
			return;
		}
		m.has_id = true;
		snprintf(m.id, sizeof(m.id), "%s", id);
	}
	pmixev_buf_init(&frame);
	chan_frame_begin(&frame);
	if (pmixev_pmixd_ckpt_done_pack(&frame, &m) < 0 ||
	    chan_send_any(pmixside_chan(p), PMIXEV_PMIXD_CKPT_COMPLETE,
			  &frame) < 0)
		PMIXEV_ERROR("checkpoint: rank %u completed, but root cannot "
			     "be told (%s)",
			     rank,
			     chan_is_open(pmixside_chan(p))
				     ? "out of memory"
				     : "the channel to root is closed");
	pmixev_buf_release(&frame);
}

/* A rank says it completed a checkpoint (PMIx progress thread). */
static void on_complete_pmix(size_t id, pmix_status_t code,
			     const pmix_proc_t *source, pmix_info_t info[],
			     size_t ninfo, pmix_info_t *results,
			     size_t nresults,
			     pmix_event_notification_cbfunc_fn_t cbfunc,
			     void *cbdata)
{
	struct step *s = step_served();
	const struct layout *lay = s ? pmixside_layout(s->pside) : NULL;

	if (lay && source && PMIX_CHECK_NSPACE(source->nspace, lay->nspace) &&
	    layout_is_local(lay, source->rank))
		send_done(s->pside, source->rank, info, ninfo);
	if (cbfunc)
		cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

void ckpt_pmix_watch(struct pmixside *p)
{
	pmix_status_t code = PMIX_JCTRL_CHECKPOINT_COMPLETE;
	/* Without a callback the call waits for the registration and
	 * returns the handler's reference, or a (negative) status. The
	 * handler lives as long as the server. */
	pmix_status_t rc = PMIx_Register_event_handler(
		&code, 1, NULL, 0, on_complete_pmix, NULL, NULL);

	if (rc < 0)
		PMIXEV_ERROR("checkpoint: cannot watch for completions (the "
			     "step's checkpoint requests are refused): %s",
			     PMIx_Error_string(rc));
	pmixside_set_ckpt_watched(p, rc >= 0);
}
