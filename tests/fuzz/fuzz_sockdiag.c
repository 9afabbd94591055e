/*
 * fuzz_sockdiag.c - libFuzzer target for pmixev_sockdiag_parse.
 *
 * Input: byte 0 picks the socket asked about (even: IPv4 127.0.0.1:8080
 * -> 127.0.0.1:40000; odd: the same over IPv6 ::1), the rest is what the
 * netlink socket read for request 7, as a hostile or truncated answer
 * could be. The parser must never read past the bytes and answer 0, 1 or
 * -1 only, and 0 only with an answer about the socket asked for.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_conn.h"
#include "pmixev_sockdiag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_conn c;
	struct pmixev_sockdiag_answer ans;
	uint8_t *buf;
	int rc;

	if (size < 1)
		return 0;
	fuzz_conn_pick(&c, data[0]);
	/* An exact-size copy, so that reading past the end is caught. */
	buf = malloc(size - 1 ? size - 1 : 1);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, size - 1);
	rc = pmixev_sockdiag_parse(buf, size - 1, 7, c.l, c.r, &ans);
	free(buf);
	if (rc < -1 || rc > 1)
		abort();
	return 0;
}
