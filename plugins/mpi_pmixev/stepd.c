/*
 * stepd.c - per-step setup in slurmstepd.
 */
#include "config.h"

#include "stepd.h"

#include <stdio.h>

#include "mpi_conf.h"
#include "pmixev_conf.h"
#include "pmixev_log.h"
#include "pmixev_step.h"

/*
 * Why this step is refused, or "". Slurm's srun exits 0 when a step fails
 * in prefork, so a refusal is delivered through the tasks instead: each
 * task prints the reason on its stderr (which srun shows) and exits 1.
 */
static char refusal[640];

static void refuse(const char *what, const char *detail)
{
	snprintf(refusal, sizeof(refusal), "%s %s", what, detail);
	PMIXEV_ERROR("step refused: %s", refusal);
}

int stepd_prefork(char **env)
{
	struct pmixev_step step;
	struct pmixev_conf conf;
	char err[512];

	if (pmixev_step_from_env(&step, env, err, sizeof(err)) < 0) {
		PMIXEV_ERROR("prefork: cannot identify the step: %s", err);
		return SLURM_ERROR;
	}
	pmixev_log_set_step(step.id, step.node);
	if (mpi_conf_effective(&conf, err, sizeof(err)) < 0) {
		refuse("invalid mpi.conf entry", err);
		return SLURM_SUCCESS;
	}
	if (pmixev_conf_apply_env(&conf, env, err, sizeof(err)) < 0) {
		refuse("invalid job environment", err);
		return SLURM_SUCCESS;
	}
	pmixev_log_set_debug(conf.debug);
	PMIXEV_INFO("serving %u task(s) on %u node(s) (PMIxevDebug=%u "
		    "PMIxevTimeout=%u)",
		    step.ntasks, step.nnodes, conf.debug, conf.timeout_sec);
	return SLURM_SUCCESS;
}

int stepd_task(const mpi_plugin_task_info_t *task, char ***env)
{
	if (refusal[0]) {
		fprintf(stderr, "mpi/pmixev: step %u.%u refused: %s\n",
			task->step_id.job_id, task->step_id.step_id, refusal);
		return SLURM_ERROR;
	}
	PMIXEV_DEBUG(2, "task %u (local %d of %u) starting", task->gtaskid,
		     task->ltaskid, task->ltasks);
	return SLURM_SUCCESS;
}
