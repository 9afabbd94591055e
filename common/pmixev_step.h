/*
 * pmixev_step.h - who we are inside slurmstepd: the step's identity as
 * slurmstepd puts it into the prefork environment (SLURM_JOB_ID,
 * SLURM_STEP_ID, SLURM_STEP_NUM_NODES, SLURM_STEP_NUM_TASKS,
 * SLURM_TOPOLOGY_ADDR). Reading the environment keeps pmixev independent of
 * slurmstepd's internal step record. Pure code, unit-tested.
 */
#ifndef PMIXEV_STEP_H_
#define PMIXEV_STEP_H_

#include <stddef.h>
#include <stdint.h>

#define PMIXEV_NODENAME_MAX 64

struct pmixev_step {
	uint32_t job_id;
	uint32_t step_id;
	uint32_t nnodes;
	uint32_t ntasks;
	char node[PMIXEV_NODENAME_MAX]; /* this node's Slurm NodeName */
	char id[32];			/* "JOB.STEP" for log lines */
};

/*
 * Fill `step` from `env`. Returns 0, or -1 with the missing or malformed
 * variable named in `err`.
 */
int pmixev_step_from_env(struct pmixev_step *step, char *const *env, char *err,
			 size_t errlen);

/*
 * The NodeName in a SLURM_TOPOLOGY_ADDR value: the value itself under
 * topology/none ("n1"), its last component under topology/tree
 * ("s0.s1.n1").
 */
const char *pmixev_topology_node(const char *topology_addr);

/* "JOB.STEP", with Slurm's special steps shown by name ("12.batch"). */
void pmixev_step_id_format(uint32_t job_id, uint32_t step_id, char *buf,
			   size_t len);

/*
 * The name of step (job, step)'s directory on node `node` under
 * PMIXEV_RUN_DIR: "CLUSTER.JOB.STEP.NODE" (the step as
 * pmixev_step_id_format puts it). 0, or -1 when it does not fit `len`.
 */
int pmixev_step_dir_name(char *buf, size_t len, const char *cluster,
			 uint32_t job_id, uint32_t step_id, const char *node);

/*
 * A job or step named the ways PMIx clients name one: "JOB", "JOB.STEP"
 * (PMIX_JOBID), or a namespace "slurm.pmixev.JOB.STEP" (pmixev's) or
 * "slurm.pmix.JOB.STEP" (Slurm's stock plugin's). 0 with *job_id and
 * (STEP_ANY when none is named) *step_id, or -1.
 */
#define PMIXEV_STEP_ANY 0xffffffffu
int pmixev_job_ref_parse(const char *s, uint32_t *job_id, uint32_t *step_id);

#endif /* PMIXEV_STEP_H_ */
