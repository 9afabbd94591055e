/*
 * pmixside/notify_pmix.c - clients' events to root, for the other nodes
 * (see notify_pmix.h). PMIx progress thread only: the frame is packed in
 * the upcall and posted; the agent writes a burst of them in one go.
 */
#include "config.h"

#include "pmixside/notify_pmix.h"

#include <stdio.h>
#include <stdlib.h>

#include <pmix.h>

#include "base/step.h"
#include "pmixbase/wire.h"
#include "pmixev_log.h"
#include "pmixev_proto.h"
#include "pmixside/group_pmix.h"
#include "pmixside/inject_pmix.h"
#include "pmixside/invite_watch.h"
#include "pmixside/side.h"

/* Most infos an event may carry across nodes. */
#define MAX_INFO 4096

/* How a sender's events are counted: "rank@R" for the step's processes,
 * "NSPACE:R" for tools. */
static void source_name(const struct layout *lay, const pmix_proc_t *p,
			char *buf, size_t len)
{
	if (PMIX_CHECK_NSPACE(p->nspace, lay->nspace))
		snprintf(buf, len, "rank@%u", p->rank);
	else
		snprintf(buf, len, "%s:%u", p->nspace, p->rank);
}

/* `info` without the server's marker, as bytes; malloc'd. */
static pmix_status_t pack_info(const pmix_info_t info[], size_t ninfo,
			       pmix_byte_object_t *bo)
{
	pmix_info_t *keep = NULL;
	size_t n = 0;
	pmix_status_t rc;

	if (ninfo) {
		PMIX_INFO_CREATE(keep, ninfo);
		if (!keep)
			return PMIX_ERR_NOMEM;
	}
	for (size_t i = 0; i < ninfo; i++)
		if (!PMIX_CHECK_KEY(&info[i], NOTIFY_SERVER_MARK))
			PMIX_INFO_XFER(&keep[n++], &info[i]);
	rc = wire_pack_infos(keep, n, bo);
	if (keep)
		PMIX_INFO_FREE(keep, ninfo);
	return rc;
}

/*
 * Pack the event as a NOTIFY frame and send it. NULL, or why not (static,
 * or written into `why`).
 */
static const char *relay(struct pmixside *p, pmix_status_t code,
			 const pmix_proc_t *source, pmix_data_range_t range,
			 const pmix_info_t info[], size_t ninfo, char *why,
			 size_t whylen)
{
	struct pmixev_notify_msg m = {
		.rank = source->rank, .code = code, .range = (uint8_t)range};
	size_t max = pmixside_event_max(p);
	pmix_byte_object_t bo = {0};
	struct pmixev_buf frame;
	int rc;

	if (ninfo > MAX_INFO) {
		snprintf(why, whylen,
			 "it carries %zu infos, more than %d: not relayed to "
			 "the other nodes",
			 ninfo, MAX_INFO);
		return why;
	}
	if (pack_info(info, ninfo, &bo) != PMIX_SUCCESS)
		return "out of memory: not relayed to the other nodes";
	if (bo.size > max) {
		snprintf(why, whylen,
			 "its infos take %zu bytes, more than "
			 "PMIxevEventMax=%zu KiB: not relayed to the other "
			 "nodes",
			 bo.size, max >> 10);
		PMIX_BYTE_OBJECT_DESTRUCT(&bo);
		return why;
	}
	PMIX_LOAD_NSPACE(m.nspace, source->nspace);
	m.info = (const uint8_t *)bo.bytes;
	m.ninfo = bo.size;
	pmixev_buf_init(&frame);
	chan_frame_begin(&frame);
	rc = pmixev_pmixd_notify_pack(&frame, &m);
	PMIX_BYTE_OBJECT_DESTRUCT(&bo);
	if (rc < 0) {
		pmixev_buf_release(&frame);
		return "it cannot be framed: not relayed to the other nodes";
	}
	if (chan_post_any(pmixside_chan(p), PMIXEV_PMIXD_NOTIFY, &frame) < 0)
		return "the channel to root is closed: not relayed to the "
		       "other nodes";
	return NULL;
}

/*
 * Clients may register for any code, including the system codes the
 * library asks the host about (node down/offline, ...): pmixev delivers
 * all of them.
 */
pmix_status_t notify_upcall_register(pmix_status_t *codes, size_t ncodes,
				     const pmix_info_t info[], size_t ninfo,
				     pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	return PMIX_OPERATION_SUCCEEDED;
}

pmix_status_t notify_upcall_deregister(pmix_status_t *codes, size_t ncodes,
				       pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	return PMIX_OPERATION_SUCCEEDED;
}

pmix_status_t notify_upcall_event(pmix_status_t code, const pmix_proc_t *source,
				  pmix_data_range_t range, pmix_info_t info[],
				  size_t ninfo, pmix_op_cbfunc_t cbfunc,
				  void *cbdata)
{
	struct pmixside *p = step_served()->pside;
	const struct layout *lay = pmixside_layout(p);
	char name[PMIX_MAX_NSLEN + 16], buf[128];
	const char *why;

	/* A member's abort of a group construct is root's to carry out,
	 * whatever the range; the event itself is relayed as any other. */
	if (code == PMIX_GROUP_CONSTRUCT_ABORT)
		group_pmix_abort(p, source, range, info, ninfo);
	if (range == PMIX_RANGE_LOCAL || range == PMIX_RANGE_PROC_LOCAL ||
	    range == PMIX_RANGE_RM)
		return PMIX_OPERATION_SUCCEEDED;
	/* The server hands up the stepds' own node events too (their source
	 * is the server): the stepds spread those themselves. */
	if (PMIX_CHECK_NSPACE(source->nspace, lay->srv_nspace))
		return PMIX_OPERATION_SUCCEEDED;
	/* The local server cached it before handing it to us. */
	source_name(lay, source, name, sizeof(name));
	inject_pmix_cached(pmixside_inject(p), name);
	invite_watch_event(inject_pmix_invites(pmixside_inject(p)), code,
			   source, info, ninfo);
	/* A step on one node has no other node to tell, but may have a
	 * spawn family (root knows). */
	if (lay->step.nnodes == 1 && range != PMIX_RANGE_UNDEF &&
	    range != PMIX_RANGE_SESSION && range != PMIX_RANGE_GLOBAL)
		return PMIX_OPERATION_SUCCEEDED;
	why = relay(p, code, source, range, info, ninfo, buf, sizeof(buf));
	if (why)
		inject_pmix_undelivered(pmixside_inject(p), name, why);
	return PMIX_OPERATION_SUCCEEDED;
}
