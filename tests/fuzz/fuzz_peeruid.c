/*
 * fuzz_peeruid.c - libFuzzer target for pmixev_peeruid_parse.
 *
 * Input: byte 0 picks the address family (even: IPv4 127.0.0.1:8080 ->
 * 127.0.0.1:40000; odd: the same over IPv6 ::1), the rest is the text of a
 * /proc/net/tcp or tcp6 file, as a hostile or truncated one could be. The
 * parser must never read past the text and answer 0, 1 or -1 only.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_conn.h"
#include "pmixev_peeruid.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_conn c;
	char *text;
	uid_t uid = 0;
	int rc;

	if (size < 1)
		return 0;
	fuzz_conn_pick(&c, data[0]);
	/* An exact-size copy, so that reading past the end is caught. */
	text = malloc(size - 1 ? size - 1 : 1);
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	rc = pmixev_peeruid_parse(text, size - 1, c.l, c.r, &uid);
	free(text);
	if (rc < -1 || rc > 1)
		abort();
	return 0;
}
