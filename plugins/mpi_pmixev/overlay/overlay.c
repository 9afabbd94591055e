/*
 * overlay/overlay.c - the stepd tree put together from its layers, each
 * using only those below it: links (link.c, over conn.c), handshakes and
 * the door (handshake.c, with cred.c and admit.c), liveness (liveness.c),
 * healing (heal.c) and routing (route.c). overlay_create runs before the
 * agent thread starts, overlay_destroy on it or after it ended, the rest
 * on it.
 */
#include "config.h"

#include "overlay/overlay.h"

#include <stdio.h>
#include <stdlib.h>

#include "overlay/handshake.h"
#include "overlay/heal.h"
#include "overlay/link.h"
#include "overlay/nodeaddr.h"
#include "pmixev_buf.h"
#include "pmixev_log.h"
#include "pmixev_proto.h"
#include "overlay/liveness.h"
#include "overlay/route.h"

struct overlay {
	uint32_t nodeid;
	struct addrs *nodes;
	struct links *ls;
	struct handshake *hs;
	struct liveness *lv;
	struct heal *heal;
	struct route *rt;
};

struct overlay *overlay_create(struct agent *agent, struct auth *auth,
			       const struct overlay_cfg *cfg)
{
	const struct pmixev_tree tree = {.n = cfg->nnodes,
					 .width = cfg->width ? cfg->width : 1};
	struct handshake_cfg hcfg = {.job_id = cfg->job_id,
				     .step_id = cfg->step_id,
				     .nnodes = cfg->nnodes,
				     .job_uid = cfg->job_uid,
				     .slurmd_uid = cfg->slurmd_uid,
				     .srun_host = cfg->srun_host,
				     .srun_port = cfg->srun_port};
	struct overlay *ov = calloc(1, sizeof(*ov));

	char err[256];

	if (!ov)
		return NULL;
	ov->nodeid = cfg->nodeid;
	if (!(ov->nodes = nodeaddr_resolve(cfg->nodes, cfg->nnodes, err,
					   sizeof(err)))) {
		PMIXEV_ERROR("overlay: cannot tell the step's node addresses: "
			     "%s",
			     err);
		goto fail;
	}
	hcfg.nodes = ov->nodes;
	if (!(ov->ls = links_create(agent_base(agent), &tree, cfg->nodeid,
				    cfg->max_frame, cfg->max_queued)) ||
	    !(ov->hs = handshake_create(&hcfg, auth, ov->ls)) ||
	    !(ov->lv = liveness_create(ov->ls, ov->hs, cfg->nnodes,
				       cfg->timeout_sec, cfg->heartbeat_ms)) ||
	    !(ov->heal = heal_create(&tree, ov->ls, ov->hs, ov->lv)) ||
	    !(ov->rt = route_create(ov->ls, ov->hs, ov->heal, cfg->nnodes)))
		goto fail;
	return ov;
fail:
	overlay_destroy(ov);
	return NULL;
}

int overlay_start(struct overlay *ov)
{
	if (handshake_start(ov->hs) < 0 || liveness_start(ov->lv) < 0)
		return -1;
	return 0;
}

void overlay_on(struct overlay *ov, uint8_t type, overlay_handler_t fn,
		void *ctx)
{
	route_on(ov->rt, type, fn, ctx);
}

void overlay_on_lost(struct overlay *ov, overlay_lost_t fn, void *ctx)
{
	heal_on_lost(ov->heal, fn, ctx);
}

int overlay_send(struct overlay *ov, uint32_t dst, uint8_t type,
		 const void *data, size_t len)
{
	return route_send(ov->rt, dst, type, data, len);
}

int overlay_tell_srun(struct overlay *ov, const char *text)
{
	struct pmixev_notice_msg m;
	struct pmixev_buf b;
	int rc = -1;

	snprintf(m.text, sizeof(m.text), "%s", text);
	pmixev_buf_init(&b);
	if (pmixev_notice_pack(&b, &m) == 0)
		rc = overlay_send(ov, PMIXEV_NODE_SRUN, PMIXEV_MSG_NOTICE,
				  b.data, b.len);
	pmixev_buf_release(&b);
	return rc;
}

unsigned overlay_broadcast(struct overlay *ov, uint8_t type, const void *data,
			   size_t len)
{
	return route_broadcast(ov->rt, type, data, len);
}

void overlay_leave(struct overlay *ov)
{
	links_leave(ov->ls);
	handshake_leave(ov->hs);
}

void overlay_tasks_ended(struct overlay *ov)
{
	if (ov)
		ov->ls->ending = true;
}

uint32_t overlay_self(const struct overlay *ov)
{
	return ov->nodeid;
}

bool overlay_joined(const struct overlay *ov)
{
	return atomic_load(&ov->ls->joined);
}

uint32_t overlay_parent(const struct overlay *ov)
{
	return ov->ls->parent.peer;
}

size_t overlay_children(const struct overlay *ov, uint32_t *out)
{
	return heal_children(ov->heal, out);
}

bool overlay_in_subtree(const struct overlay *ov, uint32_t id, uint32_t d)
{
	return heal_in_subtree(ov->heal, id, d);
}

bool overlay_is_child(const struct overlay *ov, uint32_t node)
{
	return heal_is_child(ov->heal, node);
}

void overlay_destroy(struct overlay *ov)
{
	if (!ov)
		return;
	route_destroy(ov->rt);
	heal_destroy(ov->heal);
	liveness_destroy(ov->lv);
	handshake_destroy(ov->hs);
	links_destroy(ov->ls);
	addrs_destroy(ov->nodes);
	free(ov);
}
