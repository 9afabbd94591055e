/*
 * mpi_pmixev.c - the mpi/pmixev plugin's entry points. They only route:
 * mpi.conf hooks to mpi_conf.c, slurmstepd hooks to stepd/stepd.c, srun
 * hooks to srun/srun_step.c.
 *
 * init() runs in slurmctld, slurmd, srun and slurmstepd alike; it must stay
 * cheap and must not touch PMIx.
 */
#include "config.h"

#include "slurm_compat.h"

#include "srun/srun_step.h"
#include "mpi_conf.h"
#include "pmixev_log.h"
#include "stepd/stepd.h"

const char plugin_name[] = "PMIx with Slurm events (pmixev)";
const char plugin_type[] = "mpi/pmixev";
const uint32_t plugin_id = PMIXEV_MPI_PLUGIN_ID;
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

int init(void)
{
	pmixev_log_init(plugin_type);
	mpi_conf_reset();
	return SLURM_SUCCESS;
}

int fini(void)
{
	stepd_fini();
	mpi_conf_reset();
	return SLURM_SUCCESS;
}

/* Not a Slurm hook: the SPANK plugin's task_exit calls it (pmixev_bridge.h). */
void pmixev_mpi_task_exit(uint32_t rank, int status);

void pmixev_mpi_task_exit(uint32_t rank, int status)
{
	stepd_task_exit(rank, status);
}

/* Not a Slurm hook either: the SPANK plugin's task_post_fork calls it. */
void pmixev_mpi_task_start(uint32_t rank, int32_t pid);

void pmixev_mpi_task_start(uint32_t rank, int32_t pid)
{
	stepd_task_start(rank, pid);
}

int mpi_p_slurmstepd_prefork(const stepd_step_rec_t *job, char ***env)
{
	struct stepd_binding bind = {0};

	if (job)
		pmixev_stepd_cpu_bind(job, &bind.type, &bind.list);
	return stepd_prefork(*env, &bind);
}

int mpi_p_slurmstepd_task(const mpi_plugin_task_info_t *job, char ***env)
{
	return stepd_task(job, env);
}

mpi_plugin_client_state_t *
mpi_p_client_prelaunch(const mpi_plugin_client_info_t *job, char ***env)
{
	return srun_step_prelaunch(job, env);
}

int mpi_p_client_fini(mpi_plugin_client_state_t *state)
{
	return srun_step_fini(state);
}

void mpi_p_conf_options(s_p_options_t **full_options, int *full_opt_cnt)
{
	mpi_conf_options(full_options, full_opt_cnt);
}

void mpi_p_conf_set(s_p_hashtbl_t *tbl)
{
	mpi_conf_set(tbl);
}

s_p_hashtbl_t *mpi_p_conf_get(void)
{
	return mpi_conf_get();
}

pmixev_slurm_list_t mpi_p_conf_get_printable(void)
{
	return mpi_conf_get_printable();
}
