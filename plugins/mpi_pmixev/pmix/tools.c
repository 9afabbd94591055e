/*
 * pmix/tools.c - PMIx tools (PMIx_tool_init of a debugger, a monitor, the
 * test clients) connecting to the step's server: checked by the gate on the
 * PMIx progress thread, named on the agent thread.
 */
#include "config.h"

#include "pmix/tools.h"

#include <stdio.h>
#include <stdlib.h>

#include "base/agent.h"
#include "base/step.h"
#include "pmix/gate.h"
#include "pmixev_log.h"

struct tool_call {
	pmix_tool_connection_cbfunc_t cbfunc;
	void *cbdata;
};

static void tool_agent(void *arg)
{
	const struct step *s = step_served();
	static unsigned ntools; /* agent thread only */
	struct tool_call *c = arg;
	pmix_proc_t proc;
	char ns[PMIX_MAX_NSLEN + 1];

	snprintf(ns, sizeof(ns), "%.200s.tool.%u.%u", s->lay.nspace,
		 s->lay.nodeid, ++ntools);
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

	/*
	 * A tool of another user is shut out here, before the library
	 * answers it, and is never answered: OpenPMIx before 5.0.9 frees
	 * the tool's records twice when a host refuses one (or when the
	 * answer cannot be sent), so the library keeps a small record of
	 * each refused tool until the step ends.
	 */
	if (pmix_gate_sweep(s->gate) > 0 || !pmix_gate_ready(s->gate)) {
		PMIXEV_DEBUG(1, "a tool connection was refused: not answered");
		return;
	}
	if ((c = calloc(1, sizeof(*c)))) {
		c->cbfunc = cbfunc;
		c->cbdata = cbdata;
		if (agent_post(s->agent, tool_agent, c) == 0)
			return;
		free(c);
	}
	cbfunc(PMIX_ERR_NOMEM, NULL, cbdata);
}
