/*
 * pmix/query.c - PMIx_Query_info: the upcall checks each query's
 * qualifiers and copies the keys asked (PMIx progress thread); the agent
 * thread answers, key by key, what the step itself knows.
 */
#include "config.h"

#include "pmix/query.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "base/agent.h"
#include "base/step.h"
#include "pmix/inject.h"

enum qkey {
	Q_NAMESPACES,
	Q_NAMESPACE_INFO,
	Q_SPAWN_SUPPORT,
	Q_DEBUG_SUPPORT,
	Q_SERVER_URI,
	Q_NUM_PSETS,
	Q_PSET_NAMES,
	Q_EVENTS,
	Q_UNKNOWN
};

static const char *const qkey_names[] = {
	[Q_NAMESPACES] = PMIX_QUERY_NAMESPACES,
	[Q_NAMESPACE_INFO] = PMIX_QUERY_NAMESPACE_INFO,
	[Q_SPAWN_SUPPORT] = PMIX_QUERY_SPAWN_SUPPORT,
	[Q_DEBUG_SUPPORT] = PMIX_QUERY_DEBUG_SUPPORT,
	[Q_SERVER_URI] = PMIX_SERVER_URI,
	[Q_NUM_PSETS] = PMIX_QUERY_NUM_PSETS,
	[Q_PSET_NAMES] = PMIX_QUERY_PSET_NAMES,
	[Q_EVENTS] = PMIXEV_QUERY_EVENTS,
};

/*
 * What was asked, whatever the number of queries and keys: each known key
 * about this step is answered once (a job cannot make the stepd hold more
 * than Q_UNKNOWN answers), and whether anything was asked that the step
 * cannot answer (an unknown key, or a known one about another namespace).
 */
struct query_call {
	bool asked[Q_UNKNOWN];
	bool unanswerable;
	pmix_info_cbfunc_t cbfunc;
	void *cbdata;
};

static enum qkey qkey_of(const char *key)
{
	for (size_t k = 0; k < Q_UNKNOWN; k++)
		if (!strcmp(key, qkey_names[k]))
			return (enum qkey)k;
	return Q_UNKNOWN;
}

/* The answers: Q_UNKNOWN infos made, the first ones loaded. */
static void release_answer(void *cbdata)
{
	pmix_info_t *info = cbdata;

	PMIX_INFO_FREE(info, Q_UNKNOWN);
}

/* The step's namespace as PMIX_QUERY_NAMESPACE_INFO wants it: an array
 * with one info array per namespace. */
static pmix_status_t namespace_info(const struct layout *lay, pmix_info_t *out)
{
	pmix_info_t *inner = NULL, *outer = NULL;
	pmix_data_array_t da;
	uint32_t size = lay->step.ntasks, nodes = lay->step.nnodes;

	PMIX_INFO_CREATE(inner, 4);
	PMIX_INFO_CREATE(outer, 1);
	if (!inner || !outer) {
		PMIX_INFO_FREE(inner, 4);
		PMIX_INFO_FREE(outer, 1);
		return PMIX_ERR_NOMEM;
	}
	PMIX_INFO_LOAD(&inner[0], PMIX_NSPACE, lay->nspace, PMIX_STRING);
	PMIX_INFO_LOAD(&inner[1], PMIX_JOBID, lay->step.id, PMIX_STRING);
	PMIX_INFO_LOAD(&inner[2], PMIX_JOB_SIZE, &size, PMIX_UINT32);
	PMIX_INFO_LOAD(&inner[3], PMIX_NUM_NODES, &nodes, PMIX_UINT32);
	da = (pmix_data_array_t){.type = PMIX_INFO, .size = 4, .array = inner};
	PMIX_INFO_LOAD(&outer[0], PMIX_QUERY_NAMESPACE_INFO, &da,
		       PMIX_DATA_ARRAY);
	da = (pmix_data_array_t){.type = PMIX_INFO, .size = 1, .array = outer};
	PMIX_INFO_LOAD(out, PMIX_QUERY_NAMESPACE_INFO, &da, PMIX_DATA_ARRAY);
	PMIX_INFO_FREE(inner, 4);
	PMIX_INFO_FREE(outer, 1);
	return PMIX_SUCCESS;
}

/* Answer `key` into `out`: PMIX_SUCCESS, or why not. */
static pmix_status_t answer(const struct step *s, enum qkey key,
			    pmix_info_t *out)
{
	const char *name = qkey_names[key], *uri;
	size_t none = 0;

	switch (key) {
	case Q_NAMESPACES:
		PMIX_INFO_LOAD(out, name, s->lay.nspace, PMIX_STRING);
		return PMIX_SUCCESS;
	case Q_NAMESPACE_INFO:
		return namespace_info(&s->lay, out);
	case Q_SPAWN_SUPPORT: /* pmixev spawns nothing */
	case Q_DEBUG_SUPPORT: /* nor launches or attaches debuggers */
	case Q_PSET_NAMES:    /* and defines no process sets */
		PMIX_INFO_LOAD(out, name, "", PMIX_STRING);
		return PMIX_SUCCESS;
	case Q_NUM_PSETS:
		PMIX_INFO_LOAD(out, name, &none, PMIX_SIZE);
		return PMIX_SUCCESS;
	case Q_SERVER_URI:
		if (!(uri = s->pmix_uri))
			return PMIX_ERR_NOT_FOUND;
		PMIX_INFO_LOAD(out, name, uri, PMIX_STRING);
		return PMIX_SUCCESS;
	case Q_EVENTS:
		return inject_report(s->inject, out);
	case Q_UNKNOWN:
		break;
	}
	return PMIX_ERR_NOT_FOUND;
}

static void query_agent(void *arg)
{
	const struct step *s = step_served();
	struct query_call *c = arg;
	pmix_info_t *info = NULL;
	size_t n = 0;
	bool missed = c->unanswerable;
	pmix_status_t rc = PMIX_ERR_NOMEM;

	PMIX_INFO_CREATE(info, Q_UNKNOWN);
	if (!info)
		goto out;
	for (size_t k = 0; k < Q_UNKNOWN; k++) {
		pmix_status_t r;

		if (!c->asked[k])
			continue;
		r = answer(s, (enum qkey)k, &info[n]);
		if (r == PMIX_ERR_NOMEM)
			goto out;
		if (r == PMIX_SUCCESS)
			n++;
		else
			missed = true;
	}
	if (!n) {
		rc = PMIX_ERR_NOT_FOUND;
		goto out;
	}
	c->cbfunc(missed ? PMIX_ERR_PARTIAL_SUCCESS : PMIX_SUCCESS, info, n,
		  c->cbdata, release_answer, info);
	free(c);
	return;
out:
	if (info)
		release_answer(info);
	c->cbfunc(rc, NULL, 0, c->cbdata, NULL, NULL);
	free(c);
}

/*
 * Whether `q`'s qualifiers are valid (PMIX_PROCID with PMIX_NSPACE or
 * PMIX_RANK is not), and whether they are about this step (no namespace,
 * or the step's).
 */
static bool qualifiers(const pmix_query_t *q, const char *nspace, bool *ours)
{
	bool procid = false, nsp = false, rank = false;

	*ours = true;
	for (size_t i = 0; i < q->nqual; i++) {
		const pmix_info_t *in = &q->qualifiers[i];

		if (PMIX_CHECK_KEY(in, PMIX_PROCID)) {
			procid = true;
			if (in->value.type == PMIX_PROC &&
			    in->value.data.proc &&
			    !PMIX_CHECK_NSPACE(in->value.data.proc->nspace,
					       nspace))
				*ours = false;
		} else if (PMIX_CHECK_KEY(in, PMIX_NSPACE)) {
			nsp = true;
			if (in->value.type == PMIX_STRING &&
			    in->value.data.string &&
			    strcmp(in->value.data.string, nspace))
				*ours = false;
		} else if (PMIX_CHECK_KEY(in, PMIX_RANK)) {
			rank = true;
		}
	}
	return !(procid && (nsp || rank));
}

pmix_status_t query_upcall(pmix_proc_t *proct, pmix_query_t *queries,
			   size_t nqueries, pmix_info_cbfunc_t cbfunc,
			   void *cbdata)
{
	const struct step *s = step_served();
	struct query_call *c = calloc(1, sizeof(*c));
	bool any = false;

	if (!c)
		return PMIX_ERR_NOMEM;
	for (size_t q = 0; q < nqueries; q++) {
		bool ours;

		if (!qualifiers(&queries[q], s->lay.nspace, &ours)) {
			free(c);
			return PMIX_ERR_BAD_PARAM;
		}
		for (size_t k = 0; queries[q].keys && queries[q].keys[k]; k++) {
			enum qkey key = qkey_of(queries[q].keys[k]);

			any = true;
			if (ours && key != Q_UNKNOWN)
				c->asked[key] = true;
			else
				c->unanswerable = true;
		}
	}
	if (!any) {
		free(c);
		return PMIX_ERR_BAD_PARAM;
	}
	c->cbfunc = cbfunc;
	c->cbdata = cbdata;
	if (agent_post(s->agent, query_agent, c) == 0)
		return PMIX_SUCCESS;
	free(c);
	return PMIX_ERR_UNREACH;
}
