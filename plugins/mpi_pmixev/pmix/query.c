/*
 * pmix/query.c - PMIx_Query_info: the upcall copies the keys asked
 * (PMIx progress thread); the agent thread answers them.
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

struct query_call {
	bool namespaces; /* PMIX_QUERY_NAMESPACES was asked */
	bool events;	 /* PMIXEV_QUERY_EVENTS was asked */
	pmix_info_cbfunc_t cbfunc;
	void *cbdata;
};

struct query_answer {
	pmix_info_t *info;
	size_t ninfo;
};

static void release_answer(void *cbdata)
{
	struct query_answer *a = cbdata;

	PMIX_INFO_FREE(a->info, a->ninfo);
	free(a);
}

static void query_agent(void *arg)
{
	const struct step *s = step_served();
	struct query_call *c = arg;
	struct query_answer *a = calloc(1, sizeof(*a));
	pmix_status_t rc = PMIX_ERR_NOMEM;

	if (a)
		PMIX_INFO_CREATE(a->info, 2);
	if (!a || !a->info)
		goto out;
	if (c->namespaces)
		PMIX_INFO_LOAD(&a->info[a->ninfo++], PMIX_QUERY_NAMESPACES,
			       s->lay.nspace, PMIX_STRING);
	if (c->events &&
	    inject_report(s->inject, &a->info[a->ninfo++]) != PMIX_SUCCESS)
		goto out;
	if (!a->ninfo) {
		rc = PMIX_ERR_NOT_FOUND;
		goto out;
	}
	a->ninfo = 2; /* what was allocated */
	c->cbfunc(PMIX_SUCCESS, a->info, c->namespaces + c->events, c->cbdata,
		  release_answer, a);
	free(c);
	return;
out:
	if (a) {
		a->ninfo = 2;
		release_answer(a);
	}
	c->cbfunc(rc, NULL, 0, c->cbdata, NULL, NULL);
	free(c);
}

pmix_status_t query_upcall(pmix_proc_t *proct, pmix_query_t *queries,
			   size_t nqueries, pmix_info_cbfunc_t cbfunc,
			   void *cbdata)
{
	struct query_call *c = calloc(1, sizeof(*c));

	if (!c)
		return PMIX_ERR_NOMEM;
	for (size_t q = 0; q < nqueries; q++)
		for (size_t k = 0; queries[q].keys && queries[q].keys[k]; k++) {
			const char *key = queries[q].keys[k];

			c->namespaces |= !strcmp(key, PMIX_QUERY_NAMESPACES);
			c->events |= !strcmp(key, PMIXEV_QUERY_EVENTS);
		}
	c->cbfunc = cbfunc;
	c->cbdata = cbdata;
	if (agent_post(step_served()->agent, query_agent, c) == 0)
		return PMIX_SUCCESS;
	free(c);
	return PMIX_ERR_UNREACH;
}
