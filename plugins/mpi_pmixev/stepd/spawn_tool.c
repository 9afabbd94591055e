/*
 * stepd/spawn_tool.c - a spawned tool's way to its parent step's server
 * (see spawn_tool.h).
 */
#include "config.h"

#include "stepd/spawn_tool.h"

#include <stdio.h>
#include <sys/stat.h>

#include "pmixev_bridge.h"
#include "pmixev_pmixd_spawn.h"
#include "pmixev_step.h"

void spawn_tool_task(const struct layout *lay,
		     const mpi_plugin_task_info_t *task, char ***env)
{
	const char *cluster =
		slurm_conf.cluster_name ? slurm_conf.cluster_name : "";
	uint32_t job = 0, step = 0;
	char name[256], dir[sizeof(name) + sizeof(PMIXEV_RUN_DIR)];
	struct stat sb;

	slurm_unsetenvp(*env, "PMIX_NAMESPACE");
	slurm_unsetenvp(*env, "PMIX_RANK");
	if (!pmixev_pmixd_step_nspace(lay->parent, &job, &step) ||
	    pmixev_step_dir_name(name, sizeof(name), cluster, job, step,
				 lay->step.node) < 0) {
		fprintf(stderr,
			"mpi/pmixev: step %s: tool rank %u: parent %s: no "
			"step whose server it could use\n",
			lay->step.id, task->gtaskid, lay->parent);
		return;
	}
	snprintf(dir, sizeof(dir), "%s/%s", PMIXEV_RUN_DIR, name);
	if (stat(dir, &sb) < 0 || !S_ISDIR(sb.st_mode))
		fprintf(stderr,
			"mpi/pmixev: step %s: tool rank %u: the parent step "
			"%u.%u has no PMIx server on %s\n",
			lay->step.id, task->gtaskid, job, step, lay->step.node);
	slurm_env_array_overwrite(env, "PMIX_SYSTEM_TMPDIR", dir);
	slurm_env_array_overwrite(env, "PMIX_SERVER_TMPDIR", dir);
}
