/*
 * pmixside/pubsub_pmix.c - publish, lookup and unpublish on the pmix side
 * (see pubsub_pmix.h).
 */
#include "config.h"

#include "pmixside/pubsub_pmix.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "base/step.h"
#include "pmixbase/directives.h"
#include "pmixev_log.h"
#include "pmixbase/status.h"
#include "pmixbase/wire.h"
#include "pmixev_pmixd_coll.h"
#include "pmixev_xstep.h"
#include "pmixside/calls.h"

/* A request waiting for root. */
struct ps_call {
	struct call call; /* first: see calls.h */
	struct pmixside *p;
	enum pmixev_pmixd_pubsub_op op;
	pmix_op_cbfunc_t op_cb;
	pmix_lookup_cbfunc_t lookup_cb;
	void *cbdata;
};

/* --- pmix side's agent ---------------------------------------------------- */

/* Answer PMIx with root's result and, for a lookup, what it found. */
static void answer(struct ps_call *c, enum pmixev_result result,
		   const struct pmixev_pmixd_entry *e, uint32_t n)
{
	const struct layout *lay = pmixside_layout(c->p);
	pmix_pdata_t *pd = NULL;

	if (c->op != PMIXEV_PMIXD_LOOKUP) {
		status_answer_op(c->op_cb, c->cbdata, result);
		free(c);
		return;
	}
	if (result == PMIXEV_OK && n) {
		PMIX_PDATA_CREATE(pd, n);
		for (uint32_t i = 0; pd && i < n; i++) {
			char ns[PMIX_MAX_NSLEN + 1];

			/* The publisher: of this step or another of the
			 * spawn family. */
			if (e[i].job == lay->step.job_id &&
			    e[i].step == lay->step.step_id)
				snprintf(ns, sizeof(ns), "%s", lay->nspace);
			else
				pmixev_xstep_nspace(e[i].job, e[i].step, ns,
						    sizeof(ns));
			PMIX_LOAD_PROCID(&pd[i].proc, ns, e[i].rank);
			PMIX_LOAD_KEY(pd[i].key, e[i].key);
			if (wire_unpack_value(e[i].value, e[i].nvalue,
					      &pd[i].value) != PMIX_SUCCESS)
				result = PMIXEV_ERR_BAD_DATA;
		}
		if (!pd)
			result = PMIXEV_ERR_NOMEM;
	}
	c->lookup_cb(status_to_pmix(result), result == PMIXEV_OK ? pd : NULL,
		     result == PMIXEV_OK ? n : 0, c->cbdata);
	if (pd)
		PMIX_PDATA_FREE(pd, n);
	free(c);
}

/* The channel closed before root answered. */
static void answer_call(struct call *call, enum pmixev_result result,
			const uint8_t *data, size_t ndata)
{
	answer((struct ps_call *)call, result, NULL, 0);
}

static int on_done(void *ctx, struct pmixev_buf *body)
{
	struct pmixside *p = ctx;
	struct pmixev_pmixd_pubsub_done m;
	struct call *c;

	if (pmixev_pmixd_pubsub_done_unpack(body, &m) < 0)
		return -1;
	c = calls_take(pmixside_calls(p), m.id, PMIXEV_PMIXD_PUBSUB_DONE);
	if (c)
		answer((struct ps_call *)c, m.result, m.e, m.n);
	pmixev_pmixd_entries_release(&m.e, &m.n);
	return c ? 0 : -1;
}

void pubsub_pmix_listen(struct pmixside *p)
{
	chan_on(pmixside_chan(p), PMIXEV_PMIXD_PUBSUB_DONE, on_done, p);
}

/* --- PMIx progress thread ------------------------------------------------- */

/* Free the entries of `m` and their values. */
static void release_entries(struct pmixev_pmixd_pubsub *m)
{
	for (uint32_t i = 0; i < m->n; i++)
		free((void *)m->e[i].value);
	free(m->e);
	m->e = NULL;
	m->n = 0;
}

/* Pack `m` (its id set here) and send it for `c`; owns c and m's entries. */
static pmix_status_t send_call(struct ps_call *c, struct pmixev_pmixd_pubsub *m)
{
	struct pmixev_buf frame;
	enum pmixev_result rc = PMIXEV_OK;

	m->id = c->call.id;
	pmixev_buf_init(&frame);
	chan_frame_begin(&frame);
	if (pmixev_pmixd_pubsub_pack(&frame, m) < 0) {
		pmixev_buf_release(&frame);
		rc = PMIXEV_ERR_BAD_REQUEST;
	} else if (calls_send(pmixside_calls(c->p), &c->call,
			      PMIXEV_PMIXD_PUBSUB, &frame) < 0) {
		rc = PMIXEV_ERR_UNREACH;
	}
	if (rc != PMIXEV_OK)
		free(c);
	release_entries(m);
	return status_to_pmix(rc);
}

/*
 * The range and persistence of `dir` as PUBSUB carries them into `m`, or
 * why not: a value that is no range or persistence (BAD_REQUEST), or a
 * range the step's directory does not serve (NOT_SUPPORTED: RM, CUSTOM;
 * the first such request is logged).
 */
static enum pmixev_result read_scope(enum pmixev_pmixd_pubsub_op op,
				     const struct directives *dir,
				     struct pmixev_pmixd_pubsub *m)
{
	/* One process per step and node, this thread alone: logged once. */
	static bool told;

	if (dir->range == PMIX_RANGE_RM || dir->range == PMIX_RANGE_CUSTOM) {
		if (!told)
			PMIXEV_ERROR("publish/lookup: range %s is not served "
				     "(PMIX_ERR_NOT_SUPPORTED; further "
				     "requests in RM or CUSTOM are not "
				     "logged)",
				     dir->range == PMIX_RANGE_RM
					     ? "PMIX_RANGE_RM"
					     : "PMIX_RANGE_CUSTOM");
		told = true;
		return PMIXEV_ERR_NOT_SUPPORTED;
	}
	if (!pmixev_pmixd_range_ok(dir->range) ||
	    (op == PMIXEV_PMIXD_PUBLISH &&
	     dir->persist > PMIXEV_PMIXD_PERSIST_MAX))
		return PMIXEV_ERR_BAD_REQUEST;
	m->range = dir->range;
	m->persist = op == PMIXEV_PMIXD_PUBLISH ? dir->persist : 0;
	return PMIXEV_OK;
}

/*
 * A call for `proc` with room for `nentries` entries in `m`. NULL when
 * the caller is not a local rank of the step, asks for too many keys, in
 * a range or persistence not served (read_scope), or memory is short
 * (*rc says which).
 */
static struct ps_call *call_new(enum pmixev_pmixd_pubsub_op op,
				const pmix_proc_t *proc,
				const pmix_info_t info[], size_t ninfo,
				size_t nentries, struct pmixev_pmixd_pubsub *m,
				enum pmixev_result *rc)
{
	struct pmixside *p = step_served()->pside;
	const struct layout *lay = pmixside_layout(p);
	struct directives dir;
	struct ps_call *c;

	memset(m, 0, sizeof(*m));
	*rc = PMIXEV_ERR_BAD_REQUEST;
	if (!PMIX_CHECK_NSPACE(proc->nspace, lay->nspace) ||
	    !layout_is_local(lay, proc->rank) ||
	    nentries > PMIXEV_PMIXD_ENTRIES_MAX)
		return NULL;
	directives_read(info, ninfo, &dir);
	if ((*rc = read_scope(op, &dir, m)) != PMIXEV_OK)
		return NULL;
	*rc = PMIXEV_ERR_NOMEM;
	if (!(c = calloc(1, sizeof(*c))) ||
	    !(m->e = calloc(nentries ? nentries : 1, sizeof(*m->e)))) {
		free(c);
		return NULL;
	}
	c->call.id = calls_new_id(pmixside_calls(p));
	c->call.done_type = PMIXEV_PMIXD_PUBSUB_DONE;
	c->call.answer = answer_call;
	c->p = p;
	c->op = op;
	m->op = op;
	m->rank = proc->rank;
	m->wait = op == PMIXEV_PMIXD_LOOKUP && dir.wait;
	m->timeout_sec = pmixside_frame_timeout(dir.timeout_sec);
	*rc = PMIXEV_OK;
	return c;
}

pmix_status_t pubsub_upcall_publish(const pmix_proc_t *proc,
				    const pmix_info_t info[], size_t ninfo,
				    pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	struct pmixev_pmixd_pubsub m;
	enum pmixev_result why;
	struct ps_call *c = call_new(PMIXEV_PMIXD_PUBLISH, proc, info, ninfo,
				     ninfo, &m, &why);
	size_t bytes = 0;

	if (!c)
		return status_to_pmix(why);
	for (size_t i = 0; i < ninfo; i++) {
		struct pmixev_pmixd_entry *e = &m.e[m.n];
		pmix_byte_object_t bo;
		pmix_status_t rc;

		if (directives_is_directive(info[i].key))
			continue;
		PMIX_LOAD_KEY(e->key, info[i].key);
		rc = wire_pack_value(&info[i].value, &bo);
		if (rc != PMIX_SUCCESS) {
			release_entries(&m);
			free(c);
			return rc; /* PMIx's own status */
		}
		e->value = (const uint8_t *)bo.bytes;
		e->nvalue = bo.size;
		bytes += bo.size;
		m.n++;
	}
	c->op_cb = cbfunc;
	c->cbdata = cbdata;
	if (m.n && bytes <= pmixside_publish_max(c->p))
		return send_call(c, &m);
	/* Nothing to publish, or more than the directory may ever hold. */
	release_entries(&m);
	free(c);
	return bytes ? status_to_pmix(PMIXEV_ERR_OVER_BUDGET)
		     : PMIX_OPERATION_SUCCEEDED;
}

/* A lookup or unpublish of the NULL-terminated `keys`. */
static pmix_status_t keyed(enum pmixev_pmixd_pubsub_op op,
			   const pmix_proc_t *proc, char **keys,
			   const pmix_info_t info[], size_t ninfo,
			   pmix_op_cbfunc_t op_cb,
			   pmix_lookup_cbfunc_t lookup_cb, void *cbdata)
{
	struct pmixev_pmixd_pubsub m;
	enum pmixev_result why;
	struct ps_call *c;
	size_t n = 0;

	while (keys && keys[n])
		n++;
	if (!n)
		return status_to_pmix(PMIXEV_ERR_BAD_REQUEST);
	if (!(c = call_new(op, proc, info, ninfo, n, &m, &why)))
		return status_to_pmix(why);
	for (size_t i = 0; i < n; i++)
		PMIX_LOAD_KEY(m.e[i].key, keys[i]);
	m.n = (uint32_t)n;
	c->op_cb = op_cb;
	c->lookup_cb = lookup_cb;
	c->cbdata = cbdata;
	return send_call(c, &m);
}

pmix_status_t pubsub_upcall_lookup(const pmix_proc_t *proc, char **keys,
				   const pmix_info_t info[], size_t ninfo,
				   pmix_lookup_cbfunc_t cbfunc, void *cbdata)
{
	return keyed(PMIXEV_PMIXD_LOOKUP, proc, keys, info, ninfo, NULL, cbfunc,
		     cbdata);
}

pmix_status_t pubsub_upcall_unpublish(const pmix_proc_t *proc, char **keys,
				      const pmix_info_t info[], size_t ninfo,
				      pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	return keyed(PMIXEV_PMIXD_UNPUBLISH, proc, keys, info, ninfo, cbfunc,
		     NULL, cbdata);
}
