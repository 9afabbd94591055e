/*
 * stepd/spawn_tool.h - a task of a step spawned with PMIX_SPAWN_TOOL: a
 * tool of the parent step's PMIx server on its node, not a client of its
 * own step's (doc/spawn.md §2.2). In the forked task, before exec.
 */
#ifndef PMIXEV_STEPD_SPAWN_TOOL_H_
#define PMIXEV_STEPD_SPAWN_TOOL_H_

#include "base/layout.h"
#include "slurm_compat.h"

/*
 * Point task `task` of `lay` (a tool step) at the parent step's server on
 * this node: PMIX_SYSTEM_TMPDIR and PMIX_SERVER_TMPDIR name the parent's
 * run directory here, where its rendezvous files for the owner's tools
 * are; no PMIX_NAMESPACE or PMIX_RANK, which would make the tool a client
 * of its own step. When the parent has no server on this node the task
 * still runs, and its stderr says why its PMIx_tool_init fails.
 */
void spawn_tool_task(const struct layout *lay,
		     const mpi_plugin_task_info_t *task, char ***env);

#endif /* PMIXEV_STEPD_SPAWN_TOOL_H_ */
