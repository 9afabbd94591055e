/*
 * spank_stepd.c - SPANK plugin work inside slurmstepd.
 */
#include "config.h"

#include "spank_stepd.h"

#include <dlfcn.h>
#include <string.h>

#include "pmixev_bridge.h"
#include "pmixev_log.h"
#include "pmixev_step.h"

/* The step as slurmstepd knows it, for the mpi plugin's prefork. */
static struct pmixev_step_owner owner;
static int owner_known;

/* Exported: the mpi plugin finds it by name (pmixev_bridge.h). */
int pmixev_spank_step_owner(struct pmixev_step_owner *out);

int pmixev_spank_step_owner(struct pmixev_step_owner *out)
{
	if (!owner_known)
		return -1;
	*out = owner;
	return 0;
}

/* mpi/pmixev's task functions, once found; NULL: the step uses another
 * mpi plugin (or none). Looked up at the first task start or exit. */
static pmixev_task_exit_fn task_exit_fn;
static pmixev_task_start_fn task_start_fn;
static int looked_up;

static void lookup_mpi_plugin(void)
{
	void *handle;

	if (looked_up)
		return;
	looked_up = 1;
	if ((handle = pmixev_bridge_open(PMIXEV_MPI_PLUGIN_FILE))) {
		task_exit_fn = (pmixev_task_exit_fn)(uintptr_t)dlsym(
			handle, PMIXEV_TASK_EXIT_SYMBOL);
		task_start_fn = (pmixev_task_start_fn)(uintptr_t)dlsym(
			handle, PMIXEV_TASK_START_SYMBOL);
		/* Slurm keeps the plugin loaded until the step ends. */
		dlclose(handle);
	}
}

/* The step's cores here (S_STEP_ALLOC_CORES), or "": the mpi plugin
 * then takes the CPUs its PMIx server may use for an unbound task's. */
static void step_cores(spank_t sp, char *out, size_t len)
{
	char *cores = NULL;

	out[0] = '\0';
	if (spank_get_item(sp, S_STEP_ALLOC_CORES, &cores) != ESPANK_SUCCESS ||
	    !cores)
		return;
	if (strlen(cores) >= len) {
		PMIXEV_ERROR(
			"slurmstepd: the step's cores (%zu characters) are "
			"too long to pass on; unbound tasks' locality is "
			"the node's",
			strlen(cores));
		return;
	}
	snprintf(out, len, "%s", cores);
}

int spank_stepd_init(spank_t sp)
{
	uint32_t job_id = 0, step_id = 0, nodeid = 0, nnodes = 0, ntasks = 0;
	uid_t uid = 0;
	gid_t gid = 0;
	char id[32], topo[PMIXEV_NODENAME_MAX * 4] = "?";
	spank_err_t rc;

	if ((rc = spank_get_item(sp, S_JOB_ID, &job_id)) != ESPANK_SUCCESS ||
	    (rc = spank_get_item(sp, S_JOB_STEPID, &step_id)) !=
		    ESPANK_SUCCESS ||
	    (rc = spank_get_item(sp, S_JOB_NODEID, &nodeid)) !=
		    ESPANK_SUCCESS ||
	    (rc = spank_get_item(sp, S_JOB_UID, &uid)) != ESPANK_SUCCESS ||
	    (rc = spank_get_item(sp, S_JOB_GID, &gid)) != ESPANK_SUCCESS ||
	    (rc = spank_get_item(sp, S_JOB_NNODES, &nnodes)) !=
		    ESPANK_SUCCESS ||
	    (rc = spank_get_item(sp, S_JOB_TOTAL_TASK_COUNT, &ntasks)) !=
		    ESPANK_SUCCESS) {
		PMIXEV_ERROR("slurmstepd: cannot read the step identity: %s",
			     spank_strerror(rc));
		return ESPANK_ERROR;
	}
	owner = (struct pmixev_step_owner){.job_id = job_id,
					   .step_id = step_id,
					   .uid = (uint32_t)uid,
					   .gid = (uint32_t)gid,
					   .nnodes = nnodes,
					   .ntasks = ntasks};
	step_cores(sp, owner.step_cores, sizeof(owner.step_cores));
	owner_known = 1;
	pmixev_step_id_format(job_id, step_id, id, sizeof(id));
	spank_getenv(sp, "SLURM_TOPOLOGY_ADDR", topo, sizeof(topo));
	pmixev_log_set_step(id, pmixev_topology_node(topo));
	PMIXEV_INFO("loaded in slurmstepd (node index %u)", nodeid);
	return ESPANK_SUCCESS;
}

int spank_stepd_task_exit(spank_t sp)
{
	uint32_t rank = 0;
	int status = 0;

	lookup_mpi_plugin();
	if (!task_exit_fn)
		return ESPANK_SUCCESS;
	if (spank_get_item(sp, S_TASK_GLOBAL_ID, &rank) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_TASK_EXIT_STATUS, &status) != ESPANK_SUCCESS) {
		PMIXEV_ERROR(
			"task_exit: cannot read the task's rank and status");
		return ESPANK_ERROR;
	}
	task_exit_fn(rank, status);
	return ESPANK_SUCCESS;
}

int spank_stepd_task_post_fork(spank_t sp)
{
	uint32_t rank = 0;
	pid_t pid = 0;

	lookup_mpi_plugin();
	if (!task_start_fn)
		return ESPANK_SUCCESS;
	if (spank_get_item(sp, S_TASK_GLOBAL_ID, &rank) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_TASK_PID, &pid) != ESPANK_SUCCESS) {
		PMIXEV_ERROR("task_post_fork: cannot read the task's rank and "
			     "pid");
		return ESPANK_ERROR;
	}
	task_start_fn(rank, (int32_t)pid);
	return ESPANK_SUCCESS;
}
