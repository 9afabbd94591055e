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

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "pmixev_sockdiag.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sockaddr_in l4 = {.sin_family = AF_INET}, r4 = l4;
	struct sockaddr_in6 l6 = {.sin6_family = AF_INET6}, r6 = l6;
	struct pmixev_sockdiag_answer ans;
	const struct sockaddr *l, *r;
	uint8_t *buf;
	int rc;

	if (size < 1)
		return 0;
	l4.sin_addr.s_addr = r4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l4.sin_port = htons(8080);
	r4.sin_port = htons(40000);
	l6.sin6_addr = r6.sin6_addr = in6addr_loopback;
	l6.sin6_port = htons(8080);
	r6.sin6_port = htons(40000);
	l = data[0] & 1 ? (const struct sockaddr *)&l6
			: (const struct sockaddr *)&l4;
	r = data[0] & 1 ? (const struct sockaddr *)&r6
			: (const struct sockaddr *)&r4;
	/* An exact-size copy, so that reading past the end is caught. */
	buf = malloc(size - 1 ? size - 1 : 1);
	if (!buf)
		return 0;
	memcpy(buf, data + 1, size - 1);
	rc = pmixev_sockdiag_parse(buf, size - 1, 7, l, r, &ans);
	free(buf);
	if (rc < -1 || rc > 1)
		abort();
	return 0;
}
