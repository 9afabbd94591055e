/*
 * pmixside/tools_pmix.c - PMIx tools (PMIx_tool_init of a debugger, a
 * monitor, the test clients) connecting to the step's server, let in by
 * the gate (gate/gate.h): named on the pmix side's agent.
 */
#include "config.h"

#include "pmixside/tools_pmix.h"

#include <stdio.h>
#include <stdlib.h>

#include "base/agent.h"
#include "base/step.h"
#include "pmixev_log.h"
#include "pmixside/side.h"

struct tool_call {
	pmix_tool_connection_cbfunc_t cbfunc;
	void *cbdata;
};

static void tool_agent(void *arg)
{
	const struct layout *lay = pmixside_layout(step_served()->pside);
	static unsigned ntools; /* agent thread only */
	struct tool_call *c = arg;
	pmix_proc_t proc;
	char ns[PMIX_MAX_NSLEN + 1];

	snprintf(ns, sizeof(ns), "%.200s.tool.%u.%u", lay->nspace, lay->nodeid,
		 ++ntools);
	PMIX_LOAD_PROCID(&proc, ns, 0);
	PMIXEV_DEBUG(1, "tool connected as %s", ns);
	c->cbfunc(PMIX_SUCCESS, &proc, c->cbdata);
	free(c);
}

void tools_upcall_connected(pmix_info_t *info, size_t ninfo,
			    pmix_tool_connection_cbfunc_t cbfunc, void *cbdata)
{
	const struct step *s = step_served();
	struct tool_call *c;

	if ((c = calloc(1, sizeof(*c)))) {
		c->cbfunc = cbfunc;
		c->cbdata = cbdata;
		if (agent_post(pmixside_agent(s->pside), tool_agent, c) == 0)
			return;
		free(c);
	}
	cbfunc(PMIX_ERR_NOMEM, NULL, cbdata);
}
