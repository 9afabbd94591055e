/*
 * pmixside/monitor_pmix.c - monitor alerts and refused monitors to root
 * (see monitor_pmix.h). PMIx progress thread, but for the registration.
 */
#include "config.h"

#include "pmixside/monitor_pmix.h"

#include <stdio.h>

#include <pmix.h>

#include "base/step.h"
#include "pmixev_log.h"
#include "pmixside/notify_pmix.h"
#include "pmixside/side.h"

/* Send `m` to root. NULL, or why it could not be. */
static const char *send_alert(struct pmixside *p,
			      const struct pmixev_pmixd_alert_msg *m)
{
	struct pmixev_buf frame;
	const char *why = NULL;

	pmixev_buf_init(&frame);
	chan_frame_begin(&frame);
	if (pmixev_pmixd_alert_pack(&frame, m) < 0 ||
	    chan_send_any(pmixside_chan(p), PMIXEV_PMIXD_MONITOR_ALERT,
			  &frame) < 0)
		why = chan_is_open(pmixside_chan(p))
			      ? "out of memory"
			      : "the channel to root is closed";
	pmixev_buf_release(&frame);
	return why;
}

/* The library's own alerts carry no info; a client's event carries the
 * server's marker; a relayed one comes from a rank of another node. */
static bool raised_by_library(const struct layout *lay,
			      const pmix_proc_t *source,
			      const pmix_info_t info[], size_t ninfo)
{
	if (!source || !PMIX_CHECK_NSPACE(source->nspace, lay->nspace) ||
	    !layout_is_local(lay, source->rank))
		return false;
	for (size_t i = 0; i < ninfo; i++)
		if (PMIX_CHECK_KEY(&info[i], NOTIFY_SERVER_MARK))
			return false;
	return true;
}

static void on_alert_pmix(size_t id, pmix_status_t code,
			  const pmix_proc_t *source, pmix_info_t info[],
			  size_t ninfo, pmix_info_t *results, size_t nresults,
			  pmix_event_notification_cbfunc_fn_t cbfunc,
			  void *cbdata)
{
	struct step *s = step_served();
	struct pmixev_pmixd_alert_msg m = {0};
	const char *why;

	if (s &&
	    raised_by_library(pmixside_layout(s->pside), source, info, ninfo)) {
		notify_upcall_event(code, source, PMIX_RANGE_NAMESPACE, NULL, 0,
				    NULL, NULL);
		m.rank = source->rank;
		m.code = code == PMIX_MONITOR_FILE_ALERT
				 ? PMIXEV_PMIXD_FILE
				 : PMIXEV_PMIXD_HEARTBEAT;
		if ((why = send_alert(s->pside, &m)))
			PMIXEV_ERROR("monitor: rank %u: %s alert not acted on "
				     "(no policy): %s",
				     m.rank,
				     m.code == PMIXEV_PMIXD_FILE ? "file"
								 : "heartbeat",
				     why);
	}
	if (cbfunc)
		cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

pmix_status_t monitor_upcall(const pmix_proc_t *requestor,
			     const pmix_info_t *monitor, pmix_status_t error,
			     const pmix_info_t directives[], size_t ndirs,
			     pmix_info_cbfunc_t cbfunc, void *cbdata)
{
	struct pmixside *p = step_served()->pside;
	const struct layout *lay = pmixside_layout(p);
	struct pmixev_pmixd_alert_msg m = {.code = PMIXEV_PMIXD_MONITOR_OTHER};
	const char *why;

	/* Root takes a rank of the step, or none (a tool's, as claimed). */
	m.rank = requestor && requestor->rank < lay->map.ntasks
			 ? requestor->rank
			 : PMIXEV_PMIXD_NO_RANK;
	snprintf(m.key, sizeof(m.key), "%.*s", PMIX_MAX_KEYLEN,
		 monitor ? monitor->key : "(nothing)");
	if ((why = send_alert(p, &m)))
		PMIXEV_ERROR("monitor: rank %u asked for %s: refused, Slurm "
			     "offers no such monitor (not counted: %s)",
			     m.rank, m.key, why);
	return PMIX_ERR_NOT_SUPPORTED;
}

void monitor_pmix_watch(void)
{
	pmix_status_t codes[] = {PMIX_MONITOR_HEARTBEAT_ALERT,
				 PMIX_MONITOR_FILE_ALERT};
	/* Without a callback the call waits for the registration and
	 * returns the handler's reference, or a (negative) status. The
	 * handler lives as long as the server. */
	pmix_status_t rc = PMIx_Register_event_handler(
		codes, 2, NULL, 0, on_alert_pmix, NULL, NULL);

	if (rc < 0)
		PMIXEV_ERROR("monitor: cannot watch for monitor alerts (they "
			     "stay on their node, no policy): %s",
			     PMIx_Error_string(rc));
}
