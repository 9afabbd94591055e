/*
 * pmixev_base64.c - strict base64 (see pmixev_base64.h).
 */
#include "config.h"

#include "pmixev_base64.h"

#include <errno.h>
#include <stdbool.h>

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
			       "abcdefghijklmnopqrstuvwxyz0123456789+/";

size_t pmixev_base64_len(size_t n)
{
	return (n + 2) / 3 * 4;
}

void pmixev_base64_encode(const uint8_t *src, size_t n, char *dst)
{
	size_t i = 0;

	for (; i + 3 <= n; i += 3) {
		uint32_t v = (uint32_t)src[i] << 16 |
			     (uint32_t)src[i + 1] << 8 | src[i + 2];

		*dst++ = alphabet[v >> 18];
		*dst++ = alphabet[(v >> 12) & 63];
		*dst++ = alphabet[(v >> 6) & 63];
		*dst++ = alphabet[v & 63];
	}
	if (n - i == 1) {
		*dst++ = alphabet[src[i] >> 2];
		*dst++ = alphabet[(src[i] & 3) << 4];
		*dst++ = '=';
		*dst++ = '=';
	} else if (n - i == 2) {
		*dst++ = alphabet[src[i] >> 2];
		*dst++ = alphabet[(src[i] & 3) << 4 | src[i + 1] >> 4];
		*dst++ = alphabet[(src[i + 1] & 15) << 2];
		*dst++ = '=';
	}
	*dst = '\0';
}

/* A character's 6 bits, or -1. */
static int sextet(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

int pmixev_base64_decode(const char *src, size_t len, uint8_t *dst, size_t *n)
{
	size_t out = 0;

	if (len % 4)
		goto bad;
	for (size_t i = 0; i < len; i += 4) {
		bool last = i + 4 == len;
		int s[4];
		int pad = 0;
		uint32_t v = 0;

		for (size_t k = 0; k < 4; k++) {
			s[k] = sextet(src[i + k]);
			if (s[k] < 0) {
				/* '=' only as the last one or two of the last
				 * quantum. */
				if (!last || src[i + k] != '=' || k < 2 ||
				    (k == 2 && src[i + 3] != '='))
					goto bad;
				s[k] = 0;
				pad++;
			}
		}
		v = (uint32_t)s[0] << 18 | (uint32_t)s[1] << 12 |
		    (uint32_t)s[2] << 6 | (uint32_t)s[3];
		/* Canonical: the bits padding drops are zero. */
		if ((pad == 1 && (v & 0xff)) || (pad == 2 && (v & 0xffff)))
			goto bad;
		dst[out++] = (uint8_t)(v >> 16);
		if (pad < 2)
			dst[out++] = (uint8_t)(v >> 8);
		if (pad < 1)
			dst[out++] = (uint8_t)v;
	}
	*n = out;
	return 0;
bad:
	errno = EINVAL;
	return -1;
}
