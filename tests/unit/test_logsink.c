/*
 * Unit tests for plugins/mpi_pmixev/jobmgmt/logsink.c: PMIx_Log's lines to a
 * syslog socket that only root may write to, while the process's effective
 * uid is the job owner's (as slurmstepd's is around the tasks' launch); a
 * daemon that restarts, a stream socket, a daemon that comes up late.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cmocka.h>

#include "jobmgmt/logsink.h"

struct fixture {
	char dir[64];
	char path[128];
	int daemon; /* the "syslog daemon"'s socket */
};

static int listen_at(const char *path, int type)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);

	assert_true(fd >= 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	unlink(path);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(chmod(path, 0600), 0);
	if (type == SOCK_STREAM)
		assert_int_equal(listen(fd, 4), 0);
	return fd;
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "/tmp/test_logsink.XXXXXX");
	if (!mkdtemp(f->dir))
		return -1;
	snprintf(f->path, sizeof(f->path), "%s/log", f->dir);
	f->daemon = -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	if (f->daemon >= 0)
		close(f->daemon);
	unlink(f->path);
	rmdir(f->dir);
	free(f);
	return 0;
}

/* The next datagram the daemon has, as a string ("" if none). */
static const char *received(int fd)
{
	static char buf[4096];
	ssize_t n = recv(fd, buf, sizeof(buf) - 1, MSG_DONTWAIT);

	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

static void assert_line(const char *got, const char *text)
{
	char tail[256];

	snprintf(tail, sizeof(tail), " pmixev[%ld]: %s", (long)getpid(), text);
	assert_true(!strncmp(got, "<12>", 4));
	assert_non_null(strstr(got, tail));
	assert_string_equal(got + strlen(got) - strlen(tail), tail);
}

/* Connected as root: a line sent while the effective uid is another
 * user's still reaches a socket only root may write to. */
static void test_other_euid(void **state)
{
	struct fixture *f = *state;
	struct logsink *ls;
	int rc;

	if (geteuid() != 0)
		skip();
	f->daemon = listen_at(f->path, SOCK_DGRAM);
	assert_non_null(ls = logsink_create(f->path));
	assert_int_equal(seteuid(65534), 0);
	rc = logsink_syslog(ls, 4, "while the owner's");
	assert_int_equal(seteuid(0), 0);
	assert_int_equal(rc, 0);
	assert_line(received(f->daemon), "while the owner's");
	logsink_destroy(ls);
}

/* The daemon restarts (a new socket at the same path): the next line is
 * sent on a new connection. */
static void test_restart(void **state)
{
	struct fixture *f = *state;
	struct logsink *ls;

	f->daemon = listen_at(f->path, SOCK_DGRAM);
	assert_non_null(ls = logsink_create(f->path));
	assert_int_equal(logsink_syslog(ls, 4, "first"), 0);
	assert_line(received(f->daemon), "first");
	close(f->daemon);
	f->daemon = listen_at(f->path, SOCK_DGRAM);
	assert_int_equal(logsink_syslog(ls, 4, "after the restart"), 0);
	assert_line(received(f->daemon), "after the restart");
	logsink_destroy(ls);
}

/* A stream socket: lines end in NUL, in order. */
static void test_stream(void **state)
{
	struct fixture *f = *state;
	struct logsink *ls;
	char buf[4096];
	ssize_t n;
	int conn;

	f->daemon = listen_at(f->path, SOCK_STREAM);
	assert_non_null(ls = logsink_create(f->path));
	assert_true((conn = accept(f->daemon, NULL, NULL)) >= 0);
	assert_int_equal(logsink_syslog(ls, 4, "one"), 0);
	assert_int_equal(logsink_syslog(ls, 4, "two"), 0);
	n = recv(conn, buf, sizeof(buf), 0);
	assert_true(n > 0 && buf[n - 1] == '\0');
	assert_line(buf, "one");
	if ((size_t)n == strlen(buf) + 1)
		n = recv(conn, buf, sizeof(buf), 0);
	else
		memmove(buf, buf + strlen(buf) + 1,
			(size_t)n - strlen(buf) - 1);
	assert_line(buf, "two");
	close(conn);
	logsink_destroy(ls);
}

/* No daemon when the sink is made: its lines fail with the reason until
 * the daemon is there. */
static void test_late_daemon(void **state)
{
	struct fixture *f = *state;
	struct logsink *ls;

	assert_non_null(ls = logsink_create(f->path));
	assert_int_equal(logsink_syslog(ls, 4, "lost"), ENOENT);
	f->daemon = listen_at(f->path, SOCK_DGRAM);
	assert_int_equal(logsink_syslog(ls, 4, "now"), 0);
	assert_line(received(f->daemon), "now");
	logsink_destroy(ls);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_other_euid, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_restart, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stream, setup, teardown),
		cmocka_unit_test_setup_teardown(test_late_daemon, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
