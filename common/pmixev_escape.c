/*
 * pmixev_escape.c - control characters as visible escapes.
 */
#include "config.h"

#include "pmixev_escape.h"

#include <stdio.h>
#include <string.h>

/* The escape of `c` into `out` (at most 5 bytes with the NUL); its
 * length, 1 for a byte kept as it is. */
static size_t escape_one(unsigned char c, char out[5])
{
	static const char named[] = {['\n'] = 'n', ['\r'] = 'r', ['\t'] = 't'};

	if (c == '\\' || (c < sizeof(named) && named[c])) {
		out[0] = '\\';
		out[1] = c == '\\' ? '\\' : named[c];
		out[2] = '\0';
		return 2;
	}
	if (c < 0x20 || c == 0x7f)
		return (size_t)snprintf(out, 5, "\\x%02x", c);
	out[0] = (char)c;
	out[1] = '\0';
	return 1;
}

/* Length of `src` escaped. */
static size_t escaped_len(const char *src)
{
	size_t n = 0;
	char e[5];

	for (; *src; src++)
		n += escape_one((unsigned char)*src, e);
	return n;
}

size_t pmixev_escape(char *dst, size_t len, const char *src)
{
	const char *p = src ? src : "";
	size_t off = 0;

	if (len < 4) {
		if (len)
			dst[0] = '\0';
		return 0;
	}
	/* Whole escapes while room is left for "..." and the NUL. */
	for (; *p; p++) {
		char e[5];
		size_t n = escape_one((unsigned char)*p, e);

		if (off + n > len - 4)
			break;
		memcpy(dst + off, e, n);
		off += n;
	}
	if (*p && off + escaped_len(p) <= len - 1) {
		for (; *p; p++)
			off += escape_one((unsigned char)*p, dst + off);
	} else if (*p) {
		memcpy(dst + off, "...", 3);
		off += 3;
	}
	dst[off] = '\0';
	return off;
}
