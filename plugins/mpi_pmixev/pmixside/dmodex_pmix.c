/*
 * pmixside/dmodex_pmix.c - direct modex on the pmix side (see
 * dmodex_pmix.h).
 *
 * A local client's request: dmodex_upcall_direct_modex (PMIx progress
 * thread) packs and sends a DMODEX frame; the pmix side's agent answers
 * PMIx when DMODEX_DONE comes (side.c).
 * A peer's request: serve_agent (pmix side's agent) asks the library;
 * served_upcall (PMIx progress thread) packs its answer as DMODEX_SERVED
 * and sends it.
 */
#include "config.h"

#include "pmixside/dmodex_pmix.h"

#include <stdlib.h>

#include "base/step.h"
#include "pmixbase/directives.h"
#include "pmixbase/procs.h"
#include "pmixbase/status.h"
#include "pmixev_log.h"
#include "pmixev_pmixd_coll.h"

/* A peer's request for a local rank's data, until the library answers. */
struct serve {
	struct pmixside *p;
	uint64_t sid; /* root's */
	struct pmixev_buf frame;
};

/* Any thread: send the library's answer to root; frees `sv`. */
static void send_served(struct serve *sv)
{
	if (chan_send_any(pmixside_chan(sv->p), PMIXEV_PMIXD_DMODEX_SERVED,
			  &sv->frame) < 0 &&
	    chan_is_open(pmixside_chan(sv->p)))
		PMIXEV_ERROR("direct modex: cannot answer root's request %llu "
			     "(out of memory)",
			     (unsigned long long)sv->sid);
	pmixev_buf_release(&sv->frame);
	free(sv);
}

/* Pack the answer to `sv` (any thread). */
static void pack_served(struct serve *sv, enum pmixev_result result,
			const uint8_t *data, size_t ndata)
{
	struct pmixev_pmixd_data m = {
		.id = sv->sid, .result = result, .data = data, .ndata = ndata};

	pmixev_buf_init(&sv->frame);
	chan_frame_begin(&sv->frame);
	if (pmixev_pmixd_data_pack(&sv->frame, &m) < 0) {
		m = (struct pmixev_pmixd_data){.id = sv->sid,
					       .result = PMIXEV_ERR_NOMEM};
		pmixev_buf_release(&sv->frame);
		chan_frame_begin(&sv->frame);
		pmixev_pmixd_data_pack(&sv->frame, &m);
	}
}

/* PMIx progress thread: the library's answer (it frees `data`). */
static void served_upcall(pmix_status_t status, char *data, size_t sz,
			  void *cbdata)
{
	struct serve *sv = cbdata;
	enum pmixev_result result = status_from_pmix(status);

	pack_served(sv, result, (const uint8_t *)data,
		    status == PMIX_SUCCESS ? sz : 0);
	send_served(sv);
}

/* Agent thread: root passes on a peer's request for a local rank. */
static int serve_agent(void *ctx, struct pmixev_buf *body)
{
	struct pmixside *p = ctx;
	const struct layout *lay = pmixside_layout(p);
	struct pmixev_pmixd_serve m;
	struct serve *sv;
	pmix_proc_t proc;
	pmix_status_t rc;

	if (pmixev_pmixd_serve_unpack(body, &m) < 0 ||
	    !layout_is_local(lay, m.rank))
		return -1;
	if (!(sv = calloc(1, sizeof(*sv))))
		return 0; /* root's request times out at the requester */
	sv->p = p;
	sv->sid = m.sid;
	PMIX_LOAD_PROCID(&proc, lay->nspace, m.rank);
	rc = PMIx_server_dmodex_request(&proc, served_upcall, sv);
	if (rc != PMIX_SUCCESS) {
		pack_served(sv, status_from_pmix(rc), NULL, 0);
		send_served(sv);
	}
	return 0;
}

void dmodex_pmix_serve(struct pmixside *p)
{
	chan_on(pmixside_chan(p), PMIXEV_PMIXD_DMODEX_SERVE, serve_agent, p);
}

pmix_status_t dmodex_upcall_direct_modex(const pmix_proc_t *proc,
					 const pmix_info_t info[], size_t ninfo,
					 pmix_modex_cbfunc_t cbfunc,
					 void *cbdata)
{
	const struct step *s = step_served();
	struct pmixside_call *c = NULL;
	struct pmixev_pmixd_dmodex m;
	struct directives dir;
	uint32_t *ranks = NULL;
	enum pmixev_result rc;
	bool all;

	rc = procs_to_ranks(&s->lay, proc, 1, &all, &ranks);
	if (rc == PMIXEV_OK && all)
		rc = PMIXEV_ERR_BAD_REQUEST;
	else if (rc == PMIXEV_OK &&
		 !(c = pmixside_call_new(s->pside, PMIXEV_PMIXD_DMODEX)))
		rc = PMIXEV_ERR_NOMEM;
	if (rc != PMIXEV_OK)
		goto out;
	directives_read(info, ninfo, &dir);
	m = (struct pmixev_pmixd_dmodex){
		.id = c->call.id,
		.rank = ranks[0],
		.timeout_sec = pmixside_frame_timeout(dir.timeout_sec)};
	c->modex_cb = cbfunc;
	c->cbdata = cbdata;
	if (pmixev_pmixd_dmodex_pack(&c->frame, &m) < 0) {
		pmixside_call_free(c);
		rc = PMIXEV_ERR_NOMEM;
	} else {
		rc = pmixside_call_send(c);
	}
out:
	free(ranks);
	return status_to_pmix(rc);
}
