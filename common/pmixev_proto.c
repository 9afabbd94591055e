/*
 * pmixev_proto.c - pack and unpack the overlay message bodies.
 *
 * Wire layouts (u = big-endian unsigned, i = two's complement, str and
 * bytes = u32 length + bytes; see pmixev_buf.h; a result is an enum
 * pmixev_result, see pmixev_result.h):
 *
 *   ident      u32 job_id, u32 step_id, u32 from, u32 to, str host,
 *              u16 port, u64 nonce
 *   cred       bytes cred
 *   table      u32 job_id, u32 step_id, u32 nnodes,
 *              nnodes * { str host, u16 port }
 *   fence      str sig, u8 kind (1..5), u64 seq, u8 result,
 *              u8 collect (0 or 1), bytes data
 *   dmdx_req   u64 id, str nspace, u32 rank, u32 timeout_sec
 *   dmdx_resp  u64 id, u8 result, bytes data
 *   abort      i32 status, u32 rank, str text
 *
 * The encoding is canonical: whatever unpacks, packs back to the same
 * bytes. Pack functions refuse (-1, errno EINVAL, writer untouched) what
 * unpack would reject: unterminated text, a bad node count, an unknown
 * collective kind or result, collect > 1.
 * Unpack functions fill a local copy and store it only on success.
 */
#include "config.h"

#include "pmixev_proto.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Smallest table entry on the wire: an empty host and the port. */
#define TABLE_ENTRY_MIN (4 + 2)

/* `s` is NUL-terminated within its `size`-byte array. */
static bool text_ok(const char *s, size_t size)
{
	return memchr(s, '\0', size) != NULL;
}

static int invalid(void)
{
	errno = EINVAL;
	return -1;
}

static int pack_done(const struct pmixev_buf *b)
{
	return pmixev_buf_ok(b) ? 0 : -1;
}

/* Every get succeeded and the body was consumed exactly. */
static int unpack_done(const struct pmixev_buf *b)
{
	return pmixev_buf_ok(b) && pmixev_buf_remaining(b) == 0 ? 0 : -1;
}

int pmixev_ident_pack(struct pmixev_buf *b, const struct pmixev_ident *m)
{
	if (!text_ok(m->host, sizeof(m->host)))
		return invalid();
	pmixev_buf_put_u32(b, m->job_id);
	pmixev_buf_put_u32(b, m->step_id);
	pmixev_buf_put_u32(b, m->from);
	pmixev_buf_put_u32(b, m->to);
	pmixev_buf_put_str(b, m->host);
	pmixev_buf_put_u16(b, m->port);
	pmixev_buf_put_u64(b, m->nonce);
	return pack_done(b);
}

int pmixev_ident_unpack(struct pmixev_buf *b, struct pmixev_ident *m)
{
	struct pmixev_ident t;

	pmixev_buf_get_u32(b, &t.job_id);
	pmixev_buf_get_u32(b, &t.step_id);
	pmixev_buf_get_u32(b, &t.from);
	pmixev_buf_get_u32(b, &t.to);
	pmixev_buf_get_str(b, t.host, sizeof(t.host));
	pmixev_buf_get_u16(b, &t.port);
	pmixev_buf_get_u64(b, &t.nonce);
	if (unpack_done(b) < 0)
		return -1;
	*m = t;
	return 0;
}

int pmixev_cred_pack(struct pmixev_buf *b, const void *cred, size_t len)
{
	pmixev_buf_put_bytes(b, cred, len);
	return pack_done(b);
}

int pmixev_cred_unpack(struct pmixev_buf *b, const uint8_t **cred, size_t *len)
{
	const uint8_t *p;
	size_t n;

	pmixev_buf_get_bytes(b, &p, &n);
	if (unpack_done(b) < 0)
		return -1;
	*cred = p;
	*len = n;
	return 0;
}

int pmixev_table_pack(struct pmixev_buf *b, const struct pmixev_table *m)
{
	if (m->nnodes == 0 || m->nnodes > PMIXEV_MAX_NODES || !m->nodes)
		return invalid();
	for (uint32_t i = 0; i < m->nnodes; i++)
		if (!text_ok(m->nodes[i].host, sizeof(m->nodes[i].host)))
			return invalid();
	pmixev_buf_put_u32(b, m->job_id);
	pmixev_buf_put_u32(b, m->step_id);
	pmixev_buf_put_u32(b, m->nnodes);
	for (uint32_t i = 0; i < m->nnodes; i++) {
		pmixev_buf_put_str(b, m->nodes[i].host);
		pmixev_buf_put_u16(b, m->nodes[i].port);
	}
	return pack_done(b);
}

int pmixev_table_unpack(struct pmixev_buf *b, struct pmixev_table *m)
{
	struct pmixev_table t = {0};

	pmixev_buf_get_u32(b, &t.job_id);
	pmixev_buf_get_u32(b, &t.step_id);
	pmixev_buf_get_u32(b, &t.nnodes);
	/* Bound the allocation by what the remaining bytes can describe. */
	if (!pmixev_buf_ok(b) || t.nnodes == 0 || t.nnodes > PMIXEV_MAX_NODES ||
	    t.nnodes > pmixev_buf_remaining(b) / TABLE_ENTRY_MIN)
		goto fail;
	t.nodes = calloc(t.nnodes, sizeof(*t.nodes));
	if (!t.nodes)
		goto fail;
	for (uint32_t i = 0; i < t.nnodes; i++) {
		pmixev_buf_get_str(b, t.nodes[i].host, sizeof(t.nodes[i].host));
		pmixev_buf_get_u16(b, &t.nodes[i].port);
	}
	if (unpack_done(b) < 0)
		goto fail;
	*m = t;
	return 0;
fail:
	free(t.nodes);
	return -1;
}

static bool coll_kind_ok(uint32_t kind)
{
	return kind >= PMIXEV_COLL_FENCE && kind <= PMIXEV_COLL_GROUP_DESTRUCT;
}

int pmixev_fence_pack(struct pmixev_buf *b, const struct pmixev_fence_msg *m)
{
	if (!text_ok(m->sig, sizeof(m->sig)) || !coll_kind_ok(m->kind) ||
	    !pmixev_result_valid(m->result) || m->collect > 1)
		return invalid();
	pmixev_buf_put_str(b, m->sig);
	pmixev_buf_put_u8(b, (uint8_t)m->kind);
	pmixev_buf_put_u64(b, m->seq);
	pmixev_buf_put_u8(b, (uint8_t)m->result);
	pmixev_buf_put_u8(b, m->collect);
	pmixev_buf_put_bytes(b, m->data, m->ndata);
	return pack_done(b);
}

int pmixev_fence_unpack(struct pmixev_buf *b, struct pmixev_fence_msg *m)
{
	struct pmixev_fence_msg t;
	uint8_t kind = 0, result = 0;

	pmixev_buf_get_str(b, t.sig, sizeof(t.sig));
	pmixev_buf_get_u8(b, &kind);
	pmixev_buf_get_u64(b, &t.seq);
	pmixev_buf_get_u8(b, &result);
	pmixev_buf_get_u8(b, &t.collect);
	pmixev_buf_get_bytes(b, &t.data, &t.ndata);
	if (unpack_done(b) < 0 || !coll_kind_ok(kind) ||
	    !pmixev_result_valid(result) || t.collect > 1)
		return -1;
	t.kind = (enum pmixev_coll_kind)kind;
	t.result = (enum pmixev_result)result;
	*m = t;
	return 0;
}

int pmixev_dmdx_req_pack(struct pmixev_buf *b, const struct pmixev_dmdx_req *m)
{
	if (!text_ok(m->nspace, sizeof(m->nspace)))
		return invalid();
	pmixev_buf_put_u64(b, m->id);
	pmixev_buf_put_str(b, m->nspace);
	pmixev_buf_put_u32(b, m->rank);
	pmixev_buf_put_u32(b, m->timeout_sec);
	return pack_done(b);
}

int pmixev_dmdx_req_unpack(struct pmixev_buf *b, struct pmixev_dmdx_req *m)
{
	struct pmixev_dmdx_req t;

	pmixev_buf_get_u64(b, &t.id);
	pmixev_buf_get_str(b, t.nspace, sizeof(t.nspace));
	pmixev_buf_get_u32(b, &t.rank);
	pmixev_buf_get_u32(b, &t.timeout_sec);
	if (unpack_done(b) < 0)
		return -1;
	*m = t;
	return 0;
}

int pmixev_dmdx_resp_pack(struct pmixev_buf *b,
			  const struct pmixev_dmdx_resp *m)
{
	if (!pmixev_result_valid(m->result))
		return invalid();
	pmixev_buf_put_u64(b, m->id);
	pmixev_buf_put_u8(b, (uint8_t)m->result);
	pmixev_buf_put_bytes(b, m->data, m->ndata);
	return pack_done(b);
}

int pmixev_dmdx_resp_unpack(struct pmixev_buf *b, struct pmixev_dmdx_resp *m)
{
	struct pmixev_dmdx_resp t;
	uint8_t result = 0;

	pmixev_buf_get_u64(b, &t.id);
	pmixev_buf_get_u8(b, &result);
	pmixev_buf_get_bytes(b, &t.data, &t.ndata);
	if (unpack_done(b) < 0 || !pmixev_result_valid(result))
		return -1;
	t.result = (enum pmixev_result)result;
	*m = t;
	return 0;
}

int pmixev_notice_pack(struct pmixev_buf *b, const struct pmixev_notice_msg *m)
{
	if (!text_ok(m->text, sizeof(m->text)))
		return invalid();
	pmixev_buf_put_str(b, m->text);
	return pack_done(b);
}

int pmixev_notice_unpack(struct pmixev_buf *b, struct pmixev_notice_msg *m)
{
	struct pmixev_notice_msg t;

	pmixev_buf_get_str(b, t.text, sizeof(t.text));
	if (unpack_done(b) < 0)
		return -1;
	*m = t;
	return 0;
}

int pmixev_abort_pack(struct pmixev_buf *b, const struct pmixev_abort_msg *m)
{
	if (!text_ok(m->text, sizeof(m->text)))
		return invalid();
	pmixev_buf_put_i32(b, m->status);
	pmixev_buf_put_u32(b, m->rank);
	pmixev_buf_put_str(b, m->text);
	return pack_done(b);
}

int pmixev_abort_unpack(struct pmixev_buf *b, struct pmixev_abort_msg *m)
{
	struct pmixev_abort_msg t;

	pmixev_buf_get_i32(b, &t.status);
	pmixev_buf_get_u32(b, &t.rank);
	pmixev_buf_get_str(b, t.text, sizeof(t.text));
	if (unpack_done(b) < 0)
		return -1;
	*m = t;
	return 0;
}

int pmixev_event_pack(struct pmixev_buf *b, const struct pmixev_event_msg *m)
{
	if (!text_ok(m->text, sizeof(m->text)) ||
	    !text_ok(m->host, sizeof(m->host)) ||
	    !text_ok(m->reason, sizeof(m->reason)) ||
	    (m->flags & ~PMIXEV_EVENT_FLAGS))
		return invalid();
	pmixev_buf_put_i32(b, m->code);
	pmixev_buf_put_u32(b, m->rank);
	pmixev_buf_put_u32(b, m->node);
	pmixev_buf_put_i32(b, m->exit_code);
	pmixev_buf_put_u8(b, m->flags);
	pmixev_buf_put_u64(b, (uint64_t)m->value);
	pmixev_buf_put_u32(b, m->detail);
	pmixev_buf_put_u64(b, m->seq);
	pmixev_buf_put_u64(b, m->time);
	pmixev_buf_put_str(b, m->text);
	pmixev_buf_put_str(b, m->host);
	pmixev_buf_put_str(b, m->reason);
	return pack_done(b);
}

int pmixev_event_unpack(struct pmixev_buf *b, struct pmixev_event_msg *m)
{
	struct pmixev_event_msg t;
	uint64_t value = 0;

	pmixev_buf_get_i32(b, &t.code);
	pmixev_buf_get_u32(b, &t.rank);
	pmixev_buf_get_u32(b, &t.node);
	pmixev_buf_get_i32(b, &t.exit_code);
	pmixev_buf_get_u8(b, &t.flags);
	pmixev_buf_get_u64(b, &value);
	t.value = (int64_t)value;
	pmixev_buf_get_u32(b, &t.detail);
	pmixev_buf_get_u64(b, &t.seq);
	pmixev_buf_get_u64(b, &t.time);
	pmixev_buf_get_str(b, t.text, sizeof(t.text));
	pmixev_buf_get_str(b, t.host, sizeof(t.host));
	pmixev_buf_get_str(b, t.reason, sizeof(t.reason));
	if (unpack_done(b) < 0 || (t.flags & ~PMIXEV_EVENT_FLAGS))
		return -1;
	*m = t;
	return 0;
}

int pmixev_notify_pack(struct pmixev_buf *b, const struct pmixev_notify_msg *m)
{
	if (!text_ok(m->nspace, sizeof(m->nspace)))
		return invalid();
	pmixev_buf_put_str(b, m->nspace);
	pmixev_buf_put_u32(b, m->rank);
	pmixev_buf_put_i32(b, m->code);
	pmixev_buf_put_u8(b, m->range);
	pmixev_buf_put_bytes(b, m->info, m->ninfo);
	return pack_done(b);
}

int pmixev_notify_unpack(struct pmixev_buf *b, struct pmixev_notify_msg *m)
{
	struct pmixev_notify_msg t;

	pmixev_buf_get_str(b, t.nspace, sizeof(t.nspace));
	pmixev_buf_get_u32(b, &t.rank);
	pmixev_buf_get_i32(b, &t.code);
	pmixev_buf_get_u8(b, &t.range);
	pmixev_buf_get_bytes(b, &t.info, &t.ninfo);
	if (unpack_done(b) < 0)
		return -1;
	*m = t;
	return 0;
}
