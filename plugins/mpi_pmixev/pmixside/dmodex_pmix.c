/*
 * pmixside/dmodex_pmix.c - direct modex on the pmix side (see
 * dmodex_pmix.h).
 *
 * A local client's request: dmodex_upcall_direct_modex (PMIx progress
 * thread) packs and sends a DMODEX frame; the pmix side's agent answers
 * PMIx when DMODEX_DONE comes (side.c). A rank of another step of the
 * spawn family whose namespace is registered here goes the same way with
 * its (job, step) (doc/spawn.md §5.2); its WILDCARD is answered with no
 * data (the library reads the registered job data); a family namespace
 * not registered yet is waited for first (nspace_wait.h).
 * A peer's request: serve_agent (pmix side's agent) asks the library;
 * served_upcall (PMIx progress thread) packs its answer as DMODEX_SERVED
 * and sends it.
 */
#include "config.h"

#include "pmixside/dmodex_pmix.h"

#include <stdlib.h>

#include "base/step.h"
#include "pmixbase/directives.h"
#include "pmixbase/status.h"
#include "pmixside/nspace_wait.h"
#include "pmixside/side.h"
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

/* Any thread: ask root for `rank` of (job, step) ((0, 0): this step). */
static enum pmixev_result send_request(struct pmixside *p, uint32_t job,
				       uint32_t step, uint32_t rank,
				       unsigned timeout_sec,
				       pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
	struct pmixside_call *c = pmixside_call_new(p, PMIXEV_PMIXD_DMODEX);
	struct pmixev_pmixd_dmodex m = {
		.rank = rank,
		.timeout_sec = pmixside_frame_timeout(timeout_sec),
		.job = job,
		.step = step};

	if (!c)
		return PMIXEV_ERR_NOMEM;
	m.id = c->call.id;
	c->modex_cb = cbfunc;
	c->cbdata = cbdata;
	if (pmixev_pmixd_dmodex_pack(&c->frame, &m) < 0) {
		pmixside_call_free(c);
		return PMIXEV_ERR_BAD_REQUEST;
	}
	return pmixside_call_send(c);
}

/* Any thread: a rank of family namespace `nspace`, registered here, or
 * its job data (WILDCARD: the library reads what was registered). */
static enum pmixev_result ask_family(struct pmixside *p, const char *nspace,
				     uint32_t rank, unsigned timeout_sec,
				     pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
	uint32_t job, step, ntasks;

	if (!nspace_wait_find(nspace, &job, &step, &ntasks))
		return PMIXEV_ERR_NOT_FOUND;
	if (rank == PMIX_RANK_WILDCARD) {
		cbfunc(PMIX_SUCCESS, NULL, 0, cbdata, NULL, NULL);
		return PMIXEV_OK;
	}
	if (rank >= ntasks)
		return PMIXEV_ERR_BAD_REQUEST;
	return send_request(p, job, step, rank, timeout_sec, cbfunc, cbdata);
}

/* A request for a family namespace not registered here yet. */
struct held {
	struct pmixside *p;
	char nspace[PMIX_MAX_NSLEN + 1];
	uint32_t rank;
	unsigned timeout_sec;
	pmix_modex_cbfunc_t cbfunc;
	void *cbdata;
};

/* Pmix side's agent: the namespace came (or not): go on, or fail. */
static void held_end(void *arg, enum pmixev_result result)
{
	struct held *h = arg;

	if (result == PMIXEV_OK)
		result = ask_family(h->p, h->nspace, h->rank, h->timeout_sec,
				    h->cbfunc, h->cbdata);
	if (result != PMIXEV_OK)
		h->cbfunc(status_to_pmix(result), NULL, 0, h->cbdata, NULL,
			  NULL);
	free(h);
}

/* PMIx thread: hold a request for `proc`'s namespace until it is
 * registered here (OpenPMIx 4.2.2 asks before it knows it). */
static enum pmixev_result hold(struct pmixside *p, const pmix_proc_t *proc,
			       unsigned timeout_sec, unsigned dflt_sec,
			       pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
	struct held *h = calloc(1, sizeof(*h));
	enum pmixev_result rc;

	if (!h)
		return PMIXEV_ERR_NOMEM;
	*h = (struct held){.p = p,
			   .rank = proc->rank,
			   .timeout_sec = timeout_sec,
			   .cbfunc = cbfunc,
			   .cbdata = cbdata};
	PMIX_LOAD_NSPACE(h->nspace, proc->nspace);
	rc = nspace_wait_for(h->nspace, cbdata,
			     timeout_sec ? timeout_sec : dflt_sec, held_end, h);
	if (rc != PMIXEV_OK)
		free(h);
	return rc;
}

pmix_status_t dmodex_upcall_direct_modex(const pmix_proc_t *proc,
					 const pmix_info_t info[], size_t ninfo,
					 pmix_modex_cbfunc_t cbfunc,
					 void *cbdata)
{
	const struct step *s = step_served();
	struct directives dir;
	enum pmixev_result rc;

	directives_read(info, ninfo, &dir);
	/* OpenPMIx 4.2.2 asks again for a request it made before the
	 * namespace was registered, with the same cbdata: it is held. */
	if (nspace_wait_held(cbdata))
		rc = PMIXEV_OK;
	else if (PMIX_CHECK_NSPACE(proc->nspace, s->lay.nspace))
		rc = proc->rank >= s->lay.step.ntasks /* WILDCARD too */
			     ? PMIXEV_ERR_BAD_REQUEST
			     : send_request(s->pside, 0, 0, proc->rank,
					    dir.timeout_sec, cbfunc, cbdata);
	else if (!nspace_wait_family(&s->lay, proc->nspace))
		rc = PMIXEV_ERR_NOT_SUPPORTED;
	else if ((rc = ask_family(s->pside, proc->nspace, proc->rank,
				  dir.timeout_sec, cbfunc, cbdata)) ==
		 PMIXEV_ERR_NOT_FOUND)
		rc = hold(s->pside, proc, dir.timeout_sec, s->conf.timeout_sec,
			  cbfunc, cbdata);
	return status_to_pmix(rc);
}
