/*
 * pmixev_logline.c - safe log lines and syslog datagrams.
 */
#include "config.h"

#include "pmixev_logline.h"

#include <stdio.h>
#include <string.h>

size_t pmixev_logline_clean(char *dst, size_t len, const char *src)
{
	size_t cap =
		len < PMIXEV_LOGLINE_MAX + 1 ? len : PMIXEV_LOGLINE_MAX + 1;
	size_t n = 0;

	if (cap < 4) { /* no room for "..." */
		if (cap)
			dst[0] = '\0';
		return 0;
	}
	for (; src && *src; src++) {
		unsigned char c = (unsigned char)*src;
		char esc[5] = {(char)c, '\0'};
		size_t w = 1;

		if (c < ' ' || c == 0x7f)
			w = (size_t)snprintf(esc, sizeof(esc), "#%03o", c);
		if (n + w > cap - 1) { /* cut: end in "..." */
			n = n < cap - 4 ? n : cap - 4;
			memcpy(dst + n, "...", 4);
			return n + 3;
		}
		memcpy(dst + n, esc, w);
		n += w;
	}
	dst[n] = '\0';
	return n;
}

size_t pmixev_syslog_format(char *dst, size_t len, int facility, int level,
			    time_t when, const char *tag, long pid,
			    const char *text)
{
	char stamp[32] = "";
	struct tm tm;
	int n;

	if (localtime_r(&when, &tm))
		strftime(stamp, sizeof(stamp), "%b %e %H:%M:%S", &tm);
	n = snprintf(dst, len, "<%d>%s %s[%ld]: %s", facility | (level & 7),
		     stamp, tag, pid, text);
	return n < 0 || (size_t)n >= len ? 0 : (size_t)n;
}
