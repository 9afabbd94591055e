/*
 * hello_msg.h - build a PMIx hello (OpenPMIx's connect-ack) byte by byte,
 * as pmixev_hello.h describes it: for pmix_handshake and the unit test of
 * common/pmixev_hello.c. Header-only (static inline).
 */
#ifndef PMIXEV_HELLO_MSG_H_
#define PMIXEV_HELLO_MSG_H_

#include <arpa/inet.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct hello_msg {
	uint8_t b[1024];
	size_t n;
};

static inline void hello_put(struct hello_msg *m, const void *p, size_t n)
{
	memcpy(m->b + m->n, p, n);
	m->n += n;
}

/* A string with its NUL. */
static inline void hello_str(struct hello_msg *m, const char *s)
{
	hello_put(m, s, strlen(s) + 1);
}

/* A number in network order. */
static inline void hello_u32(struct hello_msg *m, uint32_t v)
{
	v = htonl(v);
	hello_put(m, &v, 4);
}

static inline void hello_u8(struct hello_msg *m, uint8_t v)
{
	hello_put(m, &v, 1);
}

/* A "native" credential over TCP: its length, then uid and gid in the
 * sender's order. */
static inline void hello_cred(struct hello_msg *m, uint32_t uid, uint32_t gid)
{
	hello_u32(m, 8);
	hello_put(m, &uid, 4);
	hello_put(m, &gid, 4);
}

#endif /* PMIXEV_HELLO_MSG_H_ */
