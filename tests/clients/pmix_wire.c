/*
 * pmix_wire - what a process of the job can send its PMIx server without
 * going through the PMIx library: after a real PMIx_Init, one hand-made
 * query message (PMIX_QUERY_CMD) on the process's own connection to the
 * server, then a fence through the library, to see whether the server
 * still answers.
 *
 * usage: pmix_wire KIND
 *   nokeys  a query with no keys (OpenPMIx 5.0's server reads its first
 *           key anyway)
 *   counts  a query whose qualifier count, times the size of a
 *           pmix_info_t, wraps around 2^64 to a few bytes, followed by 40
 *           qualifiers with 500-byte keys: OpenPMIx 4.2 and 5.0 allocate
 *           the few bytes and unpack the qualifiers into them
 *   union   a query with one qualifier whose value is typed PMIX_INFO,
 *           holding an info whose value is typed PMIX_INFO, 40 deep, each
 *           with a 500-byte key: OpenPMIx 4.2 to 6.1 unpack a value of a
 *           struct type into the value's 24-byte union, so each level
 *           lands about 520 bytes further past the qualifier's block
 *
 * The message is encoded as OpenPMIx 4.2 and 5.0 clients encode theirs
 * by default ("v41" buffers, not self-describing; integers in flex128: 7
 * bits a byte, low group first, at most nine bytes; a signed one shifted
 * left with its sign in bit 0), after the 16-byte header (index, tag,
 * length, padding; network byte order).
 *
 * Prints "pmix_wire: rank R: KIND: sent N bytes", then "pmix_wire: rank R:
 * KIND: the server answers a fence after it" or "... does not answer a
 * fence after it: STATUS". Exit 0 if it answers, 1 if not, 2 if the
 * message could not be made or sent.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <pmix.h>

#include "client_util.h"

#define PROG		 "pmix_wire"
#define QUERY_CMD	 15 /* PMIX_QUERY_CMD in OpenPMIx 4.2 to 7 */
#define TAG		 0x7fff0001u
#define NQUALIFIERS_SENT 40

struct msg {
	uint8_t b[64 * 1024];
	size_t len;
};

static void put_raw(struct msg *m, const void *p, size_t n)
{
	memcpy(m->b + m->len, p, n);
	m->len += n;
}

static void put_u8(struct msg *m, uint8_t v)
{
	put_raw(m, &v, 1);
}

static void put_unsigned(struct msg *m, uint64_t v)
{
	for (int group = 0; group < 8; group++) {
		uint8_t b = v & 0x7f;

		v >>= 7;
		put_u8(m, v ? b | 0x80 : b);
		if (!v)
			return;
	}
	put_u8(m, (uint8_t)v);
}

static void put_signed(struct msg *m, int32_t v)
{
	uint64_t x = (uint64_t)(int64_t)v;

	put_unsigned(m, v < 0 ? (~x << 1) | 1 : x << 1);
}

static void put_string(struct msg *m, const char *s)
{
	put_signed(m, (int32_t)strlen(s) + 1);
	put_raw(m, s, strlen(s) + 1);
}

/* A count n with n * size small modulo 2^64 (the allocation, *bytes) but
 * (int32_t)n large (what the library then unpacks); 0 if none is found. */
static uint64_t wrapping_count(uint64_t size, uint64_t *bytes)
{
	unsigned shift = (unsigned)__builtin_ctzll(size);
	uint64_t odd = size >> shift, inverse = odd;

	for (int i = 0; i < 6; i++) /* Newton: odd * inverse == 1 mod 2^64 */
		inverse *= 2 - odd * inverse;
	for (uint64_t c = 1; c < 100000; c++) {
		uint64_t n = c * inverse, wanted = c << shift;
		int32_t unpacked = (int32_t)n;

		if (wanted < 4096 && unpacked > NQUALIFIERS_SENT &&
		    (uint64_t)unpacked * size > wanted + 4 * size) {
			*bytes = wanted;
			return n;
		}
	}
	return 0;
}

/* One pmix_info_t keyed `key`, no directives; its value an info that
 * the caller puts next if `nested`, else a uint32. */
static void put_info(struct msg *m, const char *key, bool nested)
{
	put_string(m, key);
	put_unsigned(m, 0);				   /* directives */
	put_unsigned(m, nested ? PMIX_INFO : PMIX_UINT32); /* value type */
	if (!nested)
		put_unsigned(m, 0x41414141);
}

/* The body of a query message of `kind`; -1 for an unknown kind. */
static int make_body(struct msg *m, const char *kind)
{
	uint64_t n, bytes = 0;
	char key[501];

	put_signed(m, 1); /* each top-level item: its count, then it */
	put_u8(m, QUERY_CMD);
	put_signed(m, 1);
	put_unsigned(m, 1); /* number of queries */
	put_signed(m, 1);
	if (!strcmp(kind, "nokeys")) {
		put_signed(m, 0);   /* keys */
		put_unsigned(m, 0); /* qualifiers */
		return 0;
	}
	memset(key, 'A', sizeof(key) - 1);
	key[sizeof(key) - 1] = '\0';
	put_signed(m, 1);
	put_string(m, PMIX_QUERY_JOB_STATUS);
	if (!strcmp(kind, "union")) {
		put_unsigned(m, 1); /* qualifiers */
		for (int i = 0; i < NQUALIFIERS_SENT; i++)
			put_info(m, key, true);
		put_info(m, key, false);
		printf(PROG ": %s: a qualifier whose value is an info, %d "
			    "deep\n",
		       kind, NQUALIFIERS_SENT);
		return 0;
	}
	if (strcmp(kind, "counts") ||
	    !(n = wrapping_count(sizeof(pmix_info_t), &bytes)))
		return -1;
	put_unsigned(m, n);
	for (int i = 0; i < NQUALIFIERS_SENT; i++)
		put_info(m, key, false);
	printf(PROG ": %s: %llu qualifiers of %zu bytes: the server allocates "
		    "%llu bytes and unpacks %d\n",
	       kind, (unsigned long long)n, sizeof(pmix_info_t),
	       (unsigned long long)bytes, (int32_t)n);
	return 0;
}

/* This process's connection to its server: the TCP socket whose peer is
 * the port of PMIX_SERVER_URI41/4/3; -1 if none. */
static int server_socket(void)
{
	static const char *const vars[] = {
		"PMIX_SERVER_URI41", "PMIX_SERVER_URI4", "PMIX_SERVER_URI3"};
	const char *uri = NULL, *colon;
	long port;

	for (size_t i = 0; i < 3 && !uri; i++)
		uri = getenv(vars[i]);
	if (!uri || !(colon = strrchr(uri, ':')) ||
	    client_parse_long(colon + 1, 1, 65535, &port))
		return -1;
	for (int fd = 3; fd < 1024; fd++) {
		struct sockaddr_in sa;
		socklen_t len = sizeof(sa);

		if (!getpeername(fd, (struct sockaddr *)&sa, &len) &&
		    sa.sin_family == AF_INET && ntohs(sa.sin_port) == port)
			return fd;
	}
	return -1;
}

static int send_all(int fd, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n) {
		ssize_t w = write(fd, b, n);

		if (w <= 0)
			return -1;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static struct msg body;
	uint32_t hdr[4];
	pmix_proc_t me;
	pmix_status_t rc;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: " PROG " nokeys|counts|union\n");
		return 2;
	}
	client_watchdog(PROG, 0);
	if ((rc = PMIx_Init(&me, NULL, 0)) != PMIX_SUCCESS) {
		printf(PROG ": PMIx_Init: %s\n", PMIx_Error_string(rc));
		return 2;
	}
	if (make_body(&body, argv[1]) || (fd = server_socket()) < 0) {
		printf(PROG ": rank %u: %s: cannot make or address the "
			    "message\n",
		       me.rank, argv[1]);
		return 2;
	}
	hdr[0] = htonl(me.rank);
	hdr[1] = htonl(TAG);
	hdr[2] = htonl((uint32_t)body.len);
	hdr[3] = 0;
	if (send_all(fd, hdr, sizeof(hdr)) || send_all(fd, body.b, body.len)) {
		printf(PROG ": rank %u: %s: cannot send\n", me.rank, argv[1]);
		return 2;
	}
	printf(PROG ": rank %u: %s: sent %zu bytes\n", me.rank, argv[1],
	       sizeof(hdr) + body.len);
	rc = client_sync(&me, 1);
	if (rc == PMIX_SUCCESS)
		printf(PROG ": rank %u: %s: the server answers a fence after "
			    "it\n",
		       me.rank, argv[1]);
	else
		printf(PROG ": rank %u: %s: the server does not answer a "
			    "fence after it: %s\n",
		       me.rank, argv[1], PMIx_Error_string(rc));
	PMIx_Finalize(NULL, 0);
	return rc == PMIX_SUCCESS ? 0 : 1;
}
