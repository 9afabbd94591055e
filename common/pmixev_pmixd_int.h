/*
 * pmixev_pmixd_int.h - helpers the pmixd message codec's files share
 * (pmixev_pmixd_msg.c defines them). Not for other users.
 */
#ifndef PMIXEV_PMIXD_INT_H_
#define PMIXEV_PMIXD_INT_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmixev_buf.h"
#include "pmixev_pmixd_msg.h"

/* -1 with errno EINVAL. */
int pmixd_invalid(void);
/* `s` is NUL-terminated within its `size`-byte array. */
bool pmixd_text_ok(const char *s, size_t size);
/* 0 when every put succeeded, else -1. */
int pmixd_pack_done(const struct pmixev_buf *b);
/* 0 when every get succeeded and the body was consumed exactly. */
int pmixd_unpack_done(const struct pmixev_buf *b);
/* A rank of the step; a rank of the step on this node. */
bool pmixd_rank_ok(const struct pmixev_pmixd_bounds *lim, uint32_t rank);
bool pmixd_rank_local(const struct pmixev_pmixd_bounds *lim, uint32_t rank);
/* `n` ranks (n <= ntasks), strictly increasing, each below `ntasks`. */
bool pmixd_ranks_sorted(const uint32_t *ranks, uint32_t n, uint32_t ntasks);
/* A set as FENCE and GROUP carry it: `all` with no ranks, or 1.. sorted. */
bool pmixd_ranks_ok(bool all, const uint32_t *ranks, uint32_t n,
		    uint32_t ntasks);
/* A u8 flag on the wire: 0 or 1. */
bool pmixd_flag_ok(uint8_t v);
/* Wire form of a bool, and back (the reader checks pmixd_flag_ok). */
void pmixd_put_flag(struct pmixev_buf *b, bool v);
/*
 * Text of at most `max` bytes with no NUL, malloc'd and NUL-terminated in
 * *out (NULL on any failure, which sets the reader's error).
 */
int pmixd_get_text(struct pmixev_buf *b, size_t max, char **out);

#endif /* PMIXEV_PMIXD_INT_H_ */
