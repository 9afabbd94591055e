/*
 * pmixev_pmixd_coll.c - fence, direct modex and publish messages of the
 * pmixd channel.
 *
 * Wire layouts (see pmixev_pmixd_msg.c):
 *
 *   fence        u64 id, u8 kind (1..3), u8 all, u32 nranks,
 *                nranks * u32 rank, u8 collect, u32 timeout_sec,
 *                bytes data,               (all: nranks 0; else >= 1)
 *                u32 nparts (0..16), nparts * { u32 job, u32 step, u8 all,
 *                u32 nranks, nranks * u32 rank }
 *   data         u64 id, u8 result, bytes data
 *   dmodex       u64 id, u32 rank, u32 timeout_sec, u32 job, u32 step
 *                ((0, 0): this step)
 *   serve        u64 sid, u32 rank
 *   pubsub       u64 id, u8 op (1..3), u32 rank, u8 wait,
 *                u32 timeout_sec, u8 range (0, 2..5, 7),
 *                u8 persist (0..4; publish only, else 0), u32 n (1..1024),
 *                n * { str key, bytes value }
 *   pubsub_done  u64 id, u8 result, u32 n (0..1024),
 *                n * { str key, u32 job, u32 step, u32 rank, bytes value }
 */
#include "config.h"

#include "pmixev_pmixd_coll.h"
#include "pmixev_pmixd_int.h"

#include <stdlib.h>
#include <string.h>

/* The smallest entry on the wire: an empty key and an empty value. */
#define ENTRY_MIN (4 + 4)

/* FENCE's kinds: a group collective comes as GROUP (pmixev_pmixd_group.h). */
static bool kind_ok(unsigned kind)
{
	return kind >= PMIXEV_COLL_FENCE && kind <= PMIXEV_COLL_DISCONNECT;
}

/* A step of the spawn family (pmixev_xstep_step_ok's rule). */
static bool family_step_ok(uint32_t job, uint32_t step)
{
	return job != 0 && job != UINT32_MAX && step < 0xfffffff0u;
}

/* Part i of `p` comes after part i - 1 and is not the step's own. */
static bool part_ok(const struct pmixev_pmixd_part *p, uint32_t i,
		    uint32_t own_job, uint32_t own_step)
{
	const struct pmixev_pmixd_part *q = i ? &p[i - 1] : NULL;

	return family_step_ok(p[i].job, p[i].step) &&
	       (p[i].job != own_job || p[i].step != own_step) &&
	       (!q || q->job < p[i].job ||
		(q->job == p[i].job && q->step < p[i].step)) &&
	       (p[i].all || p[i].nranks <= PMIXEV_PMIXD_PART_RANKS_MAX) &&
	       pmixd_ranks_ok(p[i].all, p[i].ranks, p[i].nranks, UINT32_MAX);
}

static bool parts_ok(const struct pmixev_pmixd_part *p, uint32_t n,
		     uint32_t own_job, uint32_t own_step)
{
	if (n > PMIXEV_PMIXD_PARTS_MAX || (n && !p))
		return false;
	for (uint32_t i = 0; i < n; i++)
		if (!part_ok(p, i, own_job, own_step))
			return false;
	return true;
}

static void parts_free(struct pmixev_pmixd_part *p, uint32_t n)
{
	for (uint32_t i = 0; p && i < n; i++)
		free(p[i].ranks);
	free(p);
}

/*
 * The parts, each count checked before its array is allocated; the
 * order and the own step are checked by the caller (parts_ok).
 */
static int get_parts(struct pmixev_buf *b, struct pmixev_pmixd_part **out,
		     uint32_t *count)
{
	struct pmixev_pmixd_part *p = NULL;
	uint32_t n = 0;

	*out = NULL;
	*count = 0;
	pmixev_buf_get_u32(b, &n);
	/* the smallest part: job, step, all, nranks */
	if (!pmixev_buf_ok(b) || n > PMIXEV_PMIXD_PARTS_MAX ||
	    n > pmixev_buf_remaining(b) / 13)
		return -1;
	if (n && !(p = calloc(n, sizeof(*p))))
		return -1;
	*out = p;
	*count = n;
	for (uint32_t i = 0; i < n; i++) {
		uint8_t all = 0;

		pmixev_buf_get_u32(b, &p[i].job);
		pmixev_buf_get_u32(b, &p[i].step);
		pmixev_buf_get_u8(b, &all);
		pmixev_buf_get_u32(b, &p[i].nranks);
		if (!pmixev_buf_ok(b) || !pmixd_flag_ok(all) ||
		    p[i].nranks > PMIXEV_PMIXD_PART_RANKS_MAX ||
		    p[i].nranks > pmixev_buf_remaining(b) / 4)
			return -1;
		p[i].all = all;
		if (!(p[i].ranks = calloc(p[i].nranks ? p[i].nranks : 1,
					  sizeof(*p[i].ranks))))
			return -1;
		for (uint32_t k = 0; k < p[i].nranks; k++)
			pmixev_buf_get_u32(b, &p[i].ranks[k]);
	}
	return pmixev_buf_ok(b) ? 0 : -1;
}

int pmixev_pmixd_fence_pack(struct pmixev_buf *b,
			    const struct pmixev_pmixd_fence *m)
{
	if (!kind_ok(m->kind) || m->timeout_sec > PMIXEV_PMIXD_TIMEOUT_MAX ||
	    !pmixd_ranks_ok(m->all, m->ranks, m->nranks, UINT32_MAX) ||
	    !parts_ok(m->parts, m->nparts, 0, 0))
		return pmixd_invalid();
	pmixev_buf_put_u64(b, m->id);
	pmixev_buf_put_u8(b, (uint8_t)m->kind);
	pmixd_put_flag(b, m->all);
	pmixev_buf_put_u32(b, m->nranks);
	for (uint32_t i = 0; i < m->nranks; i++)
		pmixev_buf_put_u32(b, m->ranks[i]);
	pmixd_put_flag(b, m->collect);
	pmixev_buf_put_u32(b, m->timeout_sec);
	pmixev_buf_put_bytes(b, m->data, m->ndata);
	pmixev_buf_put_u32(b, m->nparts);
	for (uint32_t i = 0; i < m->nparts; i++) {
		const struct pmixev_pmixd_part *p = &m->parts[i];

		pmixev_buf_put_u32(b, p->job);
		pmixev_buf_put_u32(b, p->step);
		pmixd_put_flag(b, p->all);
		pmixev_buf_put_u32(b, p->nranks);
		for (uint32_t k = 0; k < p->nranks; k++)
			pmixev_buf_put_u32(b, p->ranks[k]);
	}
	return pmixd_pack_done(b);
}

int pmixev_pmixd_fence_unpack(struct pmixev_buf *b,
			      const struct pmixev_pmixd_bounds *lim,
			      struct pmixev_pmixd_fence *m)
{
	struct pmixev_pmixd_fence t = {0};
	uint8_t kind = 0, all = 0, collect = 0;

	pmixev_buf_get_u64(b, &t.id);
	pmixev_buf_get_u8(b, &kind);
	pmixev_buf_get_u8(b, &all);
	pmixev_buf_get_u32(b, &t.nranks);
	if (!pmixev_buf_ok(b) || !kind_ok(kind) || !pmixd_flag_ok(all) ||
	    t.nranks > lim->map->ntasks ||
	    t.nranks > pmixev_buf_remaining(b) / 4)
		goto fail;
	t.ranks = calloc(t.nranks ? t.nranks : 1, sizeof(*t.ranks));
	if (!t.ranks)
		goto fail;
	for (uint32_t i = 0; i < t.nranks; i++)
		pmixev_buf_get_u32(b, &t.ranks[i]);
	pmixev_buf_get_u8(b, &collect);
	pmixev_buf_get_u32(b, &t.timeout_sec);
	pmixev_buf_get_bytes(b, &t.data, &t.ndata);
	t.kind = (enum pmixev_coll_kind)kind;
	t.all = all;
	t.collect = collect;
	if (get_parts(b, &t.parts, &t.nparts) < 0 || pmixd_unpack_done(b) < 0 ||
	    !pmixd_flag_ok(collect) ||
	    t.timeout_sec > PMIXEV_PMIXD_TIMEOUT_MAX ||
	    !pmixd_ranks_ok(t.all, t.ranks, t.nranks, lim->map->ntasks) ||
	    !parts_ok(t.parts, t.nparts, lim->job, lim->step))
		goto fail;
	*m = t;
	return 0;
fail:
	free(t.ranks);
	parts_free(t.parts, t.nparts);
	return -1;
}

void pmixev_pmixd_fence_release(struct pmixev_pmixd_fence *m)
{
	if (!m)
		return;
	free(m->ranks);
	m->ranks = NULL;
	m->nranks = 0;
	parts_free(m->parts, m->nparts);
	m->parts = NULL;
	m->nparts = 0;
}

int pmixev_pmixd_data_pack(struct pmixev_buf *b,
			   const struct pmixev_pmixd_data *m)
{
	if (!pmixev_result_valid(m->result))
		return pmixd_invalid();
	pmixev_buf_put_u64(b, m->id);
	pmixev_buf_put_u8(b, (uint8_t)m->result);
	pmixev_buf_put_bytes(b, m->data, m->ndata);
	return pmixd_pack_done(b);
}

int pmixev_pmixd_data_unpack(struct pmixev_buf *b, struct pmixev_pmixd_data *m)
{
	struct pmixev_pmixd_data t;
	uint8_t result = 0;

	pmixev_buf_get_u64(b, &t.id);
	pmixev_buf_get_u8(b, &result);
	pmixev_buf_get_bytes(b, &t.data, &t.ndata);
	if (pmixd_unpack_done(b) < 0 || !pmixev_result_valid(result))
		return -1;
	t.result = (enum pmixev_result)result;
	*m = t;
	return 0;
}

bool pmixev_pmixd_dmodex_foreign(const struct pmixev_pmixd_dmodex *m)
{
	return m->job || m->step;
}

/* A family member's (job, step), as pmixev_xstep_step_ok takes it, and a
 * rank root can check against its size. */
static bool foreign_ok(const struct pmixev_pmixd_dmodex *m)
{
	return m->job != 0 && m->job != UINT32_MAX && m->step < 0xfffffff0u &&
	       m->rank < PMIXEV_PMIXD_RANK_MAX;
}

int pmixev_pmixd_dmodex_pack(struct pmixev_buf *b,
			     const struct pmixev_pmixd_dmodex *m)
{
	if (m->timeout_sec > PMIXEV_PMIXD_TIMEOUT_MAX ||
	    (pmixev_pmixd_dmodex_foreign(m) && !foreign_ok(m)))
		return pmixd_invalid();
	pmixev_buf_put_u64(b, m->id);
	pmixev_buf_put_u32(b, m->rank);
	pmixev_buf_put_u32(b, m->timeout_sec);
	pmixev_buf_put_u32(b, m->job);
	pmixev_buf_put_u32(b, m->step);
	return pmixd_pack_done(b);
}

int pmixev_pmixd_dmodex_unpack(struct pmixev_buf *b,
			       const struct pmixev_pmixd_bounds *lim,
			       struct pmixev_pmixd_dmodex *m)
{
	struct pmixev_pmixd_dmodex t;

	pmixev_buf_get_u64(b, &t.id);
	pmixev_buf_get_u32(b, &t.rank);
	pmixev_buf_get_u32(b, &t.timeout_sec);
	pmixev_buf_get_u32(b, &t.job);
	pmixev_buf_get_u32(b, &t.step);
	if (pmixd_unpack_done(b) < 0 ||
	    t.timeout_sec > PMIXEV_PMIXD_TIMEOUT_MAX)
		return -1;
	if (pmixev_pmixd_dmodex_foreign(&t) ? !foreign_ok(&t)
					    : !pmixd_rank_ok(lim, t.rank))
		return -1;
	*m = t;
	return 0;
}

int pmixev_pmixd_serve_pack(struct pmixev_buf *b,
			    const struct pmixev_pmixd_serve *m)
{
	pmixev_buf_put_u64(b, m->sid);
	pmixev_buf_put_u32(b, m->rank);
	return pmixd_pack_done(b);
}

int pmixev_pmixd_serve_unpack(struct pmixev_buf *b,
			      struct pmixev_pmixd_serve *m)
{
	struct pmixev_pmixd_serve t;

	pmixev_buf_get_u64(b, &t.sid);
	pmixev_buf_get_u32(b, &t.rank);
	if (pmixd_unpack_done(b) < 0)
		return -1;
	*m = t;
	return 0;
}

static bool op_ok(unsigned op)
{
	return op >= PMIXEV_PMIXD_PUBLISH && op <= PMIXEV_PMIXD_UNPUBLISH;
}

bool pmixev_pmixd_range_ok(unsigned range)
{
	switch (range) {
	case PMIXEV_PMIXD_RANGE_UNDEF:
	case PMIXEV_PMIXD_RANGE_LOCAL:
	case PMIXEV_PMIXD_RANGE_NAMESPACE:
	case PMIXEV_PMIXD_RANGE_SESSION:
	case PMIXEV_PMIXD_RANGE_GLOBAL:
	case PMIXEV_PMIXD_RANGE_PROC_LOCAL:
		return true;
	default:
		return false;
	}
}

/* A request's directives: wait only for a lookup, persist only for a
 * publish, a range the directory serves, a bounded timeout. */
static bool directives_ok(unsigned op, bool wait, uint32_t timeout_sec,
			  unsigned range, unsigned persist)
{
	return op_ok(op) && (!wait || op == PMIXEV_PMIXD_LOOKUP) &&
	       timeout_sec <= PMIXEV_PMIXD_TIMEOUT_MAX &&
	       pmixev_pmixd_range_ok(range) &&
	       persist <= (op == PMIXEV_PMIXD_PUBLISH ? PMIXEV_PMIXD_PERSIST_MAX
						      : 0);
}

/*
 * Entries as they may travel: 1..ENTRIES_MAX keys in a request (0.. in an
 * answer), none empty, values only where `values` (else none), at most
 * `max_bytes` of them in all.
 */
static bool entries_ok(const struct pmixev_pmixd_entry *e, uint32_t n,
		       bool request, bool values, size_t max_bytes)
{
	size_t bytes = 0;

	if (n > PMIXEV_PMIXD_ENTRIES_MAX || (request && !n) || (n && !e))
		return false;
	for (uint32_t i = 0; i < n; i++) {
		if (!e[i].key[0] ||
		    !pmixd_text_ok(e[i].key, sizeof(e[i].key)) ||
		    (!values && e[i].nvalue) || e[i].nvalue > max_bytes - bytes)
			return false;
		bytes += e[i].nvalue;
	}
	return true;
}

static void put_entries(struct pmixev_buf *b,
			const struct pmixev_pmixd_entry *e, uint32_t n,
			bool with_rank)
{
	pmixev_buf_put_u32(b, n);
	for (uint32_t i = 0; i < n; i++) {
		pmixev_buf_put_str(b, e[i].key);
		if (with_rank) {
			pmixev_buf_put_u32(b, e[i].job);
			pmixev_buf_put_u32(b, e[i].step);
			pmixev_buf_put_u32(b, e[i].rank);
		}
		pmixev_buf_put_bytes(b, e[i].value, e[i].nvalue);
	}
}

/* The count, checked before the array is allocated, then the entries. */
static int get_entries(struct pmixev_buf *b, bool with_rank,
		       struct pmixev_pmixd_entry **out, uint32_t *count)
{
	struct pmixev_pmixd_entry *e;
	uint32_t n = 0;

	*out = NULL;
	*count = 0;
	pmixev_buf_get_u32(b, &n);
	if (!pmixev_buf_ok(b) || n > PMIXEV_PMIXD_ENTRIES_MAX ||
	    n > pmixev_buf_remaining(b) / ENTRY_MIN)
		return -1;
	e = calloc(n ? n : 1, sizeof(*e));
	if (!e)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		pmixev_buf_get_str(b, e[i].key, sizeof(e[i].key));
		if (with_rank) {
			pmixev_buf_get_u32(b, &e[i].job);
			pmixev_buf_get_u32(b, &e[i].step);
			pmixev_buf_get_u32(b, &e[i].rank);
		}
		pmixev_buf_get_bytes(b, &e[i].value, &e[i].nvalue);
	}
	*out = e;
	*count = n;
	return pmixev_buf_ok(b) ? 0 : -1;
}

void pmixev_pmixd_entries_release(struct pmixev_pmixd_entry **e, uint32_t *n)
{
	free(*e);
	*e = NULL;
	*n = 0;
}

int pmixev_pmixd_pubsub_pack(struct pmixev_buf *b,
			     const struct pmixev_pmixd_pubsub *m)
{
	if (!directives_ok(m->op, m->wait, m->timeout_sec, m->range,
			   m->persist) ||
	    !entries_ok(m->e, m->n, true, m->op == PMIXEV_PMIXD_PUBLISH,
			SIZE_MAX))
		return pmixd_invalid();
	pmixev_buf_put_u64(b, m->id);
	pmixev_buf_put_u8(b, (uint8_t)m->op);
	pmixev_buf_put_u32(b, m->rank);
	pmixd_put_flag(b, m->wait);
	pmixev_buf_put_u32(b, m->timeout_sec);
	pmixev_buf_put_u8(b, m->range);
	pmixev_buf_put_u8(b, m->persist);
	put_entries(b, m->e, m->n, false);
	return pmixd_pack_done(b);
}

int pmixev_pmixd_pubsub_unpack(struct pmixev_buf *b,
			       const struct pmixev_pmixd_bounds *lim,
			       struct pmixev_pmixd_pubsub *m)
{
	struct pmixev_pmixd_pubsub t = {0};
	uint8_t op = 0, wait = 0;

	pmixev_buf_get_u64(b, &t.id);
	pmixev_buf_get_u8(b, &op);
	pmixev_buf_get_u32(b, &t.rank);
	pmixev_buf_get_u8(b, &wait);
	pmixev_buf_get_u32(b, &t.timeout_sec);
	pmixev_buf_get_u8(b, &t.range);
	pmixev_buf_get_u8(b, &t.persist);
	if (!pmixev_buf_ok(b) || !pmixd_flag_ok(wait) ||
	    !directives_ok(op, wait, t.timeout_sec, t.range, t.persist) ||
	    !pmixd_rank_local(lim, t.rank))
		return -1;
	t.op = (enum pmixev_pmixd_pubsub_op)op;
	t.wait = wait;
	if (get_entries(b, false, &t.e, &t.n) < 0 || pmixd_unpack_done(b) < 0 ||
	    !entries_ok(t.e, t.n, true, t.op == PMIXEV_PMIXD_PUBLISH,
			lim->publish_max))
		goto fail;
	*m = t;
	return 0;
fail:
	pmixev_pmixd_entries_release(&t.e, &t.n);
	return -1;
}

int pmixev_pmixd_pubsub_done_pack(struct pmixev_buf *b,
				  const struct pmixev_pmixd_pubsub_done *m)
{
	if (!pmixev_result_valid(m->result) ||
	    !entries_ok(m->e, m->n, false, true, SIZE_MAX))
		return pmixd_invalid();
	pmixev_buf_put_u64(b, m->id);
	pmixev_buf_put_u8(b, (uint8_t)m->result);
	put_entries(b, m->e, m->n, true);
	return pmixd_pack_done(b);
}

int pmixev_pmixd_pubsub_done_unpack(struct pmixev_buf *b,
				    struct pmixev_pmixd_pubsub_done *m)
{
	struct pmixev_pmixd_pubsub_done t = {0};
	uint8_t result = 0;

	pmixev_buf_get_u64(b, &t.id);
	pmixev_buf_get_u8(b, &result);
	if (!pmixev_buf_ok(b) || !pmixev_result_valid(result))
		return -1;
	t.result = (enum pmixev_result)result;
	if (get_entries(b, true, &t.e, &t.n) < 0 || pmixd_unpack_done(b) < 0 ||
	    !entries_ok(t.e, t.n, false, true, SIZE_MAX))
		goto fail;
	*m = t;
	return 0;
fail:
	pmixev_pmixd_entries_release(&t.e, &t.n);
	return -1;
}
