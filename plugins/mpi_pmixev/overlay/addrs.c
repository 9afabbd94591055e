/*
 * overlay/addrs.c - a step's node addresses: per node, a short array of
 * 16-byte keys (IPv4 as IPv4-mapped IPv6), searched linearly (a node has
 * one or two addresses; a door checks one per accepted connection).
 */
#include "config.h"

#include "overlay/addrs.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct key {
	uint8_t b[16];
};

struct node_addrs {
	struct key *keys;
	size_t n;
};

struct addrs {
	uint32_t nnodes;
	struct node_addrs *nodes;
};

static void key_v4(const void *in4, struct key *k)
{
	static const uint8_t v4mapped[12] = {0, 0, 0, 0, 0,    0,
					     0, 0, 0, 0, 0xff, 0xff};

	memcpy(k->b, v4mapped, sizeof(v4mapped));
	memcpy(k->b + 12, in4, 4);
}

static int key_of(const struct sockaddr *sa, struct key *k)
{
	if (sa->sa_family == AF_INET) {
		key_v4(&((const struct sockaddr_in *)sa)->sin_addr, k);
		return 0;
	}
	if (sa->sa_family == AF_INET6) {
		memcpy(k->b, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
		return 0;
	}
	return -1;
}

static int key_of_text(const char *host, struct key *k)
{
	struct in_addr in4;

	if (inet_pton(AF_INET, host, &in4) == 1) {
		key_v4(&in4, k);
		return 0;
	}
	return inet_pton(AF_INET6, host, k->b) == 1 ? 0 : -1;
}

static bool node_has(const struct node_addrs *na, const struct key *k)
{
	for (size_t i = 0; i < na->n; i++)
		if (memcmp(na->keys[i].b, k->b, sizeof(k->b)) == 0)
			return true;
	return false;
}

struct addrs *addrs_create(uint32_t nnodes)
{
	struct addrs *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->nnodes = nnodes;
	if (nnodes && !(a->nodes = calloc(nnodes, sizeof(*a->nodes)))) {
		free(a);
		return NULL;
	}
	return a;
}

static int add_key(struct addrs *a, uint32_t node, const struct key *k)
{
	struct node_addrs *na;
	struct key *keys;

	if (node >= a->nnodes) {
		errno = EINVAL;
		return -1;
	}
	na = &a->nodes[node];
	if (node_has(na, k))
		return 0;
	if (!(keys = realloc(na->keys, (na->n + 1) * sizeof(*keys))))
		return -1;
	keys[na->n++] = *k;
	na->keys = keys;
	return 0;
}

int addrs_add(struct addrs *a, uint32_t node, const struct sockaddr *sa)
{
	struct key k;

	if (key_of(sa, &k) < 0) {
		errno = EINVAL;
		return -1;
	}
	return add_key(a, node, &k);
}

int addrs_add_text(struct addrs *a, uint32_t node, const char *host)
{
	struct key k;

	if (key_of_text(host, &k) < 0) {
		errno = EINVAL;
		return -1;
	}
	return add_key(a, node, &k);
}

bool addrs_any_has(const struct addrs *a, const struct sockaddr *sa)
{
	struct key k;

	if (key_of(sa, &k) < 0)
		return false;
	for (uint32_t i = 0; i < a->nnodes; i++)
		if (node_has(&a->nodes[i], &k))
			return true;
	return false;
}

bool addrs_node_has_text(const struct addrs *a, uint32_t node, const char *host)
{
	struct key k;

	return node < a->nnodes && key_of_text(host, &k) == 0 &&
	       node_has(&a->nodes[node], &k);
}

const char *addrs_node_text(const struct addrs *a, uint32_t node, char *buf,
			    size_t len)
{
	size_t off = 0;

	snprintf(buf, len, "none");
	for (size_t i = 0; node < a->nnodes && i < a->nodes[node].n; i++) {
		const uint8_t *b = a->nodes[node].keys[i].b;
		char text[INET6_ADDRSTRLEN];
		struct in6_addr in6;
		int n;

		memcpy(&in6, b, sizeof(in6));
		if (IN6_IS_ADDR_V4MAPPED(&in6))
			inet_ntop(AF_INET, b + 12, text, sizeof(text));
		else
			inet_ntop(AF_INET6, b, text, sizeof(text));
		n = snprintf(buf + off, len - off, "%s%s", off ? " " : "",
			     text);
		if (n < 0 || (size_t)n >= len - off)
			break;
		off += (size_t)n;
	}
	return buf;
}

void addrs_destroy(struct addrs *a)
{
	int saved = errno;

	if (!a)
		return;
	for (uint32_t i = 0; i < a->nnodes; i++)
		free(a->nodes[i].keys);
	free(a->nodes);
	free(a);
	errno = saved;
}
