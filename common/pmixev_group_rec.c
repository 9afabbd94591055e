/*
 * pmixev_group_rec.c - a group collective's records, their merge, the
 * result record and the context ids (see pmixev_group_rec.h).
 *
 * Wire layouts (see pmixev_buf.h):
 *
 *   record   u32 len, then len bytes: u32 node, u8 flags, u32 leader,
 *            u32 ndead, ndead * u32 rank, bytes endpt
 *   result   u64 ctxid, u8 flags, u32 leader, u32 nfailed,
 *            nfailed * u32 rank, bytes endpt
 */
#include "config.h"

#include "pmixev_group_rec.h"

#include <errno.h>
#include <stdlib.h>

#define NO_RANK	    PMIXEV_PMIXD_NO_RANK
#define LEADER_HERE PMIXEV_PMIXD_GROUP_LEADER_HERE
/* A record's fixed part: node, flags, leader, ndead, endpt's length. */
#define REC_FIXED (4 + 1 + 4 + 4 + 4)
#define N_MAX	  0xfffffffeu /* the last n of a step's context ids */

static int fail_with(int err)
{
	errno = err;
	return -1;
}

static int cmp_rank(const void *key, const void *elem)
{
	uint32_t a = *(const uint32_t *)key, b = *(const uint32_t *)elem;

	return a < b ? -1 : a > b;
}

static bool member(const struct pmixev_group_set *set, uint32_t rank)
{
	return rank < set->map->ntasks &&
	       (set->all ||
		(set->nranks && bsearch(&rank, set->ranks, set->nranks,
					sizeof(*set->ranks), cmp_rank)));
}

/* `n` ranks (n <= ntasks), strictly increasing, each below `ntasks`. */
static bool sorted(const uint32_t *v, uint32_t n, uint32_t ntasks)
{
	if (n > ntasks || (n && !v))
		return false;
	for (uint32_t i = 0; i < n; i++)
		if (v[i] >= ntasks || (i && v[i] <= v[i - 1]))
			return false;
	return true;
}

static bool flags_ok(unsigned flags)
{
	return !(flags & ~PMIXEV_PMIXD_GROUP_FLAGS);
}

/* What a record holds in any step of `ntasks` ranks. */
static bool rec_ok(const struct pmixev_group_rec *r, uint32_t ntasks)
{
	return flags_ok(r->flags) &&
	       (r->leader == NO_RANK ||
		((r->flags & LEADER_HERE) && r->leader < ntasks)) &&
	       sorted(r->dead, r->ndead, ntasks);
}

/* A member on the record's node. */
static bool member_here(const struct pmixev_group_set *set,
			const struct pmixev_group_rec *r, uint32_t rank)
{
	return member(set, rank) && set->map->node_of[rank] == r->node;
}

static bool rec_in(const struct pmixev_group_rec *r,
		   const struct pmixev_group_set *set)
{
	if (!rec_ok(r, set->map->ntasks) ||
	    (r->leader != NO_RANK && !member_here(set, r, r->leader)))
		return false;
	for (uint32_t i = 0; i < r->ndead; i++)
		if (!member_here(set, r, r->dead[i]))
			return false;
	return true;
}

int pmixev_group_rec_pack(struct pmixev_buf *b,
			  const struct pmixev_group_rec *r)
{
	size_t fixed = REC_FIXED + 4 * (size_t)r->ndead;

	if (!rec_ok(r, UINT32_MAX) || r->nendpt > UINT32_MAX - fixed)
		return fail_with(EINVAL);
	pmixev_buf_put_u32(b, (uint32_t)(fixed + r->nendpt));
	pmixev_buf_put_u32(b, r->node);
	pmixev_buf_put_u8(b, r->flags);
	pmixev_buf_put_u32(b, r->leader);
	pmixev_buf_put_u32(b, r->ndead);
	for (uint32_t i = 0; i < r->ndead; i++)
		pmixev_buf_put_u32(b, r->dead[i]);
	pmixev_buf_put_bytes(b, r->endpt, r->nendpt);
	return pmixev_buf_ok(b) ? 0 : fail_with(ENOMEM);
}

/* Read one record's body from `in`; its dead count is checked first. */
static int rec_read(struct pmixev_buf *in, const struct pmixev_group_set *set,
		    struct pmixev_group_rec *r)
{
	const struct pmixev_taskmap *map = set->map;

	pmixev_buf_get_u32(in, &r->node);
	pmixev_buf_get_u8(in, &r->flags);
	pmixev_buf_get_u32(in, &r->leader);
	pmixev_buf_get_u32(in, &r->ndead);
	if (!pmixev_buf_ok(in) || r->node >= map->nnodes ||
	    r->ndead > map->count[r->node] ||
	    r->ndead > pmixev_buf_remaining(in) / 4)
		return fail_with(EINVAL);
	if (!(r->dead = calloc(r->ndead ? r->ndead : 1, sizeof(*r->dead))))
		return fail_with(ENOMEM);
	for (uint32_t i = 0; i < r->ndead; i++)
		pmixev_buf_get_u32(in, &r->dead[i]);
	pmixev_buf_get_bytes(in, &r->endpt, &r->nendpt);
	if (!pmixev_buf_ok(in) || pmixev_buf_remaining(in) || !rec_in(r, set))
		return fail_with(EINVAL);
	return 0;
}

int pmixev_group_rec_next(struct pmixev_buf *b,
			  const struct pmixev_group_set *set,
			  struct pmixev_group_rec *r)
{
	struct pmixev_group_rec t = {0};
	struct pmixev_buf in;
	const uint8_t *p = NULL;
	size_t n = 0;

	if (pmixev_buf_ok(b) && !pmixev_buf_remaining(b))
		return 0;
	if (pmixev_buf_get_bytes(b, &p, &n) < 0)
		return fail_with(EINVAL);
	pmixev_buf_reader(&in, p, n);
	if (rec_read(&in, set, &t) < 0) {
		free(t.dead);
		b->err = true;
		return -1;
	}
	*r = t;
	return 1;
}

void pmixev_group_rec_release(struct pmixev_group_rec *r)
{
	if (!r)
		return;
	free(r->dead);
	r->dead = NULL;
	r->ndead = 0;
}

static bool result_ok(const struct pmixev_group_result *r, uint32_t ntasks)
{
	return pmixev_pmixd_group_ctxid_ok(r->ctxid) && flags_ok(r->flags) &&
	       (r->leader == NO_RANK || r->leader < ntasks) &&
	       sorted(r->failed, r->nfailed, ntasks);
}

int pmixev_group_result_pack(struct pmixev_buf *b,
			     const struct pmixev_group_result *r)
{
	if (!result_ok(r, NO_RANK))
		return fail_with(EINVAL);
	pmixev_buf_put_u64(b, r->ctxid);
	pmixev_buf_put_u8(b, r->flags);
	pmixev_buf_put_u32(b, r->leader);
	pmixev_buf_put_u32(b, r->nfailed);
	for (uint32_t i = 0; i < r->nfailed; i++)
		pmixev_buf_put_u32(b, r->failed[i]);
	pmixev_buf_put_bytes(b, r->endpt, r->nendpt);
	return pmixev_buf_ok(b) ? 0 : fail_with(ENOMEM);
}

/* Members only: the leader, if any, and every failed rank. */
static bool result_in(const struct pmixev_group_result *r,
		      const struct pmixev_group_set *set)
{
	if (r->leader != NO_RANK && !member(set, r->leader))
		return false;
	for (uint32_t i = 0; i < r->nfailed; i++)
		if (!member(set, r->failed[i]))
			return false;
	return true;
}

int pmixev_group_result_unpack(struct pmixev_buf *b,
			       const struct pmixev_group_set *set,
			       struct pmixev_group_result *r)
{
	struct pmixev_group_result t = {0};
	uint32_t ntasks = set->map->ntasks;

	pmixev_buf_get_u64(b, &t.ctxid);
	pmixev_buf_get_u8(b, &t.flags);
	pmixev_buf_get_u32(b, &t.leader);
	pmixev_buf_get_u32(b, &t.nfailed);
	if (!pmixev_buf_ok(b) || t.nfailed > ntasks ||
	    t.nfailed > pmixev_buf_remaining(b) / 4)
		goto fail;
	if (!(t.failed = calloc(t.nfailed ? t.nfailed : 1, sizeof(*t.failed))))
		goto fail;
	for (uint32_t i = 0; i < t.nfailed; i++)
		pmixev_buf_get_u32(b, &t.failed[i]);
	pmixev_buf_get_bytes(b, &t.endpt, &t.nendpt);
	if (!pmixev_buf_ok(b) || pmixev_buf_remaining(b) ||
	    !result_ok(&t, ntasks) || !result_in(&t, set))
		goto fail;
	*r = t;
	return 0;
fail:
	free(t.failed);
	return -1;
}

void pmixev_group_result_release(struct pmixev_group_result *r)
{
	if (!r)
		return;
	free(r->failed);
	r->failed = NULL;
	r->nfailed = 0;
}

/* A node's record as the merge keeps it until the end. */
struct seen {
	bool here;
	const uint8_t *endpt;
	size_t nendpt;
};

static bool bit(const uint8_t *map, uint32_t r)
{
	return map[r / 8] >> (r % 8) & 1;
}

static void set_bit(uint8_t *map, uint32_t r)
{
	map[r / 8] |= (uint8_t)(1u << (r % 8));
}

/* The members in order: the i-th of `set`. */
static uint32_t nth(const struct pmixev_group_set *set, uint32_t i)
{
	return set->all ? i : set->ranks[i];
}

/* The members `dead` or `gone` mark, in order, into out->failed. */
static int collect_failed(const struct pmixev_group_set *set,
			  const uint8_t *dead, const uint8_t *gone,
			  struct pmixev_group_result *out)
{
	uint32_t n = set->all ? set->map->ntasks : set->nranks, k = 0;

	for (uint32_t i = 0; i < n; i++)
		k += bit(gone, nth(set, i)) || (dead && bit(dead, nth(set, i)));
	if (!(out->failed = calloc(k ? k : 1, sizeof(*out->failed))))
		return fail_with(ENOMEM);
	for (uint32_t i = 0; i < n; i++)
		if (bit(gone, nth(set, i)) || (dead && bit(dead, nth(set, i))))
			out->failed[out->nfailed++] = nth(set, i);
	return 0;
}

/* Fold record `r` into `t`; `ambiguous` once the leader is. */
static void fold(struct pmixev_group_result *t, bool *ambiguous,
		 const struct pmixev_group_rec *r, uint8_t *gone)
{
	t->flags |= r->flags;
	if (r->flags & LEADER_HERE) {
		if (r->leader == NO_RANK || t->leader != NO_RANK)
			*ambiguous = true;
		else
			t->leader = r->leader;
	}
	for (uint32_t i = 0; i < r->ndead; i++)
		set_bit(gone, r->dead[i]);
}

int pmixev_group_merge(const uint8_t *recs, size_t len,
		       const struct pmixev_group_set *set, const uint8_t *dead,
		       struct pmixev_buf *endpt,
		       struct pmixev_group_result *out)
{
	const struct pmixev_taskmap *map = set->map;
	struct pmixev_group_result t = {.leader = NO_RANK};
	struct pmixev_group_rec r;
	struct seen *at = NULL;
	uint32_t *hosts = NULL; /* members per node */
	uint8_t *gone = NULL;	/* dead per the records */
	size_t start = endpt->len;
	bool ambiguous = false;
	struct pmixev_buf b;
	int rc, err = ENOMEM;

	if (!(at = calloc(map->nnodes ? map->nnodes : 1, sizeof(*at))) ||
	    !(hosts = calloc(map->nnodes ? map->nnodes : 1, sizeof(*hosts))) ||
	    !(gone = calloc(map->ntasks / 8 + 1, 1)))
		goto out;
	for (uint32_t i = 0; i < (set->all ? map->ntasks : set->nranks); i++)
		hosts[map->node_of[nth(set, i)]]++;
	pmixev_buf_reader(&b, recs, len);
	while ((rc = pmixev_group_rec_next(&b, set, &r)) == 1) {
		bool bad = !hosts[r.node] || at[r.node].here;

		if (!bad) {
			at[r.node] = (struct seen){true, r.endpt, r.nendpt};
			fold(&t, &ambiguous, &r, gone);
		}
		pmixev_group_rec_release(&r);
		if (bad) {
			err = EINVAL;
			goto out;
		}
	}
	if (rc < 0) {
		err = errno;
		goto out;
	}
	/* A node without a record: its members all ended before calling. */
	for (uint32_t i = 0; i < (set->all ? map->ntasks : set->nranks); i++)
		if (!at[map->node_of[nth(set, i)]].here)
			set_bit(gone, nth(set, i));
	if (collect_failed(set, dead, gone, &t) < 0)
		goto out;
	for (uint32_t i = 0; i < map->nnodes; i++)
		if (at[i].here)
			pmixev_buf_put_raw(endpt, at[i].endpt, at[i].nendpt);
	if (!pmixev_buf_ok(endpt))
		goto out;
	t.endpt = endpt->data ? endpt->data + start : NULL;
	t.nendpt = endpt->len - start;
	if (ambiguous)
		t.leader = NO_RANK;
	*out = t;
	t.failed = NULL;
	err = 0;
out:
	free(t.failed);
	free(gone);
	free(hosts);
	free(at);
	return err ? fail_with(err) : 0;
}

int pmixev_group_ids_init(struct pmixev_group_ids *ids, uint32_t step_id)
{
	if (step_id >= PMIXEV_GROUP_STEP_LIMIT)
		return fail_with(EINVAL);
	ids->prefix = (uint64_t)(step_id + 1) << 32;
	ids->last = 0;
	return 0;
}

int pmixev_group_ids_next(struct pmixev_group_ids *ids, uint64_t *ctxid)
{
	if (ids->last >= N_MAX)
		return fail_with(ENOSPC);
	ids->last++;
	*ctxid = ids->prefix | ids->last;
	return 0;
}
