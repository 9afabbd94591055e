/*
 * pmixev_base64.h - base64 (RFC 4648 §4, with padding, no line breaks)
 * for values that travel in environment variables. The decoder is
 * strict: only the canonical encoding of some bytes decodes (no white
 * space, padding exactly as needed, unused bits zero), so what decodes
 * encodes back to the same text. Pure code, unit-tested and fuzzed.
 */
#ifndef PMIXEV_BASE64_H_
#define PMIXEV_BASE64_H_

#include <stddef.h>
#include <stdint.h>

/* Characters pmixev_base64_encode writes for `n` bytes, without NUL. */
size_t pmixev_base64_len(size_t n);
/*
 * `n` bytes of `src` into `dst`, which has room for pmixev_base64_len(n)
 * + 1 bytes (NUL-terminated).
 */
void pmixev_base64_encode(const uint8_t *src, size_t n, char *dst);
/*
 * The `len` characters of `src` into `dst` (room for len / 4 * 3 bytes);
 * *n the bytes written. 0, or -1 (errno EINVAL) when `src` is not a
 * canonical encoding.
 */
int pmixev_base64_decode(const char *src, size_t len, uint8_t *dst, size_t *n);

#endif /* PMIXEV_BASE64_H_ */
