/*
 * Unit tests for common/pmixev_peeruid.c: rows of /proc/net/tcp{,6} are
 * found by their exact connection (LISTEN and TIME_WAIT rows never), and
 * real loopback and unix connections give the uid at the other end.
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
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pmixev_peeruid.h"
#include "pmixev_sockdiag.h"

/*
 * pmixev_peeruid_of_fd by /proc/net/tcp{,6} and, where the kernel has it,
 * by sock_diag: both must say the same.
 */
static int of_fd(int fd, uid_t *uid)
{
	struct pmixev_sockdiag *sd = pmixev_sockdiag_create();
	int tcp = open("/proc/net/tcp", O_RDONLY | O_CLOEXEC),
	    tcp6 = open("/proc/net/tcp6", O_RDONLY | O_CLOEXEC);
	uid_t u1 = 42, u2 = 42;
	int rc1, rc2, e1, e2;

	assert_true(tcp >= 0);
	errno = 0;
	rc1 = pmixev_peeruid_of_fd(fd, NULL, tcp, tcp6, &u1);
	e1 = errno;
	close(tcp);
	if (tcp6 >= 0)
		close(tcp6);
	if (!sd) {
		*uid = rc1 ? *uid : u1;
		errno = e1;
		return rc1;
	}
	errno = 0;
	rc2 = pmixev_peeruid_of_fd(fd, sd, -1, -1, &u2);
	e2 = errno;
	pmixev_sockdiag_destroy(sd);
	assert_int_equal(rc1, rc2);
	if (rc1) {
		assert_int_equal(e1, e2);
	} else {
		assert_int_equal(u1, u2);
		*uid = u1;
	}
	errno = e1;
	return rc1;
}

/* The hand-written rows print addresses as a little-endian kernel does. */
#define SKIP_IF_BIG_ENDIAN()                                                   \
	do {                                                                   \
		if (htonl(1) == 1)                                             \
			skip();                                                \
	} while (0)

static const char tcp_head[] =
	"  sl  local_address rem_address   st tx_queue rx_queue tr tm->when "
	"retrnsmt   uid  timeout inode\n";
static const char tcp6_head[] =
	"  sl  local_address                         remote_address          "
	"              st tx_queue rx_queue tr tm->when retrnsmt   uid  "
	"timeout inode\n";

struct row {
	const char *conn; /* "sl: local_address rem_address st" */
	const char *uid, *inode;
};

/* The peer 127.0.0.1:40000 (9C40) talks to us, 127.0.0.1:8080 (1F90). */
static const struct row tcp_rows[] = {
	{"0: 00000000:1F90 00000000:0000 0A", "0", "1139"},
	/* A listener on the peer's very address must not count. */
	{"1: 0100007F:9C40 0100007F:1F90 0A", "1234", "1140"},
	/* Our own side: the same tuple the other way round. */
	{"2: 0100007F:1F90 0100007F:9C40 01", "0", "2001"},
	{"3: 0100007F:9C40 0100007F:1F90 01", "1000", "2002"},
	{"4: 0200007F:9C40 0100007F:1F90 01", "1001", "2003"},
	{"5: 0100007F:9C41 0100007F:1F90 01", "1002", "2004"},
	/* A TIME_WAIT remnant shows uid 0 and no inode. */
	{"6: 0100007F:9C42 0100007F:1F90 06", "0", "0"},
	{"7: 0100007F:9C43 0100007F:1F90 01", "1003", "2005"},
};

/* [2001:db8::1]:40000 and [::1]:8080, then ::ffff:127.0.0.1 both ends. */
static const struct row tcp6_rows[] = {
	{"0: 00000000000000000000000001000000:1F90 "
	 "00000000000000000000000000000000:0000 0A",
	 "0", "300"},
	{"1: B80D0120000000000000000001000000:9C40 "
	 "00000000000000000000000001000000:1F90 01",
	 "2000", "301"},
	{"2: 0000000000000000FFFF00000100007F:9C44 "
	 "0000000000000000FFFF00000100007F:1F90 01",
	 "2001", "302"},
};

static char *tcp, *tcp6; /* the files, made by make_files() */

/* `head` then the rows as the kernel lays them out; free() it. */
static char *file(const char *head, const struct row *rows, size_t n)
{
	size_t size = strlen(head) + 1 + 256 * n, len;
	char *text = malloc(size);

	assert_non_null(text);
	len = (size_t)snprintf(text, size, "%s", head);
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(
			text + len, size - len,
			"   %s 00000000:00000000 00:00000000 00000000 %5s "
			"       0 %s 1 0000000000000000 20 4 30 10 -1\n",
			rows[i].conn, rows[i].uid, rows[i].inode);
	assert_true(len < size);
	return text;
}

static int make_files(void **state)
{
	tcp = file(tcp_head, tcp_rows, sizeof(tcp_rows) / sizeof(tcp_rows[0]));
	tcp6 = file(tcp6_head, tcp6_rows,
		    sizeof(tcp6_rows) / sizeof(tcp6_rows[0]));
	return 0;
}

static int free_files(void **state)
{
	free(tcp);
	free(tcp6);
	return 0;
}

static struct sockaddr_storage addr(const char *ip, uint16_t port)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *in = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;

	memset(&ss, 0, sizeof(ss));
	if (inet_pton(AF_INET, ip, &in->sin_addr) == 1) {
		in->sin_family = AF_INET;
		in->sin_port = htons(port);
	} else {
		assert_int_equal(inet_pton(AF_INET6, ip, &in6->sin6_addr), 1);
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
	}
	return ss;
}

/* Parse `len` bytes of `text` copied to a buffer of exactly that size. */
static int parse_n(const char *text, size_t len, const char *lip,
		   uint16_t lport, const char *rip, uint16_t rport, uid_t *uid)
{
	struct sockaddr_storage l = addr(lip, lport), r = addr(rip, rport);
	char *copy = malloc(len ? len : 1);
	int rc;

	assert_non_null(copy);
	memcpy(copy, text, len);
	rc = pmixev_peeruid_parse(copy, len, (struct sockaddr *)&l,
				  (struct sockaddr *)&r, uid);
	free(copy);
	return rc;
}

static int parse(const char *text, const char *lip, uint16_t lport,
		 const char *rip, uint16_t rport, uid_t *uid)
{
	return parse_n(text, strlen(text), lip, lport, rip, rport, uid);
}

static void test_parse_tcp(void **state)
{
	uid_t uid = 42;

	SKIP_IF_BIG_ENDIAN();
	/* In the middle, past a LISTEN row with the same address. */
	assert_int_equal(
		parse(tcp, "127.0.0.1", 40000, "127.0.0.1", 8080, &uid), 0);
	assert_int_equal(uid, 1000);
	/* The direction counts: this is our side's row. */
	assert_int_equal(
		parse(tcp, "127.0.0.1", 8080, "127.0.0.1", 40000, &uid), 0);
	assert_int_equal(uid, 0);
	/* The last row, with or without its newline. */
	assert_int_equal(
		parse(tcp, "127.0.0.1", 40003, "127.0.0.1", 8080, &uid), 0);
	assert_int_equal(uid, 1003);
	assert_int_equal(parse_n(tcp, strlen(tcp) - 1, "127.0.0.1", 40003,
				 "127.0.0.1", 8080, &uid),
			 0);
	assert_int_equal(uid, 1003);
	/* Another address, another port: those rows only. */
	assert_int_equal(
		parse(tcp, "127.0.0.2", 40000, "127.0.0.1", 8080, &uid), 0);
	assert_int_equal(uid, 1001);
	uid = 42;
	/* No such row; a LISTEN row; a TIME_WAIT remnant. */
	assert_int_equal(
		parse(tcp, "127.0.0.1", 40009, "127.0.0.1", 8080, &uid), 1);
	assert_int_equal(parse(tcp, "0.0.0.0", 8080, "0.0.0.0", 0, &uid), 1);
	assert_int_equal(
		parse(tcp, "127.0.0.1", 40002, "127.0.0.1", 8080, &uid), 1);
	assert_int_equal(parse(tcp_head, "127.0.0.1", 1, "127.0.0.1", 2, &uid),
			 1);
	assert_int_equal(parse("", "127.0.0.1", 1, "127.0.0.1", 2, &uid), 1);
	assert_int_equal(uid, 42);
}

static void test_parse_tcp6(void **state)
{
	uid_t uid = 42;

	SKIP_IF_BIG_ENDIAN();
	assert_int_equal(parse(tcp6, "2001:db8::1", 40000, "::1", 8080, &uid),
			 0);
	assert_int_equal(uid, 2000);
	assert_int_equal(parse(tcp6, "::1", 40000, "::1", 8080, &uid), 1);
	assert_int_equal(parse(tcp6, "::", 8080, "::", 0, &uid), 1);
}

/* A v6 socket talking to a v4 one has ::ffff:a.b.c.d in either file. */
static void test_parse_v4_mapped(void **state)
{
	uid_t uid = 42;

	SKIP_IF_BIG_ENDIAN();
	assert_int_equal(
		parse(tcp6, "127.0.0.1", 40004, "127.0.0.1", 8080, &uid), 0);
	assert_int_equal(uid, 2001);
	uid = 42;
	assert_int_equal(parse(tcp6, "::ffff:127.0.0.1", 40004,
			       "::ffff:127.0.0.1", 8080, &uid),
			 0);
	assert_int_equal(uid, 2001);
	uid = 42;
	assert_int_equal(parse(tcp, "::ffff:127.0.0.1", 40000,
			       "::ffff:127.0.0.1", 8080, &uid),
			 0);
	assert_int_equal(uid, 1000);
	assert_int_equal(
		parse(tcp, "::ffff:127.0.0.1", 40000, "127.0.0.1", 8080, &uid),
		0);
	/* ::127.0.0.1 (v4-compatible) is another address. */
	assert_int_equal(
		parse(tcp, "::127.0.0.1", 40000, "::127.0.0.1", 8080, &uid), 1);
}

static void test_parse_malformed(void **state)
{
	static const struct row bad_rows[] = {
		{"0: 0100007G:9C40 0100007F:1F90 01", "1", "1"},
		{"0: 0100007f:9C40 0100007F:1F90 01", "1", "1"},
		{"0: 100007F:9C40 0100007F:1F90 01", "1", "1"},
		{"0: 0100007F:9C4 0100007F:1F90 01", "1", "1"},
		{"0: 0100007F-9C40 0100007F:1F90 01", "1", "1"},
		{"0: 0100007F00:9C40 0100007F:1F90 01", "1", "1"},
		{"0 0100007F:9C40 0100007F:1F90 01", "1", "1"},
		{"0: 0100007F:9C40 0100007F:1F90 1", "1", "1"},
		{"0: 0100007F:9C40 0100007F:1F90 01", "-1", "1"},
		{"0: 0100007F:9C40 0100007F:1F90 01", "4294967296", "1"},
		{"0: 0100007F:9C40 0100007F:1F90 01", "1", "x"},
	};
	static const struct row good = {"0: 0100007F:9C40 0100007F:1F90 01",
					"7", "1"};
	size_t nbad = sizeof(bad_rows) / sizeof(bad_rows[0]);
	struct sockaddr_storage l = addr("127.0.0.1", 40000);
	struct sockaddr_un un = {.sun_family = AF_UNIX};
	char *bad[20], *text;
	size_t n = 0;
	uid_t uid = 42;

	for (; n < nbad; n++)
		bad[n] = file(tcp_head, &bad_rows[n], 1);
	bad[n++] = file("", &good, 1); /* no header */
	bad[n++] = strdup("garbage\n");
	bad[n++] = strdup("  sl  local_address\n"
			  "   0: 0100007F:9C40 0100007F:1F90 01\n");
	bad[n++] = strdup("  sl  local_address\n\n");
	for (size_t i = 0; i < n; i++) {
		errno = 0;
		assert_non_null(bad[i]);
		if (parse(bad[i], "127.0.0.1", 40000, "127.0.0.1", 8080,
			  &uid) != -1)
			fail_msg("not refused: %s", bad[i]);
		assert_int_equal(errno, EINVAL);
		free(bad[i]);
	}
	/* A malformed row after the match is not looked at. */
	text = file(tcp_head, &good, 1);
	text = realloc(text, strlen(text) + 6);
	assert_non_null(text);
	strcat(text, "junk\n");
	assert_int_equal(
		parse(text, "127.0.0.1", 40000, "127.0.0.1", 8080, &uid), 0);
	assert_int_equal(uid, 7);
	free(text);
	assert_int_equal(pmixev_peeruid_parse(tcp, strlen(tcp),
					      (struct sockaddr *)&l,
					      (struct sockaddr *)&un, &uid),
			 -1);
	assert_int_equal(errno, EAFNOSUPPORT);
}

/* Any prefix of a file: the rows complete in it, nothing read past it. */
static void test_parse_truncated(void **state)
{
	size_t len = strlen(tcp);
	uid_t uid;

	SKIP_IF_BIG_ENDIAN();
	for (size_t n = 0; n <= len; n++) {
		int rc;

		uid = 42;
		rc = parse_n(tcp, n, "127.0.0.1", 40003, "127.0.0.1", 8080,
			     &uid);
		if (rc == 0)
			assert_int_equal(uid, 1003);
		else if (rc != 1)
			fail_msg("prefix of %zu bytes: %d", n, rc);
		/* Matched only once the uid and what follows are there. */
		assert_int_equal(rc == 0,
				 n >= (size_t)(strstr(tcp, " 2005") - tcp) + 2);
	}
}

/* A connected pair over `ip` (its listener closed); -1 when unsupported. */
static int tcp_pair(const char *ip, int fds[2])
{
	struct sockaddr_storage ss = addr(ip, 0);
	socklen_t len = sizeof(ss);
	int lis = socket(ss.ss_family, SOCK_STREAM, 0);

	if (lis < 0 || bind(lis, (struct sockaddr *)&ss, len) < 0) {
		if (lis >= 0)
			close(lis);
		return -1;
	}
	assert_int_equal(listen(lis, 8), 0);
	assert_int_equal(getsockname(lis, (struct sockaddr *)&ss, &len), 0);
	fds[1] = socket(ss.ss_family, SOCK_STREAM, 0);
	assert_true(fds[1] >= 0);
	assert_int_equal(connect(fds[1], (struct sockaddr *)&ss, len), 0);
	fds[0] = accept(lis, NULL, NULL);
	assert_true(fds[0] >= 0);
	close(lis);
	return 0;
}

/* Both ends see the other's owner; once the client closed, nobody. */
static void check_pair(int fds[2])
{
	uid_t uid = 42;

	assert_int_equal(of_fd(fds[0], &uid), 0);
	assert_int_equal(uid, geteuid());
	uid = 42;
	assert_int_equal(of_fd(fds[1], &uid), 0);
	assert_int_equal(uid, geteuid());
	close(fds[1]);
	errno = 0;
	assert_int_equal(of_fd(fds[0], &uid), -1);
	assert_int_equal(errno, ENOENT);
	close(fds[0]);
}

static void test_of_fd_ipv4(void **state)
{
	int fds[2];

	assert_int_equal(tcp_pair("127.0.0.1", fds), 0);
	check_pair(fds);
}

static void test_of_fd_ipv6(void **state)
{
	int fds[2];

	if (tcp_pair("::1", fds) < 0)
		skip();
	check_pair(fds);
}

/* A v6 listener, a v4 client: the client's row is in /proc/net/tcp. */
static void test_of_fd_v4_mapped(void **state)
{
	struct sockaddr_storage ss = addr("::ffff:127.0.0.1", 0), v4;
	socklen_t len = sizeof(ss);
	int fds[2], lis, off = 0;

	lis = socket(AF_INET6, SOCK_STREAM, 0);
	if (lis < 0 ||
	    setsockopt(lis, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off)) < 0 ||
	    bind(lis, (struct sockaddr *)&ss, len) < 0) {
		if (lis >= 0)
			close(lis);
		skip();
	}
	assert_int_equal(listen(lis, 8), 0);
	assert_int_equal(getsockname(lis, (struct sockaddr *)&ss, &len), 0);
	v4 = addr("127.0.0.1", ntohs(((struct sockaddr_in6 *)&ss)->sin6_port));
	fds[1] = socket(AF_INET, SOCK_STREAM, 0);
	assert_int_equal(connect(fds[1], (struct sockaddr *)&v4,
				 sizeof(struct sockaddr_in)),
			 0);
	fds[0] = accept(lis, NULL, NULL);
	assert_true(fds[0] >= 0);
	close(lis);
	check_pair(fds);
}

/* Many sockets: the file takes many reads (and pieces of rows). */
static void test_of_fd_many(void **state)
{
	enum { N = 150 };
	int fds[N][2];
	uid_t uid;

	for (int i = 0; i < N; i++)
		assert_int_equal(tcp_pair("127.0.0.1", fds[i]), 0);
	for (int i = 0; i < N; i++) {
		uid = 42;
		assert_int_equal(of_fd(fds[i][0], &uid), 0);
		assert_int_equal(uid, geteuid());
	}
	for (int i = 0; i < N; i++) {
		close(fds[i][0]);
		close(fds[i][1]);
	}
}

/* As root: a client that became nobody before making its socket. */
static void test_of_fd_other_user(void **state)
{
	struct sockaddr_storage ss = addr("127.0.0.1", 0);
	socklen_t len = sizeof(ss);
	int lis, fd, go[2], status;
	uid_t uid = 42;
	pid_t pid;
	char c;

	if (geteuid() != 0)
		skip();
	lis = socket(AF_INET, SOCK_STREAM, 0);
	assert_int_equal(bind(lis, (struct sockaddr *)&ss, len), 0);
	assert_int_equal(listen(lis, 8), 0);
	assert_int_equal(getsockname(lis, (struct sockaddr *)&ss, &len), 0);
	assert_int_equal(pipe(go), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		close(go[1]);
		if (setgid(65534) < 0 || setuid(65534) < 0)
			_exit(2);
		fd = socket(AF_INET, SOCK_STREAM, 0);
		if (fd < 0 || connect(fd, (struct sockaddr *)&ss, len) < 0)
			_exit(3);
		/* Stay connected until the parent has looked. */
		_exit(read(go[0], &c, 1) == 0 ? 0 : 4);
	}
	close(go[0]);
	fd = accept(lis, NULL, NULL);
	assert_true(fd >= 0);
	assert_int_equal(of_fd(fd, &uid), 0);
	assert_int_equal(uid, 65534);
	close(go[1]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* The client is gone: its remnant must not pass for root. */
	assert_int_equal(of_fd(fd, &uid), -1);
	assert_int_equal(errno, ENOENT);
	close(fd);
	close(lis);
}

static void test_of_fd_unix_and_others(void **state)
{
	int sv[2], fd;
	uid_t uid = 42;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(of_fd(sv[0], &uid), 0);
	assert_int_equal(uid, geteuid());
	close(sv[0]);
	close(sv[1]);
	uid = 42;
	/* An unconnected unix socket, a UDP socket, a pipe. */
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	assert_int_equal(of_fd(fd, &uid), -1);
	assert_int_equal(errno, ENOTCONN);
	close(fd);
	fd = socket(AF_INET, SOCK_DGRAM, 0);
	assert_int_equal(of_fd(fd, &uid), -1);
	assert_int_equal(errno, EAFNOSUPPORT);
	close(fd);
	assert_int_equal(pipe(sv), 0);
	assert_int_equal(of_fd(sv[0], &uid), -1);
	assert_int_equal(errno, ENOTSOCK);
	close(sv[0]);
	close(sv[1]);
	assert_int_equal(uid, 42);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_tcp),
		cmocka_unit_test(test_parse_tcp6),
		cmocka_unit_test(test_parse_v4_mapped),
		cmocka_unit_test(test_parse_malformed),
		cmocka_unit_test(test_parse_truncated),
		cmocka_unit_test(test_of_fd_ipv4),
		cmocka_unit_test(test_of_fd_ipv6),
		cmocka_unit_test(test_of_fd_v4_mapped),
		cmocka_unit_test(test_of_fd_many),
		cmocka_unit_test(test_of_fd_other_user),
		cmocka_unit_test(test_of_fd_unix_and_others),
	};

	return cmocka_run_group_tests_name("peeruid", tests, make_files,
					   free_files);
}
