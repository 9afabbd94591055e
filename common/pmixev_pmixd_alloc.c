/*
 * pmixev_pmixd_alloc.c - ALLOC and ALLOC_DONE of the pmixd channel
 * (declared in pmixev_pmixd_spawn.h).
 *
 * Wire layouts (see pmixev_pmixd_msg.c):
 *
 *   alloc       u64 id, u32 rank, u8 directive (1..5), u32 job,
 *               u32 nnodes, u32 ncpus, u64 mem_mb, u32 seconds,
 *               str nodes, str exclude, str queue, str reqid,
 *               u8 flags, u32 timeout_ms
 *   alloc_done  u64 id, i32 status, u32 job, str nodes, u32 nnodes,
 *               u32 ncpus, u32 seconds, str queue, str reason
 *
 * Both have fixed-size fields only: nothing is allocated.
 */
#include "config.h"

#include "pmixev_pmixd_int.h"
#include "pmixev_pmixd_spawn.h"

#include <string.h>

bool pmixev_pmixd_hostlist_ok(const char *s)
{
	static const char ok[] = "abcdefghijklmnopqrstuvwxyz"
				 "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				 "0123456789._,[]-";

	return strspn(s, ok) == strlen(s);
}

static bool dir_ok(unsigned d)
{
	return d >= PMIXEV_PMIXD_ALLOC_NEW && d <= PMIXEV_PMIXD_ALLOC_CANCEL;
}

static bool alloc_ok(const struct pmixev_pmixd_alloc *m)
{
	return dir_ok(m->directive) &&
	       !(m->flags & ~PMIXEV_PMIXD_ALLOC_FLAGS) &&
	       m->timeout_ms <= PMIXEV_PMIXD_SPAWN_MS_MAX &&
	       pmixd_text_ok(m->nodes, sizeof(m->nodes)) &&
	       pmixd_text_ok(m->exclude, sizeof(m->exclude)) &&
	       pmixd_text_ok(m->queue, sizeof(m->queue)) &&
	       pmixd_text_ok(m->reqid, sizeof(m->reqid)) &&
	       pmixev_pmixd_hostlist_ok(m->nodes) &&
	       pmixev_pmixd_hostlist_ok(m->exclude);
}

int pmixev_pmixd_alloc_pack(struct pmixev_buf *b,
			    const struct pmixev_pmixd_alloc *m)
{
	if (!alloc_ok(m))
		return pmixd_invalid();
	pmixev_buf_put_u64(b, m->id);
	pmixev_buf_put_u32(b, m->rank);
	pmixev_buf_put_u8(b, (uint8_t)m->directive);
	pmixev_buf_put_u32(b, m->job);
	pmixev_buf_put_u32(b, m->nnodes);
	pmixev_buf_put_u32(b, m->ncpus);
	pmixev_buf_put_u64(b, m->mem_mb);
	pmixev_buf_put_u32(b, m->seconds);
	pmixev_buf_put_str(b, m->nodes);
	pmixev_buf_put_str(b, m->exclude);
	pmixev_buf_put_str(b, m->queue);
	pmixev_buf_put_str(b, m->reqid);
	pmixev_buf_put_u8(b, m->flags);
	pmixev_buf_put_u32(b, m->timeout_ms);
	return pmixd_pack_done(b);
}

int pmixev_pmixd_alloc_unpack(struct pmixev_buf *b,
			      const struct pmixev_pmixd_bounds *lim,
			      struct pmixev_pmixd_alloc *m)
{
	struct pmixev_pmixd_alloc t;
	uint8_t dir = 0;

	pmixev_buf_get_u64(b, &t.id);
	pmixev_buf_get_u32(b, &t.rank);
	pmixev_buf_get_u8(b, &dir);
	pmixev_buf_get_u32(b, &t.job);
	pmixev_buf_get_u32(b, &t.nnodes);
	pmixev_buf_get_u32(b, &t.ncpus);
	pmixev_buf_get_u64(b, &t.mem_mb);
	pmixev_buf_get_u32(b, &t.seconds);
	pmixev_buf_get_str(b, t.nodes, sizeof(t.nodes));
	pmixev_buf_get_str(b, t.exclude, sizeof(t.exclude));
	pmixev_buf_get_str(b, t.queue, sizeof(t.queue));
	pmixev_buf_get_str(b, t.reqid, sizeof(t.reqid));
	pmixev_buf_get_u8(b, &t.flags);
	pmixev_buf_get_u32(b, &t.timeout_ms);
	t.directive = (enum pmixev_pmixd_alloc_dir)dir;
	if (pmixd_unpack_done(b) < 0 || !alloc_ok(&t) ||
	    (t.rank != PMIXEV_PMIXD_NO_RANK && !pmixd_rank_local(lim, t.rank)))
		return -1;
	*m = t;
	return 0;
}

static bool alloc_done_ok(const struct pmixev_pmixd_alloc_done *m)
{
	return m->status <= 0 && pmixd_text_ok(m->nodes, sizeof(m->nodes)) &&
	       pmixd_text_ok(m->queue, sizeof(m->queue)) &&
	       pmixd_text_ok(m->reason, sizeof(m->reason)) &&
	       pmixev_pmixd_hostlist_ok(m->nodes);
}

int pmixev_pmixd_alloc_done_pack(struct pmixev_buf *b,
				 const struct pmixev_pmixd_alloc_done *m)
{
	if (!alloc_done_ok(m))
		return pmixd_invalid();
	pmixev_buf_put_u64(b, m->id);
	pmixev_buf_put_i32(b, m->status);
	pmixev_buf_put_u32(b, m->job);
	pmixev_buf_put_str(b, m->nodes);
	pmixev_buf_put_u32(b, m->nnodes);
	pmixev_buf_put_u32(b, m->ncpus);
	pmixev_buf_put_u32(b, m->seconds);
	pmixev_buf_put_str(b, m->queue);
	pmixev_buf_put_str(b, m->reason);
	return pmixd_pack_done(b);
}

int pmixev_pmixd_alloc_done_unpack(struct pmixev_buf *b,
				   struct pmixev_pmixd_alloc_done *m)
{
	struct pmixev_pmixd_alloc_done t;

	pmixev_buf_get_u64(b, &t.id);
	pmixev_buf_get_i32(b, &t.status);
	pmixev_buf_get_u32(b, &t.job);
	pmixev_buf_get_str(b, t.nodes, sizeof(t.nodes));
	pmixev_buf_get_u32(b, &t.nnodes);
	pmixev_buf_get_u32(b, &t.ncpus);
	pmixev_buf_get_u32(b, &t.seconds);
	pmixev_buf_get_str(b, t.queue, sizeof(t.queue));
	pmixev_buf_get_str(b, t.reason, sizeof(t.reason));
	if (pmixd_unpack_done(b) < 0 || !alloc_done_ok(&t))
		return -1;
	*m = t;
	return 0;
}
