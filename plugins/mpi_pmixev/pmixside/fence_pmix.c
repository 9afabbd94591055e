/*
 * pmixside/fence_pmix.c - the PMIx upcalls of fences, connect and
 * disconnect (see fence_pmix.h). PMIx progress thread: fence_upcall_*
 * read their arguments into a FENCE frame and send it to root; the pmix
 * side's agent answers PMIx when FENCE_DONE comes (pmixside/side.c). Root's
 * half is wireup/fence.c.
 */
#include "config.h"

#include "pmixside/fence_pmix.h"

#include <stdlib.h>

#include "base/step.h"
#include "pmixbase/directives.h"
#include "pmixbase/procs.h"
#include "pmixbase/status.h"
#include "pmixev_log.h"
#include "pmixev_pmixd_coll.h"
#include "pmixside/nspace_pmix.h"
#include "pmixside/side.h"
#include "pmixside/xlinks.h"

static const char *kind_name(enum pmixev_coll_kind kind)
{
	return kind == PMIXEV_COLL_FENCE     ? "fence"
	       : kind == PMIXEV_COLL_CONNECT ? "connect"
					     : "disconnect";
}

/* PMIx thread: whether the refusal of `procs` is worth a line, and which. */
static void log_refusal(const struct step *s, enum pmixev_coll_kind kind,
			const pmix_proc_t procs[], size_t nprocs, size_t bad,
			enum pmixev_result rc)
{
	if (bad < nprocs)
		PMIXEV_ERROR("%s: step %s: namespace %s is neither this step's "
			     "nor one of its spawn family's that this node "
			     "knows",
			     kind_name(kind), s->lay.step.id,
			     procs[bad].nspace);
	else if (rc == PMIXEV_ERR_OVER_BUDGET)
		PMIXEV_ERROR("%s: step %s: processes of more than %u other "
			     "steps",
			     kind_name(kind), s->lay.step.id,
			     PMIXEV_PMIXD_PARTS_MAX);
}

/* PMIx thread: pack a `kind` collective into `c` and send it; owns c. */
static pmix_status_t coll_upcall(struct pmixside_call *c,
				 enum pmixev_coll_kind kind,
				 const pmix_proc_t procs[], size_t nprocs,
				 const pmix_info_t info[], size_t ninfo,
				 const char *data, size_t ndata)
{
	const struct step *s = step_served();
	struct pmixev_pmixd_fence m = {.id = c->call.id, .kind = kind};
	struct directives dir;
	enum pmixev_result rc;
	size_t bad;

	rc = procs_to_parts(&s->lay, procs, nprocs, nspace_pmix_known, &m,
			    &bad);
	if (rc != PMIXEV_OK) {
		log_refusal(s, kind, procs, nprocs, bad, rc);
		if (rc == PMIXEV_ERR_OVER_BUDGET)
			rc = PMIXEV_ERR_BAD_REQUEST;
		goto fail;
	}
	c->note = xlinks_note_make(&s->lay, &m);
	directives_read(info, ninfo, &dir);
	m.collect = kind == PMIXEV_COLL_FENCE && dir.collect;
	m.timeout_sec = pmixside_frame_timeout(dir.timeout_sec);
	/* Root keeps a contribution only when the fence collects data. */
	if (m.collect) {
		m.data = (const uint8_t *)data;
		m.ndata = ndata;
	}
	rc = pmixev_pmixd_fence_pack(&c->frame, &m) < 0 ? PMIXEV_ERR_NOMEM
							: PMIXEV_OK;
	pmixev_pmixd_fence_release(&m);
	if (rc != PMIXEV_OK)
		goto fail;
	return status_to_pmix(pmixside_call_send(c));
fail:
	pmixside_call_free(c);
	return status_to_pmix(rc);
}

pmix_status_t fence_upcall_fence_nb(const pmix_proc_t procs[], size_t nprocs,
				    const pmix_info_t info[], size_t ninfo,
				    char *data, size_t ndata,
				    pmix_modex_cbfunc_t cbfunc, void *cbdata)
{
	struct pmixside_call *c =
		pmixside_call_new(step_served()->pside, PMIXEV_PMIXD_FENCE);

	if (!c)
		return status_to_pmix(PMIXEV_ERR_NOMEM);
	c->modex_cb = cbfunc;
	c->cbdata = cbdata;
	return coll_upcall(c, PMIXEV_COLL_FENCE, procs, nprocs, info, ninfo,
			   data, ndata);
}

static pmix_status_t barrier_upcall(enum pmixev_coll_kind kind,
				    const pmix_proc_t procs[], size_t nprocs,
				    const pmix_info_t info[], size_t ninfo,
				    pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	struct pmixside_call *c =
		pmixside_call_new(step_served()->pside, PMIXEV_PMIXD_FENCE);

	if (!c)
		return status_to_pmix(PMIXEV_ERR_NOMEM);
	c->op_cb = cbfunc;
	c->cbdata = cbdata;
	return coll_upcall(c, kind, procs, nprocs, info, ninfo, NULL, 0);
}

pmix_status_t fence_upcall_connect(const pmix_proc_t procs[], size_t nprocs,
				   const pmix_info_t info[], size_t ninfo,
				   pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	return barrier_upcall(PMIXEV_COLL_CONNECT, procs, nprocs, info, ninfo,
			      cbfunc, cbdata);
}

pmix_status_t fence_upcall_disconnect(const pmix_proc_t procs[], size_t nprocs,
				      const pmix_info_t info[], size_t ninfo,
				      pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	return barrier_upcall(PMIXEV_COLL_DISCONNECT, procs, nprocs, info,
			      ninfo, cbfunc, cbdata);
}
