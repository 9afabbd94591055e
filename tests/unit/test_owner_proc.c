/*
 * Unit tests for plugins/mpi_pmixev/ownerhelper/owner_proc.c: placing a
 * spec's descriptors (numbers 3..31, each once, at most 8); where a program
 * is found (the override, even missing; beside the plugin, or beside a
 * plugin folder named; the installed path) and the places looked at; a
 * failed start explained with its stage. As root also real starts as
 * nobody: a network namespace of its own with lo up, NoNewPrivs, the
 * step's signals ignored (any a user's --signal may name, not the faults),
 * the cgroup joined, only 0-2 (on /dev/null) and the placed descriptors
 * open; stderr, stdout when asked and a placed descriptor reach the
 * parent, the environment is the spec's, the exit status is told; and a
 * child started with pdeathsig by a process whose euid was dropped is
 * killed when that process ends.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <pwd.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "ownerhelper/owner_proc.h"
#include "pmixev_log.h"

void pmixev_log(enum pmixev_log_level level, const char *fmt, ...)
{
	(void)level;
	(void)fmt;
}

void pmixev_log_debug(unsigned dbg, const char *fmt, ...)
{
	(void)dbg;
	(void)fmt;
}

static void pause_ms(long ms)
{
	nanosleep(&(struct timespec){ms / 1000, (ms % 1000) * 1000000L}, NULL);
}

static void test_place(void **state)
{
	struct owner_spec s = {0};

	(void)state;
	assert_int_equal(owner_spec_place(&s, 7, 3), 0);
	assert_int_equal(owner_spec_place(&s, 7, OWNER_PROC_FD_MAX), 0);
	errno = 0;
	assert_int_equal(owner_spec_place(&s, 8, 3), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(owner_spec_place(&s, 8, 2), -1);
	assert_int_equal(owner_spec_place(&s, 8, OWNER_PROC_FD_MAX + 1), -1);
	assert_int_equal(owner_spec_place(&s, -1, 5), -1);
	assert_int_equal(errno, EINVAL);
	for (int t = 4; t < 10; t++)
		assert_int_equal(owner_spec_place(&s, 9, t), 0);
	assert_int_equal(s.nfds, OWNER_PROC_FDS);
	assert_int_equal(owner_spec_place(&s, 9, 20), -1);
	assert_int_equal(errno, ENOSPC);
	assert_int_equal(s.fds[0].fd, 7);
	assert_int_equal(s.fds[1].target, OWNER_PROC_FD_MAX);
}

/* A temporary folder with the program in `plug` and an installed copy. */
struct place {
	char top[64], plug[96], prog[128], installed[128];
};

static void make_file(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);

	assert_true(fd >= 0);
	close(fd);
}

static void test_find(void **state)
{
	struct owner_prog prog = {.role = "test program",
				  .name = "pmixev-test",
				  .env_var = "PMIXEV_TEST_PROG"};
	char path[256], looked[1024], want[512];
	struct event_base *base;
	struct owner_proc *p;
	struct place w;

	(void)state;
	snprintf(w.top, sizeof(w.top), "/tmp/test_owner_proc.XXXXXX");
	assert_non_null(mkdtemp(w.top));
	snprintf(w.plug, sizeof(w.plug), "%s/plugins", w.top);
	snprintf(w.prog, sizeof(w.prog), "%s/pmixev-test", w.plug);
	snprintf(w.installed, sizeof(w.installed), "%s/installed", w.top);
	assert_int_equal(mkdir(w.plug, 0755), 0);
	prog.installed = w.installed;
	unsetenv("PMIXEV_TEST_PROG");

	/* Nowhere: the installed path, looked at last. */
	assert_false(owner_prog_find(&prog, w.plug, path, sizeof(path), looked,
				     sizeof(looked)));
	assert_string_equal(path, w.installed);
	snprintf(want, sizeof(want), "%s, %s", w.prog, w.installed);
	assert_string_equal(looked, want);

	/* Installed only. */
	make_file(w.installed);
	assert_true(owner_prog_find(&prog, w.plug, path, sizeof(path), looked,
				    sizeof(looked)));
	assert_string_equal(path, w.installed);
	assert_string_equal(looked, want);

	/* Beside the plugin first. */
	make_file(w.prog);
	assert_true(owner_prog_find(&prog, w.plug, path, sizeof(path), looked,
				    sizeof(looked)));
	assert_string_equal(path, w.prog);
	assert_string_equal(looked, w.prog);
	/* A program that is not the plugin names the plugin's folder. */
	assert_non_null(base = event_base_new());
	assert_non_null(p = owner_proc_create_in(base, &prog, w.plug, 0, 0));
	assert_string_equal(owner_proc_path(p), w.prog);
	owner_proc_destroy(p);
	event_base_free(base);

	/* The plugin's folder unknown: not looked at. */
	assert_true(owner_prog_find(&prog, NULL, path, sizeof(path), looked,
				    sizeof(looked)));
	assert_string_equal(path, w.installed);
	assert_string_equal(looked, w.installed);

	/* The override wins, even when it is not there, or is a folder. */
	setenv("PMIXEV_TEST_PROG", "/nonexistent/prog", 1);
	assert_false(owner_prog_find(&prog, w.plug, path, sizeof(path), looked,
				     sizeof(looked)));
	assert_string_equal(path, "/nonexistent/prog");
	assert_string_equal(looked, "/nonexistent/prog");
	setenv("PMIXEV_TEST_PROG", w.plug, 1);
	assert_false(owner_prog_find(&prog, w.plug, path, sizeof(path), looked,
				     sizeof(looked)));
	assert_string_equal(path, w.plug);
	setenv("PMIXEV_TEST_PROG", w.installed, 1);
	assert_true(owner_prog_find(&prog, w.plug, path, sizeof(path), looked,
				    sizeof(looked)));
	assert_string_equal(path, w.installed);

	/* Empty: no override. */
	setenv("PMIXEV_TEST_PROG", "", 1);
	assert_true(owner_prog_find(&prog, w.plug, path, sizeof(path), looked,
				    sizeof(looked)));
	assert_string_equal(path, w.prog);

	/* No override variable at all. */
	prog.env_var = NULL;
	assert_true(owner_prog_find(&prog, w.plug, path, sizeof(path), looked,
				    sizeof(looked)));
	assert_string_equal(path, w.prog);
	unsetenv("PMIXEV_TEST_PROG");
	unlink(w.prog);
	unlink(w.installed);
	rmdir(w.plug);
	rmdir(w.top);
}

/* The owner used by the tests: nobody as root, else ourselves. */
static void test_owner(uid_t *uid, gid_t *gid)
{
	struct passwd *pw = geteuid() == 0 ? getpwnam("nobody") : NULL;

	*uid = pw ? pw->pw_uid : geteuid();
	*gid = pw ? pw->pw_gid : getegid();
}

/* Wait until `pid` is a zombie (or gone): up to 5 s. */
static void wait_ended(pid_t pid)
{
	char path[64], buf[256], *p;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	for (int i = 0; i < 500; i++) {
		ssize_t n = -1;

		if ((fd = open(path, O_RDONLY)) >= 0) {
			n = read(fd, buf, sizeof(buf) - 1);
			close(fd);
		}
		if (n <= 0)
			return;
		buf[n] = '\0';
		if ((p = strrchr(buf, ')')) && p[2] == 'Z')
			return;
		pause_ms(10);
	}
	fail_msg("pid %d did not end in 5 s", (int)pid);
}

/* A program that is not there: exec fails, said with the uid and the
 * cause (as non-root, becoming root fails first). */
static void test_failed_start(void **state)
{
	struct owner_prog prog = {.role = "test program",
				  .name = "pmixev-none",
				  .installed = "/nonexistent/pmixev-none"};
	const char *argv[] = {"pmixev-none", NULL}, *envp[] = {NULL};
	struct owner_spec spec = {.argv = argv, .envp = envp};
	struct event_base *base = event_base_new();
	struct owner_proc *p;
	char why[256], want[256];
	uid_t uid;
	gid_t gid;

	(void)state;
	test_owner(&uid, &gid);
	assert_non_null(p = owner_proc_create(base, &prog, uid, gid));
	assert_string_equal(owner_proc_path(p), "/nonexistent/pmixev-none");
	assert_string_equal(owner_proc_looked(p) +
				    strlen(owner_proc_looked(p)) -
				    strlen("/nonexistent/pmixev-none"),
			    "/nonexistent/pmixev-none");
	assert_int_equal(owner_proc_start(p, &spec, NULL, why, sizeof(why)), 0);
	assert_true(owner_proc_pid(p) > 0);
	wait_ended(owner_proc_pid(p));
	owner_proc_ended(p, why, sizeof(why));
	if (geteuid() == 0)
		snprintf(want, sizeof(want),
			 "exec failed as uid %u: No such file or directory",
			 (unsigned)uid);
	else
		snprintf(want, sizeof(want),
			 "cannot become root again to change identity as uid "
			 "%u: Operation not permitted",
			 (unsigned)uid);
	assert_string_equal(why, want);
	assert_int_equal(owner_proc_pid(p), 0);
	assert_int_equal(owner_proc_pidfd(p), -1);
	owner_proc_destroy(p);
	event_base_free(base);
}

/* Real starts need root (setgroups). */
#define NEED_ROOT()                                                            \
	do {                                                                   \
		if (geteuid() != 0)                                            \
			skip();                                                \
	} while (0)

/* Up to `len` - 1 bytes of `path` into `buf`, as a string. */
static ssize_t slurp(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return n;
}

/* Wait until `pid` runs `comm` (it has exec'd): up to 5 s. */
static void wait_exec(pid_t pid, const char *comm)
{
	char path[64], buf[64];

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	for (int i = 0; i < 500; i++) {
		if (slurp(path, buf, sizeof(buf)) > 0 &&
		    strncmp(buf, comm, strlen(comm)) == 0)
			return;
		pause_ms(10);
	}
	fail_msg("pid %d did not exec %s in 5 s", (int)pid, comm);
}

/* Whether lo is up (1) or not (0) in the network namespace of `pid`. */
static int lo_flags_of(pid_t pid)
{
	char path[64];
	int status, ns;
	pid_t c;

	snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)pid);
	assert_true((ns = open(path, O_RDONLY | O_CLOEXEC)) >= 0);
	if ((c = fork()) == 0) {
		struct ifreq ifr = {.ifr_name = "lo"};
		int fd;

		if (setns(ns, CLONE_NEWNET) < 0 ||
		    (fd = socket(AF_INET, SOCK_DGRAM, 0)) < 0 ||
		    ioctl(fd, SIOCGIFFLAGS, &ifr) < 0)
			_exit(255);
		_exit(ifr.ifr_flags & IFF_UP ? 1 : 0);
	}
	close(ns);
	assert_true(c > 0);
	assert_int_equal(waitpid(c, &status, 0), c);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/* The value of "key:" in /proc/PID/status. */
static void status_field(pid_t pid, const char *key, char *out, size_t len)
{
	char path[64], buf[4096], *p;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	assert_true(slurp(path, buf, sizeof(buf)) > 0);
	assert_non_null(p = strstr(buf, key));
	p += strlen(key);
	p += strspn(p, " \t");
	snprintf(out, len, "%.*s", (int)strcspn(p, "\n"), p);
}

/* new_netns, no_new_privs, pdeathsig: a namespace of its own with lo up,
 * NoNewPrivs, the owner's ids, the step's signals ignored, and only 0-2
 * and the placed descriptor open. */
static void test_confined(void **state)
{
	struct owner_prog prog = {.role = "test program",
				  .name = "sleep",
				  .installed = "/bin/sleep"};
	const char *argv[] = {"sleep", "30", NULL}, *envp[] = {NULL};
	struct owner_spec spec = {.argv = argv,
				  .envp = envp,
				  .new_netns = true,
				  .no_new_privs = true,
				  .pdeathsig = true};
	static const int ignored[] = {
		SIGTERM, SIGINT,  SIGHUP,  SIGTSTP,   SIGUSR1, SIGUSR2,
		SIGPIPE, SIGQUIT, SIGALRM, SIGVTALRM, SIGPROF, SIGXCPU,
		SIGXFSZ, SIGTTIN, SIGTTOU, SIGIO,     SIGPWR};
	struct event_base *base = event_base_new();
	char path[64], mine[64], its[64], val[128], want[128];
	unsigned long long ign;
	struct owner_proc *p;
	int pv[2], cg[2], n = 0;
	char why[256];
	uid_t uid;
	gid_t gid;
	pid_t pid;

	(void)state;
	NEED_ROOT();
	test_owner(&uid, &gid);
	assert_int_equal(pipe2(pv, O_CLOEXEC), 0);
	assert_int_equal(owner_spec_place(&spec, pv[1], 5), 0);
	/* The cgroup.procs stand-in: the child writes "0" (itself) there
	 * before it execs, and does not keep it. */
	assert_int_equal(pipe2(cg, O_CLOEXEC | O_NONBLOCK), 0);
	spec.join_cgroup = true;
	spec.cgroup_procs = cg[1];
	assert_non_null(p = owner_proc_create(base, &prog, uid, gid));
	assert_int_equal(owner_proc_start(p, &spec, NULL, why, sizeof(why)), 0);
	pid = owner_proc_pid(p);
	wait_exec(pid, "sleep");
	assert_true(owner_proc_pidfd(p) >= 0);
	memset(val, 0, sizeof(val));
	assert_int_equal(read(cg[0], val, sizeof(val) - 1), 1);
	assert_string_equal(val, "0");

	snprintf(path, sizeof(path), "/proc/%d/ns/net", (int)pid);
	memset(mine, 0, sizeof(mine));
	memset(its, 0, sizeof(its));
	assert_true(readlink("/proc/self/ns/net", mine, sizeof(mine) - 1) > 0);
	assert_true(readlink(path, its, sizeof(its) - 1) > 0);
	assert_memory_equal(mine, "net:[", 5);
	assert_string_not_equal(mine, its);
	assert_int_equal(lo_flags_of(pid), 1);

	status_field(pid, "NoNewPrivs:", val, sizeof(val));
	assert_string_equal(val, "1");
	status_field(pid, "Uid:", val, sizeof(val));
	snprintf(want, sizeof(want), "%u\t%u\t%u\t%u", (unsigned)uid,
		 (unsigned)uid, (unsigned)uid, (unsigned)uid);
	assert_string_equal(val, want);
	status_field(pid, "SigIgn:", val, sizeof(val));
	ign = strtoull(val, NULL, 16);
	for (size_t i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
		assert_true(ign & (1ULL << (ignored[i] - 1)));
	assert_true(ign & (1ULL << (SIGRTMIN - 1)));
	assert_false(ign & (1ULL << (SIGSEGV - 1)));

	/* The kernel names the program before it closes the close-on-exec
	 * descriptors: look again for a while before judging. */
	for (int tries = 0, stray = 1; stray && tries < 100; tries++) {
		if (tries)
			pause_ms(10);
		n = stray = 0;
		for (int fd = 0; fd < 64; fd++) {
			snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)pid,
				 fd);
			if (access(path, F_OK) == 0) {
				stray += fd > 2 && fd != 5;
				n++;
			}
		}
	}
	assert_int_equal(n, 4);
	for (int fd = 0; fd < 3; fd++) {
		snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)pid, fd);
		memset(val, 0, sizeof(val));
		assert_true(readlink(path, val, sizeof(val) - 1) > 0);
		assert_string_equal(val, "/dev/null");
	}

	owner_proc_stop(p);
	assert_int_equal(owner_proc_pid(p), 0);
	owner_proc_destroy(p);
	wait_ended(pid);
	assert_int_equal(kill(pid, 0), -1);
	close(pv[0]);
	close(pv[1]);
	close(cg[0]);
	close(cg[1]);
	event_base_free(base);
}

/* A cgroup that cannot be joined fails the start, said with the cause. */
static void test_join_fails(void **state)
{
	struct owner_prog prog = {.role = "test program",
				  .name = "sleep",
				  .installed = "/bin/sleep"};
	const char *argv[] = {"sleep", "30", NULL}, *envp[] = {NULL};
	struct owner_spec spec = {.argv = argv, .envp = envp};
	struct event_base *base = event_base_new();
	struct owner_proc *p;
	char why[256], want[256];
	int cg[2];
	uid_t uid;
	gid_t gid;

	(void)state;
	NEED_ROOT();
	test_owner(&uid, &gid);
	assert_int_equal(pipe2(cg, O_CLOEXEC), 0);
	spec.join_cgroup = true;
	spec.cgroup_procs = cg[0]; /* not writable */
	assert_non_null(p = owner_proc_create(base, &prog, uid, gid));
	assert_int_equal(owner_proc_start(p, &spec, NULL, why, sizeof(why)), 0);
	wait_ended(owner_proc_pid(p));
	owner_proc_ended(p, why, sizeof(why));
	snprintf(want, sizeof(want),
		 "cannot join the step's process-tracking cgroup as uid %u: "
		 "Bad file descriptor",
		 (unsigned)uid);
	assert_memory_equal(why, want, strlen(want));
	owner_proc_destroy(p);
	close(cg[0]);
	close(cg[1]);
	event_base_free(base);
}

/* Read what comes on `fd` until EOF (up to 5 s). */
static void read_all(int fd, char *buf, size_t len)
{
	size_t off = 0;

	for (int i = 0; i < 500 && off < len - 1; i++) {
		ssize_t n = read(fd, buf + off, len - 1 - off);

		if (n == 0)
			break;
		if (n > 0)
			off += (size_t)n;
		else
			pause_ms(10);
	}
	buf[off] = '\0';
}

/* stderr and stdout into a pipe, a placed descriptor, the spec's
 * environment, and the exit status told. */
static void test_io_and_status(void **state)
{
	struct owner_prog prog = {
		.role = "test program", .name = "sh", .installed = "/bin/sh"};
	const char *argv[] = {"sh", "-c",
			      "echo \"err $T\" >&2; echo out; echo five >&5; "
			      "ls /proc/self/fd >&5; exit 3",
			      NULL};
	const char *envp[] = {"T=from-spec", "PATH=/usr/bin:/bin", NULL};
	struct owner_spec spec = {.argv = argv,
				  .envp = envp,
				  .stderr_pipe = true,
				  .stdout_pipe = true};
	struct event_base *base = event_base_new();
	char why[256], buf[256];
	struct owner_proc *p;
	int pv[2], err = -1;
	uid_t uid;
	gid_t gid;

	(void)state;
	NEED_ROOT();
	test_owner(&uid, &gid);
	assert_int_equal(pipe2(pv, O_CLOEXEC), 0);
	assert_int_equal(owner_spec_place(&spec, pv[1], 5), 0);
	assert_non_null(p = owner_proc_create(base, &prog, uid, gid));
	assert_int_equal(owner_proc_start(p, &spec, &err, why, sizeof(why)), 0);
	assert_true(err >= 0);
	assert_true(fcntl(err, F_GETFL) & O_NONBLOCK);
	assert_true(fcntl(err, F_GETFD) & FD_CLOEXEC);
	close(pv[1]);
	read_all(err, buf, sizeof(buf));
	assert_string_equal(buf, "err from-spec\nout\n");
	read_all(pv[0], buf, sizeof(buf));
	/* ls's own descriptor for the folder is 3. */
	assert_string_equal(buf, "five\n0\n1\n2\n3\n5\n");
	wait_ended(owner_proc_pid(p));
	owner_proc_ended(p, why, sizeof(why));
	assert_non_null(strstr(why, "it exited with status 3 "));
	owner_proc_destroy(p);
	close(err);
	close(pv[0]);
	event_base_free(base);
}

/* pdeathsig: started by a process whose euid was dropped (as slurmstepd's
 * main thread does around task launch), killed when that process ends. */
static void test_parent_ends(void **state)
{
	struct owner_prog prog = {.role = "test program",
				  .name = "sleep",
				  .installed = "/bin/sleep"};
	const char *argv[] = {"sleep", "30", NULL}, *envp[] = {NULL};
	struct owner_spec spec = {.argv = argv, .envp = envp, .pdeathsig = 1};
	int pv[2], status = 0;
	pid_t mid, pid = 0;
	uid_t uid;
	gid_t gid;

	(void)state;
	NEED_ROOT();
	test_owner(&uid, &gid);
	/* Orphans come to us, to be waited for. */
	assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
	assert_int_equal(pipe2(pv, O_CLOEXEC), 0);
	if ((mid = fork()) == 0) {
		struct event_base *base = event_base_new();
		struct owner_proc *p = owner_proc_create(base, &prog, uid, gid);
		char why[256];

		if (!p || setegid(gid) < 0 || seteuid(uid) < 0 ||
		    owner_proc_start(p, &spec, NULL, why, sizeof(why)) < 0)
			_exit(1);
		pid = owner_proc_pid(p);
		wait_exec(pid, "sleep");
		if (write(pv[1], &pid, sizeof(pid)) != sizeof(pid))
			_exit(1);
		_exit(0);
	}
	close(pv[1]);
	assert_int_equal(read(pv[0], &pid, sizeof(pid)), sizeof(pid));
	close(pv[0]);
	assert_int_equal(waitpid(mid, &status, 0), mid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	for (int i = 0; i < 500 && waitpid(pid, &status, WNOHANG) == 0; i++)
		pause_ms(10);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGKILL);
	prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_place),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_failed_start),
		cmocka_unit_test(test_confined),
		cmocka_unit_test(test_join_fails),
		cmocka_unit_test(test_io_and_status),
		cmocka_unit_test(test_parent_ends),
	};

	return cmocka_run_group_tests_name("owner_proc", tests, NULL, NULL);
}
