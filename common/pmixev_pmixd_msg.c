/*
 * pmixev_pmixd_msg.c - the pmixd channel's frame header, the helpers the
 * codec shares, and its small messages.
 *
 * Wire layouts (see pmixev_buf.h; a result is one byte, pmixev_result.h):
 *
 *   abort          u64 id, u32 rank, i32 status, str text
 *   done           u64 id, u8 result                  (ABORT_DONE)
 *   client_state   u32 rank, u8 state (1..2)
 *   alert          u32 rank, u8 code (1..3), [OTHER: str key]
 *   ckpt_done      u32 rank, u8 has_id, str id ("" unless has_id)
 *   log_line       u8 level (0..7), str text
 *   seq            u64 seq                            (SYNC, SYNC_ECHO)
 *   empty          nothing                            (FINI)
 *   notify         as pmixev_proto.h's NOTIFY
 *   inject         u8 kind (1..4), u32 origin, [CHILD: str child (a step's
 *                  nspace), u32 to_rank], then pmixev_proto.h's EVENT
 *                  (kinds EVENT, CKPT and CHILD: of a rank) or NOTIFY
 */
#include "config.h"

#include "pmixev_pmixd_int.h"
#include "pmixev_pmixd_spawn.h"
#include "pmixev_pmixd_start.h"
#include "pmixev_frame.h"
#include "pmixev_pmixd_msg.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAGIC_OFF   0
#define VERSION_OFF 4
#define TYPE_OFF    5
#define FLAGS_OFF   6
#define LEN_OFF	    8
#define TOOL_TAG    ".tool."

static const char *const type_names[PMIXEV_PMIXD_TYPE_MAX + 1] = {
	[PMIXEV_PMIXD_START] = "START",
	[PMIXEV_PMIXD_READY] = "READY",
	[PMIXEV_PMIXD_FENCE] = "FENCE",
	[PMIXEV_PMIXD_FENCE_DONE] = "FENCE_DONE",
	[PMIXEV_PMIXD_DMODEX] = "DMODEX",
	[PMIXEV_PMIXD_DMODEX_DONE] = "DMODEX_DONE",
	[PMIXEV_PMIXD_DMODEX_SERVE] = "DMODEX_SERVE",
	[PMIXEV_PMIXD_DMODEX_SERVED] = "DMODEX_SERVED",
	[PMIXEV_PMIXD_PUBSUB] = "PUBSUB",
	[PMIXEV_PMIXD_PUBSUB_DONE] = "PUBSUB_DONE",
	[PMIXEV_PMIXD_ABORT] = "ABORT",
	[PMIXEV_PMIXD_ABORT_DONE] = "ABORT_DONE",
	[PMIXEV_PMIXD_CLIENT_STATE] = "CLIENT_STATE",
	[PMIXEV_PMIXD_NOTIFY] = "NOTIFY",
	[PMIXEV_PMIXD_INJECT] = "INJECT",
	[PMIXEV_PMIXD_QUERY] = "QUERY",
	[PMIXEV_PMIXD_QUERY_DONE] = "QUERY_DONE",
	[PMIXEV_PMIXD_JOBCTL] = "JOBCTL",
	[PMIXEV_PMIXD_JOBCTL_DONE] = "JOBCTL_DONE",
	[PMIXEV_PMIXD_LOG] = "LOG",
	[PMIXEV_PMIXD_LOG_DONE] = "LOG_DONE",
	[PMIXEV_PMIXD_MONITOR_ALERT] = "MONITOR_ALERT",
	[PMIXEV_PMIXD_CKPT_COMPLETE] = "CKPT_COMPLETE",
	[PMIXEV_PMIXD_LOG_LINE] = "LOG_LINE",
	[PMIXEV_PMIXD_SYNC] = "SYNC",
	[PMIXEV_PMIXD_SYNC_ECHO] = "SYNC_ECHO",
	[PMIXEV_PMIXD_FINI] = "FINI",
	[PMIXEV_PMIXD_GROUP] = "GROUP",
	[PMIXEV_PMIXD_GROUP_DONE] = "GROUP_DONE",
	[PMIXEV_PMIXD_GROUP_ABORT] = "GROUP_ABORT",
	[PMIXEV_PMIXD_SPAWN] = "SPAWN",
	[PMIXEV_PMIXD_SPAWN_DONE] = "SPAWN_DONE",
	[PMIXEV_PMIXD_NSPACE_ADD] = "NSPACE_ADD",
	[PMIXEV_PMIXD_NSPACE_DEL] = "NSPACE_DEL",
	[PMIXEV_PMIXD_NSPACE_ADDED] = "NSPACE_ADDED",
	[PMIXEV_PMIXD_ALLOC] = "ALLOC",
	[PMIXEV_PMIXD_ALLOC_DONE] = "ALLOC_DONE",
};

/* Types O sends; the others are root's. */
static bool from_owner(unsigned type)
{
	switch (type) {
	case PMIXEV_PMIXD_READY:
	case PMIXEV_PMIXD_FENCE:
	case PMIXEV_PMIXD_DMODEX:
	case PMIXEV_PMIXD_DMODEX_SERVED:
	case PMIXEV_PMIXD_PUBSUB:
	case PMIXEV_PMIXD_ABORT:
	case PMIXEV_PMIXD_CLIENT_STATE:
	case PMIXEV_PMIXD_NOTIFY:
	case PMIXEV_PMIXD_QUERY:
	case PMIXEV_PMIXD_JOBCTL:
	case PMIXEV_PMIXD_LOG:
	case PMIXEV_PMIXD_MONITOR_ALERT:
	case PMIXEV_PMIXD_CKPT_COMPLETE:
	case PMIXEV_PMIXD_LOG_LINE:
	case PMIXEV_PMIXD_SYNC_ECHO:
	case PMIXEV_PMIXD_GROUP:
	case PMIXEV_PMIXD_GROUP_ABORT:
	case PMIXEV_PMIXD_SPAWN:
	case PMIXEV_PMIXD_NSPACE_ADDED:
	case PMIXEV_PMIXD_ALLOC:
		return true;
	default:
		return false;
	}
}

void pmixev_pmixd_hdr_encode(uint8_t type, uint32_t len,
			     uint8_t out[PMIXEV_PMIXD_HDR_LEN])
{
	pmixev_put_be32(out + MAGIC_OFF, PMIXEV_PMIXD_MAGIC);
	out[VERSION_OFF] = PMIXEV_PMIXD_VERSION;
	out[TYPE_OFF] = type;
	out[FLAGS_OFF] = 0;
	out[FLAGS_OFF + 1] = 0;
	pmixev_put_be32(out + LEN_OFF, len);
}

int pmixev_pmixd_hdr_decode(const void *buf, size_t avail, uint32_t max_len,
			    enum pmixev_pmixd_side from, uint8_t *type,
			    uint32_t *len, const char **why)
{
	const uint8_t *p = buf;
	const char *reason = NULL;
	unsigned t;

	if (avail < PMIXEV_PMIXD_HDR_LEN)
		return 0;
	t = p[TYPE_OFF];
	if (pmixev_get_be32(p + MAGIC_OFF) != PMIXEV_PMIXD_MAGIC)
		reason = "bad magic";
	else if (p[VERSION_OFF] != PMIXEV_PMIXD_VERSION)
		reason = "unsupported version";
	else if (t == 0 || t > PMIXEV_PMIXD_TYPE_MAX)
		reason = "unknown message type";
	else if (from_owner(t) != (from == PMIXEV_PMIXD_FROM_OWNER))
		reason = "message type of the other side";
	else if (p[FLAGS_OFF] || p[FLAGS_OFF + 1])
		reason = "nonzero flags";
	else if (pmixev_get_be32(p + LEN_OFF) > max_len)
		reason = "payload too long";
	if (reason) {
		if (why)
			*why = reason;
		return -1;
	}
	*type = (uint8_t)t;
	*len = pmixev_get_be32(p + LEN_OFF);
	return 1;
}

const char *pmixev_pmixd_type_name(unsigned type)
{
	return type && type <= PMIXEV_PMIXD_TYPE_MAX ? type_names[type] : "?";
}

int pmixd_invalid(void)
{
	errno = EINVAL;
	return -1;
}

bool pmixd_text_ok(const char *s, size_t size)
{
	return memchr(s, '\0', size) != NULL;
}

int pmixd_pack_done(const struct pmixev_buf *b)
{
	return pmixev_buf_ok(b) ? 0 : -1;
}

int pmixd_unpack_done(const struct pmixev_buf *b)
{
	return pmixev_buf_ok(b) && pmixev_buf_remaining(b) == 0 ? 0 : -1;
}

bool pmixd_rank_ok(const struct pmixev_pmixd_bounds *lim, uint32_t rank)
{
	return rank < lim->map->ntasks;
}

bool pmixd_rank_local(const struct pmixev_pmixd_bounds *lim, uint32_t rank)
{
	return pmixd_rank_ok(lim, rank) &&
	       lim->map->node_of[rank] == lim->nodeid;
}

bool pmixd_ranks_sorted(const uint32_t *ranks, uint32_t n, uint32_t ntasks)
{
	if (n > ntasks || (n && !ranks))
		return false;
	for (uint32_t i = 0; i < n; i++)
		if (ranks[i] >= ntasks || (i && ranks[i] <= ranks[i - 1]))
			return false;
	return true;
}

bool pmixd_ranks_ok(bool all, const uint32_t *ranks, uint32_t n,
		    uint32_t ntasks)
{
	if (all || !n)
		return all && !n;
	return pmixd_ranks_sorted(ranks, n, ntasks);
}

bool pmixd_flag_ok(uint8_t v)
{
	return v <= 1;
}

void pmixd_put_flag(struct pmixev_buf *b, bool v)
{
	pmixev_buf_put_u8(b, v ? 1 : 0);
}

int pmixd_get_text(struct pmixev_buf *b, size_t max, char **out)
{
	const uint8_t *p = NULL;
	size_t n = 0;

	*out = NULL;
	if (pmixev_buf_get_bytes(b, &p, &n) < 0)
		return -1;
	if (n > max || memchr(p, '\0', n))
		goto fail;
	*out = malloc(n + 1);
	if (!*out)
		goto fail;
	memcpy(*out, p, n);
	(*out)[n] = '\0';
	return 0;
fail:
	b->err = true;
	return -1;
}

int pmixev_pmixd_abort_pack(struct pmixev_buf *b,
			    const struct pmixev_pmixd_abort *m)
{
	if (!pmixd_text_ok(m->text, sizeof(m->text)))
		return pmixd_invalid();
	pmixev_buf_put_u64(b, m->id);
	pmixev_buf_put_u32(b, m->rank);
	pmixev_buf_put_i32(b, m->status);
	pmixev_buf_put_str(b, m->text);
	return pmixd_pack_done(b);
}

int pmixev_pmixd_abort_unpack(struct pmixev_buf *b,
			      const struct pmixev_pmixd_bounds *lim,
			      struct pmixev_pmixd_abort *m)
{
	struct pmixev_pmixd_abort t;

	pmixev_buf_get_u64(b, &t.id);
	pmixev_buf_get_u32(b, &t.rank);
	pmixev_buf_get_i32(b, &t.status);
	pmixev_buf_get_str(b, t.text, sizeof(t.text));
	if (pmixd_unpack_done(b) < 0 || !pmixd_rank_local(lim, t.rank))
		return -1;
	*m = t;
	return 0;
}

int pmixev_pmixd_done_pack(struct pmixev_buf *b,
			   const struct pmixev_pmixd_done *m)
{
	if (!pmixev_result_valid(m->result))
		return pmixd_invalid();
	pmixev_buf_put_u64(b, m->id);
	pmixev_buf_put_u8(b, (uint8_t)m->result);
	return pmixd_pack_done(b);
}

int pmixev_pmixd_done_unpack(struct pmixev_buf *b, struct pmixev_pmixd_done *m)
{
	uint64_t id = 0;
	uint8_t result = 0;

	pmixev_buf_get_u64(b, &id);
	pmixev_buf_get_u8(b, &result);
	if (pmixd_unpack_done(b) < 0 || !pmixev_result_valid(result))
		return -1;
	m->id = id;
	m->result = (enum pmixev_result)result;
	return 0;
}

static bool client_ok(unsigned v)
{
	return v == PMIXEV_PMIXD_CONNECTED || v == PMIXEV_PMIXD_FINALIZED;
}

int pmixev_pmixd_client_state_pack(struct pmixev_buf *b,
				   const struct pmixev_pmixd_client_state *m)
{
	if (!client_ok(m->state))
		return pmixd_invalid();
	pmixev_buf_put_u32(b, m->rank);
	pmixev_buf_put_u8(b, (uint8_t)m->state);
	return pmixd_pack_done(b);
}

int pmixev_pmixd_client_state_unpack(struct pmixev_buf *b,
				     const struct pmixev_pmixd_bounds *lim,
				     struct pmixev_pmixd_client_state *m)
{
	uint32_t rank = 0;
	uint8_t state = 0;

	pmixev_buf_get_u32(b, &rank);
	pmixev_buf_get_u8(b, &state);
	if (pmixd_unpack_done(b) < 0 || !client_ok(state) ||
	    !pmixd_rank_local(lim, rank))
		return -1;
	m->rank = rank;
	m->state = (enum pmixev_pmixd_client)state;
	return 0;
}

static bool alert_code_ok(unsigned v)
{
	return v >= PMIXEV_PMIXD_HEARTBEAT && v <= PMIXEV_PMIXD_MONITOR_OTHER;
}

/* A code, its key where it has one, and a rank it may name (lim set). */
static bool alert_ok(const struct pmixev_pmixd_alert_msg *m,
		     const struct pmixev_pmixd_bounds *lim)
{
	bool other = m->code == PMIXEV_PMIXD_MONITOR_OTHER;

	if (!alert_code_ok(m->code) || !pmixd_text_ok(m->key, sizeof(m->key)) ||
	    (!other && m->key[0]))
		return false;
	if (!lim)
		return true;
	return other ? m->rank == PMIXEV_PMIXD_NO_RANK ||
			       pmixd_rank_ok(lim, m->rank)
		     : pmixd_rank_local(lim, m->rank);
}

int pmixev_pmixd_alert_pack(struct pmixev_buf *b,
			    const struct pmixev_pmixd_alert_msg *m)
{
	if (!alert_ok(m, NULL))
		return pmixd_invalid();
	pmixev_buf_put_u32(b, m->rank);
	pmixev_buf_put_u8(b, (uint8_t)m->code);
	if (m->code == PMIXEV_PMIXD_MONITOR_OTHER)
		pmixev_buf_put_str(b, m->key);
	return pmixd_pack_done(b);
}

int pmixev_pmixd_alert_unpack(struct pmixev_buf *b,
			      const struct pmixev_pmixd_bounds *lim,
			      struct pmixev_pmixd_alert_msg *m)
{
	struct pmixev_pmixd_alert_msg t = {0};
	uint8_t code = 0;

	pmixev_buf_get_u32(b, &t.rank);
	pmixev_buf_get_u8(b, &code);
	if (!pmixev_buf_ok(b) || !alert_code_ok(code))
		return -1;
	t.code = (enum pmixev_pmixd_alert)code;
	if (t.code == PMIXEV_PMIXD_MONITOR_OTHER)
		pmixev_buf_get_str(b, t.key, sizeof(t.key));
	if (pmixd_unpack_done(b) < 0 || !alert_ok(&t, lim))
		return -1;
	*m = t;
	return 0;
}

int pmixev_pmixd_ckpt_done_pack(struct pmixev_buf *b,
				const struct pmixev_pmixd_ckpt_done *m)
{
	if (!pmixd_text_ok(m->id, sizeof(m->id)) || (!m->has_id && m->id[0]))
		return pmixd_invalid();
	pmixev_buf_put_u32(b, m->rank);
	pmixd_put_flag(b, m->has_id);
	pmixev_buf_put_str(b, m->id);
	return pmixd_pack_done(b);
}

int pmixev_pmixd_ckpt_done_unpack(struct pmixev_buf *b,
				  const struct pmixev_pmixd_bounds *lim,
				  struct pmixev_pmixd_ckpt_done *m)
{
	struct pmixev_pmixd_ckpt_done t;
	uint8_t has_id = 0;

	pmixev_buf_get_u32(b, &t.rank);
	pmixev_buf_get_u8(b, &has_id);
	pmixev_buf_get_str(b, t.id, sizeof(t.id));
	if (pmixd_unpack_done(b) < 0 || !pmixd_flag_ok(has_id) ||
	    (!has_id && t.id[0]) || !pmixd_rank_local(lim, t.rank))
		return -1;
	t.has_id = has_id;
	*m = t;
	return 0;
}

int pmixev_pmixd_log_line_pack(struct pmixev_buf *b,
			       const struct pmixev_pmixd_log_line *m)
{
	if (m->level > PMIXEV_PMIXD_LEVEL_MAX ||
	    !pmixd_text_ok(m->text, sizeof(m->text)))
		return pmixd_invalid();
	pmixev_buf_put_u8(b, m->level);
	pmixev_buf_put_str(b, m->text);
	return pmixd_pack_done(b);
}

int pmixev_pmixd_log_line_unpack(struct pmixev_buf *b,
				 struct pmixev_pmixd_log_line *m)
{
	struct pmixev_pmixd_log_line t;

	pmixev_buf_get_u8(b, &t.level);
	pmixev_buf_get_str(b, t.text, sizeof(t.text));
	if (pmixd_unpack_done(b) < 0 || t.level > PMIXEV_PMIXD_LEVEL_MAX)
		return -1;
	*m = t;
	return 0;
}

int pmixev_pmixd_seq_pack(struct pmixev_buf *b, uint64_t seq)
{
	pmixev_buf_put_u64(b, seq);
	return pmixd_pack_done(b);
}

int pmixev_pmixd_seq_unpack(struct pmixev_buf *b, uint64_t *seq)
{
	uint64_t v = 0;

	pmixev_buf_get_u64(b, &v);
	if (pmixd_unpack_done(b) < 0)
		return -1;
	*seq = v;
	return 0;
}

int pmixev_pmixd_empty_unpack(struct pmixev_buf *b)
{
	return pmixd_unpack_done(b);
}

/* The step's namespace, or "NSPACE.tool.ANYTHING"; never the stepds'. */
static bool source_ok(const struct pmixev_pmixd_bounds *lim,
		      const struct pmixev_notify_msg *m)
{
	size_t n = strlen(lim->nspace);

	if (!strcmp(m->nspace, lim->srv_nspace))
		return false;
	if (!strcmp(m->nspace, lim->nspace))
		return pmixd_rank_ok(lim, m->rank);
	return !strncmp(m->nspace, lim->nspace, n) &&
	       !strncmp(m->nspace + n, TOOL_TAG, strlen(TOOL_TAG));
}

int pmixev_pmixd_notify_pack(struct pmixev_buf *b,
			     const struct pmixev_notify_msg *m)
{
	if (m->range > PMIXEV_PMIXD_RANGE_MAX)
		return pmixd_invalid();
	return pmixev_notify_pack(b, m);
}

int pmixev_pmixd_notify_unpack(struct pmixev_buf *b,
			       const struct pmixev_pmixd_bounds *lim,
			       struct pmixev_notify_msg *m)
{
	struct pmixev_notify_msg t;

	if (pmixev_notify_unpack(b, &t) < 0 ||
	    t.range > PMIXEV_PMIXD_RANGE_MAX || t.ninfo > lim->event_max ||
	    !source_ok(lim, &t))
		return -1;
	*m = t;
	return 0;
}

static bool inject_ok(unsigned kind)
{
	return kind >= PMIXEV_PMIXD_INJECT_EVENT &&
	       kind <= PMIXEV_PMIXD_INJECT_CHILD;
}

/* A spawned step's event: of one of its ranks, for a valid rank here. */
static bool child_ok(const struct pmixev_pmixd_inject *m)
{
	return pmixd_text_ok(m->child, sizeof(m->child)) &&
	       pmixev_pmixd_step_nspace(m->child, NULL, NULL) &&
	       (m->to_rank < PMIXEV_PMIXD_START_RANK_MAX ||
		(m->to_rank == PMIXEV_PMIXD_NO_RANK &&
		 m->ev.code != PMIXEV_PMIXD_JOB_END)) &&
	       (m->ev.rank != PMIXEV_EVENT_NO_RANK) !=
		       (m->ev.code == PMIXEV_PMIXD_JOB_END);
}

int pmixev_pmixd_inject_pack(struct pmixev_buf *b,
			     const struct pmixev_pmixd_inject *m)
{
	struct pmixev_buf body;
	int rc = -1;

	if (!inject_ok(m->kind) ||
	    (m->kind == PMIXEV_PMIXD_INJECT_CHILD && !child_ok(m)))
		return pmixd_invalid();
	/* The body first, so that a refused one leaves `b` untouched. */
	pmixev_buf_init(&body);
	if (m->kind == PMIXEV_PMIXD_INJECT_NOTIFY)
		rc = pmixev_notify_pack(&body, &m->nt);
	else
		rc = pmixev_event_pack(&body, &m->ev);
	if (rc == 0) {
		pmixev_buf_put_u8(b, (uint8_t)m->kind);
		pmixev_buf_put_u32(b, m->origin);
		if (m->kind == PMIXEV_PMIXD_INJECT_CHILD) {
			pmixev_buf_put_str(b, m->child);
			pmixev_buf_put_u32(b, m->to_rank);
		}
		pmixev_buf_put_raw(b, body.data, body.len);
		rc = pmixd_pack_done(b);
	}
	pmixev_buf_release(&body);
	return rc;
}

int pmixev_pmixd_inject_unpack(struct pmixev_buf *b,
			       struct pmixev_pmixd_inject *m)
{
	uint8_t kind = 0;
	int rc = -1;

	pmixev_buf_get_u8(b, &kind);
	pmixev_buf_get_u32(b, &m->origin);
	m->child[0] = '\0';
	m->to_rank = 0;
	if (kind == PMIXEV_PMIXD_INJECT_CHILD) {
		pmixev_buf_get_str(b, m->child, sizeof(m->child));
		pmixev_buf_get_u32(b, &m->to_rank);
	}
	if (!pmixev_buf_ok(b) || !inject_ok(kind))
		return -1;
	if (kind == PMIXEV_PMIXD_INJECT_NOTIFY)
		rc = pmixev_notify_unpack(b, &m->nt);
	else
		rc = pmixev_event_unpack(b, &m->ev);
	if (rc == 0)
		m->kind = (enum pmixev_pmixd_inject_kind)kind;
	if (rc == 0 && kind == PMIXEV_PMIXD_INJECT_CHILD && !child_ok(m))
		rc = -1;
	return rc;
}
