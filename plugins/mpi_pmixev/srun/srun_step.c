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
#include "pmixev_frame.h"
#include "pmixev_log.h"
#include "pmixev_multiprog.h"
#include "pmixev_step.h"
#include "pmixev_taskmap.h"
#include "pmixev_xstep.h"
#include "srun/hub_up.h"
#include "srun/rendezvous.h"
#include "srun/spawn.h"
#include "srun/xroute.h"

#define MAX_FRAME (1u << 20) /* handshakes, aborts, spawn requests */

extern char **environ;

struct srun_step {
	char step_id[32];
	struct rdv *rdv;
	struct pmixev_taskmap map; /* for the spawns' checks */
	struct spawns_cfg spawn_cfg;
	struct spawns *spawns; /* the child steps this step spawns */
	struct hub_up *hub;    /* the parent srun, when spawned */
	struct xroute route;   /* the family's frames through this srun */
};

/* --- the spawn family, on the rendezvous' agent thread ------------------ */

static int send_node(void *ctx, uint32_t node, uint8_t type,
		     const struct pmixev_buf *body)
{
	struct srun_step *c = ctx;

	return rdv_send(c->rdv, node, type, body->data, body->len);
}

static void from_child(void *ctx, const uint8_t *data, size_t len)
{
	struct srun_step *c = ctx;

	xroute_frame(&c->route, PMIXEV_XSTEP_FROM_CHILD, 0, data, len);
}

static void from_parent(void *ctx, const uint8_t *data, size_t len)
{
	struct srun_step *c = ctx;

	xroute_frame(&c->route, PMIXEV_XSTEP_FROM_PARENT, 0, data, len);
}

static void family_setup(void *ctx, struct event_base *base)
{
	struct srun_step *c = ctx;

	if (c->hub)
		hub_up_on_xstep(c->hub, from_parent, c);
	c->spawns = spawns_create(base, &c->spawn_cfg);
	c->route.spawns = c->spawns;
	if (c->hub && hub_up_start(c->hub, base) < 0)
		PMIXEV_ERROR("step %s: cannot say hello to the parent srun; "
			     "the spawn that started this step will fail",
			     c->step_id);
}

static int family_frame(void *ctx, uint32_t node, uint8_t type,
			const uint8_t *data, size_t len)
{
	struct srun_step *c = ctx;

	switch (type) {
	case PMIXEV_MSG_SPAWN_REQ:
		return c->spawns ? spawns_request(c->spawns, node, data, len)
				 : -1;
	case PMIXEV_MSG_SPAWN_CANCEL:
		return c->spawns ? spawns_cancel(c->spawns, node, data, len)
				 : -1;
	case PMIXEV_MSG_NSPACE_ACK:
		return c->spawns ? spawns_nspace_ack(c->spawns, node, data, len)
				 : 0;
	case PMIXEV_MSG_NODE_READY: /* not spawned: nobody waits for it */
		return c->hub ? hub_up_node_ready(c->hub, node, data, len) : 0;
	case PMIXEV_MSG_XSTEP:
		if (xroute_takes(data, len)) {
			xroute_frame(&c->route, PMIXEV_XSTEP_FROM_NODE, node,
				     data, len);
			return 0;
		}
		return c->hub ? hub_up_xstep(c->hub, node, data, len) : 0;
	default:
		return -1;
	}
}

static void family_gone(void *ctx, uint32_t node)
{
	struct srun_step *c = ctx;

	spawns_node_gone(c->spawns, node);
	if (c->hub)
		hub_up_node_gone(c->hub, node);
}

/* --- srun's main thread --------------------------------------------------- */

/* What the spawns need of this step. 0, or -1 (logged). */
static int spawn_setup(struct srun_step *c,
		       const mpi_plugin_client_info_t *info,
		       const struct pmixev_conf *conf, char ***env)
{
	const slurm_step_layout_t *sl = info->step_layout;
	const char *name = getenv("SLURM_JOB_NAME");
	char *text = pmixev_taskmap_format(sl->node_cnt, sl->tasks, sl->tids);
	char err[256];
	int rc;

	rc = text ? pmixev_taskmap_parse(&c->map, text, sl->node_cnt,
					 sl->task_cnt, err, sizeof(err))
		  : -1;
	free(text);
	if (rc < 0) {
		PMIXEV_ERROR("step %s: cannot read its own task layout",
			     c->step_id);
		return -1;
	}
	c->spawn_cfg =
		(struct spawns_cfg){.job_id = info->step_id.job_id,
				    .step_id = info->step_id.step_id,
				    .job_name = name && *name ? name : "pmixev",
				    .map = &c->map,
				    .timeout_max = conf->timeout_sec,
				    .kill_wait = slurm_conf.kill_wait,
				    .send = send_node,
				    .send_ctx = c,
				    .route = from_child};
	c->hub = hub_up_create(info->step_id.job_id, info->step_id.step_id,
			       sl->node_cnt, env, err, sizeof(err));
	if (!c->hub && err[0]) {
		PMIXEV_ERROR("step %s: refusing to start as a spawned step: %s",
			     c->step_id, err);
		return -1;
	}
	return 0;
}

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
	if (spawn_setup(c, info, &conf, env) < 0)
		goto fail;
	c->route = (struct xroute){.step_id = c->step_id,
				   .job = info->step_id.job_id,
				   .step = info->step_id.step_id,
				   .nnodes = info->step_layout->node_cnt,
				   .hub = c->hub};
	cfg = (struct rdv_cfg){.job_id = info->step_id.job_id,
			       .step_id = info->step_id.step_id,
			       .nnodes = info->step_layout->node_cnt,
			       .node_list = info->step_layout->node_list,
			       .slurmd_uid = slurm_conf.slurmd_user_id,
			       .authinfo = slurm_conf.authinfo,
			       .kill_wait = slurm_conf.kill_wait,
			       .max_frame = MAX_FRAME,
			       .setup = family_setup,
			       .on_frame = family_frame,
			       .on_gone = family_gone,
			       .ctx = c};
	if (!(c->rdv = rdv_create(&cfg, &port))) {
		PMIXEV_ERROR("step %s: cannot start the rendezvous (munge "
			     "unavailable?)",
			     c->step_id);
		goto fail;
	}
	/* No stepd can send before export_layout gives them the port. */
	c->route.rdv = c->rdv;
	if (export_layout(c, info, env, port) < 0)
		goto fail;
	return c;
fail:
	rdv_destroy(c->rdv);
	spawns_destroy(c->spawns);
	hub_up_destroy(c->hub);
	pmixev_taskmap_free(&c->map);
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
	spawns_wait(c->spawns, rdv_aborted(c->rdv));
	status = rdv_stop(c->rdv);
	rdv_destroy(c->rdv);
	spawns_destroy(c->spawns);
	hub_up_destroy(c->hub);
	pmixev_taskmap_free(&c->map);
	free(c);
	return status;
}
