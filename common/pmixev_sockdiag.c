/*
 * pmixev_sockdiag.c - one TCP socket's owner from the kernel's
 * sock_diag (see the header).
 */
#include "config.h"

#include "pmixev_sockdiag.h"

#include <errno.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Reads of stale answers (earlier requests' that were never read) to
 * skip before giving up. */
#define STALE_MAX 8

struct pmixev_sockdiag {
	int fd;
	uint32_t seq;
};

/* An endpoint as the comparison sees it: IPv4 in its IPv6-mapped form. */
struct ep {
	uint8_t addr[16];
	uint16_t port; /* network order */
};

/* A message's body follows its header with no padding. */
_Static_assert(NLMSG_HDRLEN == sizeof(struct nlmsghdr), "nlmsghdr padding");

static const uint8_t v4mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

static void ep_v4(struct ep *e, const void *addr4, uint16_t port)
{
	memcpy(e->addr, v4mapped, sizeof(v4mapped));
	memcpy(e->addr + 12, addr4, 4);
	e->port = port;
}

static int ep_of(const struct sockaddr *sa, struct ep *e)
{
	const struct sockaddr_in *in = (const void *)sa;
	const struct sockaddr_in6 *in6 = (const void *)sa;

	if (sa->sa_family == AF_INET) {
		ep_v4(e, &in->sin_addr, in->sin_port);
		return 0;
	}
	if (sa->sa_family == AF_INET6) {
		memcpy(e->addr, &in6->sin6_addr, 16);
		e->port = in6->sin6_port;
		return 0;
	}
	errno = EAFNOSUPPORT;
	return -1;
}

/* The endpoint an answer's id names: (addr, port) of `family`. */
static int ep_of_id(uint8_t family, const __be32 addr[4], __be16 port,
		    struct ep *e)
{
	if (family == AF_INET) {
		ep_v4(e, addr, port);
		return 0;
	}
	if (family == AF_INET6) {
		memcpy(e->addr, addr, 16);
		e->port = port;
		return 0;
	}
	return -1;
}

static bool same(const struct ep *a, const struct ep *b)
{
	return a->port == b->port && !memcmp(a->addr, b->addr, 16);
}

int pmixev_sockdiag_request(void *buf, size_t cap, uint32_t seq,
			    const struct sockaddr *local,
			    const struct sockaddr *remote)
{
	struct {
		struct nlmsghdr nlh;
		struct inet_diag_req_v2 req;
	} msg;
	const struct sockaddr_in *l4 = (const void *)local,
				 *r4 = (const void *)remote;
	const struct sockaddr_in6 *l6 = (const void *)local,
				  *r6 = (const void *)remote;

	if (local->sa_family != remote->sa_family ||
	    (local->sa_family != AF_INET && local->sa_family != AF_INET6)) {
		errno = EAFNOSUPPORT;
		return -1;
	}
	if (cap < sizeof(msg)) {
		errno = ENOBUFS;
		return -1;
	}
	memset(&msg, 0, sizeof(msg));
	msg.nlh.nlmsg_len = sizeof(msg);
	msg.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	msg.nlh.nlmsg_flags = NLM_F_REQUEST; /* one socket, not a dump */
	msg.nlh.nlmsg_seq = seq;
	msg.req.sdiag_family = (uint8_t)local->sa_family;
	msg.req.sdiag_protocol = IPPROTO_TCP;
	msg.req.idiag_states = ~0u;
	msg.req.id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
	msg.req.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
	if (local->sa_family == AF_INET) {
		msg.req.id.idiag_sport = l4->sin_port;
		msg.req.id.idiag_dport = r4->sin_port;
		memcpy(&msg.req.id.idiag_src[0], &l4->sin_addr, 4);
		memcpy(&msg.req.id.idiag_dst[0], &r4->sin_addr, 4);
	} else {
		msg.req.id.idiag_sport = l6->sin6_port;
		msg.req.id.idiag_dport = r6->sin6_port;
		memcpy(msg.req.id.idiag_src, &l6->sin6_addr, 16);
		memcpy(msg.req.id.idiag_dst, &r6->sin6_addr, 16);
	}
	memcpy(buf, &msg, sizeof(msg));
	return (int)sizeof(msg);
}

/* One message for our seq: its verdict (pmixev_sockdiag_parse's). */
static int one_message(const struct nlmsghdr *nlh, const uint8_t *body,
		       size_t blen, const struct ep *l, const struct ep *r,
		       struct pmixev_sockdiag_answer *ans)
{
	struct inet_diag_msg m;
	struct ep ml, mr;
	int error;

	switch (nlh->nlmsg_type) {
	case NLMSG_ERROR:
		if (blen < sizeof(error))
			break;
		memcpy(&error, body, sizeof(error));
		if (error == 0) /* an acknowledgement: not the answer */
			return 2;
		if (error == -ENOENT)
			return 1;
		errno = error < 0 && error > -4096 ? -error : EINVAL;
		return -1;
	case NLMSG_DONE:
		return 1;
	case SOCK_DIAG_BY_FAMILY:
		if (blen < sizeof(m))
			break;
		memcpy(&m, body, sizeof(m));
		if (ep_of_id(m.idiag_family, m.id.idiag_src, m.id.idiag_sport,
			     &ml) < 0 ||
		    ep_of_id(m.idiag_family, m.id.idiag_dst, m.id.idiag_dport,
			     &mr) < 0 ||
		    !same(&ml, l) || !same(&mr, r))
			break;
		ans->state = m.idiag_state;
		ans->uid = (uid_t)m.idiag_uid;
		ans->inode = m.idiag_inode;
		return 0;
	default:
		break;
	}
	errno = EINVAL;
	return -1;
}

int pmixev_sockdiag_parse(const void *buf, size_t len, uint32_t seq,
			  const struct sockaddr *local,
			  const struct sockaddr *remote,
			  struct pmixev_sockdiag_answer *ans)
{
	const uint8_t *p = buf;
	struct ep l, r;
	size_t off = 0;

	if (ep_of(local, &l) < 0 || ep_of(remote, &r) < 0)
		return -1;
	while (len - off >= sizeof(struct nlmsghdr)) {
		struct nlmsghdr nlh;
		size_t mlen;
		int rc;

		memcpy(&nlh, p + off, sizeof(nlh));
		mlen = nlh.nlmsg_len;
		if (mlen < sizeof(nlh) || mlen > len - off) {
			errno = EINVAL;
			return -1;
		}
		if (nlh.nlmsg_seq == seq) {
			rc = one_message(&nlh, p + off + NLMSG_HDRLEN,
					 mlen - NLMSG_HDRLEN, &l, &r, ans);
			if (rc != 2)
				return rc;
		}
		/* The next message starts 4-aligned. */
		mlen = NLMSG_ALIGN(mlen);
		if (mlen > len - off)
			break;
		off += mlen;
	}
	errno = ENOMSG;
	return -1;
}

struct pmixev_sockdiag *pmixev_sockdiag_create(void)
{
	struct pmixev_sockdiag *sd;
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC,
			NETLINK_SOCK_DIAG);

	if (fd < 0)
		return NULL;
	if (!(sd = pmixev_sockdiag_from_fd(fd))) {
		int err = errno;

		close(fd);
		errno = err;
	}
	return sd;
}

struct pmixev_sockdiag *pmixev_sockdiag_from_fd(int fd)
{
	struct pmixev_sockdiag *sd;
	int domain = 0, proto = -1;
	socklen_t dlen = sizeof(domain), plen = sizeof(proto);

	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &dlen) < 0 ||
	    getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &proto, &plen) < 0)
		return NULL;
	if (domain != AF_NETLINK || proto != NETLINK_SOCK_DIAG) {
		errno = EPROTOTYPE;
		return NULL;
	}
	if (!(sd = malloc(sizeof(*sd))))
		return NULL;
	sd->seq = 0;
	sd->fd = fd;
	return sd;
}

int pmixev_sockdiag_lookup(struct pmixev_sockdiag *sd,
			   const struct sockaddr *local,
			   const struct sockaddr *remote,
			   struct pmixev_sockdiag_answer *ans)
{
	struct sockaddr_nl kernel = {.nl_family = AF_NETLINK}, from;
	uint8_t req[PMIXEV_SOCKDIAG_REQ_MAX];
	/* An answer: a message, its inet_diag_msg and a few attributes. */
	uint32_t buf[2048];
	uint32_t seq = ++sd->seq;
	int len, rc = -1;

	if ((len = pmixev_sockdiag_request(req, sizeof(req), seq, local,
					   remote)) < 0)
		return -1;
	if (sendto(sd->fd, req, (size_t)len, 0, (struct sockaddr *)&kernel,
		   sizeof(kernel)) != len)
		return -1;
	/* The kernel answers while sending: the answer is there now. */
	for (int i = 0; i < STALE_MAX; i++) {
		socklen_t flen = sizeof(from);
		ssize_t n = recvfrom(sd->fd, buf, sizeof(buf), MSG_DONTWAIT,
				     (struct sockaddr *)&from, &flen);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (flen < sizeof(from) || from.nl_pid != 0)
			continue; /* not the kernel's */
		rc = pmixev_sockdiag_parse(buf, (size_t)n, seq, local, remote,
					   ans);
		if (rc >= 0 || errno != ENOMSG)
			return rc;
	}
	errno = EAGAIN;
	return -1;
}

void pmixev_sockdiag_destroy(struct pmixev_sockdiag *sd)
{
	int err = errno;

	if (!sd)
		return;
	close(sd->fd);
	free(sd);
	errno = err;
}
