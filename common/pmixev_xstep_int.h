/*
 * pmixev_xstep_int.h - helpers the XSTEP codec's files share
 * (pmixev_xstep.c, pmixev_xstep_pubsub.c, pmixev_xstep_ctl.c). Not for
 * other users.
 */
#ifndef PMIXEV_XSTEP_INT_H_
#define PMIXEV_XSTEP_INT_H_

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "pmixev_buf.h"

/* -1 with errno EINVAL. */
static inline int xstep_invalid(void)
{
	errno = EINVAL;
	return -1;
}

/* `s` is NUL-terminated within its `size`-byte array. */
static inline bool xstep_text_ok(const char *s, size_t size)
{
	return memchr(s, '\0', size) != NULL;
}

/* 0 when every put succeeded, else -1. */
static inline int xstep_pack_done(const struct pmixev_buf *b)
{
	return pmixev_buf_ok(b) ? 0 : -1;
}

/* 0 when every get succeeded and the body was consumed exactly. */
static inline int xstep_unpack_done(const struct pmixev_buf *b)
{
	return pmixev_buf_ok(b) && pmixev_buf_remaining(b) == 0 ? 0 : -1;
}

#endif /* PMIXEV_XSTEP_INT_H_ */
