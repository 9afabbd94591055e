/*
 * overlay/handshake.c - the overlay's credentials and handshakes: hello to
 * srun and its address table, hello/welcome between parent and child.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "overlay/overlay_int.h"
#include "pmixev_log.h"

int overlay_send_cred(struct overlay *ov, struct conn *c, uint8_t type,
		      uint32_t dst, const struct pmixev_ident *id)
{
	struct pmixev_buf body, msg;
	char *cred = NULL, err[256];
	size_t credlen = 0;
	int rc = -1;

	pmixev_buf_init(&body);
	pmixev_buf_init(&msg);
	if (pmixev_ident_pack(&body, id) < 0)
		goto out;
	if (auth_encode(ov->auth, body.data, body.len, &cred, &credlen, err,
			sizeof(err)) < 0) {
		PMIXEV_ERROR("overlay: cannot create credential for %s: %s",
			     conn_peer(c), err);
		goto out;
	}
	if (pmixev_cred_pack(&msg, cred, credlen) < 0)
		goto out;
	rc = conn_send(c, type, ov->cfg.nodeid, dst, msg.data, msg.len);
out:
	free(cred);
	pmixev_buf_release(&body);
	pmixev_buf_release(&msg);
	return rc;
}

/*
 * Check a credential-carrying body: munge validity, uid in `uids`, and the
 * identity's job and step. Fills *id (and the raw payload for RDV_TABLE).
 */
static int check_cred(struct overlay *ov, struct conn *c, const uint8_t *data,
		      size_t len, const uid_t *uids, size_t nuids,
		      void **payload, size_t *plen)
{
	struct pmixev_buf b;
	const uint8_t *cred;
	size_t credlen;
	char err[256];
	uid_t uid;

	pmixev_buf_reader(&b, data, len);
	if (pmixev_cred_unpack(&b, &cred, &credlen) < 0) {
		PMIXEV_ERROR("overlay: %s sent a malformed handshake",
			     conn_peer(c));
		return -1;
	}
	if (auth_decode(ov->auth, cred, credlen, payload, plen, &uid, err,
			sizeof(err)) < 0) {
		PMIXEV_ERROR("overlay: rejecting %s: %s", conn_peer(c), err);
		return -1;
	}
	for (size_t i = 0; i < nuids; i++)
		if (uid == uids[i])
			return 0;
	PMIXEV_ERROR("overlay: rejecting %s: credential of uid %u",
		     conn_peer(c), (unsigned)uid);
	free(*payload);
	*payload = NULL;
	return -1;
}

static int check_ident(struct overlay *ov, struct conn *c, const uint8_t *data,
		       size_t len, struct pmixev_ident *id)
{
	/* Tree members are stepds: their credentials come from the root
	 * signer (auth.c). The job owner's uid never joins the tree. */
	const uid_t uids[] = {0, ov->cfg.slurmd_uid};
	struct pmixev_buf b;
	void *payload = NULL;
	size_t plen = 0;
	int rc = -1;

	if (check_cred(ov, c, data, len, uids, 2, &payload, &plen) < 0)
		return -1;
	pmixev_buf_reader(&b, payload, plen);
	if (pmixev_ident_unpack(&b, id) < 0)
		PMIXEV_ERROR("overlay: rejecting %s: malformed identity",
			     conn_peer(c));
	else if (id->job_id != ov->cfg.job_id || id->step_id != ov->cfg.step_id)
		PMIXEV_ERROR("overlay: rejecting %s: it belongs to step %u.%u",
			     conn_peer(c), id->job_id, id->step_id);
	else if (id->to != ov->cfg.nodeid)
		PMIXEV_ERROR("overlay: rejecting %s: credential is for node %u",
			     conn_peer(c), id->to);
	else
		rc = 0;
	free(payload);
	return rc;
}

struct conn *overlay_dial(struct overlay *ov, struct link *l, const char *host,
			  uint16_t port)
{
	char err[256];

	l->conn = conn_dial(agent_base(ov->agent), host, port,
			    l->role == ROLE_SRUN ? TABLE_MAX : HANDSHAKE_MAX,
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
				 ov->parent.peer, &id);
}

int overlay_on_table(struct overlay *ov, struct conn *c, const uint8_t *data,
		     size_t len)
{
	const uid_t uids[] = {ov->cfg.job_uid, 0};
	struct pmixev_table t = {0};
	struct pmixev_buf b;
	void *payload = NULL;
	size_t plen = 0;
	int rc = -1;

	if (ov->table.nodes) {
		PMIXEV_ERROR("overlay: srun sent a second address table");
		return -1;
	}
	if (check_cred(ov, c, data, len, uids, 2, &payload, &plen) < 0)
		return -1;
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

int overlay_on_hello(struct link *p, const uint8_t *data, size_t len)
{
	struct overlay *ov = p->ov;
	struct pmixev_ident id, reply;
	struct link *child;
	struct conn *c = p->conn;
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
	if (overlay_send_cred(ov, c, PMIXEV_MSG_PEER_WELCOME, id.from, &reply) <
	    0)
		return -1;
	/* The pending link hands its connection over to the child slot. */
	for (size_t i = 0; i < MAX_PENDING; i++)
		if (ov->pending[i] == p)
			ov->pending[i] = NULL;
	child->conn = c;
	conn_set_owner(c, overlay_on_frame, overlay_on_close, child);
	overlay_link_reset(p);
	free(p);
	overlay_link_up(child);
	PMIXEV_DEBUG(1, "overlay: child node %u connected (%s)", child->peer,
		     conn_peer(c));
	return 0;
}
