/*
 * pmixev_pmixd_group.c - the PMIx Groups messages of the pmixd channel.
 *
 * Wire layouts (see pmixev_pmixd_msg.c):
 *
 *   group        u64 id, u8 op (1..2), str grpid, str nspace, u8 all,
 *                u32 nranks, nranks * u32 rank, u8 flags, u32 leader,
 *                u32 timeout_ms, bytes endpt
 *                                          (all: nranks 0; else >= 1)
 *   group_done   u64 id, u8 result, u64 ctxid, u8 flags, u32 leader,
 *                u32 nfailed, nfailed * u32 rank, bytes endpt
 *   group_abort  str grpid, u32 rank (local), u8 why (1)
 */
#include "config.h"

#include "pmixev_pmixd_group.h"
#include "pmixev_pmixd_int.h"

#include <stdlib.h>
#include <string.h>

#define PREFIX_PMIXEV "slurm.pmixev."
#define PREFIX_PMIX   "slurm.pmix."

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

bool pmixev_pmixd_group_id_ok(const char *grpid,
			      const struct pmixev_pmixd_bounds *lim)
{
	if (!pmixd_text_ok(grpid, PMIXEV_PMIXD_GROUP_ID_MAX) || !grpid[0] ||
	    starts(grpid, PREFIX_PMIXEV) || starts(grpid, PREFIX_PMIX))
		return false;
	return !lim ||
	       (strcmp(grpid, lim->nspace) && strcmp(grpid, lim->srv_nspace));
}

static bool op_ok(unsigned op)
{
	return op == PMIXEV_PMIXD_GROUP_CONSTRUCT ||
	       op == PMIXEV_PMIXD_GROUP_DESTRUCT;
}

static bool flags_ok(unsigned flags)
{
	return !(flags & ~PMIXEV_PMIXD_GROUP_FLAGS);
}

static int cmp_rank(const void *key, const void *elem)
{
	uint32_t a = *(const uint32_t *)key, b = *(const uint32_t *)elem;

	return a < b ? -1 : a > b;
}

bool pmixev_pmixd_group_member(const struct pmixev_pmixd_group *m,
			       uint32_t rank)
{
	return m->all || (m->nranks && bsearch(&rank, m->ranks, m->nranks,
					       sizeof(*m->ranks), cmp_rank));
}

/*
 * What GROUP must hold whatever the step (ranks below `ntasks`): its op,
 * text, set, flags, leader, timeout, and a destruct's emptiness.
 */
static bool group_ok(const struct pmixev_pmixd_group *m, uint32_t ntasks)
{
	bool destruct = m->op == PMIXEV_PMIXD_GROUP_DESTRUCT;

	if (!op_ok(m->op) || !pmixev_pmixd_group_id_ok(m->grpid, NULL) ||
	    !pmixd_text_ok(m->nspace, sizeof(m->nspace)) ||
	    !pmixd_ranks_ok(m->all, m->ranks, m->nranks, ntasks) ||
	    !flags_ok(m->flags) ||
	    m->timeout_ms > PMIXEV_PMIXD_GROUP_TIMEOUT_MS)
		return false;
	if (destruct &&
	    ((m->flags & PMIXEV_PMIXD_GROUP_CONSTRUCT_FLAGS) || m->nendpt))
		return false;
	return m->leader == PMIXEV_PMIXD_NO_RANK ||
	       ((m->flags & PMIXEV_PMIXD_GROUP_LEADER_HERE) &&
		m->leader < ntasks && pmixev_pmixd_group_member(m, m->leader));
}

/* A listed rank on this node, and a leader (if named) here. */
static bool group_local(const struct pmixev_pmixd_bounds *lim,
			const struct pmixev_pmixd_group *m)
{
	bool here = m->all;

	for (uint32_t i = 0; i < m->nranks && !here; i++)
		here = pmixd_rank_local(lim, m->ranks[i]);
	return here && (m->leader == PMIXEV_PMIXD_NO_RANK ||
			pmixd_rank_local(lim, m->leader));
}

int pmixev_pmixd_group_pack(struct pmixev_buf *b,
			    const struct pmixev_pmixd_group *m)
{
	if (!group_ok(m, UINT32_MAX))
		return pmixd_invalid();
	pmixev_buf_put_u64(b, m->id);
	pmixev_buf_put_u8(b, (uint8_t)m->op);
	pmixev_buf_put_str(b, m->grpid);
	pmixev_buf_put_str(b, m->nspace);
	pmixd_put_flag(b, m->all);
	pmixev_buf_put_u32(b, m->nranks);
	for (uint32_t i = 0; i < m->nranks; i++)
		pmixev_buf_put_u32(b, m->ranks[i]);
	pmixev_buf_put_u8(b, m->flags);
	pmixev_buf_put_u32(b, m->leader);
	pmixev_buf_put_u32(b, m->timeout_ms);
	pmixev_buf_put_bytes(b, m->endpt, m->nendpt);
	return pmixd_pack_done(b);
}

int pmixev_pmixd_group_unpack(struct pmixev_buf *b,
			      const struct pmixev_pmixd_bounds *lim,
			      struct pmixev_pmixd_group *m)
{
	struct pmixev_pmixd_group t = {0};
	uint8_t op = 0, all = 0;

	pmixev_buf_get_u64(b, &t.id);
	pmixev_buf_get_u8(b, &op);
	pmixev_buf_get_str(b, t.grpid, sizeof(t.grpid));
	pmixev_buf_get_str(b, t.nspace, sizeof(t.nspace));
	pmixev_buf_get_u8(b, &all);
	pmixev_buf_get_u32(b, &t.nranks);
	if (!pmixev_buf_ok(b) || !op_ok(op) || !pmixd_flag_ok(all) ||
	    !pmixev_pmixd_group_id_ok(t.grpid, lim) ||
	    strcmp(t.nspace, lim->nspace) || t.nranks > lim->map->ntasks ||
	    t.nranks > pmixev_buf_remaining(b) / 4)
		goto fail;
	t.ranks = calloc(t.nranks ? t.nranks : 1, sizeof(*t.ranks));
	if (!t.ranks)
		goto fail;
	for (uint32_t i = 0; i < t.nranks; i++)
		pmixev_buf_get_u32(b, &t.ranks[i]);
	pmixev_buf_get_u8(b, &t.flags);
	pmixev_buf_get_u32(b, &t.leader);
	pmixev_buf_get_u32(b, &t.timeout_ms);
	pmixev_buf_get_bytes(b, &t.endpt, &t.nendpt);
	t.op = (enum pmixev_pmixd_group_op)op;
	t.all = all;
	if (pmixd_unpack_done(b) < 0 || !group_ok(&t, lim->map->ntasks) ||
	    !group_local(lim, &t))
		goto fail;
	*m = t;
	return 0;
fail:
	free(t.ranks);
	return -1;
}

void pmixev_pmixd_group_release(struct pmixev_pmixd_group *m)
{
	if (!m)
		return;
	free(m->ranks);
	m->ranks = NULL;
	m->nranks = 0;
}

/* What GROUP_DONE must hold in a step of `ntasks` ranks. */
static bool done_ok(const struct pmixev_pmixd_group_done *m, uint32_t ntasks)
{
	return pmixev_result_valid(m->result) &&
	       pmixev_pmixd_group_ctxid_ok(m->ctxid) && flags_ok(m->flags) &&
	       (m->leader == PMIXEV_PMIXD_NO_RANK || m->leader < ntasks) &&
	       pmixd_ranks_sorted(m->failed, m->nfailed, ntasks);
}

int pmixev_pmixd_group_done_pack(struct pmixev_buf *b,
				 const struct pmixev_pmixd_group_done *m)
{
	/* Any rank but NO_RANK may be the leader of some step. */
	if (!done_ok(m, PMIXEV_PMIXD_NO_RANK))
		return pmixd_invalid();
	pmixev_buf_put_u64(b, m->id);
	pmixev_buf_put_u8(b, (uint8_t)m->result);
	pmixev_buf_put_u64(b, m->ctxid);
	pmixev_buf_put_u8(b, m->flags);
	pmixev_buf_put_u32(b, m->leader);
	pmixev_buf_put_u32(b, m->nfailed);
	for (uint32_t i = 0; i < m->nfailed; i++)
		pmixev_buf_put_u32(b, m->failed[i]);
	pmixev_buf_put_bytes(b, m->endpt, m->nendpt);
	return pmixd_pack_done(b);
}

int pmixev_pmixd_group_done_unpack(struct pmixev_buf *b, uint32_t ntasks,
				   struct pmixev_pmixd_group_done *m)
{
	struct pmixev_pmixd_group_done t = {0};
	uint8_t result = 0;

	pmixev_buf_get_u64(b, &t.id);
	pmixev_buf_get_u8(b, &result);
	pmixev_buf_get_u64(b, &t.ctxid);
	pmixev_buf_get_u8(b, &t.flags);
	pmixev_buf_get_u32(b, &t.leader);
	pmixev_buf_get_u32(b, &t.nfailed);
	if (!pmixev_buf_ok(b) || !pmixev_result_valid(result) ||
	    t.nfailed > ntasks || t.nfailed > pmixev_buf_remaining(b) / 4)
		goto fail;
	t.result = (enum pmixev_result)result;
	t.failed = calloc(t.nfailed ? t.nfailed : 1, sizeof(*t.failed));
	if (!t.failed)
		goto fail;
	for (uint32_t i = 0; i < t.nfailed; i++)
		pmixev_buf_get_u32(b, &t.failed[i]);
	pmixev_buf_get_bytes(b, &t.endpt, &t.nendpt);
	if (pmixd_unpack_done(b) < 0 || !done_ok(&t, ntasks))
		goto fail;
	*m = t;
	return 0;
fail:
	free(t.failed);
	return -1;
}

void pmixev_pmixd_group_done_release(struct pmixev_pmixd_group_done *m)
{
	if (!m)
		return;
	free(m->failed);
	m->failed = NULL;
	m->nfailed = 0;
}

bool pmixev_pmixd_group_done_fits(const struct pmixev_pmixd_group_done *m,
				  const struct pmixev_pmixd_group *req)
{
	if (req->op == PMIXEV_PMIXD_GROUP_DESTRUCT && (m->ctxid || m->nendpt))
		return false;
	if (m->leader != PMIXEV_PMIXD_NO_RANK &&
	    !pmixev_pmixd_group_member(req, m->leader))
		return false;
	for (uint32_t i = 0; i < m->nfailed; i++)
		if (!pmixev_pmixd_group_member(req, m->failed[i]))
			return false;
	return true;
}

static bool why_ok(unsigned why)
{
	return why == PMIXEV_PMIXD_GROUP_ABORTED;
}

int pmixev_pmixd_group_abort_pack(struct pmixev_buf *b,
				  const struct pmixev_pmixd_group_abort *m)
{
	if (!pmixev_pmixd_group_id_ok(m->grpid, NULL) || !why_ok(m->why) ||
	    m->rank == PMIXEV_PMIXD_NO_RANK)
		return pmixd_invalid();
	pmixev_buf_put_str(b, m->grpid);
	pmixev_buf_put_u32(b, m->rank);
	pmixev_buf_put_u8(b, (uint8_t)m->why);
	return pmixd_pack_done(b);
}

int pmixev_pmixd_group_abort_unpack(struct pmixev_buf *b,
				    const struct pmixev_pmixd_bounds *lim,
				    struct pmixev_pmixd_group_abort *m)
{
	struct pmixev_pmixd_group_abort t = {.rank = PMIXEV_PMIXD_NO_RANK};
	uint8_t why = 0;

	pmixev_buf_get_str(b, t.grpid, sizeof(t.grpid));
	pmixev_buf_get_u32(b, &t.rank);
	pmixev_buf_get_u8(b, &why);
	if (pmixd_unpack_done(b) < 0 || !why_ok(why) ||
	    !pmixev_pmixd_group_id_ok(t.grpid, lim) ||
	    !pmixd_rank_local(lim, t.rank))
		return -1;
	t.why = (enum pmixev_pmixd_group_why)why;
	*m = t;
	return 0;
}
