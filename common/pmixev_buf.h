/*
 * pmixev_buf.h - bounds-checked packing of overlay message bodies.
 *
 * All integers are big-endian (network order). Byte strings and text are a
 * u32 length followed by the bytes (text carries no NUL on the wire).
 * Readers never read past the end: the first failing get sets a sticky
 * error flag and every later get fails too, so a parser may chain gets and
 * test once (pmixev_buf_ok). Pure code: unit-tested and fuzzed.
 */
#ifndef PMIXEV_BUF_H_
#define PMIXEV_BUF_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pmixev_buf {
	uint8_t *data; /* owned when writing; borrowed when reading */
	size_t len;    /* bytes written / bytes readable */
	size_t cap;    /* allocated (writer only) */
	size_t pos;    /* read cursor */
	bool err;      /* sticky: allocation failure or short read */
	bool reader;
};

/* An empty growable writer. */
void pmixev_buf_init(struct pmixev_buf *b);
/* A reader over `len` bytes at `data` (not copied, not freed). */
void pmixev_buf_reader(struct pmixev_buf *b, const void *data, size_t len);
/* Free a writer's memory (NULL-safe, reader-safe); leaves an empty buffer. */
void pmixev_buf_release(struct pmixev_buf *b);
/* Steal a writer's bytes (caller frees with free()); leaves it empty. */
uint8_t *pmixev_buf_steal(struct pmixev_buf *b, size_t *len);

/* Writers: 0, or -1 (sets err) on allocation failure. */
int pmixev_buf_put_u8(struct pmixev_buf *b, uint8_t v);
int pmixev_buf_put_u16(struct pmixev_buf *b, uint16_t v);
int pmixev_buf_put_u32(struct pmixev_buf *b, uint32_t v);
int pmixev_buf_put_u64(struct pmixev_buf *b, uint64_t v);
int pmixev_buf_put_i32(struct pmixev_buf *b, int32_t v);
int pmixev_buf_put_bytes(struct pmixev_buf *b, const void *p, size_t n);
int pmixev_buf_put_str(struct pmixev_buf *b, const char *s); /* NULL = "" */
/* Append raw bytes without a length prefix. */
int pmixev_buf_put_raw(struct pmixev_buf *b, const void *p, size_t n);

/* Readers: 0, or -1 (sets err) when the data is short or malformed. */
int pmixev_buf_get_u8(struct pmixev_buf *b, uint8_t *v);
int pmixev_buf_get_u16(struct pmixev_buf *b, uint16_t *v);
int pmixev_buf_get_u32(struct pmixev_buf *b, uint32_t *v);
int pmixev_buf_get_u64(struct pmixev_buf *b, uint64_t *v);
int pmixev_buf_get_i32(struct pmixev_buf *b, int32_t *v);
/* Zero-copy: *p points into the reader's data. */
int pmixev_buf_get_bytes(struct pmixev_buf *b, const uint8_t **p, size_t *n);
/*
 * Text into a caller buffer of `size` bytes (NUL-terminated). Fails when the
 * text does not fit or contains a NUL byte.
 */
int pmixev_buf_get_str(struct pmixev_buf *b, char *out, size_t size);

/* Unread bytes of a reader. */
size_t pmixev_buf_remaining(const struct pmixev_buf *b);
/* No error so far. */
bool pmixev_buf_ok(const struct pmixev_buf *b);

#endif /* PMIXEV_BUF_H_ */
