/* pmixev_peeruid.c - peer uids from sock_diag, /proc/net/tcp{,6} and
 * SO_PEERCRED. */
#include "config.h"

#include "pmixev_peeruid.h"
#include "pmixev_sockdiag.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TCP_LISTEN 0x0A
#ifndef PMIXEV_PEERUID_CHUNK /* the unit test reads in small pieces */
#define PMIXEV_PEERUID_CHUNK (64 * 1024) /* a row: 150 (tcp), 178 (tcp6) */
#endif

static const uint8_t v4mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

/* An endpoint: an IPv6 address (IPv4 ones mapped) and a host-order port. */
struct ep {
	uint8_t addr[16];
	uint16_t port;
};

struct search {
	struct ep local, remote; /* the row wanted */
	bool header;		 /* the header line is still to come */
	uid_t uid;		 /* the row's, once found */
};

static int ep_of(const struct sockaddr *sa, struct ep *e)
{
	const struct sockaddr_in *in = (const void *)sa;
	const struct sockaddr_in6 *in6 = (const void *)sa;

	if (sa->sa_family == AF_INET) {
		memcpy(e->addr, v4mapped, sizeof(v4mapped));
		memcpy(e->addr + 12, &in->sin_addr, 4);
		e->port = ntohs(in->sin_port);
	} else if (sa->sa_family == AF_INET6) {
		memcpy(e->addr, &in6->sin6_addr, 16);
		e->port = ntohs(in6->sin6_port);
	} else {
		errno = EAFNOSUPPORT;
		return -1;
	}
	return 0;
}

static bool same(const struct ep *a, const struct ep *b)
{
	return a->port == b->port && !memcmp(a->addr, b->addr, 16);
}

/* The next blank-separated field of [*p, end) and its length, 0 if none. */
static size_t field(const char **p, const char *end, const char **f)
{
	while (*p < end && (**p == ' ' || **p == '\t'))
		(*p)++;
	*f = *p;
	while (*p < end && **p != ' ' && **p != '\t')
		(*p)++;
	return (size_t)(*p - *f);
}

/* n digits of `base`: 10, or 16 in upper case as the kernel prints. */
static int num(const char *s, size_t n, unsigned base, uint64_t max,
	       uint64_t *v)
{
	static const char digits[] = "0123456789ABCDEF";
	const char *d;

	*v = 0;
	for (size_t i = 0; i < n; i++) {
		if (!(d = memchr(digits, s[i], base)) ||
		    *v > (max - (uint64_t)(d - digits)) / base)
			return -1;
		*v = *v * base + (uint64_t)(d - digits);
	}
	return n ? 0 : -1;
}

/*
 * "0100007F:1F90" (tcp) or 32 hex digits and a port (tcp6). The kernel
 * prints each 32-bit word of the address as it lies in memory, as a host
 * number (%08X): reading the word back the same way gives its bytes on
 * either endianness. The port is printed as a number.
 */
static int parse_ep(const char *f, size_t n, struct ep *e)
{
	size_t alen = n - 5, off = alen == 8 ? 12 : 0;
	uint64_t w, port;
	uint32_t w32;

	if (n < 5 || (alen != 8 && alen != 32) || f[alen] != ':' ||
	    num(f + alen + 1, 4, 16, UINT16_MAX, &port) < 0)
		return -1;
	memcpy(e->addr, v4mapped, sizeof(v4mapped));
	for (size_t i = 0; i < alen; i += 8) {
		if (num(f + i, 8, 16, UINT32_MAX, &w) < 0)
			return -1;
		w32 = (uint32_t)w;
		memcpy(e->addr + off + i / 2, &w32, 4);
	}
	e->port = (uint16_t)port;
	return 0;
}

/*
 * One row "sl: local rem st tx:rx tr:when retrnsmt uid timeout inode ...".
 * 0 when it is the one searched for, 1 if not, -1 if malformed.
 */
static int match_row(struct search *s, const char *p, const char *end)
{
	const char *f[10];
	size_t n[10];
	struct ep l, r;
	uint64_t st, uid, ino;

	for (int i = 0; i < 10; i++)
		if (!(n[i] = field(&p, end, &f[i])))
			return -1;
	if (f[0][n[0] - 1] != ':' || parse_ep(f[1], n[1], &l) < 0 ||
	    parse_ep(f[2], n[2], &r) < 0 || n[3] != 2 ||
	    num(f[3], 2, 16, 0xFF, &st) < 0 ||
	    num(f[7], n[7], 10, UINT32_MAX, &uid) < 0 ||
	    num(f[9], n[9], 10, UINT64_MAX, &ino) < 0)
		return -1;
	/* No inode: a TIME_WAIT remnant (uid 0) or an orphan, not a peer. */
	if (st == TCP_LISTEN || !ino || !same(&l, &s->local) ||
	    !same(&r, &s->remote))
		return 1;
	s->uid = (uid_t)uid;
	return 0;
}

/*
 * The lines of [text, text + len): all of them at eof (an incomplete last
 * one that does not parse is ignored), else up to the last newline.
 * *used: the bytes consumed.
 */
static int scan(struct search *s, const char *text, size_t len, bool eof,
		size_t *used)
{
	const char *p = text, *end = text + len, *nl, *eol;
	int rc = 1;

	while (rc == 1 && p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl && !eof)
			break;
		eol = nl ? nl : end;
		if (s->header) {
			s->header = false;
			if (!memmem(p, (size_t)(eol - p), "local_address", 13))
				rc = -1;
		} else {
			rc = match_row(s, p, eol);
		}
		if (!nl && rc < 0)
			rc = 1;
		p = nl ? nl + 1 : end;
	}
	*used = (size_t)(p - text);
	if (rc < 0)
		errno = EINVAL;
	return rc;
}

int pmixev_peeruid_parse(const char *text, size_t len,
			 const struct sockaddr *local,
			 const struct sockaddr *remote, uid_t *uid)
{
	struct search s = {.header = true};
	size_t used;
	int rc;

	if (ep_of(local, &s.local) < 0 || ep_of(remote, &s.remote) < 0)
		return -1;
	rc = scan(&s, text, len, true, &used);
	if (!rc)
		*uid = s.uid;
	return rc;
}

/* Like scan(), over the file open at `fd` read from its start a chunk at
 * a time; no file (-1: no IPv6) has no rows. */
static int scan_file(struct search *s, int fd)
{
	size_t have = 0, used;
	ssize_t n = -1;
	char *buf;
	int err, rc = -1;

	if (fd < 0)
		return 1;
	if (lseek(fd, 0, SEEK_SET) < 0 || !(buf = malloc(PMIXEV_PEERUID_CHUNK)))
		return -1;
	s->header = true;
	for (rc = 1; rc == 1 && n; have -= used) {
		do
			n = read(fd, buf + have, PMIXEV_PEERUID_CHUNK - have);
		while (n < 0 && errno == EINTR);
		if (n < 0) {
			rc = -1;
			break;
		}
		have += (size_t)n;
		rc = scan(s, buf, have, !n, &used);
		memmove(buf, buf + used, have - used);
		if (rc == 1 && have - used == PMIXEV_PEERUID_CHUNK) {
			errno = EINVAL; /* a line longer than the buffer */
			rc = -1;
		}
	}
	err = errno;
	free(buf);
	errno = err;
	return rc;
}

/* The peer's socket by sock_diag: its local end is our peer, its remote
 * us. Not a listener, and not one without a file (see the header). */
static int ask_kernel(struct pmixev_sockdiag *sd,
		      const struct sockaddr_storage *ours,
		      const struct sockaddr_storage *peer, uid_t *uid)
{
	struct pmixev_sockdiag_answer ans;
	int rc = pmixev_sockdiag_lookup(sd, (const struct sockaddr *)peer,
					(const struct sockaddr *)ours, &ans);

	if (rc < 0)
		return -1;
	if (rc == 1 || !ans.inode || ans.state == TCP_LISTEN) {
		errno = ENOENT;
		return -1;
	}
	*uid = ans.uid;
	return 0;
}

int pmixev_peeruid_of_fd(int fd, struct pmixev_sockdiag *sd, int tcp_fd,
			 int tcp6_fd, uid_t *uid)
{
	struct sockaddr_storage ours, peer;
	socklen_t olen = sizeof(ours), plen = sizeof(peer);
	socklen_t len = sizeof(int);
	struct search s;
	struct ucred cred;
	int proto, rc = 1;

	if (getsockname(fd, (struct sockaddr *)&ours, &olen) < 0)
		return -1;
	if (ours.ss_family == AF_UNIX) {
		len = sizeof(cred);
		if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
			return -1;
		if (cred.uid == (uid_t)-1) { /* not connected */
			errno = ENOTCONN;
			return -1;
		}
		*uid = cred.uid;
		return 0;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &proto, &len) < 0)
		return -1;
	if ((ours.ss_family != AF_INET && ours.ss_family != AF_INET6) ||
	    proto != IPPROTO_TCP) {
		errno = EAFNOSUPPORT;
		return -1;
	}
	if (getpeername(fd, (struct sockaddr *)&peer, &plen) < 0)
		return -1;
	if (sd)
		return ask_kernel(sd, &ours, &peer, uid);
	/* The peer's row: its local address is our peer, its remote us. */
	ep_of((struct sockaddr *)&peer, &s.local);
	ep_of((struct sockaddr *)&ours, &s.remote);
	/*
	 * The file is read in pieces and the kernel resumes each read at the
	 * same place in a hash bucket: a socket that goes meanwhile can make
	 * the next row be skipped. Look twice before saying there is none.
	 */
	for (int pass = 0; rc == 1 && pass < 2; pass++) {
		if (!memcmp(s.remote.addr, v4mapped, sizeof(v4mapped)))
			rc = scan_file(&s, tcp_fd);
		if (rc == 1)
			rc = scan_file(&s, tcp6_fd);
	}
	if (rc == 1)
		errno = ENOENT;
	else if (!rc)
		*uid = s.uid;
	return rc ? -1 : 0;
}
