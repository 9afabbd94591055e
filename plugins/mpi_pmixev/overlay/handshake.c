/*
 * overlay/handshake.c - the overlay's credentials and handshakes: hello to
 * srun and its address table, hello/welcome between parent and child.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "overlay/cred.h"
#include "overlay/overlay_int.h"
#include "pmixev_log.h"

int overlay_send_cred(struct overlay *ov, struct conn *c, uint8_t type,
		      const struct pmixev_ident *id)
{
	char err[256];

	if (cred_send_ident(ov->auth, c, type, id, err, sizeof(err)) == 0)
		return 0;
	PMIXEV_ERROR("overlay: cannot send %s to %s: %s",
		     pmixev_msg_type_name(type), conn_peer(c), err);
	return -1;
}

static int check_ident(struct overlay *ov, struct conn *c, const uint8_t *data,
		       size_t len, struct pmixev_ident *id)
{
	/* Tree members are stepds: their credentials come from the root
	 * signer (auth.c). The job owner's uid never joins the tree. */
	const struct cred_rule rule = {.uid = ov->cfg.slurmd_uid,
				       .job_id = ov->cfg.job_id,
				       .step_id = ov->cfg.step_id,
				       .to = ov->cfg.nodeid};
	char why[256];

	if (cred_check_ident(ov->auth, data, len, &rule, id, why,
			     sizeof(why)) == 0)
		return 0;
	PMIXEV_ERROR("overlay: rejecting %s: %s", conn_peer(c), why);
	return -1;
}

struct conn *overlay_dial(struct overlay *ov, struct link *l, const char *host,
			  uint16_t port)
{
	char err[256];

	l->conn = conn_dial(agent_base(ov->agent), host, port,
			    l->role == ROLE_SRUN ? TABLE_MAX : ADMIT_FRAME_MAX,
			    overlay_on_frame, overlay_on_close, l, err,
			    sizeof(err));
	if (!l->conn)
		PMIXEV_ERROR("overlay: cannot connect to %s %s:%u: %s",
			     overlay_role_name(l->role), host, port, err);
	return l->conn;
}

int overlay_connect_parent(struct overlay *ov)
{
	const struct pmixev_table_entry *e = &ov->table.nodes[ov->parent.peer];
	struct pmixev_ident id = {.job_id = ov->cfg.job_id,
				  .step_id = ov->cfg.step_id,
				  .from = ov->cfg.nodeid,
				  .to = ov->parent.peer};

	if (getrandom(&ov->parent.nonce, sizeof(ov->parent.nonce), 0) < 0)
		return -1;
	id.nonce = ov->parent.nonce;
	if (!overlay_dial(ov, &ov->parent, e->host, e->port))
		return -1;
	return overlay_send_cred(ov, ov->parent.conn, PMIXEV_MSG_PEER_HELLO,
				 &id);
}

int overlay_on_table(struct overlay *ov, struct conn *c, const uint8_t *data,
		     size_t len)
{
	struct pmixev_table t = {0};
	struct pmixev_buf b;
	void *payload = NULL;
	size_t plen = 0;
	char why[256];
	int rc = -1;

	if (ov->table.nodes) {
		PMIXEV_ERROR("overlay: srun sent a second address table");
		return -1;
	}
	/* srun runs as the job owner: its credential is the owner's. */
	if (cred_open(ov->auth, data, len, ov->cfg.job_uid, &payload, &plen,
		      why, sizeof(why)) < 0) {
		PMIXEV_ERROR("overlay: rejecting srun's address table from "
			     "%s: %s",
			     conn_peer(c), why);
		return -1;
	}
	pmixev_buf_reader(&b, payload, plen);
	if (pmixev_table_unpack(&b, &t) < 0)
		PMIXEV_ERROR("overlay: malformed address table from srun");
	else if (t.job_id != ov->cfg.job_id || t.step_id != ov->cfg.step_id ||
		 t.nnodes != ov->cfg.nnodes)
		PMIXEV_ERROR("overlay: srun's address table is for step "
			     "%u.%u with %u nodes",
			     t.job_id, t.step_id, t.nnodes);
	else
		rc = 0;
	free(payload);
	if (rc < 0) {
		free(t.nodes);
		return -1;
	}
	ov->table = t;
	overlay_link_up(
		&ov->srun); /* frames for srun waited for the handshake */
	PMIXEV_DEBUG(1, "overlay: address table received (%u nodes)", t.nnodes);
	if (ov->parent.peer != PMIXEV_TREE_NONE &&
	    overlay_connect_parent(ov) < 0)
		return -1;
	return 0;
}

int overlay_on_welcome(struct link *l, const uint8_t *data, size_t len)
{
	struct overlay *ov = l->ov;
	struct pmixev_ident id;

	if (check_ident(ov, l->conn, data, len, &id) < 0)
		return -1;
	if (id.from != l->peer || id.nonce != l->nonce) {
		PMIXEV_ERROR("overlay: rejecting %s: welcome from node %u "
			     "does not answer our hello",
			     conn_peer(l->conn), id.from);
		return -1;
	}
	l->adopting = false;
	overlay_link_up(l);
	PMIXEV_DEBUG(1, "overlay: connected to parent node %u (%s)", l->peer,
		     conn_peer(l->conn));
	return 0;
}

static int on_hello(struct overlay *ov, struct conn *c, const uint8_t *data,
		    size_t len)
{
	struct pmixev_ident id, reply;
	struct link *child;
	const char *why = "";

	if (check_ident(ov, c, data, len, &id) < 0)
		return -1;
	if (!(child = overlay_child_slot(ov, id.from, &why))) {
		PMIXEV_ERROR("overlay: rejecting %s: node %u is %s",
			     conn_peer(c), id.from, why);
		return -1;
	}
	reply = (struct pmixev_ident){.job_id = ov->cfg.job_id,
				      .step_id = ov->cfg.step_id,
				      .from = ov->cfg.nodeid,
				      .to = id.from,
				      .nonce = id.nonce};
	if (overlay_send_cred(ov, c, PMIXEV_MSG_PEER_WELCOME, &reply) < 0)
		return -1;
	/* The door hands the connection over to the child slot. */
	admit_take(ov->door, c);
	child->conn = c;
	conn_set_owner(c, overlay_on_frame, overlay_on_close, child);
	overlay_link_up(child);
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
	PMIXEV_ERROR("overlay: unexpected %s from unauthenticated peer %s",
		     pmixev_msg_type_name(hdr->type), conn_peer(c));
	return -1;
}

int overlay_listen(struct overlay *ov)
{
	const struct admit_cfg cfg = {.name = "overlay",
				      .per_addr = MAX_PENDING_PER_SRC,
				      .total = MAX_PENDING,
				      .on_frame = on_door_frame,
				      .ctx = ov};

	if (!(ov->door = admit_create(agent_base(ov->agent), &cfg)))
		return -1;
	ov->port = admit_port(ov->door);
	return 0;
}
