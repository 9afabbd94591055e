/*
 * pmixev_escape.h - a log message as one line that cannot pose as
 * another: every control character (below 0x20, and 0x7f) and the
 * backslash become visible escapes ("\n", "\r", "\t", "\\", "\x1b"), so a
 * newline in a string from a client, a peer or the job's environment
 * cannot start a forged line in the daemon's log. pmixev_log.c passes
 * every line through it; bytes from 0x80 (UTF-8) are kept. Pure code:
 * tests/unit/test_escape.c.
 */
#ifndef PMIXEV_ESCAPE_H_
#define PMIXEV_ESCAPE_H_

#include <stddef.h>

/*
 * `src` escaped into `dst` (`len` >= 4 bytes, always NUL-terminated).
 * When it does not fit it is cut before an escape, never inside one, and
 * ends in "...". Returns strlen(dst).
 */
size_t pmixev_escape(char *dst, size_t len, const char *src);

#endif /* PMIXEV_ESCAPE_H_ */
