/*
 * pmixev_xstep_ctl.c - the srun-only control frames (see
 * pmixev_xstep_ctl.h).
 *
 * Wire layouts (see pmixev_buf.h):
 *
 *   hub_hello     u32 job, u32 step, u64 spawn_id
 *   hub_join      u32 n (1..1024),
 *   family        n * { u32 job, u32 step, u32 parent_job, u32 parent_step }
 *   hub_leave     u32 n (1..1024), n * { u32 job, u32 step }
 *   spawn_req     u64 id, bytes body, bytes layout
 *   spawn_cancel  u64 id
 *   spawn_status  u64 id, u8 state (1..6), u32 job, u32 step, str reason
 *   root_is       u32 node
 */
#include "config.h"

#include "pmixev_xstep_ctl.h"
#include "pmixev_xstep_int.h"

#include <stdlib.h>
#include <string.h>

#define NONE	   PMIXEV_XSTEP_NONE
#define MEMBER_LEN 16
#define ID_LEN	   8

int pmixev_xstep_id_cmp(uint32_t job_a, uint32_t step_a, uint32_t job_b,
			uint32_t step_b)
{
	if (job_a != job_b)
		return job_a < job_b ? -1 : 1;
	return step_a < step_b ? -1 : step_a > step_b;
}

/* ---- HUB_HELLO ---- */

int pmixev_hub_hello_pack(struct pmixev_buf *b,
			  const struct pmixev_hub_hello *m)
{
	if (!pmixev_xstep_step_ok(m->job, m->step))
		return xstep_invalid();
	pmixev_buf_put_u32(b, m->job);
	pmixev_buf_put_u32(b, m->step);
	pmixev_buf_put_u64(b, m->spawn_id);
	return xstep_pack_done(b);
}

int pmixev_hub_hello_unpack(struct pmixev_buf *b, struct pmixev_hub_hello *m)
{
	struct pmixev_hub_hello t;

	pmixev_buf_get_u32(b, &t.job);
	pmixev_buf_get_u32(b, &t.step);
	pmixev_buf_get_u64(b, &t.spawn_id);
	if (xstep_unpack_done(b) < 0 || !pmixev_xstep_step_ok(t.job, t.step))
		return -1;
	*m = t;
	return 0;
}

/* ---- HUB_JOIN, FAMILY ---- */

/* A JOIN's members: sorted, distinct, family steps, parents NONE or a
 * family step other than the member itself. */
bool pmixev_hub_join_ok(const struct pmixev_xstep_members *m)
{
	if (!m->n || m->n > PMIXEV_XSTEP_FAMILY_MAX || !m->m)
		return false;
	for (uint32_t i = 0; i < m->n; i++) {
		const struct pmixev_xstep_member *e = &m->m[i];
		bool orphan = e->parent_job == NONE && e->parent_step == NONE;

		if (!pmixev_xstep_step_ok(e->job, e->step) ||
		    (!orphan &&
		     (!pmixev_xstep_step_ok(e->parent_job, e->parent_step) ||
		      !pmixev_xstep_id_cmp(e->job, e->step, e->parent_job,
					   e->parent_step))) ||
		    (i && pmixev_xstep_id_cmp(m->m[i - 1].job, m->m[i - 1].step,
					      e->job, e->step) >= 0))
			return false;
	}
	return true;
}

static int cmp_member(const void *key, const void *elem)
{
	const struct pmixev_xstep_id *k = key;
	const struct pmixev_xstep_member *e = elem;

	return pmixev_xstep_id_cmp(k->job, k->step, e->job, e->step);
}

const struct pmixev_xstep_member *
pmixev_xstep_family_find(const struct pmixev_xstep_members *m, uint32_t job,
			 uint32_t step)
{
	struct pmixev_xstep_id k = {job, step};

	if (!m || !m->n || !m->m)
		return NULL;
	return bsearch(&k, m->m, m->n, sizeof(*m->m), cmp_member);
}

const struct pmixev_xstep_member *
pmixev_xstep_family_root(const struct pmixev_xstep_members *m)
{
	for (uint32_t i = 0; m && m->m && i < m->n; i++)
		if (m->m[i].parent_job == NONE && m->m[i].parent_step == NONE)
			return &m->m[i];
	return NULL;
}

/* One root, every parent a member, and every member reaches the root
 * (no cycle): a tree. */
bool pmixev_xstep_family_ok(const struct pmixev_xstep_members *m)
{
	uint32_t roots = 0;

	if (!pmixev_hub_join_ok(m))
		return false;
	for (uint32_t i = 0; i < m->n; i++) {
		const struct pmixev_xstep_member *e = &m->m[i];
		uint32_t hops = 0;

		if (e->parent_job == NONE) {
			roots++;
			continue;
		}
		while (e && e->parent_job != NONE && hops++ < m->n)
			e = pmixev_xstep_family_find(m, e->parent_job,
						     e->parent_step);
		if (!e || e->parent_job != NONE)
			return false;
	}
	return roots == 1;
}

static int members_pack(struct pmixev_buf *b,
			const struct pmixev_xstep_members *m)
{
	pmixev_buf_put_u32(b, m->n);
	for (uint32_t i = 0; i < m->n; i++) {
		pmixev_buf_put_u32(b, m->m[i].job);
		pmixev_buf_put_u32(b, m->m[i].step);
		pmixev_buf_put_u32(b, m->m[i].parent_job);
		pmixev_buf_put_u32(b, m->m[i].parent_step);
	}
	return xstep_pack_done(b);
}

static int members_unpack(struct pmixev_buf *b, bool family,
			  struct pmixev_xstep_members *m)
{
	struct pmixev_xstep_members t = {0};

	pmixev_buf_get_u32(b, &t.n);
	/* Exactly the bytes of n members, before the array is allocated. */
	if (!pmixev_buf_ok(b) || !t.n || t.n > PMIXEV_XSTEP_FAMILY_MAX ||
	    pmixev_buf_remaining(b) != (size_t)t.n * MEMBER_LEN)
		return -1;
	t.m = calloc(t.n, sizeof(*t.m));
	if (!t.m)
		return -1;
	for (uint32_t i = 0; i < t.n; i++) {
		pmixev_buf_get_u32(b, &t.m[i].job);
		pmixev_buf_get_u32(b, &t.m[i].step);
		pmixev_buf_get_u32(b, &t.m[i].parent_job);
		pmixev_buf_get_u32(b, &t.m[i].parent_step);
	}
	if (xstep_unpack_done(b) < 0 ||
	    !(family ? pmixev_xstep_family_ok(&t) : pmixev_hub_join_ok(&t))) {
		pmixev_xstep_members_release(&t);
		return -1;
	}
	*m = t;
	return 0;
}

int pmixev_hub_join_pack(struct pmixev_buf *b,
			 const struct pmixev_xstep_members *m)
{
	return pmixev_hub_join_ok(m) ? members_pack(b, m) : xstep_invalid();
}

int pmixev_hub_join_unpack(struct pmixev_buf *b, struct pmixev_xstep_members *m)
{
	return members_unpack(b, false, m);
}

int pmixev_family_pack(struct pmixev_buf *b,
		       const struct pmixev_xstep_members *m)
{
	return pmixev_xstep_family_ok(m) ? members_pack(b, m) : xstep_invalid();
}

int pmixev_family_unpack(struct pmixev_buf *b, struct pmixev_xstep_members *m)
{
	return members_unpack(b, true, m);
}

void pmixev_xstep_members_release(struct pmixev_xstep_members *m)
{
	if (!m)
		return;
	free(m->m);
	m->m = NULL;
	m->n = 0;
}

const char *pmixev_xstep_check(const struct pmixev_xstep_hdr *h,
			       const struct pmixev_xstep_members *family,
			       uint32_t job, uint32_t step, uint32_t node,
			       bool root)
{
	if (!pmixev_xstep_hdr_ok(h))
		return "malformed cross-step header";
	if (!pmixev_xstep_for_me(h, job, step, node, root))
		return "not addressed to this stepd";
	if (!pmixev_xstep_family_find(family, job, step))
		return "this step is not in the family srun named";
	if (!pmixev_xstep_family_find(family, h->src_job, h->src_step))
		return "the source step is not in the family";
	return NULL;
}

/* ---- HUB_LEAVE ---- */

bool pmixev_hub_leave_ok(const struct pmixev_hub_leave *m)
{
	if (!m->n || m->n > PMIXEV_XSTEP_FAMILY_MAX || !m->ids)
		return false;
	for (uint32_t i = 0; i < m->n; i++)
		if (!pmixev_xstep_step_ok(m->ids[i].job, m->ids[i].step) ||
		    (i &&
		     pmixev_xstep_id_cmp(m->ids[i - 1].job, m->ids[i - 1].step,
					 m->ids[i].job, m->ids[i].step) >= 0))
			return false;
	return true;
}

int pmixev_hub_leave_pack(struct pmixev_buf *b,
			  const struct pmixev_hub_leave *m)
{
	if (!pmixev_hub_leave_ok(m))
		return xstep_invalid();
	pmixev_buf_put_u32(b, m->n);
	for (uint32_t i = 0; i < m->n; i++) {
		pmixev_buf_put_u32(b, m->ids[i].job);
		pmixev_buf_put_u32(b, m->ids[i].step);
	}
	return xstep_pack_done(b);
}

int pmixev_hub_leave_unpack(struct pmixev_buf *b, struct pmixev_hub_leave *m)
{
	struct pmixev_hub_leave t = {0};

	pmixev_buf_get_u32(b, &t.n);
	if (!pmixev_buf_ok(b) || !t.n || t.n > PMIXEV_XSTEP_FAMILY_MAX ||
	    pmixev_buf_remaining(b) != (size_t)t.n * ID_LEN)
		return -1;
	t.ids = calloc(t.n, sizeof(*t.ids));
	if (!t.ids)
		return -1;
	for (uint32_t i = 0; i < t.n; i++) {
		pmixev_buf_get_u32(b, &t.ids[i].job);
		pmixev_buf_get_u32(b, &t.ids[i].step);
	}
	if (xstep_unpack_done(b) < 0 || !pmixev_hub_leave_ok(&t)) {
		pmixev_hub_leave_release(&t);
		return -1;
	}
	*m = t;
	return 0;
}

void pmixev_hub_leave_release(struct pmixev_hub_leave *m)
{
	if (!m)
		return;
	free(m->ids);
	m->ids = NULL;
	m->n = 0;
}

/* ---- SPAWN_REQ, SPAWN_CANCEL, SPAWN_STATUS, ROOT_IS ---- */

int pmixev_spawn_req_pack(struct pmixev_buf *b,
			  const struct pmixev_spawn_req *m)
{
	if (!m->nbody || !m->body || m->nbody > UINT32_MAX ||
	    (m->nlayout && !m->layout) || m->nlayout > UINT32_MAX)
		return xstep_invalid();
	pmixev_buf_put_u64(b, m->id);
	pmixev_buf_put_bytes(b, m->body, m->nbody);
	pmixev_buf_put_bytes(b, m->layout, m->nlayout);
	return xstep_pack_done(b);
}

int pmixev_spawn_req_unpack(struct pmixev_buf *b, size_t max,
			    struct pmixev_spawn_req *m)
{
	struct pmixev_spawn_req t;

	pmixev_buf_get_u64(b, &t.id);
	pmixev_buf_get_bytes(b, &t.body, &t.nbody);
	pmixev_buf_get_bytes(b, &t.layout, &t.nlayout);
	if (xstep_unpack_done(b) < 0 || !t.nbody || t.nbody > max ||
	    t.nlayout > max)
		return -1;
	*m = t;
	return 0;
}

int pmixev_spawn_cancel_pack(struct pmixev_buf *b, uint64_t id)
{
	pmixev_buf_put_u64(b, id);
	return xstep_pack_done(b);
}

int pmixev_spawn_cancel_unpack(struct pmixev_buf *b, uint64_t *id)
{
	uint64_t t = 0;

	pmixev_buf_get_u64(b, &t);
	if (xstep_unpack_done(b) < 0)
		return -1;
	*id = t;
	return 0;
}

int pmixev_root_is_pack(struct pmixev_buf *b, uint32_t node)
{
	if (node >= PMIXEV_XSTEP_NODES_MAX)
		return xstep_invalid();
	pmixev_buf_put_u32(b, node);
	return xstep_pack_done(b);
}

int pmixev_root_is_unpack(struct pmixev_buf *b, uint32_t *node)
{
	uint32_t t = 0;

	pmixev_buf_get_u32(b, &t);
	if (xstep_unpack_done(b) < 0 || t >= PMIXEV_XSTEP_NODES_MAX)
		return -1;
	*node = t;
	return 0;
}

static bool status_ok(const struct pmixev_spawn_status *m)
{
	bool ready = m->state == PMIXEV_SPAWN_READY;

	return m->state >= PMIXEV_SPAWN_LAUNCHED &&
	       m->state <= PMIXEV_SPAWN_STATE_MAX &&
	       xstep_text_ok(m->reason, sizeof(m->reason)) &&
	       (ready ? pmixev_xstep_step_ok(m->job, m->step)
		      : !m->job && !m->step) &&
	       ((m->state != PMIXEV_SPAWN_LAUNCHED && !ready) || !m->reason[0]);
}

int pmixev_spawn_status_pack(struct pmixev_buf *b,
			     const struct pmixev_spawn_status *m)
{
	if (!status_ok(m))
		return xstep_invalid();
	pmixev_buf_put_u64(b, m->id);
	pmixev_buf_put_u8(b, (uint8_t)m->state);
	pmixev_buf_put_u32(b, m->job);
	pmixev_buf_put_u32(b, m->step);
	pmixev_buf_put_str(b, m->reason);
	return xstep_pack_done(b);
}

int pmixev_spawn_status_unpack(struct pmixev_buf *b,
			       struct pmixev_spawn_status *m)
{
	struct pmixev_spawn_status t;
	uint8_t state = 0;

	pmixev_buf_get_u64(b, &t.id);
	pmixev_buf_get_u8(b, &state);
	pmixev_buf_get_u32(b, &t.job);
	pmixev_buf_get_u32(b, &t.step);
	pmixev_buf_get_str(b, t.reason, sizeof(t.reason));
	if (xstep_unpack_done(b) < 0)
		return -1;
	t.state = (enum pmixev_spawn_state)state;
	if (!status_ok(&t))
		return -1;
	*m = t;
	return 0;
}

int pmixev_nspace_ack_pack(struct pmixev_buf *b,
			   const struct pmixev_nspace_ack *m)
{
	if (!pmixev_xstep_step_ok(m->job, m->step))
		return xstep_invalid();
	pmixev_buf_put_u32(b, m->job);
	pmixev_buf_put_u32(b, m->step);
	pmixev_buf_put_i32(b, m->status);
	return xstep_pack_done(b);
}

int pmixev_nspace_ack_unpack(struct pmixev_buf *b, struct pmixev_nspace_ack *m)
{
	struct pmixev_nspace_ack t;

	pmixev_buf_get_u32(b, &t.job);
	pmixev_buf_get_u32(b, &t.step);
	pmixev_buf_get_i32(b, &t.status);
	if (xstep_unpack_done(b) < 0 || !pmixev_xstep_step_ok(t.job, t.step))
		return -1;
	*m = t;
	return 0;
}
