/*
 * overlay/handshake.c - a stepd's links come up: hello to srun and its
 * address table, hello and welcome between child and parent, and the door
 * where children knock. On the agent thread.
 */
#include "config.h"

#include "overlay/handshake.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>

#include "overlay/admit.h"
#include "overlay/cred.h"
#include "pmixev_log.h"
#include "pmixev_proto.h"

/* Unauthenticated connections at the door: from one address, in all. */
#define DOOR_PER_ADDR 8
#define DOOR_TOTAL    64
/* Largest frame before a link is up: srun's address table, or a
 * parent's welcome (as small as a hello at the door). */
#define TABLE_MAX   (80u << 10)
#define WELCOME_MAX ADMIT_FRAME_MAX

struct handshake {
	struct handshake_cfg cfg;
	struct auth *auth;
	struct links *ls;
	struct admit *door;
	struct pmixev_table table; /* srun's, once it came */
	handshake_child_fn child_fn;
	void *child_ctx;
	/* The hello to the first parent, signed at the start: a node whose
	 * tasks all end at once loses its signer (the owner helper ends with
	 * them) before srun's table tells it where its parent is. */
	struct {
		char *cred; /* NULL: none (used, or not made) */
		size_t len;
		uint32_t to;
		uint64_t nonce;
		uint64_t made_ms;
	} spare;
};

/* Older than this, a made hello may outlive munge's credential TTL
 * (300 s by default). */
#define SPARE_MAX_AGE_MS 240000

struct handshake *handshake_create(const struct handshake_cfg *cfg,
				   struct auth *auth, struct links *ls)
{
	struct handshake *hs = calloc(1, sizeof(*hs));

	if (!hs)
		return NULL;
	hs->cfg = *cfg;
	hs->auth = auth;
	hs->ls = ls;
	return hs;
}

void handshake_on_child(struct handshake *hs, handshake_child_fn fn, void *ctx)
{
	hs->child_fn = fn;
	hs->child_ctx = ctx;
}

bool handshake_has_table(const struct handshake *hs)
{
	return hs->table.nodes != NULL;
}

static struct pmixev_ident ident_to(const struct handshake *hs, uint32_t to)
{
	return (struct pmixev_ident){.job_id = hs->cfg.job_id,
				     .step_id = hs->cfg.step_id,
				     .from = hs->ls->self,
				     .to = to};
}

static int send_ident(struct handshake *hs, struct conn *c, uint8_t type,
		      const struct pmixev_ident *id)
{
	char err[256];

	if (cred_send_ident(hs->auth, c, type, id, err, sizeof(err)) == 0)
		return 0;
	/* Gone with the step's processes, most likely: not the user's news. */
	if (auth_signer_gone(hs->auth))
		PMIXEV_INFO("overlay: cannot send %s to %s: %s (killed with "
			    "the step's processes at its end?)",
			    pmixev_msg_type_name(type), conn_peer(c), err);
	else
		PMIXEV_ERROR("overlay: cannot send %s to %s: %s",
			     pmixev_msg_type_name(type), conn_peer(c), err);
	return -1;
}

/* A stepd's hello or welcome. Tree members are stepds: their credentials
 * come from the root signer (auth.c); the job owner's never joins. */
static int check_stepd(struct handshake *hs, struct conn *c,
		       const uint8_t *data, size_t len, struct pmixev_ident *id)
{
	const struct cred_rule rule = {.uid = hs->cfg.slurmd_uid,
				       .job_id = hs->cfg.job_id,
				       .step_id = hs->cfg.step_id,
				       .to = hs->ls->self};
	char why[256];

	if (cred_check_ident(hs->auth, data, len, &rule, id, why,
			     sizeof(why)) == 0)
		return 0;
	PMIXEV_ERROR("overlay: rejecting %s: %s", conn_peer(c), why);
	return -1;
}

int handshake_connect_parent(struct handshake *hs)
{
	struct link *p = &hs->ls->parent;
	const struct pmixev_table_entry *e = &hs->table.nodes[p->peer];
	struct pmixev_ident id = ident_to(hs, p->peer);

	if (getrandom(&p->nonce, sizeof(p->nonce), 0) < 0) {
		PMIXEV_ERROR("overlay: no nonce for the hello to node %u: %m",
			     p->peer);
		return -1;
	}
	id.nonce = p->nonce;
	if (link_dial(p, e->host, e->port, WELCOME_MAX) < 0)
		return -1;
	if (hs->spare.cred && hs->spare.to == p->peer &&
	    link_now_ms() - hs->spare.made_ms < SPARE_MAX_AGE_MS) {
		int rc;

		p->nonce = hs->spare.nonce;
		rc = cred_send_made(p->conn, PMIXEV_MSG_PEER_HELLO, id.from,
				    id.to, hs->spare.cred, hs->spare.len);
		free(hs->spare.cred); /* munge takes a credential once */
		hs->spare.cred = NULL;
		return rc;
	}
	return send_ident(hs, p->conn, PMIXEV_MSG_PEER_HELLO, &id);
}

/* Sign the hello to the first parent now, while the signer runs. */
static void make_spare(struct handshake *hs)
{
	uint32_t to = hs->ls->parent.peer;
	struct pmixev_ident id = ident_to(hs, to);
	char err[256];

	if (to == PMIXEV_TREE_NONE ||
	    getrandom(&id.nonce, sizeof(id.nonce), 0) < 0)
		return;
	if (cred_make_ident(hs->auth, &id, &hs->spare.cred, &hs->spare.len, err,
			    sizeof(err)) < 0) {
		PMIXEV_DEBUG(1, "overlay: no hello made ahead for node %u: %s",
			     to, err);
		return;
	}
	hs->spare.to = to;
	hs->spare.nonce = id.nonce;
	hs->spare.made_ms = link_now_ms();
}

/*
 * srun runs as the job's owner, who could make its table send this root
 * process anywhere: each node's entry must be one of that node's own
 * addresses (slurm.conf), or the step fails here.
 */
static int table_nodes_ok(const struct handshake *hs,
			  const struct pmixev_table *t)
{
	char known[256];

	for (uint32_t i = 0; i < t->nnodes; i++) {
		const struct pmixev_table_entry *e = &t->nodes[i];

		if (addrs_node_has_text(hs->cfg.nodes, i, e->host))
			continue;
		PMIXEV_ERROR("overlay: refusing srun's address table: it "
			     "gives node %u the address %.64s:%u, which is "
			     "not that node's (slurm.conf: %s); the step "
			     "cannot wire up",
			     i, e->host, e->port,
			     addrs_node_text(hs->cfg.nodes, i, known,
					     sizeof(known)));
		return -1;
	}
	return 0;
}

static int check_table(struct handshake *hs, struct conn *c,
		       const uint8_t *data, size_t len, struct pmixev_table *t)
{
	struct pmixev_buf b;
	void *payload = NULL;
	size_t plen = 0;
	char why[256];
	int rc = -1;

	/* srun runs as the job owner: its credential is the owner's. */
	if (cred_open(hs->auth, data, len, hs->cfg.job_uid, &payload, &plen,
		      why, sizeof(why)) < 0) {
		PMIXEV_ERROR("overlay: rejecting the address table from %s: "
			     "%s",
			     conn_peer(c), why);
		return -1;
	}
	pmixev_buf_reader(&b, payload, plen);
	if (pmixev_table_unpack(&b, t) < 0)
		PMIXEV_ERROR("overlay: malformed address table from srun");
	else if (t->job_id != hs->cfg.job_id || t->step_id != hs->cfg.step_id ||
		 t->nnodes != hs->cfg.nnodes)
		PMIXEV_ERROR("overlay: srun's address table is for step "
			     "%u.%u with %u nodes",
			     t->job_id, t->step_id, t->nnodes);
	else
		rc = table_nodes_ok(hs, t);
	free(payload);
	return rc;
}

static int on_table(struct handshake *hs, struct link *l, const uint8_t *data,
		    size_t len)
{
	struct pmixev_table t = {0};

	if (handshake_has_table(hs)) {
		PMIXEV_ERROR("overlay: srun sent a second address table");
		return -1;
	}
	if (check_table(hs, l->conn, data, len, &t) < 0) {
		free(t.nodes);
		return -1;
	}
	hs->table = t;
	link_up(l); /* frames for srun waited for the handshake */
	PMIXEV_DEBUG(1, "overlay: address table received (%u nodes)", t.nnodes);
	if (hs->ls->parent.peer != PMIXEV_TREE_NONE &&
	    handshake_connect_parent(hs) < 0)
		return -1;
	return 0;
}

static int on_welcome(struct handshake *hs, struct link *l, const uint8_t *data,
		      size_t len)
{
	struct pmixev_ident id;

	if (check_stepd(hs, l->conn, data, len, &id) < 0)
		return -1;
	if (id.from != l->peer || id.nonce != l->nonce) {
		PMIXEV_ERROR("overlay: rejecting %s: welcome from node %u "
			     "does not answer our hello",
			     conn_peer(l->conn), id.from);
		return -1;
	}
	link_up(l);
	PMIXEV_DEBUG(1, "overlay: connected to parent node %u (%s)", l->peer,
		     conn_peer(l->conn));
	return 0;
}

int handshake_frame(struct handshake *hs, struct link *l,
		    const struct pmixev_frame_hdr *hdr, const uint8_t *payload)
{
	if (l->role == LINK_SRUN && hdr->type == PMIXEV_MSG_RDV_TABLE)
		return on_table(hs, l, payload, hdr->len);
	if (l->role == LINK_PARENT && hdr->type == PMIXEV_MSG_PEER_WELCOME)
		return on_welcome(hs, l, payload, hdr->len);
	PMIXEV_ERROR("overlay: unexpected %s from %s %s",
		     pmixev_msg_type_name(hdr->type), link_role_name(l->role),
		     conn_peer(l->conn));
	return -1;
}

static void bye(struct conn *c, void *arg);

static int on_hello(struct handshake *hs, struct conn *c, const uint8_t *data,
		    size_t len)
{
	struct pmixev_ident id, reply;
	struct link *child;
	const char *why = "";

	if (check_stepd(hs, c, data, len, &id) < 0)
		return -1;
	if (!(child = hs->child_fn(hs->child_ctx, id.from, &why))) {
		PMIXEV_ERROR("overlay: rejecting %s: node %u is %s",
			     conn_peer(c), id.from, why);
		return -1;
	}
	reply = ident_to(hs, id.from);
	reply.nonce = id.nonce;
	if (send_ident(hs, c, PMIXEV_MSG_PEER_WELCOME, &reply) < 0) {
		/* Tasks that ended before their node's tree was up: the
		 * signer went with them, and this node's end is near. */
		if (hs->ls->ending)
			bye(c, hs);
		return -1;
	}
	admit_take(hs->door, c);
	link_attach(child, c);
	link_up(child);
	PMIXEV_DEBUG(1, "overlay: child node %u connected (%s)", child->peer,
		     conn_peer(c));
	return 0;
}

static int on_door_frame(void *ctx, struct conn *c,
			 const struct pmixev_frame_hdr *hdr,
			 const uint8_t *payload)
{
	if (hdr->type == PMIXEV_MSG_PEER_HELLO)
		return on_hello(ctx, c, payload, hdr->len);
	/* A child whose part of the step ended before its hello went out. */
	if (hdr->type == PMIXEV_MSG_BYE) {
		PMIXEV_DEBUG(1, "overlay: %s said goodbye before its hello",
			     conn_peer(c));
		return -1;
	}
	PMIXEV_ERROR("overlay: unexpected %s from unauthenticated peer %s",
		     pmixev_msg_type_name(hdr->type), conn_peer(c));
	return -1;
}

int handshake_start(struct handshake *hs)
{
	const struct admit_cfg door = {.name = "overlay",
				       .allowed = hs->cfg.nodes,
				       .per_addr = DOOR_PER_ADDR,
				       .total = DOOR_TOTAL,
				       .on_frame = on_door_frame,
				       .ctx = hs};
	struct link *srun = &hs->ls->srun;
	struct pmixev_ident id = ident_to(hs, PMIXEV_NODE_SRUN);

	if (!(hs->door = admit_create(hs->ls->base, &door))) {
		PMIXEV_ERROR("overlay: cannot listen: %m");
		return -1;
	}
	if (link_dial(srun, hs->cfg.srun_host, hs->cfg.srun_port, TABLE_MAX) <
	    0)
		return -1;
	/* Our address: the one that routes to srun. */
	if (conn_local_host(srun->conn, id.host, sizeof(id.host)) < 0) {
		PMIXEV_ERROR("overlay: cannot determine the local address of "
			     "the connection to srun");
		return -1;
	}
	id.port = admit_port(hs->door);
	PMIXEV_DEBUG(1, "overlay: listening on %s:%u, node %u of %u", id.host,
		     id.port, hs->ls->self, hs->cfg.nnodes);
	if (send_ident(hs, srun->conn, PMIXEV_MSG_RDV_HELLO, &id) < 0)
		return -1;
	make_spare(hs);
	return 0;
}

static void bye(struct conn *c, void *arg)
{
	struct handshake *hs = arg;

	conn_send(c, PMIXEV_MSG_BYE, hs->ls->self, 0, NULL, 0);
	conn_finish(c);
}

void handshake_leave(struct handshake *hs)
{
	if (hs->door)
		admit_each(hs->door, bye, hs);
}

void handshake_destroy(struct handshake *hs)
{
	if (!hs)
		return;
	admit_destroy(hs->door);
	free(hs->spare.cred);
	free(hs->table.nodes);
	free(hs);
}
