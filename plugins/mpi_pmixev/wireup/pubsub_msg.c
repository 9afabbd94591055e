/*
 * wireup/pubsub_msg.c - the directory's overlay messages (see
 * pubsub_msg.h).
 */
#include "config.h"

#include "wireup/pubsub_msg.h"

#include <stdlib.h>
#include <string.h>

#include "pmixev_pmixd_coll.h"

/* Requests carry values for a publish; answers carry values and each
 * publisher's step. */
static int pack_entries(struct pmixev_buf *b, const struct pubsub_entry *e,
			size_t n, bool values, bool steps)
{
	pmixev_buf_put_u32(b, (uint32_t)n);
	for (size_t i = 0; i < n; i++) {
		pmixev_buf_put_str(b, e[i].key);
		if (steps) {
			pmixev_buf_put_u32(b, e[i].job);
			pmixev_buf_put_u32(b, e[i].step);
		}
		pmixev_buf_put_u32(b, e[i].rank);
		if (values)
			pmixev_buf_put_bytes(b, e[i].value, e[i].nvalue);
	}
	return pmixev_buf_ok(b) ? 0 : -1;
}

/* The count, checked before the array is allocated, then the entries;
 * nothing may follow them. */
static int unpack_entries(struct pmixev_buf *b, struct pubsub_entry **out,
			  size_t *n, bool values, bool steps)
{
	uint32_t count = 0;
	struct pubsub_entry *e;

	if (pmixev_buf_get_u32(b, &count) < 0 ||
	    count > PUBSUB_MSG_ENTRIES_MAX || count > pmixev_buf_remaining(b))
		return -1;
	if (!(e = calloc(count ? count : 1, sizeof(*e))))
		return -1;
	for (uint32_t i = 0; i < count; i++) {
		const uint8_t *v = NULL;

		pmixev_buf_get_str(b, e[i].key, sizeof(e[i].key));
		if (steps) {
			pmixev_buf_get_u32(b, &e[i].job);
			pmixev_buf_get_u32(b, &e[i].step);
		}
		pmixev_buf_get_u32(b, &e[i].rank);
		if (values && pmixev_buf_get_bytes(b, &v, &e[i].nvalue) == 0)
			e[i].value = (uint8_t *)v;
	}
	if (!pmixev_buf_ok(b) || pmixev_buf_remaining(b)) {
		free(e);
		return -1;
	}
	*out = e;
	*n = count;
	return 0;
}

/* The op and the directives the directory serves (as PUBSUB's codec). */
static bool req_ok(const struct pubsub_req_msg *r)
{
	return r->op >= PUBSUB_PUBLISH && r->op <= PUBSUB_UNPUBLISH &&
	       r->n <= PUBSUB_MSG_ENTRIES_MAX &&
	       pmixev_pmixd_range_ok(r->how.range) &&
	       r->how.persist <=
		       (r->op == PUBSUB_PUBLISH ? PMIXEV_PMIXD_PERSIST_MAX : 0);
}

int pubsub_req_pack(struct pmixev_buf *b, const struct pubsub_req_msg *r)
{
	if (!req_ok(r))
		return -1;
	pmixev_buf_put_u64(b, r->id);
	pmixev_buf_put_u8(b, r->op);
	pmixev_buf_put_u32(b, r->rank);
	pmixev_buf_put_u8(b, r->how.wait);
	pmixev_buf_put_u32(b, r->how.timeout_sec);
	pmixev_buf_put_u8(b, r->how.range);
	pmixev_buf_put_u8(b, r->how.persist);
	return pack_entries(b, r->e, r->n, r->op == PUBSUB_PUBLISH, false);
}

int pubsub_req_unpack(const uint8_t *buf, size_t len, struct pubsub_req_msg *r)
{
	struct pmixev_buf b;
	uint8_t wait = 0;

	memset(r, 0, sizeof(*r));
	pmixev_buf_reader(&b, buf, len);
	pmixev_buf_get_u64(&b, &r->id);
	pmixev_buf_get_u8(&b, &r->op);
	pmixev_buf_get_u32(&b, &r->rank);
	pmixev_buf_get_u8(&b, &wait);
	pmixev_buf_get_u32(&b, &r->how.timeout_sec);
	pmixev_buf_get_u8(&b, &r->how.range);
	pmixev_buf_get_u8(&b, &r->how.persist);
	r->how.wait = wait;
	if (!pmixev_buf_ok(&b) || wait > 1 || !req_ok(r) ||
	    unpack_entries(&b, &r->e, &r->n, r->op == PUBSUB_PUBLISH, false) <
		    0)
		return -1;
	return 0;
}

int pubsub_resp_pack(struct pmixev_buf *b, uint64_t id,
		     enum pmixev_result result, const struct pubsub_entry *e,
		     size_t n)
{
	if (n > PUBSUB_MSG_ENTRIES_MAX)
		return -1;
	pmixev_buf_put_u64(b, id);
	pmixev_buf_put_u8(b, (uint8_t)result);
	return pack_entries(b, e, n, true, true);
}

int pubsub_resp_unpack(const uint8_t *buf, size_t len, uint64_t *id,
		       enum pmixev_result *result, struct pubsub_entry **e,
		       size_t *n)
{
	struct pmixev_buf b;
	uint8_t res = 0;

	*e = NULL;
	*n = 0;
	pmixev_buf_reader(&b, buf, len);
	pmixev_buf_get_u64(&b, id);
	pmixev_buf_get_u8(&b, &res);
	if (!pmixev_buf_ok(&b) || !pmixev_result_valid(res) ||
	    unpack_entries(&b, e, n, true, true) < 0)
		return -1;
	*result = (enum pmixev_result)res;
	return 0;
}
