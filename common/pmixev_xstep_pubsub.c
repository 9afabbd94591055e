/*
 * pmixev_xstep_pubsub.c - XSTEP's PUBSUB_REQ and PUBSUB_RESP bodies (see
 * pmixev_xstep.h).
 *
 * Wire layouts (see pmixev_buf.h; a result is an enum pmixev_result):
 *
 *   pubsub_req   u64 id, u8 op (1..3), u32 rank, u8 range, u8 persist,
 *                u8 wait (0, 1), u32 timeout_sec, u32 n (1..1024),
 *                n * { str key, bytes value }
 *   pubsub_resp  u64 id, u8 result, u32 n (0..1024),
 *                n * { str key, u32 job, u32 step, u32 rank, bytes value }
 */
#include "config.h"

#include "pmixev_xstep.h"
#include "pmixev_xstep_int.h"

#include <stdlib.h>

#define REQ_ENTRY_MIN  (4 + 1 + 4)	/* a 1-byte key, a value */
#define RESP_ENTRY_MIN (4 + 1 + 12 + 4) /* ... and the publisher */

/*
 * 1..ENTRIES_MAX entries in a request (0.. in an answer), no key empty,
 * values only where `values`, at most `max` bytes of them in all; an
 * answer's publishers are family steps.
 */
static bool entries_ok(const struct pmixev_xstep_entry *e, uint32_t n,
		       bool request, bool values, size_t max)
{
	size_t bytes = 0;

	if (n > PMIXEV_PMIXD_ENTRIES_MAX || (request && !n) || (n && !e))
		return false;
	for (uint32_t i = 0; i < n; i++) {
		if (!e[i].key[0] ||
		    !xstep_text_ok(e[i].key, sizeof(e[i].key)) ||
		    (!values && e[i].nvalue) || (e[i].nvalue && !e[i].value) ||
		    e[i].nvalue > max - bytes ||
		    (!request && !pmixev_xstep_step_ok(e[i].job, e[i].step)))
			return false;
		bytes += e[i].nvalue;
	}
	return true;
}

static void put_entries(struct pmixev_buf *b,
			const struct pmixev_xstep_entry *e, uint32_t n,
			bool publisher)
{
	pmixev_buf_put_u32(b, n);
	for (uint32_t i = 0; i < n; i++) {
		pmixev_buf_put_str(b, e[i].key);
		if (publisher) {
			pmixev_buf_put_u32(b, e[i].job);
			pmixev_buf_put_u32(b, e[i].step);
			pmixev_buf_put_u32(b, e[i].rank);
		}
		pmixev_buf_put_bytes(b, e[i].value, e[i].nvalue);
	}
}

/* The count, checked against the bytes before the array is allocated. */
static int get_entries(struct pmixev_buf *b, bool publisher,
		       struct pmixev_xstep_entry **out, uint32_t *count)
{
	size_t min = publisher ? RESP_ENTRY_MIN : REQ_ENTRY_MIN;
	struct pmixev_xstep_entry *e;
	uint32_t n = 0;

	pmixev_buf_get_u32(b, &n);
	if (!pmixev_buf_ok(b) || n > PMIXEV_PMIXD_ENTRIES_MAX ||
	    n > pmixev_buf_remaining(b) / min)
		return -1;
	e = calloc(n ? n : 1, sizeof(*e));
	if (!e)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		pmixev_buf_get_str(b, e[i].key, sizeof(e[i].key));
		if (publisher) {
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

static bool pubsub_ok(const struct pmixev_xstep_pubsub *m, size_t max)
{
	bool publish = m->op == PMIXEV_PMIXD_PUBLISH;

	return m->op >= PMIXEV_PMIXD_PUBLISH &&
	       m->op <= PMIXEV_PMIXD_UNPUBLISH &&
	       m->rank != PMIXEV_XSTEP_NO_RANK &&
	       (m->range == PMIXEV_XSTEP_RANGE_UNDEF ||
		m->range == PMIXEV_XSTEP_RANGE_SESSION ||
		m->range == PMIXEV_XSTEP_RANGE_GLOBAL) &&
	       m->persist <= (publish ? PMIXEV_XSTEP_PERSIST_MAX : 0) &&
	       (!m->wait || m->op == PMIXEV_PMIXD_LOOKUP) &&
	       entries_ok(m->e, m->n, true, publish, max);
}

int pmixev_xstep_pubsub_pack(struct pmixev_buf *b,
			     const struct pmixev_xstep_pubsub *m)
{
	if (!pubsub_ok(m, UINT32_MAX))
		return xstep_invalid();
	pmixev_buf_put_u64(b, m->id);
	pmixev_buf_put_u8(b, (uint8_t)m->op);
	pmixev_buf_put_u32(b, m->rank);
	pmixev_buf_put_u8(b, m->range);
	pmixev_buf_put_u8(b, m->persist);
	pmixev_buf_put_u8(b, m->wait);
	pmixev_buf_put_u32(b, m->timeout_sec);
	put_entries(b, m->e, m->n, false);
	return xstep_pack_done(b);
}

int pmixev_xstep_pubsub_unpack(struct pmixev_buf *b, size_t max,
			       struct pmixev_xstep_pubsub *m)
{
	struct pmixev_xstep_pubsub t = {0};
	uint8_t op = 0, wait = 0;

	pmixev_buf_get_u64(b, &t.id);
	pmixev_buf_get_u8(b, &op);
	pmixev_buf_get_u32(b, &t.rank);
	pmixev_buf_get_u8(b, &t.range);
	pmixev_buf_get_u8(b, &t.persist);
	pmixev_buf_get_u8(b, &wait);
	pmixev_buf_get_u32(b, &t.timeout_sec);
	if (!pmixev_buf_ok(b) || wait > 1)
		return -1;
	t.op = (enum pmixev_pmixd_pubsub_op)op;
	t.wait = wait;
	if (get_entries(b, false, &t.e, &t.n) < 0 || xstep_unpack_done(b) < 0 ||
	    !pubsub_ok(&t, max)) {
		pmixev_xstep_pubsub_release(&t);
		return -1;
	}
	*m = t;
	return 0;
}

void pmixev_xstep_pubsub_release(struct pmixev_xstep_pubsub *m)
{
	if (!m)
		return;
	free(m->e);
	m->e = NULL;
	m->n = 0;
}

int pmixev_xstep_pubsub_resp_pack(struct pmixev_buf *b,
				  const struct pmixev_xstep_pubsub_resp *m)
{
	if (!pmixev_result_valid(m->result) ||
	    (m->result != PMIXEV_OK && m->n) ||
	    !entries_ok(m->e, m->n, false, true, UINT32_MAX))
		return xstep_invalid();
	pmixev_buf_put_u64(b, m->id);
	pmixev_buf_put_u8(b, (uint8_t)m->result);
	put_entries(b, m->e, m->n, true);
	return xstep_pack_done(b);
}

int pmixev_xstep_pubsub_resp_unpack(struct pmixev_buf *b, size_t max,
				    struct pmixev_xstep_pubsub_resp *m)
{
	struct pmixev_xstep_pubsub_resp t = {0};
	uint8_t result = 0;

	pmixev_buf_get_u64(b, &t.id);
	pmixev_buf_get_u8(b, &result);
	if (!pmixev_buf_ok(b) || !pmixev_result_valid(result))
		return -1;
	t.result = (enum pmixev_result)result;
	if (get_entries(b, true, &t.e, &t.n) < 0 || xstep_unpack_done(b) < 0 ||
	    (t.result != PMIXEV_OK && t.n) ||
	    !entries_ok(t.e, t.n, false, true, max)) {
		pmixev_xstep_pubsub_resp_release(&t);
		return -1;
	}
	*m = t;
	return 0;
}

void pmixev_xstep_pubsub_resp_release(struct pmixev_xstep_pubsub_resp *m)
{
	if (!m)
		return;
	free(m->e);
	m->e = NULL;
	m->n = 0;
}
