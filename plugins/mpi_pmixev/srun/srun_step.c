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

#define MAX_FRAME (1u << 20) /* handshakes, aborts, spawn requests */

extern char **environ;

struct srun_step {
	char step_id[32];
	struct rdv *rdv;
	struct pmixev_taskmap map; /* for the spawns' checks */
	struct spawns_cfg spawn_cfg;
	struct spawns *spawns; /* the child steps this step spawns */
	struct hub_up *hub;    /* the parent srun, when spawned */
};

/* --- the spawn family, on the rendezvous' agent thread ------------------ */

static int send_node(void *ctx, uint32_t node, uint8_t type,
		     const struct pmixev_buf *body)
{
	struct srun_step *c = ctx;

	return rdv_send(c->rdv, node, type, body->data, body->len);
}

/* --- publish/lookup across the family: route by the XSTEP header ------ */

/* The family root's node 0 gets a request with itself as destination. */
static int to_node0(struct srun_step *c, const struct pmixev_xstep_hdr *h,
		    const uint8_t *data, size_t len)
{
	struct pmixev_xstep_hdr t = *h;
	struct pmixev_buf b;
	int rc;

	t.dst_job = c->spawn_cfg.job_id;
	t.dst_step = c->spawn_cfg.step_id;
	t.dst_node = 0;
	pmixev_buf_init(&b);
	rc = pmixev_xstep_hdr_pack(&b, &t);
	pmixev_buf_put_raw(&b, data + PMIXEV_XSTEP_HDR_LEN,
			   len - PMIXEV_XSTEP_HDR_LEN);
	if (rc == 0 && pmixev_buf_ok(&b))
		rc = rdv_send(c->rdv, 0, PMIXEV_MSG_XSTEP, b.data, b.len);
	else
		rc = -1;
	pmixev_buf_release(&b);
	return rc;
}

/* A request with no way on goes back to its source unchanged, which
 * fails it at once (PMIXEV_ERR_UNREACH). */
static void bounce(struct srun_step *c, const struct pmixev_xstep_hdr *h,
		   const uint8_t *data, size_t len)
{
	int rc;

	if (h->src_job == c->spawn_cfg.job_id &&
	    h->src_step == c->spawn_cfg.step_id)
		rc = h->src_node < c->map.nnodes
			     ? rdv_send(c->rdv, h->src_node, PMIXEV_MSG_XSTEP,
					data, len)
			     : -1;
	else
		rc = spawns_pass_down(c->spawns, h->src_job, h->src_step, data,
				      len);
	if (rc < 0)
		PMIXEV_ERROR("step %s: a publish/lookup request of step %u.%u "
			     "node %u is lost: no way on nor back",
			     c->step_id, h->src_job, h->src_step, h->src_node);
}

static void pubsub_route(struct srun_step *c, enum pmixev_xstep_from from,
			 uint32_t node, const uint8_t *data, size_t len)
{
	enum pmixev_xstep_hop hop = PMIXEV_XSTEP_HOP_DROP;
	bool req = false, back = from == PMIXEV_XSTEP_FROM_PARENT;
	struct pmixev_xstep_hdr h;
	struct pmixev_buf b;

	pmixev_buf_reader(&b, data, len);
	if (pmixev_xstep_hdr_unpack(&b, &h) == 0) {
		hop = pmixev_xstep_pubsub_hop(
			&h, from, node, c->spawn_cfg.job_id,
			c->spawn_cfg.step_id, c->hub != NULL);
		req = h.inner == PMIXEV_XSTEP_PUBSUB_REQ;
	}
	switch (hop) {
	case PMIXEV_XSTEP_HOP_UP:
		if (hub_up_pass(c->hub, data, len) < 0)
			bounce(c, &h, data, len);
		return;
	case PMIXEV_XSTEP_HOP_NODE:
		if (req && back)
			bounce(c, &h, data, len);
		else if (req && to_node0(c, &h, data, len) < 0)
			bounce(c, &h, data, len);
		else if (!req && (h.dst_node >= c->map.nnodes ||
				  rdv_send(c->rdv, h.dst_node, PMIXEV_MSG_XSTEP,
					   data, len) < 0))
			PMIXEV_ERROR("step %s: a publish/lookup answer for "
				     "node %u is lost",
				     c->step_id, h.dst_node);
		return;
	case PMIXEV_XSTEP_HOP_CHILD:
		if (req)
			bounce(c, &h, data, len);
		else
			spawns_pass_down(c->spawns, h.dst_job, h.dst_step, data,
					 len);
		return;
	default:
		PMIXEV_ERROR("step %s: a publish/lookup frame from %s dropped: "
			     "not one this srun passes",
			     c->step_id,
			     from == PMIXEV_XSTEP_FROM_NODE ? "a node"
			     : from == PMIXEV_XSTEP_FROM_PARENT
				     ? "the parent srun"
				     : "a child srun");
	}
}

static void pubsub_from_child(void *ctx, const uint8_t *data, size_t len)
{
	pubsub_route(ctx, PMIXEV_XSTEP_FROM_CHILD, 0, data, len);
}

static void pubsub_from_parent(void *ctx, const uint8_t *data, size_t len)
{
	pubsub_route(ctx, PMIXEV_XSTEP_FROM_PARENT, 0, data, len);
}

/* An XSTEP of a PUBSUB type. */
static bool is_pubsub(const uint8_t *data, size_t len)
{
	return len >= PMIXEV_XSTEP_HDR_LEN &&
	       (data[PMIXEV_XSTEP_HDR_LEN - 1] == PMIXEV_XSTEP_PUBSUB_REQ ||
		data[PMIXEV_XSTEP_HDR_LEN - 1] == PMIXEV_XSTEP_PUBSUB_RESP);
}

static void family_setup(void *ctx, struct event_base *base)
{
	struct srun_step *c = ctx;

	if (c->hub)
		hub_up_on_pubsub(c->hub, pubsub_from_parent, c);
	c->spawns = spawns_create(base, &c->spawn_cfg);
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
	case PMIXEV_MSG_NODE_READY: /* not spawned: nobody waits for it */
		return c->hub ? hub_up_node_ready(c->hub, node, data, len) : 0;
	case PMIXEV_MSG_XSTEP:
		if (is_pubsub(data, len)) {
			pubsub_route(c, PMIXEV_XSTEP_FROM_NODE, node, data,
				     len);
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
				    .pubsub = pubsub_from_child};
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
