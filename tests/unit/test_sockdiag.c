/*
 * Unit tests for common/pmixev_sockdiag.c: the request names the socket
 * exactly, the answer parser takes only a well-formed answer about that
 * socket and its request, and (where the kernel has sock_diag) a real
 * loopback connection's peer is found with its owner.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pmixev_sockdiag.h"

#define SEQ 7

static struct sockaddr_in v4(const char *a, uint16_t port)
{
	struct sockaddr_in s = {.sin_family = AF_INET, .sin_port = htons(port)};

	inet_pton(AF_INET, a, &s.sin_addr);
	return s;
}

static struct sockaddr_in6 v6(const char *a, uint16_t port)
{
	struct sockaddr_in6 s = {.sin6_family = AF_INET6,
				 .sin6_port = htons(port)};

	inet_pton(AF_INET6, a, &s.sin6_addr);
	return s;
}

#define SA(x) ((const struct sockaddr *)&(x))

/* A kernel answer: header and inet_diag_msg, in buf; its length. */
struct answer {
	struct nlmsghdr nlh;
	struct inet_diag_msg m;
};

static struct answer answer_v4(uint32_t seq, const char *src, uint16_t sport,
			       const char *dst, uint16_t dport)
{
	struct answer a;

	memset(&a, 0, sizeof(a));
	a.nlh.nlmsg_len = sizeof(a);
	a.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	a.nlh.nlmsg_seq = seq;
	a.m.idiag_family = AF_INET;
	a.m.idiag_state = 1; /* established */
	a.m.id.idiag_sport = htons(sport);
	a.m.id.idiag_dport = htons(dport);
	inet_pton(AF_INET, src, &a.m.id.idiag_src[0]);
	inet_pton(AF_INET, dst, &a.m.id.idiag_dst[0]);
	a.m.idiag_uid = 1234;
	a.m.idiag_inode = 99;
	return a;
}

struct error_msg {
	struct nlmsghdr nlh;
	struct nlmsgerr e;
};

static struct error_msg error_answer(uint32_t seq, int error)
{
	struct error_msg m;

	memset(&m, 0, sizeof(m));
	m.nlh.nlmsg_len = sizeof(m);
	m.nlh.nlmsg_type = NLMSG_ERROR;
	m.nlh.nlmsg_seq = seq;
	m.e.error = error;
	return m;
}

static void test_request(void **state)
{
	struct sockaddr_in l = v4("127.0.0.1", 4000), r = v4("127.0.0.2", 80);
	struct sockaddr_in6 l6 = v6("::1", 4000), r6 = v6("::1", 80);
	struct {
		struct nlmsghdr nlh;
		struct inet_diag_req_v2 req;
	} msg;
	uint8_t buf[PMIXEV_SOCKDIAG_REQ_MAX];
	int n;

	(void)state;
	n = pmixev_sockdiag_request(buf, sizeof(buf), SEQ, SA(l), SA(r));
	assert_int_equal(n, sizeof(msg));
	memcpy(&msg, buf, sizeof(msg));
	assert_int_equal(msg.nlh.nlmsg_len, sizeof(msg));
	assert_int_equal(msg.nlh.nlmsg_type, SOCK_DIAG_BY_FAMILY);
	/* Exactly one socket: no NLM_F_DUMP. */
	assert_int_equal(msg.nlh.nlmsg_flags, NLM_F_REQUEST);
	assert_int_equal(msg.nlh.nlmsg_seq, SEQ);
	assert_int_equal(msg.req.sdiag_family, AF_INET);
	assert_int_equal(msg.req.sdiag_protocol, IPPROTO_TCP);
	assert_int_equal(msg.req.id.idiag_sport, htons(4000));
	assert_int_equal(msg.req.id.idiag_dport, htons(80));
	assert_memory_equal(&msg.req.id.idiag_src[0], &l.sin_addr, 4);
	assert_memory_equal(&msg.req.id.idiag_dst[0], &r.sin_addr, 4);
	assert_int_equal(msg.req.id.idiag_cookie[0], INET_DIAG_NOCOOKIE);

	n = pmixev_sockdiag_request(buf, sizeof(buf), SEQ, SA(l6), SA(r6));
	assert_int_equal(n, sizeof(msg));
	memcpy(&msg, buf, sizeof(msg));
	assert_int_equal(msg.req.sdiag_family, AF_INET6);
	assert_memory_equal(msg.req.id.idiag_src, &l6.sin6_addr, 16);

	errno = 0;
	assert_int_equal(
		pmixev_sockdiag_request(buf, sizeof(buf), SEQ, SA(l), SA(r6)),
		-1);
	assert_int_equal(errno, EAFNOSUPPORT);
	assert_int_equal(pmixev_sockdiag_request(buf, 8, SEQ, SA(l), SA(r)),
			 -1);
	assert_int_equal(errno, ENOBUFS);
}

static void test_parse_found(void **state)
{
	struct sockaddr_in l = v4("127.0.0.1", 4000), r = v4("127.0.0.1", 80);
	struct sockaddr_in6 lm = v6("::ffff:127.0.0.1", 4000),
			    rm = v6("::ffff:127.0.0.1", 80);
	struct answer a = answer_v4(SEQ, "127.0.0.1", 4000, "127.0.0.1", 80);
	struct pmixev_sockdiag_answer ans = {0};

	(void)state;
	assert_int_equal(
		pmixev_sockdiag_parse(&a, sizeof(a), SEQ, SA(l), SA(r), &ans),
		0);
	assert_int_equal(ans.uid, 1234);
	assert_int_equal(ans.inode, 99);
	assert_int_equal(ans.state, 1);
	/* An IPv4 socket answers an IPv6 request for mapped addresses. */
	memset(&ans, 0, sizeof(ans));
	assert_int_equal(
		pmixev_sockdiag_parse(&a, sizeof(a), SEQ, SA(lm), SA(rm), &ans),
		0);
	assert_int_equal(ans.uid, 1234);
}

static void test_parse_errors(void **state)
{
	struct sockaddr_in l = v4("127.0.0.1", 4000), r = v4("127.0.0.1", 80);
	struct error_msg e = error_answer(SEQ, -ENOENT);
	struct pmixev_sockdiag_answer ans;
	struct {
		struct error_msg ack;
		struct answer a;
	} two;

	(void)state;
	assert_int_equal(
		pmixev_sockdiag_parse(&e, sizeof(e), SEQ, SA(l), SA(r), &ans),
		1);
	e = error_answer(SEQ, -EPERM);
	errno = 0;
	assert_int_equal(
		pmixev_sockdiag_parse(&e, sizeof(e), SEQ, SA(l), SA(r), &ans),
		-1);
	assert_int_equal(errno, EPERM);
	/* An acknowledgement, then the answer. */
	two.ack = error_answer(SEQ, 0);
	two.a = answer_v4(SEQ, "127.0.0.1", 4000, "127.0.0.1", 80);
	assert_int_equal(pmixev_sockdiag_parse(&two, sizeof(two), SEQ, SA(l),
					       SA(r), &ans),
			 0);
	assert_int_equal(ans.uid, 1234);
	/* An earlier request's answer first: skipped. */
	two.ack = error_answer(SEQ - 1, -ENOENT);
	assert_int_equal(pmixev_sockdiag_parse(&two, sizeof(two), SEQ, SA(l),
					       SA(r), &ans),
			 0);
	/* Only earlier answers: nothing for this request. */
	errno = 0;
	assert_int_equal(pmixev_sockdiag_parse(&two, sizeof(two), SEQ + 1,
					       SA(l), SA(r), &ans),
			 -1);
	assert_int_equal(errno, ENOMSG);
}

static void test_parse_malformed(void **state)
{
	struct sockaddr_in l = v4("127.0.0.1", 4000), r = v4("127.0.0.1", 80);
	struct answer a = answer_v4(SEQ, "127.0.0.1", 4000, "127.0.0.1", 80);
	struct pmixev_sockdiag_answer ans;
	struct answer *copy;

	(void)state;
	/* About another socket (the other end of the connection). */
	a = answer_v4(SEQ, "127.0.0.1", 80, "127.0.0.1", 4000);
	errno = 0;
	assert_int_equal(
		pmixev_sockdiag_parse(&a, sizeof(a), SEQ, SA(l), SA(r), &ans),
		-1);
	assert_int_equal(errno, EINVAL);
	/* A length past the buffer, or shorter than a header. */
	a = answer_v4(SEQ, "127.0.0.1", 4000, "127.0.0.1", 80);
	a.nlh.nlmsg_len = sizeof(a) + 4;
	assert_int_equal(
		pmixev_sockdiag_parse(&a, sizeof(a), SEQ, SA(l), SA(r), &ans),
		-1);
	assert_int_equal(errno, EINVAL);
	a.nlh.nlmsg_len = 8;
	assert_int_equal(
		pmixev_sockdiag_parse(&a, sizeof(a), SEQ, SA(l), SA(r), &ans),
		-1);
	assert_int_equal(errno, EINVAL);
	/* A body too short for its type, in an exact-size copy. */
	for (size_t n = sizeof(struct nlmsghdr); n < sizeof(a); n += 4) {
		a.nlh.nlmsg_len = (uint32_t)n;
		copy = malloc(n);
		memcpy(copy, &a, n);
		errno = 0;
		assert_int_equal(
			pmixev_sockdiag_parse(copy, n, SEQ, SA(l), SA(r), &ans),
			-1);
		assert_int_equal(errno, EINVAL);
		free(copy);
	}
	/* Less than a header: no message. */
	assert_int_equal(pmixev_sockdiag_parse(&a, 10, SEQ, SA(l), SA(r), &ans),
			 -1);
	assert_int_equal(errno, ENOMSG);
	/* An unknown type, and an unknown family. */
	a = answer_v4(SEQ, "127.0.0.1", 4000, "127.0.0.1", 80);
	a.nlh.nlmsg_type = 99;
	assert_int_equal(
		pmixev_sockdiag_parse(&a, sizeof(a), SEQ, SA(l), SA(r), &ans),
		-1);
	assert_int_equal(errno, EINVAL);
	a.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	a.m.idiag_family = AF_UNIX;
	assert_int_equal(
		pmixev_sockdiag_parse(&a, sizeof(a), SEQ, SA(l), SA(r), &ans),
		-1);
	assert_int_equal(errno, EINVAL);
}

/* The kernel itself: a connection's both ends, a listener, a closed
 * peer. Skipped where sock_diag is missing. */
static void test_lookup_live(void **state)
{
	struct sockaddr_in sin = v4("127.0.0.1", 0), lis_a, cli_a, srv_a,
			   any = v4("0.0.0.0", 0);
	socklen_t len = sizeof(sin);
	struct pmixev_sockdiag *sd = pmixev_sockdiag_create();
	struct pmixev_sockdiag_answer ans;
	int lis, cli, srv;

	(void)state;
	if (!sd)
		skip();
	lis = socket(AF_INET, SOCK_STREAM, 0);
	assert_int_equal(bind(lis, (struct sockaddr *)&sin, len), 0);
	assert_int_equal(listen(lis, 4), 0);
	assert_int_equal(getsockname(lis, (struct sockaddr *)&lis_a, &len), 0);
	if (pmixev_sockdiag_lookup(sd, SA(lis_a), SA(any), &ans) != 0) {
		/* No inet_diag module, or not allowed here. */
		pmixev_sockdiag_destroy(sd);
		close(lis);
		skip();
	}
	assert_int_equal(ans.state, 10); /* listen */
	assert_int_equal(ans.uid, geteuid());
	cli = socket(AF_INET, SOCK_STREAM, 0);
	assert_int_equal(connect(cli, (struct sockaddr *)&lis_a, len), 0);
	srv = accept(lis, NULL, NULL);
	assert_true(srv >= 0);
	assert_int_equal(getsockname(cli, (struct sockaddr *)&cli_a, &len), 0);
	assert_int_equal(getsockname(srv, (struct sockaddr *)&srv_a, &len), 0);
	assert_int_equal(pmixev_sockdiag_lookup(sd, SA(cli_a), SA(srv_a), &ans),
			 0);
	assert_int_equal(ans.state, 1);
	assert_int_equal(ans.uid, geteuid());
	assert_true(ans.inode != 0);
	/* Closed: no file any more (or gone). */
	close(cli);
	assert_true(pmixev_sockdiag_lookup(sd, SA(cli_a), SA(srv_a), &ans) ==
			    1 ||
		    ans.inode == 0);
	/* A socket nobody has. */
	cli_a.sin_port = htons(1);
	assert_int_equal(pmixev_sockdiag_lookup(sd, SA(cli_a), SA(srv_a), &ans),
			 1);
	close(srv);
	close(lis);
	pmixev_sockdiag_destroy(sd);
}

/* Only a NETLINK_SOCK_DIAG socket is taken, and then it is the asker's:
 * a made one answers as pmixev_sockdiag_create's does. */
static void test_from_fd(void **state)
{
	struct sockaddr_in sin = v4("127.0.0.1", 0), any = v4("0.0.0.0", 0);
	socklen_t len = sizeof(sin);
	struct pmixev_sockdiag_answer ans;
	struct pmixev_sockdiag *sd;
	int fd, other, pipefd[2];

	(void)state;
	other = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_ROUTE);
	assert_true(other >= 0);
	errno = 0;
	assert_null(pmixev_sockdiag_from_fd(other));
	assert_int_equal(errno, EPROTOTYPE);
	assert_int_equal(close(other), 0); /* the call left it open */
	other = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	assert_null(pmixev_sockdiag_from_fd(other));
	assert_int_equal(errno, EPROTOTYPE);
	assert_int_equal(close(other), 0);
	assert_int_equal(pipe(pipefd), 0);
	assert_null(pmixev_sockdiag_from_fd(pipefd[0]));
	assert_int_equal(errno, ENOTSOCK);
	assert_int_equal(close(pipefd[0]), 0);
	assert_int_equal(close(pipefd[1]), 0);
	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd < 0)
		skip();
	sd = pmixev_sockdiag_from_fd(fd);
	assert_non_null(sd);
	other = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_int_equal(bind(other, (struct sockaddr *)&sin, len), 0);
	assert_int_equal(listen(other, 1), 0);
	assert_int_equal(getsockname(other, (struct sockaddr *)&sin, &len), 0);
	if (pmixev_sockdiag_lookup(sd, SA(sin), SA(any), &ans) == 0) {
		assert_int_equal(ans.state, 10);
		assert_int_equal(ans.uid, geteuid());
	}
	close(other);
	pmixev_sockdiag_destroy(sd);
	/* Closed by destroy. */
	assert_int_equal(fcntl(fd, F_GETFD), -1);
	assert_int_equal(errno, EBADF);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_request),
		cmocka_unit_test(test_parse_found),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_parse_malformed),
		cmocka_unit_test(test_lookup_live),
		cmocka_unit_test(test_from_fd),
	};

	return cmocka_run_group_tests_name("sockdiag", tests, NULL, NULL);
}
