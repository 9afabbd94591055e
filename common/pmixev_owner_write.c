/*
 * pmixev_owner_write.c - the owner helper's writer messages (see the
 * header).
 */
#include "config.h"

#include "pmixev_owner_write.h"

#include <errno.h>

static int write_ok(const struct pmixev_owner_write *m)
{
	return m->timeout_ms && m->timeout_ms <= PMIXEV_OWNER_WRITE_MS_MAX &&
	       m->len && m->len <= PMIXEV_OWNER_WRITE_TEXT;
}

/* An errno: positive and small (0 with done = the whole request). */
static int written_ok(const struct pmixev_owner_written *m)
{
	return m->err >= 0 && m->err < 4096 &&
	       m->done <= PMIXEV_OWNER_WRITE_TEXT;
}

int pmixev_owner_write_pack(struct pmixev_buf *b,
			    const struct pmixev_owner_write *m)
{
	if (!write_ok(m) || !m->data) {
		errno = EINVAL;
		return -1;
	}
	pmixev_buf_put_u32(b, m->id);
	pmixev_buf_put_u32(b, m->timeout_ms);
	pmixev_buf_put_bytes(b, m->data, m->len);
	return pmixev_buf_ok(b) && b->len <= PMIXEV_OWNER_WRITE_MSG_MAX ? 0
									: -1;
}

int pmixev_owner_write_unpack(struct pmixev_buf *b,
			      struct pmixev_owner_write *m)
{
	struct pmixev_owner_write t = {0};

	pmixev_buf_get_u32(b, &t.id);
	pmixev_buf_get_u32(b, &t.timeout_ms);
	pmixev_buf_get_bytes(b, &t.data, &t.len);
	if (!pmixev_buf_ok(b) || pmixev_buf_remaining(b) || !write_ok(&t))
		return -1;
	*m = t;
	return 0;
}

int pmixev_owner_written_pack(struct pmixev_buf *b,
			      const struct pmixev_owner_written *m)
{
	if (!written_ok(m)) {
		errno = EINVAL;
		return -1;
	}
	pmixev_buf_put_u32(b, m->id);
	pmixev_buf_put_i32(b, m->err);
	pmixev_buf_put_u32(b, m->done);
	return pmixev_buf_ok(b) ? 0 : -1;
}

int pmixev_owner_written_unpack(struct pmixev_buf *b,
				struct pmixev_owner_written *m)
{
	struct pmixev_owner_written t = {0};

	pmixev_buf_get_u32(b, &t.id);
	pmixev_buf_get_i32(b, &t.err);
	pmixev_buf_get_u32(b, &t.done);
	if (!pmixev_buf_ok(b) || pmixev_buf_remaining(b) || !written_ok(&t))
		return -1;
	*m = t;
	return 0;
}
