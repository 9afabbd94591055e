/*
 * stepd/stepd.h - the mpi plugin inside slurmstepd: one step per process.
 *
 * stepd_prefork runs once per step as root before the tasks are forked:
 * it reads the step's layout, starts the agent thread, the overlay and the
 * PMIx server. stepd_task runs in each forked task, as the job user,
 * before exec. stepd_fini runs at slurmstepd's cleanup.
 */
#ifndef PMIXEV_STEPD_STEPD_H_
#define PMIXEV_STEPD_STEPD_H_

#include <stdint.h>

#include "slurm_compat.h"

/* Slurm's CPU binding of the step's local tasks (CPU_BIND_*, list). */
struct stepd_binding {
	uint32_t type;
	const char *list; /* NULL: none */
};

/*
 * `env` is the step environment (job->env), `bind` the tasks' binding;
 * returns SLURM_SUCCESS/ERROR.
 */
int stepd_prefork(char **env, const struct stepd_binding *bind);

int stepd_task(const mpi_plugin_task_info_t *task, char ***env);

/* Local task `rank` ended with wait(2) status `status` (main thread). */
void stepd_task_exit(uint32_t rank, int status);

/* The SPANK plugin's task_post_fork: local task `rank` runs as `pid`. */
void stepd_task_start(uint32_t rank, int32_t pid);

void stepd_fini(void);

#endif /* PMIXEV_STEPD_STEPD_H_ */
