/*
 * spank_stepd.c - SPANK plugin work inside slurmstepd.
 */
#include "config.h"

#include "spank_stepd.h"

#include "pmixev_log.h"
#include "pmixev_step.h"

int spank_stepd_init(spank_t sp)
{
	uint32_t job_id = 0, step_id = 0, nodeid = 0;
	char id[32], topo[PMIXEV_NODENAME_MAX * 4] = "?";
	spank_err_t rc;

	if ((rc = spank_get_item(sp, S_JOB_ID, &job_id)) != ESPANK_SUCCESS ||
	    (rc = spank_get_item(sp, S_JOB_STEPID, &step_id)) !=
		    ESPANK_SUCCESS ||
	    (rc = spank_get_item(sp, S_JOB_NODEID, &nodeid)) !=
		    ESPANK_SUCCESS) {
		PMIXEV_ERROR("slurmstepd: cannot read the step identity: %s",
			     spank_strerror(rc));
		return ESPANK_ERROR;
	}
	pmixev_step_id_format(job_id, step_id, id, sizeof(id));
	spank_getenv(sp, "SLURM_TOPOLOGY_ADDR", topo, sizeof(topo));
	pmixev_log_set_step(id, pmixev_topology_node(topo));
	PMIXEV_INFO("loaded in slurmstepd (node index %u)", nodeid);
	return ESPANK_SUCCESS;
}
