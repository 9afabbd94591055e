/*
 * srun/srun_step.c - srun side of mpi/pmixev: validate the user's overrides,
 * pass the exact task layout to the stepds, and run the rendezvous.
 */
#include "config.h"

#include "srun/srun_step.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/layout.h"
#include "pmixev_conf.h"
#include "pmixev_log.h"
#include "pmixev_multiprog.h"
#include "pmixev_step.h"
#include "pmixev_taskmap.h"
#include "srun/rendezvous.h"

#define MAX_FRAME (1u << 20) /* srun only sees handshakes and aborts */

extern char **environ;

struct srun_step {
	char step_id[32];
	struct rdv *rdv;
};

/*
 * The applications of a --multi-prog step, as this srun's SPANK plugin
 * left them ("SRUNPID:NAPPS:MAP"), as "NAPPS:MAP"; "" (one application)
 * when there are none or they were inherited from another srun.
 */
static const char *apps_of_this_srun(void)
{
	const char *v = getenv(PMIXEV_MULTIPROG_ENV);
	char *rest = NULL;
	long pid;

	if (!v)
		return "";
	pid = strtol(v, &rest, 10);
	return pid == (long)getpid() && rest && *rest == ':' ? rest + 1 : "";
}

static int export_layout(struct srun_step *c,
			 const mpi_plugin_client_info_t *info, char ***env,
			 uint16_t port)
{
	const slurm_step_layout_t *sl = info->step_layout;
	char *map = pmixev_taskmap_format(sl->node_cnt, sl->tasks, sl->tids);
	char portstr[8];
	int rc = -1;

	if (!map) {
		PMIXEV_ERROR("step %s: out of memory", c->step_id);
		return -1;
	}
	snprintf(portstr, sizeof(portstr), "%u", port);
	if (slurm_env_array_overwrite(env, PMIXEV_TASKMAP_ENV, map) &&
	    slurm_env_array_overwrite(env, PMIXEV_RDV_PORT_ENV, portstr) &&
	    slurm_env_array_overwrite(env, PMIXEV_APPS_ENV,
				      apps_of_this_srun()))
		rc = 0;
	free(map);
	return rc;
}

mpi_plugin_client_state_t *
srun_step_prelaunch(const mpi_plugin_client_info_t *info, char ***env)
{
	struct srun_step *c = NULL;
	struct pmixev_conf conf;
	struct rdv_cfg cfg;
	char err[256];
	uint16_t port = 0;

	c = calloc(1, sizeof(*c));
	if (!c) {
		PMIXEV_ERROR("srun: out of memory");
		return NULL;
	}
	pmixev_step_id_format(info->step_id.job_id, info->step_id.step_id,
			      c->step_id, sizeof(c->step_id));
	/*
	 * The overrides reach the stepds through the user's environment;
	 * reject a bad one here, where the user sees the message.
	 */
	pmixev_conf_defaults(&conf);
	if (pmixev_conf_apply_env(&conf, environ, err, sizeof(err)) < 0) {
		PMIXEV_ERROR("step %s: invalid environment: %s", c->step_id,
			     err);
		goto fail;
	}
	if (info->het_job_id != NO_VAL && info->het_job_id != 0) {
		PMIXEV_ERROR("step %s: heterogeneous steps are not supported",
			     c->step_id);
		goto fail;
	}
	cfg = (struct rdv_cfg){.job_id = info->step_id.job_id,
			       .step_id = info->step_id.step_id,
			       .nnodes = info->step_layout->node_cnt,
			       .node_list = info->step_layout->node_list,
			       .slurmd_uid = slurm_conf.slurmd_user_id,
			       .authinfo = slurm_conf.authinfo,
			       .kill_wait = slurm_conf.kill_wait,
			       .max_frame = MAX_FRAME};
	if (!(c->rdv = rdv_create(&cfg, &port))) {
		PMIXEV_ERROR("step %s: cannot start the rendezvous (munge "
			     "unavailable?)",
			     c->step_id);
		goto fail;
	}
	if (export_layout(c, info, env, port) < 0)
		goto fail;
	return c;
fail:
	rdv_destroy(c->rdv);
	free(c);
	return NULL;
}

int srun_step_fini(mpi_plugin_client_state_t *state)
{
	struct srun_step *c = state;
	int status;

	/* srun calls this with NULL after a failed prelaunch. */
	if (!c)
		return 0;
	status = rdv_stop(c->rdv);
	rdv_destroy(c->rdv);
	free(c);
	return status;
}
