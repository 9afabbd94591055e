/*
 * client.c - srun side of mpi/pmixev.
 */
#include "config.h"

#include "client.h"

#include <stdlib.h>

#include "pmixev_conf.h"
#include "pmixev_log.h"
#include "pmixev_step.h"

extern char **environ;

struct client {
	char step_id[32];
};

mpi_plugin_client_state_t *
client_prelaunch(const mpi_plugin_client_info_t *info, char ***env)
{
	struct client *c = NULL;
	struct pmixev_conf conf;
	char err[256];

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
		free(c);
		return NULL;
	}
	return c;
}

int client_fini(mpi_plugin_client_state_t *state)
{
	free(state);
	return 0;
}
