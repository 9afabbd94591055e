/*
 * Unit tests for common/pmixev_peeruid.c through /proc/net/tcp{,6} opened
 * once: every look-up reads the file again from its start (rows made
 * since are found), a missing file has no rows, and - as root - files and
 * a sock_diag socket opened in one network namespace keep answering about
 * it from a process that has moved to another one and dropped to nobody
 * (what the gate does in the job owner's PMIx server process).
 */
#include "config.h"

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
#include <grp.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pmixev_peeruid.h"
#include "pmixev_sockdiag.h"

#define NOBODY 65534

static int tcp_fd = -1, tcp6_fd = -1;

static int open_files(void **state)
{
	(void)state;
	tcp_fd = open("/proc/net/tcp", O_RDONLY | O_CLOEXEC);
	tcp6_fd = open("/proc/net/tcp6", O_RDONLY | O_CLOEXEC);
	return tcp_fd < 0 ? -1 : 0;
}

static int close_files(void **state)
{
	(void)state;
	close(tcp_fd);
	if (tcp6_fd >= 0)
		close(tcp6_fd);
	return 0;
}

/* A connection on the loopback of `family`: fds[0] accepted, fds[1] the
 * client. -1 if that family has no loopback here. */
static int tcp_pair(int family, int fds[2])
{
	struct sockaddr_storage ss = {.ss_family = (sa_family_t)family};
	socklen_t len = family == AF_INET ? sizeof(struct sockaddr_in)
					  : sizeof(struct sockaddr_in6);
	int lis = socket(family, SOCK_STREAM, 0);

	if (family == AF_INET)
		((struct sockaddr_in *)&ss)->sin_addr.s_addr =
			htonl(INADDR_LOOPBACK);
	else
		((struct sockaddr_in6 *)&ss)->sin6_addr = in6addr_loopback;
	if (lis < 0 || bind(lis, (struct sockaddr *)&ss, len) < 0 ||
	    listen(lis, 4) < 0 ||
	    getsockname(lis, (struct sockaddr *)&ss, &len) < 0) {
		if (lis >= 0)
			close(lis);
		return -1;
	}
	fds[1] = socket(family, SOCK_STREAM, 0);
	assert_true(fds[1] >= 0);
	assert_int_equal(connect(fds[1], (struct sockaddr *)&ss, len), 0);
	fds[0] = accept(lis, NULL, NULL);
	assert_true(fds[0] >= 0);
	close(lis);
	return 0;
}

static void close_pair(int fds[2])
{
	close(fds[0]);
	close(fds[1]);
}

/* One pair of files for every look-up, whatever was read from them
 * before: each look-up starts at the top, and sees rows made since. */
static void test_files_read_again(void **state)
{
	int a[2], b[2];
	char junk[100];
	uid_t uid = 42;

	(void)state;
	assert_int_equal(tcp_pair(AF_INET, a), 0);
	assert_int_equal(pmixev_peeruid_of_fd(a[0], NULL, tcp_fd, -1, &uid), 0);
	assert_int_equal(uid, geteuid());
	assert_int_equal(tcp_pair(AF_INET, b), 0);
	uid = 42;
	assert_int_equal(pmixev_peeruid_of_fd(b[1], NULL, tcp_fd, -1, &uid), 0);
	assert_int_equal(uid, geteuid());
	/* Left in the middle of the file by someone else (a look-up may
	 * have read it to its end: start from the top). */
	assert_int_equal(lseek(tcp_fd, 0, SEEK_SET), 0);
	assert_true(read(tcp_fd, junk, sizeof(junk)) > 0);
	uid = 42;
	assert_int_equal(pmixev_peeruid_of_fd(a[1], NULL, tcp_fd, -1, &uid), 0);
	assert_int_equal(uid, geteuid());
	close(b[1]);
	assert_int_equal(pmixev_peeruid_of_fd(b[0], NULL, tcp_fd, -1, &uid),
			 -1);
	assert_int_equal(errno, ENOENT);
	close(b[0]);
	close_pair(a);
}

/* Without its file, a connection has no row: the peer is not found. */
static void test_no_file(void **state)
{
	int fds[2];
	uid_t uid = 42;

	(void)state;
	assert_int_equal(tcp_pair(AF_INET, fds), 0);
	assert_int_equal(pmixev_peeruid_of_fd(fds[0], NULL, -1, tcp6_fd, &uid),
			 -1);
	assert_int_equal(errno, ENOENT);
	close_pair(fds);
	if (tcp6_fd < 0 || tcp_pair(AF_INET6, fds) < 0)
		skip();
	assert_int_equal(pmixev_peeruid_of_fd(fds[0], NULL, tcp_fd, -1, &uid),
			 -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(
		pmixev_peeruid_of_fd(fds[0], NULL, tcp_fd, tcp6_fd, &uid), 0);
	assert_int_equal(uid, geteuid());
	close_pair(fds);
}

/* The child's verdict on connection `fd` of the host's network: found as
 * root's through the files and `sd` made there, and not through files
 * opened now (in its own network). 0, or the number of the check that
 * failed. */
static int look_from_inside(int fd, struct pmixev_sockdiag *sd, int base)
{
	int here = open("/proc/net/tcp", O_RDONLY | O_CLOEXEC),
	    here6 = open("/proc/net/tcp6", O_RDONLY | O_CLOEXEC);
	uid_t uid = 42;

	if (pmixev_peeruid_of_fd(fd, NULL, tcp_fd, tcp6_fd, &uid) < 0 ||
	    uid != 0)
		return base + 1;
	uid = 42;
	if (sd && (pmixev_peeruid_of_fd(fd, sd, -1, -1, &uid) < 0 || uid != 0))
		return base + 2;
	if (here < 0 ||
	    pmixev_peeruid_of_fd(fd, NULL, here, here6, &uid) != -1 ||
	    errno != ENOENT)
		return base + 3;
	return 0;
}

/* As root: files and sock_diag of the host's network, used by a process
 * that then left it for a network of its own and became nobody. */
static void test_from_another_network(void **state)
{
	struct pmixev_sockdiag *sd = pmixev_sockdiag_create();
	int v4[2], v6[2] = {-1, -1}, status, rc;
	gid_t nobody = NOBODY;
	pid_t pid;

	(void)state;
	if (geteuid() != 0) {
		pmixev_sockdiag_destroy(sd);
		skip();
	}
	assert_int_equal(tcp_pair(AF_INET, v4), 0);
	if (tcp6_fd >= 0 && tcp_pair(AF_INET6, v6) < 0)
		v6[0] = v6[1] = -1;
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		if (unshare(CLONE_NEWNET) < 0)
			_exit(errno == EPERM ? 77 : 1);
		if (setgroups(1, &nobody) < 0 || setgid(NOBODY) < 0 ||
		    setuid(NOBODY) < 0 ||
		    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
			_exit(2);
		if ((rc = look_from_inside(v4[0], sd, 10)) ||
		    (v6[0] >= 0 && (rc = look_from_inside(v6[0], sd, 20))))
			_exit(rc);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	close_pair(v4);
	if (v6[0] >= 0)
		close_pair(v6);
	pmixev_sockdiag_destroy(sd);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77)
		skip(); /* no network namespaces here */
	assert_int_equal(WEXITSTATUS(status), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_files_read_again),
		cmocka_unit_test(test_no_file),
		cmocka_unit_test(test_from_another_network),
	};

	return cmocka_run_group_tests_name("peeruid_fds", tests, open_files,
					   close_files);
}
