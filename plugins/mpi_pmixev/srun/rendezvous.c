/*
 * srun/rendezvous.c - srun's rendezvous and abort listener.
 */
#include "config.h"

#include "srun/rendezvous.h"

#include <netinet/in.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/listener.h>

#include "slurm_compat.h"

#include "base/agent.h"
#include "overlay/auth.h"
#include "overlay/conn.h"
#include "overlay/cred.h"
#include "pmixev_log.h"
#include "pmixev_proto.h"
#include "pmixev_step.h"

/* Before its hello is accepted a connection may send one small frame
 * within a short time; unauthenticated ones are bounded. */
#define HELLO_MAX		(8u << 10)
#define HELLO_TIMEOUT_SEC	5
#define MAX_PENDING_PER_SRC	16
#define MAX_PENDING_BEYOND_STEP 64 /* ... on top of one per node */

struct peer {
	struct rdv *rdv;
	struct conn *conn;
	uint32_t node;	     /* PMIXEV_NODE_ANY until its hello is accepted */
	struct event *timer; /* the hello's deadline, until then */
	struct peer *prev, *next;
};

struct rdv {
	struct rdv_cfg cfg;
	char step[32];
	struct agent *agent;
	struct auth *auth;
	struct evconnlistener *listener;
	struct peer *all;    /* every connection */
	struct peer **peers; /* [nnodes], by node id once identified */
	struct pmixev_table table;
	uint32_t nhello;
	struct event *kill_timer;
	/* written on the agent thread, read by srun after rdv_destroy */
	int abort_status;
	bool aborted;
};

static void peer_free(struct peer *p)
{
	struct rdv *rdv = p->rdv;

	if (p->node < rdv->cfg.nnodes && rdv->peers[p->node] == p)
		rdv->peers[p->node] = NULL;
	if (p->prev)
		p->prev->next = p->next;
	else
		rdv->all = p->next;
	if (p->next)
		p->next->prev = p->prev;
	if (p->timer)
		event_free(p->timer);
	conn_destroy(p->conn);
	free(p);
}

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
		if (!rdv->peers[i])
			continue; /* that stepd already ended */
		if (cred_send(rdv->auth, rdv->peers[i]->conn,
			      PMIXEV_MSG_RDV_TABLE, PMIXEV_NODE_SRUN, i,
			      body.data, body.len, err, sizeof(err)) < 0)
			PMIXEV_ERROR("step %s: cannot send the address table "
				     "to node %u: %s",
				     rdv->step, i, err);
	}
out:
	pmixev_buf_release(&body);
}

static int on_hello(struct peer *p, const uint8_t *data, size_t len)
{
	struct rdv *rdv = p->rdv;
	/* Stepds sign as root (their signer, auth.c): the job owner's
	 * programs cannot pass for one. */
	const struct cred_rule rule = {.uid = rdv->cfg.slurmd_uid,
				       .job_id = rdv->cfg.job_id,
				       .step_id = rdv->cfg.step_id,
				       .to = PMIXEV_NODE_SRUN};
	struct pmixev_ident id;
	char why[256];

	if (cred_check_ident(rdv->auth, data, len, &rule, &id, why,
			     sizeof(why)) < 0) {
		PMIXEV_ERROR("step %s: rejecting %s: %s", rdv->step,
			     conn_peer(p->conn), why);
		return -1;
	}
	if (id.from >= rdv->cfg.nnodes || !id.port || !id.host[0]) {
		PMIXEV_ERROR("step %s: rejecting %s: not a stepd of this step",
			     rdv->step, conn_peer(p->conn));
		return -1;
	}
	if (rdv->peers[id.from]) {
		PMIXEV_ERROR("step %s: rejecting %s: node %u said hello twice",
			     rdv->step, conn_peer(p->conn), id.from);
		return -1;
	}
	p->node = id.from;
	rdv->peers[id.from] = p;
	event_free(p->timer);
	p->timer = NULL;
	conn_set_max_len(p->conn, rdv->cfg.max_frame);
	snprintf(rdv->table.nodes[id.from].host,
		 sizeof(rdv->table.nodes[id.from].host), "%s", id.host);
	rdv->table.nodes[id.from].port = id.port;
	if (++rdv->nhello == rdv->cfg.nnodes)
		send_tables(rdv);
	return 0;
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
	if (rdv->aborted)
		return 0;
	rdv->aborted = true;
	rdv->abort_status = m.status;
	pmixev_slurm_signal_step(rdv->cfg.job_id, rdv->cfg.step_id, SIGTERM);
	rdv->kill_timer =
		evtimer_new(agent_base(rdv->agent), on_kill_timer, rdv);
	if (rdv->kill_timer)
		evtimer_add(rdv->kill_timer, &tv);
	return 0;
}

static int on_frame(struct conn *c, const struct pmixev_frame_hdr *hdr,
		    const uint8_t *payload, void *ctx)
{
	struct peer *p = ctx;

	if (p->node == PMIXEV_NODE_ANY) {
		if (hdr->type == PMIXEV_MSG_RDV_HELLO)
			return on_hello(p, payload, hdr->len);
	} else if (hdr->type == PMIXEV_MSG_ABORT) {
		return on_abort(p, payload, hdr->len);
	}
	PMIXEV_ERROR("step %s: unexpected %s from %s", p->rdv->step,
		     pmixev_msg_type_name(hdr->type), conn_peer(c));
	return -1;
}

static void on_close(struct conn *c, enum conn_close reason, const char *why,
		     void *ctx)
{
	struct peer *p = ctx;

	PMIXEV_DEBUG(1, "step %s: stepd connection %s closed: %s", p->rdv->step,
		     conn_peer(c), why);
	p->conn = NULL;
	peer_free(p);
}

static void on_hello_timeout(evutil_socket_t fd, short what, void *arg)
{
	struct peer *p = arg;

	PMIXEV_ERROR("step %s: dropping %s: no valid hello within %d s",
		     p->rdv->step, conn_peer(p->conn), HELLO_TIMEOUT_SEC);
	peer_free(p);
}

/* Why a new unauthenticated connection from `host` is one too many, or
 * NULL. */
static const char *too_many(const struct rdv *rdv, const char *host)
{
	uint32_t all = 0, here = 0;

	for (const struct peer *q = rdv->all; q; q = q->next) {
		if (q->node != PMIXEV_NODE_ANY)
			continue;
		all++;
		here += strcmp(conn_peer_host(q->conn), host) == 0;
	}
	if (here >= MAX_PENDING_PER_SRC)
		return "too many unauthenticated connections from its address";
	if (all >= rdv->cfg.nnodes + MAX_PENDING_BEYOND_STEP)
		return "too many unauthenticated connections";
	return NULL;
}

static void on_accept(struct evconnlistener *lis, evutil_socket_t fd,
		      struct sockaddr *sa, int salen, void *arg)
{
	struct rdv *rdv = arg;
	struct timeval tv = {HELLO_TIMEOUT_SEC, 0};
	struct peer *p = calloc(1, sizeof(*p));
	const char *why;

	if (!p) {
		evutil_closesocket(fd);
		return;
	}
	p->rdv = rdv;
	p->node = PMIXEV_NODE_ANY;
	p->conn = conn_create(agent_base(rdv->agent), fd, sa, (socklen_t)salen,
			      HELLO_MAX, on_frame, on_close, p);
	if (!p->conn) {
		free(p);
		return;
	}
	if ((why = too_many(rdv, conn_peer_host(p->conn)))) {
		PMIXEV_ERROR("step %s: refusing %s: %s", rdv->step,
			     conn_peer(p->conn), why);
		conn_destroy(p->conn);
		free(p);
		return;
	}
	p->next = rdv->all;
	if (p->next)
		p->next->prev = p;
	rdv->all = p;
	p->timer = evtimer_new(agent_base(rdv->agent), on_hello_timeout, p);
	if (!p->timer || evtimer_add(p->timer, &tv) < 0)
		peer_free(p);
}

struct rdv *rdv_create(const struct rdv_cfg *cfg, uint16_t *port)
{
	struct sockaddr_in sin = {.sin_family = AF_INET};
	struct sockaddr_storage ss;
	socklen_t sslen = sizeof(ss);
	struct rdv *rdv = calloc(1, sizeof(*rdv));

	if (!rdv)
		return NULL;
	rdv->cfg = *cfg;
	rdv->cfg.authinfo = NULL;
	pmixev_step_id_format(cfg->job_id, cfg->step_id, rdv->step,
			      sizeof(rdv->step));
	rdv->table = (struct pmixev_table){.job_id = cfg->job_id,
					   .step_id = cfg->step_id,
					   .nnodes = cfg->nnodes};
	rdv->peers = calloc(cfg->nnodes, sizeof(*rdv->peers));
	rdv->table.nodes = calloc(cfg->nnodes, sizeof(*rdv->table.nodes));
	if (!rdv->peers || !rdv->table.nodes ||
	    !(rdv->auth = auth_create(cfg->authinfo, false)) ||
	    !(rdv->agent = agent_create()))
		goto fail;
	rdv->listener = evconnlistener_new_bind(
		agent_base(rdv->agent), on_accept, rdv,
		LEV_OPT_CLOSE_ON_FREE | LEV_OPT_CLOSE_ON_EXEC, 128,
		(struct sockaddr *)&sin, sizeof(sin));
	if (!rdv->listener ||
	    getsockname(evconnlistener_get_fd(rdv->listener),
			(struct sockaddr *)&ss, &sslen) < 0 ||
	    agent_start(rdv->agent) < 0)
		goto fail;
	*port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
	return rdv;
fail:
	rdv_destroy(rdv);
	return NULL;
}

int rdv_stop(struct rdv *rdv)
{
	agent_stop(rdv->agent);
	return rdv->aborted ? rdv->abort_status : 0;
}

void rdv_destroy(struct rdv *rdv)
{
	if (!rdv)
		return;
	/* Stop the thread first: everything below is its state. */
	if (rdv->agent)
		agent_stop(rdv->agent);
	while (rdv->all)
		peer_free(rdv->all);
	if (rdv->kill_timer)
		event_free(rdv->kill_timer);
	if (rdv->listener)
		evconnlistener_free(rdv->listener);
	agent_destroy(rdv->agent);
	auth_destroy(rdv->auth);
	free(rdv->peers);
	free(rdv->table.nodes);
	free(rdv);
}
