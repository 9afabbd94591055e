/*
 * pmixev_xstep.c - the XSTEP header and its inner bodies (see
 * pmixev_xstep.h).
 *
 * Wire layouts (see pmixev_buf.h; a result is an enum pmixev_result):
 *
 *   header       u32 src_job, u32 src_step, u32 src_node, u32 dst_job,
 *                u32 dst_step, u32 dst_node, u8 inner (1..9)
 *   layout       u64 spawn_id, str parent_nspace, u32 parent_rank,
 *                bytes start (a START body: pmixev_pmixd_start.c)
 *   ready        u64 spawn_id, u8 status, u32 failed_rank,
 *                i32 exit_class, str reason
 *   coll         u8 kind (1..5), str sig, u64 seq, u8 result, bytes data
 *   dmodex_req   u64 sid, u32 rank, u32 timeout_sec
 *   dmodex_resp  u64 sid, u8 result, bytes data
 *   pubsub_*     pmixev_xstep_pubsub.c
 *   event        u8 form (1, 2), then an EVENT or a NOTIFY body
 *                (pmixev_proto.c)
 */
#include "config.h"

#include "pmixev_xstep.h"
#include "pmixev_xstep_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmixev_frame.h"

#define RANGE_CUSTOM  6 /* PMIX_RANGE_CUSTOM */
#define NSPACE_PREFIX "slurm.pmixev."

bool pmixev_xstep_step_ok(uint32_t job, uint32_t step)
{
	return job != 0 && job != PMIXEV_XSTEP_NONE &&
	       step < PMIXEV_XSTEP_STEP_LIMIT;
}

void pmixev_xstep_nspace(uint32_t job, uint32_t step, char *buf, size_t len)
{
	snprintf(buf, len, NSPACE_PREFIX "%u.%u", job, step);
}

/* ---- header ---- */

static bool dst_node_ok(uint8_t inner, uint32_t node)
{
	switch (inner) {
	case PMIXEV_XSTEP_READY:
	case PMIXEV_XSTEP_COLL_PART:
	case PMIXEV_XSTEP_COLL_RESULT:
	case PMIXEV_XSTEP_LEFT:
		return node == PMIXEV_XSTEP_ROOT;
	case PMIXEV_XSTEP_LAYOUT:
	case PMIXEV_XSTEP_EVENT:
		return node == PMIXEV_XSTEP_ROOT || node == PMIXEV_XSTEP_ALL;
	case PMIXEV_XSTEP_DMODEX_REQ:
	case PMIXEV_XSTEP_DMODEX_RESP:
	case PMIXEV_XSTEP_PUBSUB_REQ:
	case PMIXEV_XSTEP_PUBSUB_RESP:
		return node < PMIXEV_XSTEP_NODES_MAX;
	default:
		return false;
	}
}

bool pmixev_xstep_hdr_ok(const struct pmixev_xstep_hdr *h)
{
	return pmixev_xstep_step_ok(h->src_job, h->src_step) &&
	       pmixev_xstep_step_ok(h->dst_job, h->dst_step) &&
	       (h->src_job != h->dst_job || h->src_step != h->dst_step) &&
	       h->src_node < PMIXEV_XSTEP_NODES_MAX &&
	       dst_node_ok(h->inner, h->dst_node);
}

int pmixev_xstep_hdr_pack(struct pmixev_buf *b,
			  const struct pmixev_xstep_hdr *h)
{
	if (!pmixev_xstep_hdr_ok(h))
		return xstep_invalid();
	pmixev_buf_put_u32(b, h->src_job);
	pmixev_buf_put_u32(b, h->src_step);
	pmixev_buf_put_u32(b, h->src_node);
	pmixev_buf_put_u32(b, h->dst_job);
	pmixev_buf_put_u32(b, h->dst_step);
	pmixev_buf_put_u32(b, h->dst_node);
	pmixev_buf_put_u8(b, h->inner);
	return xstep_pack_done(b);
}

int pmixev_xstep_left_pack(struct pmixev_buf *b, uint32_t gone_job,
			   uint32_t gone_step, uint32_t job, uint32_t step)
{
	const struct pmixev_xstep_hdr h = {.src_job = gone_job,
					   .src_step = gone_step,
					   .dst_job = job,
					   .dst_step = step,
					   .dst_node = PMIXEV_XSTEP_ROOT,
					   .inner = PMIXEV_XSTEP_LEFT};

	return pmixev_xstep_hdr_pack(b, &h);
}

int pmixev_xstep_hdr_unpack(struct pmixev_buf *b, struct pmixev_xstep_hdr *h)
{
	struct pmixev_xstep_hdr t;

	pmixev_buf_get_u32(b, &t.src_job);
	pmixev_buf_get_u32(b, &t.src_step);
	pmixev_buf_get_u32(b, &t.src_node);
	pmixev_buf_get_u32(b, &t.dst_job);
	pmixev_buf_get_u32(b, &t.dst_step);
	pmixev_buf_get_u32(b, &t.dst_node);
	pmixev_buf_get_u8(b, &t.inner);
	if (!pmixev_buf_ok(b) || !pmixev_xstep_hdr_ok(&t))
		return -1;
	*h = t;
	return 0;
}

bool pmixev_xstep_for_me(const struct pmixev_xstep_hdr *h, uint32_t job,
			 uint32_t step, uint32_t node, bool root)
{
	return h->dst_job == job && h->dst_step == step &&
	       (h->dst_node == node || h->dst_node == PMIXEV_XSTEP_ALL ||
		(h->dst_node == PMIXEV_XSTEP_ROOT && root));
}

/* ---- LAYOUT ---- */

/* Only the layout's fields are set, and the nspace is the step's. */
static bool layout_only(const struct pmixev_pmixd_start *s)
{
	char ns[PMIXEV_NSPACE_MAX];

	if (!pmixev_xstep_step_ok(s->step.job_id, s->step.step_id))
		return false;
	pmixev_xstep_nspace(s->step.job_id, s->step.step_id, ns, sizeof(ns));
	return !strcmp(s->nspace, ns) && !s->step.node[0] && !s->step.id[0] &&
	       !s->nodeid && !s->uid && !s->gid && !s->srv_nspace[0] &&
	       !s->server_dir[0] && !s->task_dir[0] && !s->event_cache &&
	       !s->timeout_sec && !s->event_kib && !s->debug &&
	       !s->event_cache_mib && !s->publish_mib && !s->log_rate &&
	       !s->gds && !s->spawn && !s->bind_type && !s->bind_list[0] &&
	       !s->step_cores[0];
}

static bool parent_ok(const struct pmixev_xstep_layout *m)
{
	if (!xstep_text_ok(m->parent_nspace, sizeof(m->parent_nspace)))
		return false;
	if (!m->parent_nspace[0])
		return m->parent_rank == PMIXEV_XSTEP_NO_RANK && !m->spawn_id;
	return true;
}

int pmixev_xstep_layout_pack(struct pmixev_buf *b,
			     const struct pmixev_xstep_layout *m)
{
	struct pmixev_buf start;
	int rc;

	if (!parent_ok(m) || !layout_only(&m->start))
		return xstep_invalid();
	pmixev_buf_init(&start);
	if (pmixev_pmixd_start_pack(&start, &m->start) < 0) {
		pmixev_buf_release(&start);
		return xstep_invalid();
	}
	pmixev_buf_put_u64(b, m->spawn_id);
	pmixev_buf_put_str(b, m->parent_nspace);
	pmixev_buf_put_u32(b, m->parent_rank);
	pmixev_buf_put_bytes(b, start.data, start.len);
	rc = xstep_pack_done(b);
	pmixev_buf_release(&start);
	return rc;
}

int pmixev_xstep_layout_unpack(struct pmixev_buf *b, size_t max,
			       struct pmixev_xstep_layout *m)
{
	struct pmixev_xstep_layout *t = calloc(1, sizeof(*t));
	struct pmixev_buf start;
	const uint8_t *p = NULL;
	size_t n = 0;
	int rc = -1;

	if (!t)
		return -1;
	pmixev_buf_get_u64(b, &t->spawn_id);
	pmixev_buf_get_str(b, t->parent_nspace, sizeof(t->parent_nspace));
	pmixev_buf_get_u32(b, &t->parent_rank);
	pmixev_buf_get_bytes(b, &p, &n);
	if (xstep_unpack_done(b) < 0 || n > max || !parent_ok(t))
		goto out;
	pmixev_buf_reader(&start, p, n);
	if (pmixev_pmixd_start_unpack(&start, &t->start) < 0)
		goto out;
	if (!layout_only(&t->start)) {
		pmixev_pmixd_start_release(&t->start);
		goto out;
	}
	*m = *t;
	rc = 0;
out:
	free(t);
	return rc;
}

void pmixev_xstep_layout_release(struct pmixev_xstep_layout *m)
{
	if (m)
		pmixev_pmixd_start_release(&m->start);
}

bool pmixev_xstep_layout_from(const struct pmixev_xstep_hdr *h,
			      const struct pmixev_xstep_layout *m)
{
	return m->start.step.job_id == h->src_job &&
	       m->start.step.step_id == h->src_step;
}

/* ---- READY ---- */

static bool ready_ok(const struct pmixev_xstep_ready *m)
{
	return m->spawn_id && pmixev_result_valid(m->status) &&
	       xstep_text_ok(m->reason, sizeof(m->reason)) &&
	       (m->status != PMIXEV_OK ||
		(m->failed_rank == PMIXEV_XSTEP_NO_RANK && !m->exit_class &&
		 !m->reason[0]));
}

int pmixev_xstep_ready_pack(struct pmixev_buf *b,
			    const struct pmixev_xstep_ready *m)
{
	if (!ready_ok(m))
		return xstep_invalid();
	pmixev_buf_put_u64(b, m->spawn_id);
	pmixev_buf_put_u8(b, (uint8_t)m->status);
	pmixev_buf_put_u32(b, m->failed_rank);
	pmixev_buf_put_i32(b, m->exit_class);
	pmixev_buf_put_str(b, m->reason);
	return xstep_pack_done(b);
}

int pmixev_xstep_ready_unpack(struct pmixev_buf *b,
			      struct pmixev_xstep_ready *m)
{
	struct pmixev_xstep_ready t;
	uint8_t status = 0;

	pmixev_buf_get_u64(b, &t.spawn_id);
	pmixev_buf_get_u8(b, &status);
	pmixev_buf_get_u32(b, &t.failed_rank);
	pmixev_buf_get_i32(b, &t.exit_class);
	pmixev_buf_get_str(b, t.reason, sizeof(t.reason));
	if (xstep_unpack_done(b) < 0 || !pmixev_result_valid(status))
		return -1;
	t.status = (enum pmixev_result)status;
	if (!ready_ok(&t))
		return -1;
	*m = t;
	return 0;
}

/* ---- COLL_PART, COLL_RESULT ---- */

static bool coll_kind_ok(unsigned kind)
{
	return kind >= PMIXEV_COLL_FENCE && kind <= PMIXEV_COLL_GROUP_DESTRUCT;
}

/* Data only with success, and at most `max` bytes. */
static bool data_ok(enum pmixev_result result, size_t ndata, size_t max)
{
	return ndata <= max && (result == PMIXEV_OK || !ndata);
}

int pmixev_xstep_coll_pack(struct pmixev_buf *b,
			   const struct pmixev_xstep_coll *m)
{
	if (!coll_kind_ok(m->kind) || !xstep_text_ok(m->sig, sizeof(m->sig)) ||
	    !m->sig[0] || !pmixev_result_valid(m->result) ||
	    !data_ok(m->result, m->ndata, SIZE_MAX) || m->ndata > UINT32_MAX ||
	    (m->ndata && !m->data))
		return xstep_invalid();
	pmixev_buf_put_u8(b, (uint8_t)m->kind);
	pmixev_buf_put_str(b, m->sig);
	pmixev_buf_put_u64(b, m->seq);
	pmixev_buf_put_u8(b, (uint8_t)m->result);
	pmixev_buf_put_bytes(b, m->data, m->ndata);
	return xstep_pack_done(b);
}

int pmixev_xstep_coll_unpack(struct pmixev_buf *b, size_t max,
			     struct pmixev_xstep_coll *m)
{
	struct pmixev_xstep_coll t;
	uint8_t kind = 0, result = 0;

	pmixev_buf_get_u8(b, &kind);
	pmixev_buf_get_str(b, t.sig, sizeof(t.sig));
	pmixev_buf_get_u64(b, &t.seq);
	pmixev_buf_get_u8(b, &result);
	pmixev_buf_get_bytes(b, &t.data, &t.ndata);
	if (xstep_unpack_done(b) < 0 || !coll_kind_ok(kind) || !t.sig[0] ||
	    !pmixev_result_valid(result) ||
	    !data_ok((enum pmixev_result)result, t.ndata, max))
		return -1;
	t.kind = (enum pmixev_coll_kind)kind;
	t.result = (enum pmixev_result)result;
	*m = t;
	return 0;
}

/* ---- DMODEX_REQ, DMODEX_RESP ---- */

int pmixev_xstep_dmodex_req_pack(struct pmixev_buf *b,
				 const struct pmixev_xstep_dmodex_req *m)
{
	if (m->rank == PMIXEV_XSTEP_NO_RANK)
		return xstep_invalid();
	pmixev_buf_put_u64(b, m->sid);
	pmixev_buf_put_u32(b, m->rank);
	pmixev_buf_put_u32(b, m->timeout_sec);
	return xstep_pack_done(b);
}

int pmixev_xstep_dmodex_req_unpack(struct pmixev_buf *b, uint32_t ntasks,
				   struct pmixev_xstep_dmodex_req *m)
{
	struct pmixev_xstep_dmodex_req t;

	pmixev_buf_get_u64(b, &t.sid);
	pmixev_buf_get_u32(b, &t.rank);
	pmixev_buf_get_u32(b, &t.timeout_sec);
	if (xstep_unpack_done(b) < 0 || t.rank >= ntasks)
		return -1;
	*m = t;
	return 0;
}

int pmixev_xstep_dmodex_resp_pack(struct pmixev_buf *b,
				  const struct pmixev_xstep_dmodex_resp *m)
{
	if (!pmixev_result_valid(m->result) ||
	    !data_ok(m->result, m->ndata, UINT32_MAX) || (m->ndata && !m->data))
		return xstep_invalid();
	pmixev_buf_put_u64(b, m->sid);
	pmixev_buf_put_u8(b, (uint8_t)m->result);
	pmixev_buf_put_bytes(b, m->data, m->ndata);
	return xstep_pack_done(b);
}

int pmixev_xstep_dmodex_resp_unpack(struct pmixev_buf *b, size_t max,
				    struct pmixev_xstep_dmodex_resp *m)
{
	struct pmixev_xstep_dmodex_resp t;
	uint8_t result = 0;

	pmixev_buf_get_u64(b, &t.sid);
	pmixev_buf_get_u8(b, &result);
	pmixev_buf_get_bytes(b, &t.data, &t.ndata);
	if (xstep_unpack_done(b) < 0 || !pmixev_result_valid(result) ||
	    !data_ok((enum pmixev_result)result, t.ndata, max))
		return -1;
	t.result = (enum pmixev_result)result;
	*m = t;
	return 0;
}

/* ---- EVENT ---- */

/* A client's event in a range that leaves its step (doc §5.4). */
static bool notify_ok(const struct pmixev_notify_msg *n, size_t max)
{
	return xstep_text_ok(n->nspace, sizeof(n->nspace)) && n->nspace[0] &&
	       (n->range == PMIXEV_XSTEP_RANGE_UNDEF ||
		n->range == PMIXEV_XSTEP_RANGE_SESSION ||
		n->range == PMIXEV_XSTEP_RANGE_GLOBAL ||
		n->range == RANGE_CUSTOM) &&
	       n->ninfo <= max && (!n->ninfo || n->info);
}

int pmixev_xstep_event_pack(struct pmixev_buf *b,
			    const struct pmixev_xstep_event *m)
{
	struct pmixev_buf body;
	int rc;

	pmixev_buf_init(&body);
	if (m->form == PMIXEV_XSTEP_EV_OBSERVED)
		rc = pmixev_event_pack(&body, &m->ev);
	else if (m->form == PMIXEV_XSTEP_EV_NOTIFY &&
		 notify_ok(&m->notify, UINT32_MAX))
		rc = pmixev_notify_pack(&body, &m->notify);
	else
		rc = -1;
	if (rc < 0) {
		pmixev_buf_release(&body);
		return xstep_invalid();
	}
	pmixev_buf_put_u8(b, (uint8_t)m->form);
	pmixev_buf_put_raw(b, body.data, body.len);
	pmixev_buf_release(&body);
	return xstep_pack_done(b);
}

int pmixev_xstep_event_unpack(struct pmixev_buf *b, size_t max,
			      struct pmixev_xstep_event *m)
{
	struct pmixev_xstep_event *t = calloc(1, sizeof(*t));
	uint8_t form = 0;
	int rc = -1;

	if (!t)
		return -1;
	pmixev_buf_get_u8(b, &form);
	if (!pmixev_buf_ok(b))
		goto out;
	t->form = (enum pmixev_xstep_event_form)form;
	if (form == PMIXEV_XSTEP_EV_OBSERVED)
		rc = pmixev_event_unpack(b, &t->ev);
	else if (form == PMIXEV_XSTEP_EV_NOTIFY)
		rc = pmixev_notify_unpack(b, &t->notify) < 0 ||
				     !notify_ok(&t->notify, max)
			     ? -1
			     : 0;
	if (rc == 0)
		*m = *t;
out:
	free(t);
	return rc;
}
