/*
 * pmixev_logline.h - an application's PMIx_Log message as pmixev writes it
 * into a log an administrator reads (syslog, the slurmd log): control
 * characters escaped as rsyslog does ("#012" for a newline), so that one
 * message is one line and cannot pose as another; at most
 * PMIXEV_LOGLINE_MAX bytes (longer ones are cut and end in "..."). And the
 * datagram the local syslog daemon takes (RFC 3164, what glibc's syslog(3)
 * sends to /dev/log). Pure code: tests/unit/test_logline.c.
 */
#ifndef PMIXEV_LOGLINE_H_
#define PMIXEV_LOGLINE_H_

#include <stddef.h>
#include <time.h>

#define PMIXEV_LOGLINE_MAX 2048

/* `src` as one safe line in `dst` (`len` bytes, NUL-terminated; at most
 * PMIXEV_LOGLINE_MAX). Returns strlen(dst). */
size_t pmixev_logline_clean(char *dst, size_t len, const char *src);

/*
 * "<PRI>Mmm dd hh:mm:ss TAG[PID]: TEXT" with PRI = facility | level
 * (level 0..7 of <syslog.h>), the local time `when`. Returns the length,
 * or 0 when it does not fit in `len`.
 */
size_t pmixev_syslog_format(char *dst, size_t len, int facility, int level,
			    time_t when, const char *tag, long pid,
			    const char *text);

#endif /* PMIXEV_LOGLINE_H_ */
