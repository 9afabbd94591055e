/*
 * srun/rendezvous.c - srun's rendezvous and abort listener, on the agent
 * thread it starts in srun (the door and the credentials are the
 * overlay's: overlay/admit.c, overlay/cred.c).
 */
#include "config.h"

#include "srun/rendezvous.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slurm_compat.h"

#include "base/agent.h"
#include "overlay/admit.h"
#include "overlay/auth.h"
#include "overlay/conn.h"
#include "overlay/cred.h"
#include "overlay/nodeaddr.h"
#include "pmixev_log.h"
#include "pmixev_proto.h"
#include "pmixev_step.h"

/* Unauthenticated connections (overlay/admit.h): from one address, and
 * in all on top of one per node. */
#define MAX_PENDING_PER_SRC	16
#define MAX_PENDING_BEYOND_STEP 64

/* A stepd whose hello was accepted. */
struct peer {
	struct rdv *rdv;
	struct conn *conn; /* NULL once it closed */
	uint32_t node;
};

struct rdv {
	struct rdv_cfg cfg;
	char step[32];
	char name[40]; /* "step 12.0", for the door's log lines */
	struct agent *agent;
	struct auth *auth;
	struct addrs *nodes; /* the step's node addresses */
	struct admit *door;
	struct peer *peers; /* [nnodes], by node id */
	struct pmixev_table table;
	uint32_t nhello;
	struct event *kill_timer;
	/* written on the agent thread, read by srun after rdv_destroy */
	int abort_status;
	atomic_bool aborted;
};

/*
 * One credential per stepd: munge refuses a credential decoded twice by
 * the same munged (and nodes may share one).
 */
static void send_tables(struct rdv *rdv)
{
	struct pmixev_buf body;
	char err[256];

	pmixev_buf_init(&body);
	if (pmixev_table_pack(&body, &rdv->table) < 0) {
		PMIXEV_ERROR("step %s: cannot pack the address table: out of "
			     "memory",
			     rdv->step);
		goto out;
	}
	for (uint32_t i = 0; i < rdv->cfg.nnodes; i++) {
		if (!rdv->peers[i].conn)
			continue; /* that stepd already ended */
		if (cred_send(rdv->auth, rdv->peers[i].conn,
			      PMIXEV_MSG_RDV_TABLE, PMIXEV_NODE_SRUN, i,
			      body.data, body.len, err, sizeof(err)) < 0)
			PMIXEV_ERROR("step %s: cannot send the address table "
				     "to node %u: %s",
				     rdv->step, i, err);
	}
out:
	pmixev_buf_release(&body);
}

static void on_kill_timer(evutil_socket_t fd, short what, void *arg)
{
	struct rdv *rdv = arg;

	pmixev_slurm_signal_step(rdv->cfg.job_id, rdv->cfg.step_id, SIGKILL);
}

static int on_abort(struct peer *p, const uint8_t *data, size_t len)
{
	struct rdv *rdv = p->rdv;
	struct timeval tv = {rdv->cfg.kill_wait, 0};
	struct pmixev_abort_msg m;
	struct pmixev_buf b;

	pmixev_buf_reader(&b, data, len);
	if (pmixev_abort_unpack(&b, &m) < 0) {
		PMIXEV_ERROR("step %s: malformed abort from node %u", rdv->step,
			     p->node);
		return -1;
	}
	PMIXEV_ERROR("step %s: rank %u called PMIx_Abort with status %d: %s",
		     rdv->step, m.rank, m.status, m.text);
	if (atomic_load(&rdv->aborted))
		return 0;
	atomic_store(&rdv->aborted, true);
	rdv->abort_status = m.status;
	pmixev_slurm_signal_step(rdv->cfg.job_id, rdv->cfg.step_id, SIGTERM);
	rdv->kill_timer =
		evtimer_new(agent_base(rdv->agent), on_kill_timer, rdv);
	if (rdv->kill_timer)
		evtimer_add(rdv->kill_timer, &tv);
	return 0;
}

/* A stepd's line for the user, printed by srun (control characters
 * shown as '?': it goes to a terminal). */
static int on_notice(struct peer *p, const uint8_t *data, size_t len)
{
	struct pmixev_notice_msg m;
	struct pmixev_buf b;

	pmixev_buf_reader(&b, data, len);
	if (pmixev_notice_unpack(&b, &m) < 0) {
		PMIXEV_ERROR("step %s: malformed notice from node %u",
			     p->rdv->step, p->node);
		return -1;
	}
	for (char *s = m.text; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			*s = '?';
	PMIXEV_ERROR("step %s: node %u: %s", p->rdv->step, p->node, m.text);
	return 0;
}

static int on_frame(struct conn *c, const struct pmixev_frame_hdr *hdr,
		    const uint8_t *payload, void *ctx)
{
	struct peer *p = ctx;

	if (hdr->type == PMIXEV_MSG_ABORT)
		return on_abort(p, payload, hdr->len);
	if (hdr->type == PMIXEV_MSG_NOTICE)
		return on_notice(p, payload, hdr->len);
	if (p->rdv->cfg.on_frame &&
	    p->rdv->cfg.on_frame(p->rdv->cfg.ctx, p->node, hdr->type, payload,
				 hdr->len) == 0)
		return 0;
	PMIXEV_ERROR("step %s: unexpected %s from node %u (%s)", p->rdv->step,
		     pmixev_msg_type_name(hdr->type), p->node, conn_peer(c));
	return -1;
}

static void on_close(struct conn *c, enum conn_close reason, const char *why,
		     void *ctx)
{
	struct peer *p = ctx;

	PMIXEV_DEBUG(1, "step %s: node %u's connection %s closed: %s",
		     p->rdv->step, p->node, conn_peer(c), why);
	p->conn = NULL;
	if (p->rdv->cfg.on_gone)
		p->rdv->cfg.on_gone(p->rdv->cfg.ctx, p->node);
}

static int on_hello(struct rdv *rdv, struct conn *c, const uint8_t *data,
		    size_t len)
{
	/* Stepds sign as root (their signer, auth.c): the job owner's
	 * programs cannot pass for one. */
	const struct cred_rule rule = {.uid = rdv->cfg.slurmd_uid,
				       .job_id = rdv->cfg.job_id,
				       .step_id = rdv->cfg.step_id,
				       .to = PMIXEV_NODE_SRUN};
	struct pmixev_ident id;
	struct peer *p;
	char why[256];

	if (cred_check_ident(rdv->auth, data, len, &rule, &id, why,
			     sizeof(why)) < 0) {
		PMIXEV_ERROR("step %s: rejecting %s: %s", rdv->step,
			     conn_peer(c), why);
		return -1;
	}
	if (id.from >= rdv->cfg.nnodes || !id.port || !id.host[0]) {
		PMIXEV_ERROR("step %s: rejecting %s: not a stepd of this step",
			     rdv->step, conn_peer(c));
		return -1;
	}
	p = &rdv->peers[id.from];
	if (p->conn) {
		PMIXEV_ERROR("step %s: rejecting %s: node %u said hello twice",
			     rdv->step, conn_peer(c), id.from);
		return -1;
	}
	admit_take(rdv->door, c);
	p->conn = c;
	conn_set_owner(c, on_frame, on_close, p);
	conn_set_max_len(c, rdv->cfg.max_frame);
	snprintf(rdv->table.nodes[id.from].host,
		 sizeof(rdv->table.nodes[id.from].host), "%s", id.host);
	rdv->table.nodes[id.from].port = id.port;
	if (++rdv->nhello == rdv->cfg.nnodes)
		send_tables(rdv);
	return 0;
}

static int on_door_frame(void *ctx, struct conn *c,
			 const struct pmixev_frame_hdr *hdr,
			 const uint8_t *payload)
{
	struct rdv *rdv = ctx;

	if (hdr->type == PMIXEV_MSG_RDV_HELLO)
		return on_hello(rdv, c, payload, hdr->len);
	PMIXEV_ERROR("step %s: unexpected %s from unauthenticated peer %s",
		     rdv->step, pmixev_msg_type_name(hdr->type), conn_peer(c));
	return -1;
}

struct rdv *rdv_create(const struct rdv_cfg *cfg, uint16_t *port)
{
	struct rdv *rdv = calloc(1, sizeof(*rdv));
	char err[256];
	struct admit_cfg door = {.per_addr = MAX_PENDING_PER_SRC,
				 .total = cfg->nnodes + MAX_PENDING_BEYOND_STEP,
				 .on_frame = on_door_frame};

	if (!rdv)
		return NULL;
	rdv->cfg = *cfg;
	rdv->cfg.authinfo = NULL;
	rdv->cfg.node_list = NULL;
	pmixev_step_id_format(cfg->job_id, cfg->step_id, rdv->step,
			      sizeof(rdv->step));
	snprintf(rdv->name, sizeof(rdv->name), "step %s", rdv->step);
	door.name = rdv->name;
	door.ctx = rdv;
	rdv->table = (struct pmixev_table){.job_id = cfg->job_id,
					   .step_id = cfg->step_id,
					   .nnodes = cfg->nnodes};
	rdv->peers = calloc(cfg->nnodes, sizeof(*rdv->peers));
	rdv->table.nodes = calloc(cfg->nnodes, sizeof(*rdv->table.nodes));
	if (!rdv->peers || !rdv->table.nodes)
		goto fail;
	if (!(rdv->nodes = nodeaddr_resolve_list(cfg->node_list, err,
						 sizeof(err)))) {
		PMIXEV_ERROR("step %s: cannot tell the step's node addresses: "
			     "%s",
			     rdv->step, err);
		goto fail;
	}
	door.allowed = rdv->nodes;
	for (uint32_t i = 0; i < cfg->nnodes; i++)
		rdv->peers[i] = (struct peer){.rdv = rdv, .node = i};
	if (!(rdv->auth = auth_create(cfg->authinfo, false)) ||
	    !(rdv->agent = agent_create()) ||
	    !(rdv->door = admit_create(agent_base(rdv->agent), &door)))
		goto fail;
	if (cfg->setup)
		cfg->setup(cfg->ctx, agent_base(rdv->agent));
	if (agent_start(rdv->agent) < 0)
		goto fail;
	*port = admit_port(rdv->door);
	return rdv;
fail:
	rdv_destroy(rdv);
	return NULL;
}

int rdv_send(struct rdv *rdv, uint32_t node, uint8_t type, const void *data,
	     size_t len)
{
	if (node >= rdv->cfg.nnodes || !rdv->peers[node].conn)
		return -1;
	return conn_send(rdv->peers[node].conn, type, PMIXEV_NODE_SRUN, node,
			 data, len);
}

bool rdv_aborted(const struct rdv *rdv)
{
	return rdv && atomic_load(&rdv->aborted);
}

int rdv_stop(struct rdv *rdv)
{
	/* A stepd's notice sent before its tasks' exits is printed. */
	agent_stop_after_look(rdv->agent);
	return atomic_load(&rdv->aborted) ? rdv->abort_status : 0;
}

void rdv_destroy(struct rdv *rdv)
{
	if (!rdv)
		return;
	/* Stop the thread first: everything below is its state. */
	if (rdv->agent)
		agent_stop(rdv->agent);
	for (uint32_t i = 0; rdv->peers && i < rdv->cfg.nnodes; i++)
		conn_destroy(rdv->peers[i].conn);
	admit_destroy(rdv->door);
	addrs_destroy(rdv->nodes);
	if (rdv->kill_timer)
		event_free(rdv->kill_timer);
	agent_destroy(rdv->agent);
	auth_destroy(rdv->auth);
	free(rdv->peers);
	free(rdv->table.nodes);
	free(rdv);
}
