/*
 * pmixev_buf.c - bounds-checked big-endian packing of message bodies.
 *
 * The error flag is sticky for writers too: once a put has failed, later
 * puts fail and pmixev_buf_steal returns NULL, so a half-written message
 * is never sent. Puts on a reader and gets on a writer fail.
 */
#include "config.h"

#include "pmixev_buf.h"

#include <stdlib.h>
#include <string.h>

#define BUF_MIN_CAP 64

void pmixev_buf_init(struct pmixev_buf *b)
{
	memset(b, 0, sizeof(*b));
}

void pmixev_buf_reader(struct pmixev_buf *b, const void *data, size_t len)
{
	memset(b, 0, sizeof(*b));
	b->data = (uint8_t *)data;
	b->len = len;
	b->reader = true;
}

void pmixev_buf_release(struct pmixev_buf *b)
{
	if (!b)
		return;
	if (!b->reader)
		free(b->data);
	pmixev_buf_init(b);
}

/*
 * An empty writer yields a non-NULL zero-length allocation, so NULL always
 * means failure (a reader, an earlier failed put, or out of memory).
 */
uint8_t *pmixev_buf_steal(struct pmixev_buf *b, size_t *len)
{
	uint8_t *p = NULL;

	*len = 0;
	if (b->reader || b->err)
		goto out;
	p = b->data ? b->data : malloc(1);
	if (p) {
		*len = b->len;
		b->data = NULL;
	}
out:
	pmixev_buf_release(b);
	return p;
}

/* Make room for `n` more bytes. */
static int reserve(struct pmixev_buf *b, size_t n)
{
	size_t cap;
	uint8_t *p;

	if (b->err || b->reader || n > SIZE_MAX - b->len)
		goto fail;
	if (b->len + n <= b->cap)
		return 0;
	cap = b->cap ? b->cap : BUF_MIN_CAP;
	while (cap < b->len + n)
		cap = cap > SIZE_MAX / 2 ? b->len + n : cap * 2;
	p = realloc(b->data, cap);
	if (!p)
		goto fail;
	b->data = p;
	b->cap = cap;
	return 0;
fail:
	b->err = true;
	return -1;
}

int pmixev_buf_put_raw(struct pmixev_buf *b, const void *p, size_t n)
{
	if (reserve(b, n) < 0)
		return -1;
	if (n) {
		memcpy(b->data + b->len, p, n);
		b->len += n;
	}
	return 0;
}

/* Append the low `size` bytes of `v`, most significant first. */
static int put_be(struct pmixev_buf *b, uint64_t v, size_t size)
{
	uint8_t tmp[8];

	for (size_t i = 0; i < size; i++)
		tmp[i] = (uint8_t)(v >> (8 * (size - 1 - i)));
	return pmixev_buf_put_raw(b, tmp, size);
}

int pmixev_buf_put_u8(struct pmixev_buf *b, uint8_t v)
{
	return put_be(b, v, 1);
}

int pmixev_buf_put_u16(struct pmixev_buf *b, uint16_t v)
{
	return put_be(b, v, 2);
}

int pmixev_buf_put_u32(struct pmixev_buf *b, uint32_t v)
{
	return put_be(b, v, 4);
}

int pmixev_buf_put_u64(struct pmixev_buf *b, uint64_t v)
{
	return put_be(b, v, 8);
}

int pmixev_buf_put_i32(struct pmixev_buf *b, int32_t v)
{
	return put_be(b, (uint32_t)v, 4);
}

int pmixev_buf_put_bytes(struct pmixev_buf *b, const void *p, size_t n)
{
	if (n > UINT32_MAX) {
		b->err = true;
		return -1;
	}
	if (reserve(b, 4 + n) < 0)
		return -1;
	put_be(b, n, 4);
	return pmixev_buf_put_raw(b, p, n);
}

int pmixev_buf_put_str(struct pmixev_buf *b, const char *s)
{
	return pmixev_buf_put_bytes(b, s, s ? strlen(s) : 0);
}

/* Consume `n` bytes: a pointer to them, or NULL (sets err) when short. */
static const uint8_t *take(struct pmixev_buf *b, size_t n)
{
	const uint8_t *p;

	if (b->err || !b->reader || n > b->len - b->pos) {
		b->err = true;
		return NULL;
	}
	p = b->data + b->pos;
	b->pos += n;
	return p;
}

/* Read a big-endian unsigned integer of `size` bytes. */
static int get_be(struct pmixev_buf *b, uint64_t *v, size_t size)
{
	const uint8_t *p = take(b, size);
	uint64_t x = 0;

	if (!p)
		return -1;
	for (size_t i = 0; i < size; i++)
		x = x << 8 | p[i];
	*v = x;
	return 0;
}

int pmixev_buf_get_u8(struct pmixev_buf *b, uint8_t *v)
{
	uint64_t x;

	if (get_be(b, &x, 1) < 0)
		return -1;
	*v = (uint8_t)x;
	return 0;
}

int pmixev_buf_get_u16(struct pmixev_buf *b, uint16_t *v)
{
	uint64_t x;

	if (get_be(b, &x, 2) < 0)
		return -1;
	*v = (uint16_t)x;
	return 0;
}

int pmixev_buf_get_u32(struct pmixev_buf *b, uint32_t *v)
{
	uint64_t x;

	if (get_be(b, &x, 4) < 0)
		return -1;
	*v = (uint32_t)x;
	return 0;
}

int pmixev_buf_get_u64(struct pmixev_buf *b, uint64_t *v)
{
	return get_be(b, v, 8);
}

int pmixev_buf_get_i32(struct pmixev_buf *b, int32_t *v)
{
	uint32_t x;

	if (pmixev_buf_get_u32(b, &x) < 0)
		return -1;
	/* Two's complement without implementation-defined conversion. */
	*v = x <= INT32_MAX ? (int32_t)x : -(int32_t)(UINT32_MAX - x) - 1;
	return 0;
}

int pmixev_buf_get_bytes(struct pmixev_buf *b, const uint8_t **p, size_t *n)
{
	const uint8_t *q;
	uint32_t len;

	if (pmixev_buf_get_u32(b, &len) < 0)
		return -1;
	q = take(b, len);
	if (!q)
		return -1;
	*p = q;
	*n = len;
	return 0;
}

int pmixev_buf_get_str(struct pmixev_buf *b, char *out, size_t size)
{
	const uint8_t *p;
	size_t n;

	if (pmixev_buf_get_bytes(b, &p, &n) < 0)
		return -1;
	if (n >= size || memchr(p, '\0', n)) {
		b->err = true;
		return -1;
	}
	memcpy(out, p, n);
	out[n] = '\0';
	return 0;
}

size_t pmixev_buf_remaining(const struct pmixev_buf *b)
{
	return b->reader ? b->len - b->pos : 0;
}

bool pmixev_buf_ok(const struct pmixev_buf *b)
{
	return !b->err;
}
