/*
 * overlay_forge - an attacker's view of a stepd's overlay port: connects
 * and sends something a genuine peer never would, then reports whether the
 * stepd dropped the connection.
 *
 *   overlay_forge HOST PORT random           4 KiB of random bytes
 *   overlay_forge HOST PORT oversize         a header announcing 1 GiB
 *   overlay_forge HOST PORT preauth          a header announcing 1 MiB
 *                                            (a real frame's size, but no
 *                                            handshake is that large)
 *   overlay_forge HOST PORT nocred           PEER_HELLO without munge
 *   overlay_forge HOST PORT hello J S TO     PEER_HELLO from node 1 with a
 *                                            valid munge credential of the
 *                                            caller for step J.S, node TO
 *   overlay_forge HOST PORT idle N           N connections that send
 *                                            nothing
 *   overlay_forge HOST PORT hold N SECS      keep N idle connections open
 *                                            for SECS seconds, dialling
 *                                            again (after 50 ms) whenever
 *                                            one is closed
 *
 * The munge socket is taken from $MUNGE_SOCKET (else munge's default).
 * Exit 0: the stepd closed the connection within 5 s; 1: it did not;
 * 2: usage or local error. `idle` prints how many connections were
 * refused at once and how many were dropped within 8 s, and exits 0 when
 * all were gone by then. `hold` prints how many connections it made and
 * how many the peer closed, and exits 0.
 */
#include "config.h"

#include <arpa/inet.h>
#include <munge.h>
#include <netdb.h>
#include <poll.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pmixev_frame.h"
#include "pmixev_proto.h"

static int dial(const char *host, const char *port)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res = NULL;
	int fd;

	if (getaddrinfo(host, port, &hints, &res) != 0)
		return -1;
	fd = socket(res->ai_family, SOCK_STREAM, 0);
	if (fd >= 0 && connect(fd, res->ai_addr, res->ai_addrlen) < 0) {
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	return fd;
}

static int send_frame(int fd, uint8_t type, uint32_t len_field,
		      const void *body, size_t len)
{
	struct pmixev_frame_hdr h = {
		.type = type, .src = 1, .dst = 0, .len = len_field};
	uint8_t raw[PMIXEV_FRAME_HDR_LEN];

	pmixev_frame_encode_hdr(&h, raw);
	return send(fd, raw, sizeof(raw), MSG_NOSIGNAL) == sizeof(raw) &&
			       (!len || send(fd, body, len, MSG_NOSIGNAL) ==
						(ssize_t)len)
		       ? 0
		       : -1;
}

/* A PEER_HELLO body around `cred`. */
static int hello(int fd, const char *cred, size_t credlen)
{
	struct pmixev_buf b;
	int rc;

	pmixev_buf_init(&b);
	rc = pmixev_cred_pack(&b, cred, credlen);
	if (rc == 0)
		rc = send_frame(fd, PMIXEV_MSG_PEER_HELLO, (uint32_t)b.len,
				b.data, b.len);
	pmixev_buf_release(&b);
	return rc;
}

static int forged_hello(int fd, char **argv)
{
	struct pmixev_ident id = {.job_id = (uint32_t)atoi(argv[0]),
				  .step_id = (uint32_t)atoi(argv[1]),
				  .from = 1,
				  .to = (uint32_t)atoi(argv[2]),
				  .nonce = 42};
	munge_ctx_t ctx = munge_ctx_create();
	const char *sock = getenv("MUNGE_SOCKET");
	struct pmixev_buf b;
	char *cred = NULL;
	int rc = -1;

	pmixev_buf_init(&b);
	if (ctx &&
	    (!sock ||
	     munge_ctx_set(ctx, MUNGE_OPT_SOCKET, sock) == EMUNGE_SUCCESS) &&
	    pmixev_ident_pack(&b, &id) == 0 &&
	    munge_encode(&cred, ctx, b.data, (int)b.len) == EMUNGE_SUCCESS)
		rc = hello(fd, cred, strlen(cred));
	free(cred);
	pmixev_buf_release(&b);
	if (ctx)
		munge_ctx_destroy(ctx);
	return rc;
}

/* Did the peer close the connection within `ms`? */
static int closed_by_peer(int fd, int ms)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};
	char buf[4096];

	for (;;) {
		ssize_t n;

		if (poll(&p, 1, ms) <= 0)
			return 0;
		n = recv(fd, buf, sizeof(buf), 0);
		if (n <= 0)
			return 1;
	}
}

static int idle(const char *host, const char *port, int n)
{
	int fds[256], refused = 0, dropped = 0;

	if (n < 1 || n > 256)
		return 2;
	for (int i = 0; i < n; i++)
		if ((fds[i] = dial(host, port)) < 0)
			return 2;
	/* Refused ones are closed at once, the others at the deadline. */
	for (int i = 0; i < n; i++)
		if (closed_by_peer(fds[i], 300)) {
			refused++;
			close(fds[i]);
			fds[i] = -1;
		}
	for (int i = 0; i < n; i++)
		if (fds[i] >= 0) {
			dropped += closed_by_peer(fds[i], 8000);
			close(fds[i]);
		}
	printf("overlay_forge: idle: %d refused at once, %d dropped later, "
	       "%d still connected\n",
	       refused, dropped, n - refused - dropped);
	return refused + dropped == n ? 0 : 1;
}

static double now_sec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int hold(const char *host, const char *port, int n, int secs)
{
	struct pollfd p[256];
	double end = now_sec() + secs;
	int made = 0, closed = 0;
	char buf[512];

	if (n < 1 || n > 256)
		return 2;
	for (int i = 0; i < n; i++)
		p[i] = (struct pollfd){.fd = -1, .events = POLLIN};
	while (now_sec() < end) {
		for (int i = 0; i < n; i++)
			if (p[i].fd < 0 && (p[i].fd = dial(host, port)) >= 0)
				made++;
		if (poll(p, (nfds_t)n, 100) <= 0)
			continue;
		for (int i = 0; i < n; i++) {
			if (p[i].fd < 0 || !(p[i].revents & (POLLIN | POLLHUP)))
				continue;
			if (recv(p[i].fd, buf, sizeof(buf), 0) > 0)
				continue;
			close(p[i].fd);
			p[i].fd = -1;
			closed++;
		}
		usleep(50000);
	}
	for (int i = 0; i < n; i++)
		if (p[i].fd >= 0)
			close(p[i].fd);
	printf("overlay_forge: hold: %d connections made, %d closed by the "
	       "peer\n",
	       made, closed);
	return 0;
}

int main(int argc, char **argv)
{
	uint8_t junk[4096];
	int fd, rc = -1;

	if (argc < 4 || (!strcmp(argv[3], "hello") && argc != 7) ||
	    (!strcmp(argv[3], "idle") && argc != 5) ||
	    (!strcmp(argv[3], "hold") && argc != 6)) {
		fprintf(stderr, "usage: overlay_forge HOST PORT "
				"random|oversize|preauth|nocred|hello J S TO|"
				"idle N|hold N SECS\n");
		return 2;
	}
	if (!strcmp(argv[3], "idle"))
		return idle(argv[1], argv[2], atoi(argv[4]));
	if (!strcmp(argv[3], "hold"))
		return hold(argv[1], argv[2], atoi(argv[4]), atoi(argv[5]));
	if ((fd = dial(argv[1], argv[2])) < 0) {
		perror("overlay_forge: connect");
		return 2;
	}
	if (!strcmp(argv[3], "random")) {
		if (getrandom(junk, sizeof(junk), 0) == (ssize_t)sizeof(junk))
			rc = send(fd, junk, sizeof(junk), MSG_NOSIGNAL) ==
					     (ssize_t)sizeof(junk)
				     ? 0
				     : -1;
	} else if (!strcmp(argv[3], "oversize")) {
		rc = send_frame(fd, PMIXEV_MSG_FENCE_UP, 1u << 30, NULL, 0);
	} else if (!strcmp(argv[3], "preauth")) {
		rc = send_frame(fd, PMIXEV_MSG_PEER_HELLO, 1u << 20, NULL, 0);
	} else if (!strcmp(argv[3], "nocred")) {
		rc = hello(fd, "not a munge credential", 22);
	} else if (!strcmp(argv[3], "hello")) {
		rc = forged_hello(fd, argv + 4);
	}
	if (rc < 0) {
		fprintf(stderr, "overlay_forge: %s: could not send\n", argv[3]);
		close(fd);
		return 2;
	}
	rc = closed_by_peer(fd, 5000);
	close(fd);
	printf("overlay_forge: %s: %s\n", argv[3],
	       rc ? "connection dropped by the stepd" : "still connected");
	return rc ? 0 : 1;
}
