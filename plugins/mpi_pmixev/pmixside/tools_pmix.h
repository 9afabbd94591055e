/*
 * pmixside/tools_pmix.h - the tool_connected upcall: a tool of the job
 * owner (or root) gets its own namespace "NSPACE.tool.NODE.N", named on
 * the pmix side's agent; a tool of anyone else never gets past the gate
 * (gate/gate.h). PMIx progress thread.
 */
#ifndef PMIXEV_PMIXSIDE_TOOLS_PMIX_H_
#define PMIXEV_PMIXSIDE_TOOLS_PMIX_H_

#include <pmix_server.h>

void tools_upcall_connected(pmix_info_t *info, size_t ninfo,
			    pmix_tool_connection_cbfunc_t cbfunc, void *cbdata);

#endif /* PMIXEV_PMIXSIDE_TOOLS_PMIX_H_ */
