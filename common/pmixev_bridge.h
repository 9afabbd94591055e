/*
 * pmixev_bridge.h - how the parts of pmixev find each other: the SPANK
 * plugin hands task exits to the mpi plugin inside the same slurmstepd,
 * and pmixev-notify finds the stepds of its node.
 *
 * Slurm loads both plugins RTLD_LOCAL, so the SPANK plugin finds this
 * function of the loaded mpi_pmixev.so by name (dlopen RTLD_NOLOAD +
 * dlsym). Called on slurmstepd's main thread from slurm_spank_task_exit,
 * with the global rank and the wait(2) status, and from
 * slurm_spank_task_post_fork with the rank and pid.
 */
#ifndef PMIXEV_BRIDGE_H_
#define PMIXEV_BRIDGE_H_

#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

struct pmixev_bridge_find {
	const char *file;
	char path[4096];
};

static inline int pmixev_bridge_match(struct dl_phdr_info *info, size_t size,
				      void *arg)
{
	struct pmixev_bridge_find *f = arg;
	const char *slash = strrchr(info->dlpi_name, '/');

	(void)size;
	if (!slash || strcmp(slash + 1, f->file))
		return 0;
	snprintf(f->path, sizeof(f->path), "%s", info->dlpi_name);
	return 1;
}

/*
 * A handle on the already loaded library named `file` (NULL: not loaded):
 * its path is found with dl_iterate_phdr, and only then, with the loader's
 * lock released, dlopen(RTLD_NOLOAD) takes a reference (calling dlopen
 * inside dl_iterate_phdr's callback deadlocks against a thread that loads
 * a library at the same time). dlclose it when done.
 */
static inline void *pmixev_bridge_open(const char *file)
{
	struct pmixev_bridge_find f = {.file = file};

	if (!dl_iterate_phdr(pmixev_bridge_match, &f))
		return NULL;
	return dlopen(f.path, RTLD_LAZY | RTLD_NOLOAD);
}

#define PMIXEV_MPI_PLUGIN_FILE	 "mpi_pmixev.so"
#define PMIXEV_TASK_EXIT_SYMBOL	 "pmixev_mpi_task_exit"
#define PMIXEV_TASK_START_SYMBOL "pmixev_mpi_task_start"

typedef void (*pmixev_task_exit_fn)(uint32_t rank, int status);

/* Likewise from slurm_spank_task_post_fork: the task's global rank and
 * its pid, as slurmstepd forked it (for process tables). */
typedef void (*pmixev_task_start_fn)(uint32_t rank, int32_t pid);

/*
 * The other way: the mpi plugin's prefork asks the SPANK plugin (found the
 * same way) who owns the step. The environment a step carries is the
 * submitting srun's, so anything in it is the user's word (and Slurm
 * 23.02+ srun even sets SLURM_JOB_UID=0 for a step inside an
 * allocation); SPANK's items come from slurmstepd's step record, which
 * slurmd filled from the credential slurmctld signed. The SPANK plugin
 * records them at its init in slurmstepd, which runs before the mpi
 * plugin's prefork. 0, or -1 if it has not.
 */
#define PMIXEV_SPANK_PLUGIN_FILE "spank_pmixev.so"
#define PMIXEV_STEP_CORES_MAX	 1024
#define PMIXEV_STEP_OWNER_SYMBOL "pmixev_spank_step_owner"

struct pmixev_step_owner {
	uint32_t job_id;
	uint32_t step_id;
	uint32_t uid;
	uint32_t gid;
	uint32_t nnodes; /* the step's nodes and tasks, as slurmstepd */
	uint32_t
		ntasks; /* launches them (S_JOB_NNODES, ..._TOTAL_TASK_COUNT) */
	/* The step's cores on this node in Slurm's numbering ("0-3,8":
	 * S_STEP_ALLOC_CORES), or "" (unknown, or longer than this). */
	char step_cores[PMIXEV_STEP_CORES_MAX];
};

typedef int (*pmixev_step_owner_fn)(struct pmixev_step_owner *out);

/*
 * pmixev's run directory: root's, mode 0711 (others may pass through to a
 * name they know, never list it). Each stepd listens there for site events
 * from pmixev-notify (sockets NODE.JOB.STEP.sock, mode 0600; plugins/
 * plugins/mpi_pmixev/stepd/site.h has the protocol) and keeps its PMIx server's
 * directories (plugins/mpi_pmixev/server/server.c).
 */
#define PMIXEV_RUN_DIR	"/run/pmixev"
#define PMIXEV_RUN_MODE 0711
#define PMIXEV_SITE_DIR PMIXEV_RUN_DIR

#endif /* PMIXEV_BRIDGE_H_ */
