/*
 * Unit tests for gate/gate_doors.c and the gate run inside a process with a
 * network of its own (pmix_gate_create_inside). The doors are what the gate
 * needs, all close-on-exec, and the gate takes copies of them. As root: a
 * process that left the host's network, became the job owner (nobody) and
 * non-dumpable, as the PMIx server's own process will, serves through doors
 * made before it left. It refuses another user's connection, takes the
 * owner's client hello to a stand-in library in its network, and hands the
 * client's socket over to that library. This is done once with sock_diag and
 * once with only the /proc/net files.
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
#include <linux/netlink.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gate/gate.h"
#include "gate/gate_doors.h"
#include "pmixev_hello.h"
#include "pmixev_log.h"

#include "../clients/hello_msg.h"

#define OWNER	   65534 /* nobody: the job owner */
#define OTHER	   1	 /* daemon: another user */
#define RANK	   3
#define SERVER_MAJ 5
#define WAIT_MS	   10000

/* The gate's refusals of OTHER, as logged (from the gate's thread). */
static atomic_int refused_other;

void pmixev_log(enum pmixev_log_level level, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (strstr(line, "runs as uid 1,"))
		atomic_fetch_add(&refused_other, 1);
	if (level == PMIXEV_LOG_ERROR)
		fprintf(stderr, "# logged: %s\n", line);
}

void pmixev_log_debug(unsigned dbg, const char *fmt, ...)
{
	(void)dbg;
	(void)fmt;
}

static bool cloexec(int fd)
{
	int flags = fcntl(fd, F_GETFD);

	return flags >= 0 && (flags & FD_CLOEXEC);
}

static void test_doors(void **state)
{
	struct pmix_gate_doors d;
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin), olen = sizeof(int);
	int on = 0, proto = 0, fds[4];
	char head[32];

	(void)state;
	assert_int_equal(pmix_gate_doors_create(&d), 0);
	assert_true(d.listen_fd >= 0 && d.tcp_fd >= 0 && d.port != 0);
	assert_int_equal(
		getsockname(d.listen_fd, (struct sockaddr *)&sin, &len), 0);
	assert_int_equal(sin.sin_addr.s_addr, htonl(INADDR_LOOPBACK));
	assert_int_equal(ntohs(sin.sin_port), d.port);
	assert_int_equal(
		getsockopt(d.listen_fd, SOL_SOCKET, SO_ACCEPTCONN, &on, &olen),
		0);
	assert_true(on);
	on = 0;
	assert_int_equal(
		getsockopt(d.listen_fd, IPPROTO_TCP, TCP_NODELAY, &on, &olen),
		0);
	assert_true(on);
	assert_true(fcntl(d.listen_fd, F_GETFL) & O_NONBLOCK);
	if (d.sockdiag_fd >= 0) {
		assert_int_equal(getsockopt(d.sockdiag_fd, SOL_SOCKET,
					    SO_PROTOCOL, &proto, &olen),
				 0);
		assert_int_equal(proto, NETLINK_SOCK_DIAG);
	}
	assert_int_equal(read(d.tcp_fd, head, sizeof(head)), sizeof(head));
	assert_non_null(memmem(head, sizeof(head), "local_address", 13));
	fds[0] = d.listen_fd;
	fds[1] = d.sockdiag_fd;
	fds[2] = d.tcp_fd;
	fds[3] = d.tcp6_fd;
	for (int i = 0; i < 4; i++)
		assert_true(fds[i] < 0 || cloexec(fds[i]));
	pmix_gate_doors_close(&d);
	assert_true(d.listen_fd == -1 && d.sockdiag_fd == -1 &&
		    d.tcp_fd == -1 && d.tcp6_fd == -1);
	for (int i = 0; i < 4; i++)
		assert_true(fds[i] < 0 || fcntl(fds[i], F_GETFD) == -1);
	pmix_gate_doors_close(&d); /* twice: nothing open */
}

/* No listener, or no way to tell a peer's owner: no gate. */
static void test_inside_needs_doors(void **state)
{
	struct pmix_gate_doors d = {.listen_fd = -1,
				    .sockdiag_fd = -1,
				    .tcp_fd = -1,
				    .tcp6_fd = -1};

	(void)state;
	assert_null(pmix_gate_create_inside(OWNER, OWNER, &d));
	assert_int_equal(pmix_gate_doors_create(&d), 0);
	close(d.tcp_fd);
	d.tcp_fd = -1;
	if (d.sockdiag_fd >= 0)
		close(d.sockdiag_fd);
	d.sockdiag_fd = -1;
	assert_null(pmix_gate_create_inside(OWNER, OWNER, &d));
	pmix_gate_doors_close(&d);
}

/* Wait for `fd` to be readable: 1, or 0 after WAIT_MS. */
static int readable(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};

	return poll(&p, 1, WAIT_MS) == 1;
}

/* Read exactly n bytes within WAIT_MS each: 0, or -1. */
static int read_all(int fd, void *buf, size_t n)
{
	for (size_t got = 0; got < n;) {
		ssize_t r;

		if (!readable(fd) ||
		    (r = read(fd, (char *)buf + got, n - got)) <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

static int connect_to(uint16_t port)
{
	struct sockaddr_in sin = {.sin_family = AF_INET,
				  .sin_port = htons(port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || connect(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0)
		return -1;
	return fd;
}

/* Rank RANK's hello as an OpenPMIx 5.0 client sends it: header, body. */
static struct hello_msg client_hello(void)
{
	struct hello_msg body = {.n = 0}, m = {.n = PMIXEV_HELLO_HDR};
	uint32_t blen;

	hello_str(&body, "native");
	hello_cred(&body, OWNER, OWNER);
	hello_u8(&body, PMIXEV_HELLO_CLIENT);
	hello_str(&body, "slurm.7.0");
	hello_u32(&body, RANK);
	hello_str(&body, "5.0.7");
	hello_str(&body, "v41");
	hello_u8(&body, 2);
	hello_str(&body, "hash");
	memset(m.b, 0, PMIXEV_HELLO_HDR);
	blen = (uint32_t)body.n;
	memcpy(m.b + 8, &blen, 4);
	hello_put(&m, body.b, body.n);
	return m;
}

/* Another user's connection: closed at once. */
static int other_peer(uint16_t port)
{
	int fd = connect_to(port);
	char c;

	if (fd < 0)
		return 20;
	if (!readable(fd))
		return 21;
	return read(fd, &c, 1) == 0 || errno == ECONNRESET ? 0 : 22;
}

/* The owner's client: its hello, the library's answer, then its own
 * words, read by the library from the client's socket itself. */
static int client_peer(uint16_t port)
{
	struct hello_msg m = client_hello();
	int fd = connect_to(port);
	char answer[8], c;

	if (fd < 0 || write(fd, m.b, m.n) != (ssize_t)m.n)
		return 30;
	if (read_all(fd, answer, sizeof(answer)) < 0 ||
	    memcmp(answer, "ANSWER!!", 8))
		return 31;
	if (write(fd, "ping", 4) != 4)
		return 32;
	/* The library closes it once it has read them. */
	return readable(fd) && read(fd, &c, 1) == 0 ? 0 : 33;
}

/* Run fn(port) in a child as `uid`: its exit status. */
static int as_user(uid_t uid, int (*fn)(uint16_t), uint16_t port)
{
	gid_t gid = (gid_t)uid;
	pid_t pid = fork();
	int status;

	assert_true(pid >= 0);
	if (!pid)
		_exit(setgroups(1, &gid) < 0 || setgid(gid) < 0 ||
				      setuid(uid) < 0
			      ? 2
			      : fn(port));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static int loopback_up(void)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc = -1;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "lo");
	if (fd >= 0 && ioctl(fd, SIOCGIFFLAGS, &ifr) == 0) {
		ifr.ifr_flags |= IFF_UP;
		rc = ioctl(fd, SIOCSIFFLAGS, &ifr);
	}
	if (fd >= 0)
		close(fd);
	return rc;
}

/* pmix_gate_run_inside's fn: 7 if the thread is in the process's own
 * network (it was not moved). */
static int same_network(void *arg)
{
	struct stat self, thread;

	(void)arg;
	return stat("/proc/self/ns/net", &self) == 0 &&
			       stat("/proc/thread-self/ns/net", &thread) == 0 &&
			       self.st_ino == thread.st_ino
		       ? 7
		       : -1;
}

/* The library stand-in: a listener in this network; its port. */
static int library_listener(uint16_t *port)
{
	struct sockaddr_in sin = {.sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t len = sizeof(sin);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&sin, len) < 0 ||
	    listen(fd, 4) < 0 ||
	    getsockname(fd, (struct sockaddr *)&sin, &len) < 0)
		return -1;
	*port = ntohs(sin.sin_port);
	return fd;
}

/* Take the client's hello, answer, have it handed over, read the
 * client's words on it: 0, or the step that failed. */
static int library_serves(struct pmix_gate *g, int lib, uint16_t gate_port)
{
	struct hello_msg m = client_hello();
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	uint8_t hello[sizeof(m.b)];
	char words[4];
	int end;

	if (!readable(lib) || (end = accept(lib, NULL, NULL)) < 0)
		return 50;
	if (read_all(end, hello, m.n) < 0 || memcmp(hello, m.b, m.n))
		return 51;
	if (write(end, "ANSWER!!", 8) != 8)
		return 52;
	/* The gate has marked its copy of the hello all sent. */
	usleep(100 * 1000);
	pmix_gate_client_connected(g, RANK);
	/* Handed over: the library's end is now the client's socket, the
	 * one the gate accepted on its port. */
	if (getsockname(end, (struct sockaddr *)&sin, &len) < 0 ||
	    ntohs(sin.sin_port) != gate_port)
		return 53;
	if (read_all(end, words, sizeof(words)) < 0 || memcmp(words, "ping", 4))
		return 54;
	close(end);
	return 0;
}

/* The PMIx server's process: its own network, the owner, non-dumpable,
 * then the gate through the doors. Tells `ready` when it listens. */
static int owner_process(struct pmix_gate_doors *d, int ready)
{
	uint16_t gate_port = d->port, lib_port = 0;
	gid_t gid = OWNER;
	struct pmix_gate *g;
	int lib, rc;

	if (unshare(CLONE_NEWNET) < 0)
		return errno == EPERM ? 77 : 40;
	if (loopback_up() < 0 || setgroups(1, &gid) < 0 || setgid(OWNER) < 0 ||
	    setuid(OWNER) < 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		return 41;
	if (!(g = pmix_gate_create_inside(OWNER, OWNER, d)))
		return 42;
	pmix_gate_doors_close(d);
	if (pmix_gate_run_inside(g, same_network, NULL) != 7)
		return 43;
	/* The gate finds the listener in /proc/self/fd, non-dumpable. */
	if ((lib = library_listener(&lib_port)) < 0 ||
	    pmix_gate_open(g, lib_port, SERVER_MAJ, "hash") < 0)
		return 44;
	if (write(ready, "r", 1) != 1)
		return 45;
	rc = library_serves(g, lib, gate_port);
	close(lib);
	pmix_gate_destroy(g);
	if (!rc && atomic_load(&refused_other) < 1)
		rc = 46;
	return rc;
}

static void serve_inside(bool files_only)
{
	struct pmix_gate_doors d;
	int ready[2], status;
	uint16_t port;
	pid_t pid;
	char c;

	if (geteuid() != 0)
		skip();
	assert_int_equal(pmix_gate_doors_create(&d), 0);
	if (!files_only && d.sockdiag_fd < 0) {
		pmix_gate_doors_close(&d);
		skip(); /* no sock_diag here */
	}
	if (files_only && d.sockdiag_fd >= 0) {
		close(d.sockdiag_fd);
		d.sockdiag_fd = -1;
	}
	port = d.port;
	assert_int_equal(pipe(ready), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		close(ready[0]);
		_exit(owner_process(&d, ready[1]));
	}
	close(ready[1]);
	/* As the launcher will: the child has the doors now. */
	pmix_gate_doors_close(&d);
	if (read(ready[0], &c, 1) == 1) {
		assert_int_equal(as_user(OTHER, other_peer, port), 0);
		assert_int_equal(as_user(OWNER, client_peer, port), 0);
	}
	close(ready[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77)
		skip(); /* no network namespaces here */
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void test_inside_sockdiag(void **state)
{
	(void)state;
	serve_inside(false);
}

static void test_inside_files(void **state)
{
	(void)state;
	serve_inside(true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_doors),
		cmocka_unit_test(test_inside_needs_doors),
		cmocka_unit_test(test_inside_sockdiag),
		cmocka_unit_test(test_inside_files),
	};

	return cmocka_run_group_tests_name("gate_inside", tests, NULL, NULL);
}
