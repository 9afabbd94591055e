/*
 * pmixev_ptable.c - process-table messages and /proc status parsing.
 */
#include "config.h"

#include "pmixev_ptable.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* An entry's bytes on the wire when its name is empty: u32 rank, u32 pid,
 * u8 run, i32 status, u64 rss_kb, u32 name length. */
#define ENTRY_MIN 25

int pmixev_ptable_pack(struct pmixev_buf *b, const struct pmixev_ptable_msg *m)
{
	return pmixev_ptable_pack_max(b, m, PMIXEV_PTABLE_MAX);
}

int pmixev_ptable_unpack(struct pmixev_buf *b, struct pmixev_ptable_msg *m)
{
	return pmixev_ptable_unpack_max(b, m, PMIXEV_PTABLE_MAX);
}

int pmixev_ptable_pack_max(struct pmixev_buf *b,
			   const struct pmixev_ptable_msg *m, uint32_t max)
{
	if (m->count > max) {
		errno = EINVAL;
		return -1;
	}
	for (uint32_t i = 0; i < m->count; i++)
		if (m->e[i].run > PMIXEV_PROC_EXITED ||
		    !memchr(m->e[i].name, '\0', sizeof(m->e[i].name))) {
			errno = EINVAL;
			return -1;
		}
	pmixev_buf_put_u32(b, m->id);
	pmixev_buf_put_u32(b, m->count);
	for (uint32_t i = 0; i < m->count; i++) {
		const struct pmixev_ptable_entry *e = &m->e[i];

		pmixev_buf_put_u32(b, e->rank);
		pmixev_buf_put_u32(b, e->pid);
		pmixev_buf_put_u8(b, e->run);
		pmixev_buf_put_i32(b, e->status);
		pmixev_buf_put_u64(b, e->rss_kb);
		pmixev_buf_put_str(b, e->name);
	}
	return pmixev_buf_ok(b) ? 0 : -1;
}

int pmixev_ptable_unpack_max(struct pmixev_buf *b, struct pmixev_ptable_msg *m,
			     uint32_t max)
{
	struct pmixev_ptable_msg t = {0};

	pmixev_buf_get_u32(b, &t.id);
	pmixev_buf_get_u32(b, &t.count);
	/* No more entries than the bytes left can hold, before allocating. */
	if (!pmixev_buf_ok(b) || t.count > max ||
	    t.count > pmixev_buf_remaining(b) / ENTRY_MIN)
		return -1;
	if (t.count && !(t.e = calloc(t.count, sizeof(*t.e))))
		return -1;
	for (uint32_t i = 0; i < t.count; i++) {
		struct pmixev_ptable_entry *e = &t.e[i];

		pmixev_buf_get_u32(b, &e->rank);
		pmixev_buf_get_u32(b, &e->pid);
		pmixev_buf_get_u8(b, &e->run);
		pmixev_buf_get_i32(b, &e->status);
		pmixev_buf_get_u64(b, &e->rss_kb);
		pmixev_buf_get_str(b, e->name, sizeof(e->name));
		if (!pmixev_buf_ok(b) || e->run > PMIXEV_PROC_EXITED)
			goto bad;
	}
	if (pmixev_buf_remaining(b))
		goto bad;
	*m = t;
	return 0;
bad:
	free(t.e);
	return -1;
}

/* The value after "Key:" on the line that starts with it, or NULL. */
static const char *field(const char *text, size_t len, const char *key,
			 size_t *vlen)
{
	size_t klen = strlen(key);
	const char *p = text, *end = text + len;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl : end;

		if ((size_t)(eol - p) > klen && !memcmp(p, key, klen)) {
			p += klen;
			while (p < eol && (*p == ' ' || *p == '\t'))
				p++;
			*vlen = (size_t)(eol - p);
			return p;
		}
		p = nl ? nl + 1 : end;
	}
	return NULL;
}

/* A decimal number at the start of v (vlen bytes): 0, or -1. */
static int number(const char *v, size_t vlen, uint64_t *out)
{
	uint64_t n = 0;
	size_t i = 0;

	for (; i < vlen && v[i] >= '0' && v[i] <= '9' && i < 19; i++)
		n = n * 10 + (uint64_t)(v[i] - '0');
	if (!i || (i < vlen && v[i] >= '0' && v[i] <= '9'))
		return -1;
	*out = n;
	return 0;
}

int pmixev_proc_status_parse(const char *text, size_t len,
			     struct pmixev_proc_status *out)
{
	struct pmixev_proc_status t = {0};
	const char *v;
	size_t vlen = 0;
	uint64_t n;

	if (!(v = field(text, len, "Name:", &vlen)) || !vlen ||
	    vlen >= sizeof(t.name))
		return -1;
	memcpy(t.name, v, vlen);
	if (!(v = field(text, len, "Uid:", &vlen)) || number(v, vlen, &n) ||
	    n > UINT32_MAX)
		return -1;
	t.uid = (uint32_t)n;
	if ((v = field(text, len, "VmRSS:", &vlen)) && number(v, vlen, &n) == 0)
		t.rss_kb = n;
	*out = t;
	return 0;
}
