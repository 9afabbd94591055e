/*
 * fuzz_conn.h - the connection the peer-owner targets (fuzz_peeruid,
 * fuzz_sockdiag) ask about: `pick` even, IPv4 127.0.0.1:8080 ->
 * 127.0.0.1:40000; odd, the same over IPv6 ::1. Header-only: each target
 * is one translation unit.
 */
#ifndef PMIXEV_FUZZ_CONN_H_
#define PMIXEV_FUZZ_CONN_H_

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <sys/socket.h>

struct fuzz_conn {
	struct sockaddr_in l4, r4;
	struct sockaddr_in6 l6, r6;
	const struct sockaddr *l, *r; /* local and remote end, as picked */
};

static void fuzz_conn_pick(struct fuzz_conn *c, uint8_t pick)
{
	*c = (struct fuzz_conn){.l4 = {.sin_family = AF_INET},
				.r4 = {.sin_family = AF_INET},
				.l6 = {.sin6_family = AF_INET6},
				.r6 = {.sin6_family = AF_INET6}};
	c->l4.sin_addr.s_addr = c->r4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	c->l4.sin_port = htons(8080);
	c->r4.sin_port = htons(40000);
	c->l6.sin6_addr = c->r6.sin6_addr = in6addr_loopback;
	c->l6.sin6_port = htons(8080);
	c->r6.sin6_port = htons(40000);
	c->l = pick & 1 ? (const struct sockaddr *)&c->l6
			: (const struct sockaddr *)&c->l4;
	c->r = pick & 1 ? (const struct sockaddr *)&c->r6
			: (const struct sockaddr *)&c->r4;
}

#endif /* PMIXEV_FUZZ_CONN_H_ */
