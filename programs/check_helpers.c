/*
 * programs/check_helpers.c - pmixev's programs on this node, found and run
 * as slurmstepd finds and runs them: the network namespace root makes for
 * the PMIx server process, pmixev-owner, pmixev-pmixd (in a network of
 * its own, the PMIx query guard preloaded) and pmixev-exec each run as
 * the ordinary user with --version, and the OpenPMIx library pmixev-pmixd
 * loads (see check.h). As root they start through ownerhelper/owner_proc.c,
 * the plugin's own code; as an ordinary user they run as that user.
 */
#include "config.h"

#include "check.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "ownerhelper/owner_proc.h"
#include "pmix_guard.h"

#define RUN_MS	   10000 /* a program's --version */
#define MAX_GROUPS 1024
#define OUT_MAX	   2048

/* As ownerhelper/helper.c and pmixd/proc.c find them; pmixev-exec goes
 * beside them (doc/spawn.md §2.4). */
static const struct owner_prog prog_owner = {
	.role = "owner helper",
	.name = "pmixev-owner",
	.env_var = "PMIXEV_OWNER_HELPER",
	.installed = PMIXEV_OWNER_HELPER_PATH,
};
static const struct owner_prog prog_pmixd = {
	.role = "PMIx server process",
	.name = "pmixev-pmixd",
	.env_var = "PMIXEV_PMIXD",
	.installed = PMIXEV_PMIXD_PATH,
};
static const struct owner_prog prog_exec = {
	.role = "spawn program",
	.name = "pmixev-exec",
	.installed = PMIXEV_EXEC_PATH,
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* What comes on `fd` until EOF or `deadline` into `out`; 0 at EOF, -1
 * past the deadline. */
static int read_until(int fd, int64_t deadline, char *out, size_t len)
{
	size_t off = 0;

	for (;;) {
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		char sink[256];
		int left = (int)(deadline - now_ms()), rc;
		ssize_t n;

		if (left <= 0) {
			out[off] = '\0';
			return -1;
		}
		rc = poll(&pfd, 1, left);
		if (rc < 0 && errno != EINTR)
			break;
		if (rc <= 0)
			continue;
		n = off + 1 < len ? read(fd, out + off, len - 1 - off)
				  : read(fd, sink, sizeof(sink));
		if (n == 0)
			break;
		if (n > 0 && off + 1 < len)
			off += (size_t)n;
		else if (n < 0 && errno != EAGAIN && errno != EINTR)
			break;
	}
	out[off] = '\0';
	return 0;
}

int check_capture(const char *const *argv, const char *const *envp, int ms,
		  char *out, size_t len)
{
	int pv[2], status = -1;
	pid_t pid;

	if (pipe2(pv, O_CLOEXEC) < 0) {
		snprintf(out, len, "cannot make a pipe: %s", strerror(errno));
		return -1;
	}
	if ((pid = fork()) == 0) {
		int null = open("/dev/null", O_RDONLY);

		if (null < 0 || dup2(null, 0) < 0 || dup2(pv[1], 1) < 0 ||
		    dup2(pv[1], 2) < 0)
			_exit(127);
		execve(argv[0], (char *const *)argv, (char *const *)envp);
		dprintf(2, "cannot run %s: %s", argv[0], strerror(errno));
		_exit(127);
	}
	close(pv[1]);
	if (pid < 0) {
		snprintf(out, len, "cannot fork: %s", strerror(errno));
		close(pv[0]);
		return -1;
	}
	if (read_until(pv[0], now_ms() + ms, out, len) < 0) {
		kill(pid, SIGKILL);
		snprintf(out, len, "%s did not end within %d ms", argv[0], ms);
	} else {
		status = 0;
	}
	close(pv[0]);
	if (waitpid(pid, status == 0 ? &status : NULL, 0) < 0)
		status = -1;
	return status;
}

/* lo's flags in this process's network (up first with `up`), or -1. */
static int lo_flags(bool up)
{
	struct ifreq ifr = {.ifr_name = "lo"};
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc = -1;

	if (fd < 0)
		return -1;
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) == 0) {
		ifr.ifr_flags |= up ? IFF_UP : 0;
		if (!up || ioctl(fd, SIOCSIFFLAGS, &ifr) == 0)
			rc = ifr.ifr_flags;
	}
	close(fd);
	return rc;
}

enum probe_stage {
	PROBE_DONE,
	PROBE_NETNS,
	PROBE_LO,
	PROBE_GROUPS,
	PROBE_GID,
	PROBE_UID,
	PROBE_LO_SEEN
};

static const char *const probe_calls[] = {
	[PROBE_NETNS] = "unshare",    [PROBE_LO] = "lo up",
	[PROBE_GROUPS] = "setgroups", [PROBE_GID] = "setgid",
	[PROBE_UID] = "setuid",	      [PROBE_LO_SEEN] = "lo's flags",
};

/* In the child: what slurmstepd does before it runs pmixev-pmixd. */
static void probe_child(const struct check *c, int report, const gid_t *groups,
			int ngroups)
{
	int r[2] = {PROBE_DONE, 0};
	int flags = 0;

	if (unshare(CLONE_NEWNET) < 0)
		r[0] = PROBE_NETNS;
	else if (lo_flags(true) < 0)
		r[0] = PROBE_LO;
	else if (setgroups((size_t)ngroups, groups) < 0)
		r[0] = PROBE_GROUPS;
	else if (setgid(c->gid) < 0)
		r[0] = PROBE_GID;
	else if (setuid(c->uid) < 0)
		r[0] = PROBE_UID;
	else if ((flags = lo_flags(false)) < 0 || !(flags & IFF_UP))
		r[0] = PROBE_LO_SEEN;
	r[1] = r[0] == PROBE_LO_SEEN && flags >= 0 ? 0 : errno;
	_exit(write(report, r, sizeof(r)) == sizeof(r) ? 0 : 1);
}

static void user_groups(const struct check *c, gid_t *groups, int *n)
{
	*n = MAX_GROUPS;
	if (getgrouplist(c->user, c->gid, groups, n) < 0) {
		groups[0] = c->gid;
		*n = 1;
	}
}

static void netns(struct check *c)
{
	static gid_t groups[MAX_GROUPS];
	int pv[2], r[2] = {-1, 0}, ngroups, n;
	char text[32] = "";
	pid_t pid;

	if (!c->root) {
		int fd = open("/proc/sys/user/max_net_namespaces", O_RDONLY);

		n = fd >= 0 ? (int)read(fd, text, sizeof(text) - 1) : -1;
		if (fd >= 0)
			close(fd);
		text[n > 0 ? n : 0] = '\0';
		if (n > 0 && atol(text) == 0)
			check_say(c, CHECK_FAIL, "network namespace",
				  "user.max_net_namespaces is 0: slurmstepd "
				  "cannot make one for pmixev-pmixd");
		else
			check_say(c, CHECK_WARN, "network namespace",
				  "not tried: slurmstepd makes it as root "
				  "(run pmixev-check as root)");
		return;
	}
	user_groups(c, groups, &ngroups);
	if (pipe2(pv, O_CLOEXEC) < 0 || (pid = fork()) < 0) {
		check_say(c, CHECK_FAIL, "network namespace",
			  "cannot start a child: %s", strerror(errno));
		return;
	}
	if (pid == 0)
		probe_child(c, pv[1], groups, ngroups);
	close(pv[1]);
	n = (int)read(pv[0], r, sizeof(r));
	close(pv[0]);
	waitpid(pid, NULL, 0);
	if (n != sizeof(r) || r[0] < PROBE_DONE || r[0] > PROBE_LO_SEEN)
		check_say(c, CHECK_FAIL, "network namespace",
			  "the child that makes one ended without a word");
	else if (r[0] == PROBE_NETNS || r[0] == PROBE_LO)
		check_say(c, CHECK_FAIL, "network namespace",
			  "root cannot make one with lo up (%s: %s): "
			  "slurmstepd cannot start pmixev-pmixd",
			  probe_calls[r[0]], strerror(r[1]));
	else if (r[0] != PROBE_DONE)
		check_say(c, CHECK_FAIL, "network namespace",
			  "root made one but %s (uid %u) cannot use it (%s: "
			  "%s): slurmstepd cannot start pmixev-pmixd",
			  c->user, (unsigned)c->uid, probe_calls[r[0]],
			  r[0] == PROBE_LO_SEEN && !r[1] ? "lo is down"
							 : strerror(r[1]));
	else
		check_say(c, CHECK_OK, "network namespace",
			  "root made one with lo up and became %s (uid %u) in "
			  "it, as slurmstepd does for pmixev-pmixd",
			  c->user, (unsigned)c->uid);
}

/* A program's start and what it said. */
struct run {
	const struct owner_prog *prog;
	char path[PATH_MAX];
	char where[64]; /* how it was found */
	bool found;
	const char *said; /* its version line in `out`, or NULL */
	char out[OUT_MAX];
	char why[2048];
};

static void find(const struct check *c, struct run *r)
{
	const char *env = r->prog->env_var ? getenv(r->prog->env_var) : NULL;
	char looked[1600];
	size_t dl = strlen(c->plugin_dir);

	r->found = owner_prog_find(
		r->prog, c->plugin_dir[0] ? c->plugin_dir : NULL, r->path,
		sizeof(r->path), looked, sizeof(looked));
	if (env && *env)
		snprintf(r->where, sizeof(r->where), "from %s",
			 r->prog->env_var);
	else if (dl && !strncmp(r->path, c->plugin_dir, dl) &&
		 r->path[dl] == '/')
		snprintf(r->where, sizeof(r->where), "beside mpi_pmixev.so");
	else
		snprintf(r->where, sizeof(r->where), "installed");
	if (!r->found)
		snprintf(r->why, sizeof(r->why), "not found (looked in: %s)",
			 looked);
}

/* As root: started as slurmstepd starts it, as the user. */
static void run_as_owner(const struct check *c, struct event_base *base,
			 struct run *r, struct owner_spec *spec)
{
	int64_t deadline = now_ms() + RUN_MS;
	struct owner_proc *p;
	int err = -1;

	p = owner_proc_create_in(base, r->prog,
				 c->plugin_dir[0] ? c->plugin_dir : NULL,
				 c->uid, c->gid);
	if (!p) {
		snprintf(r->why, sizeof(r->why), "out of memory");
		return;
	}
	spec->stderr_pipe = spec->stdout_pipe = true;
	if (owner_proc_start(p, spec, &err, r->why, sizeof(r->why)) < 0)
		goto out;
	if (read_until(err, deadline, r->out, sizeof(r->out)) < 0) {
		snprintf(r->why, sizeof(r->why), "it did not end within %d ms",
			 RUN_MS);
		goto out;
	}
	/* Its output ended: wait for its end to be told. */
	if (owner_proc_pidfd(p) >= 0)
		poll(&(struct pollfd){.fd = owner_proc_pidfd(p),
				      .events = POLLIN},
		     1, (int)(deadline > now_ms() ? deadline - now_ms() : 0));
	owner_proc_ended(p, r->why, sizeof(r->why));
out:
	if (err >= 0)
		close(err);
	owner_proc_destroy(p);
}

/* Run it with --version (`spec` as slurmstepd's); did it say it? */
static void run(const struct check *c, struct event_base *base, struct run *r,
		struct owner_spec *spec)
{
	char head[128];
	int st;

	find(c, r);
	if (!r->found)
		return;
	if (c->root) {
		run_as_owner(c, base, r, spec);
	} else {
		const char *argv[] = {r->path, "--version", NULL};

		st = check_capture(argv, spec->envp, RUN_MS, r->out,
				   sizeof(r->out));
		if (st >= 0 && WIFEXITED(st))
			snprintf(r->why, sizeof(r->why),
				 "it exited with status %d", WEXITSTATUS(st));
		else if (st >= 0)
			snprintf(r->why, sizeof(r->why),
				 "it was killed by signal %d", WTERMSIG(st));
	}
	/* Its line, after the dynamic linker's complaints if any. */
	snprintf(head, sizeof(head), "%s (pmixev ", r->prog->name);
	for (const char *l = r->out; l; l = strchr(l, '\n')) {
		l += *l == '\n';
		if (!strncmp(l, head, strlen(head))) {
			r->said = l + strlen(head);
			break;
		}
	}
}

/* The verdict on a program that ran with `how`; `missing` and `loss`
 * when it is not there. */
static void say_prog(struct check *c, const struct run *r, const char *how,
		     enum check_verdict missing, const char *loss)
{
	const char *v = r->said ? r->said : "";
	int vlen = (int)strcspn(v, ")\n");

	if (!r->found)
		check_say(c, missing, r->prog->name, "%s: %s", r->why, loss);
	else if (!r->said)
		check_say(c, CHECK_FAIL, r->prog->name,
			  "%s (%s) does not run as %s%s: %s%s%s", r->path,
			  r->where, c->user, how, r->why,
			  r->out[0] ? "; it said: " : "", r->out);
	else if (strncmp(v, PACKAGE_VERSION, (size_t)vlen) ||
		 vlen != (int)strlen(PACKAGE_VERSION))
		check_say(c, CHECK_WARN, r->prog->name,
			  "%s (%s) runs as %s%s, but it is pmixev %.*s and "
			  "this check %s: left from another install?",
			  r->path, r->where, c->user, how, vlen, v,
			  PACKAGE_VERSION);
	else
		check_say(c, CHECK_OK, r->prog->name,
			  "%s (%s) runs as %s%s: pmixev %.*s", r->path,
			  r->where, c->user, how, vlen, v);
}

/* The guard: beside the plugin, else installed (as pmixd/proc.c). */
static bool guard_path(const struct check *c, char *path, size_t len)
{
	struct stat st;

	if (c->plugin_dir[0] &&
	    snprintf(path, len, "%s/" PMIXEV_PMIX_GUARD_FILE, c->plugin_dir) <
		    (int)len &&
	    stat(path, &st) == 0 && S_ISREG(st.st_mode))
		return true;
	snprintf(path, len, "%s", PMIXEV_PMIX_GUARD_PATH);
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static void say_guard(struct check *c, const struct run *pmixd, bool found,
		      const char *path)
{
	const char *bad = strstr(pmixd->out, "cannot be preloaded");

	/* The dynamic linker's line that says so. */
	while (bad && bad > pmixd->out && bad[-1] != '\n')
		bad--;

	if (!found)
		check_say(c, CHECK_WARN, "PMIx query guard",
			  "no " PMIXEV_PMIX_GUARD_FILE " beside mpi_pmixev.so "
			  "nor at %s: an OpenPMIx 4.2 attribute-support query "
			  "can crash pmixev-pmixd",
			  PMIXEV_PMIX_GUARD_PATH);
	else if (bad)
		check_say(c, CHECK_FAIL, "PMIx query guard",
			  "pmixev-pmixd cannot load %s as %s: %.*s", path,
			  c->user, (int)strcspn(bad, "\n"), bad);
	else if (!pmixd->said)
		check_say(c, CHECK_WARN, "PMIx query guard",
			  "%s: not tried, pmixev-pmixd did not run", path);
	else
		check_say(c, CHECK_OK, "PMIx query guard",
			  "%s, loaded into pmixev-pmixd as %s", path, c->user);
}

/* pmixd's second line: "OpenPMIx: built with X, runs with Y (...)". */
static void say_pmix(struct check *c, const struct run *pmixd)
{
	const char *l = strstr(pmixd->out, "\nOpenPMIx: built with ");
	char built[32] = "", runs[256] = "", *paren;
	const char *digit;

	if (!pmixd->said || !l ||
	    sscanf(l, "\nOpenPMIx: built with %31[^,], runs with %255[^\n]",
		   built, runs) != 2) {
		check_say(c, CHECK_FAIL, "OpenPMIx",
			  "unknown: pmixev-pmixd did not say (above)");
		return;
	}
	if ((paren = strstr(runs, " (")))
		*paren = '\0';
	digit = strpbrk(runs, "0123456789");
	if (!digit || atoi(digit) != atoi(built))
		check_say(c, CHECK_FAIL, "OpenPMIx",
			  "pmixev-pmixd was built with OpenPMIx %s but loads "
			  "%s: rebuild pmixev against the nodes' OpenPMIx",
			  built, runs);
	else
		check_say(c, CHECK_OK, "OpenPMIx",
			  "pmixev-pmixd runs with %s (built with %s)", runs,
			  built);
}

void check_helpers(struct check *c)
{
	char guard[PATH_MAX], preload[PATH_MAX + 16], conf[PATH_MAX + 16];
	const char *argv[] = {NULL, "--version", NULL};
	const char *owner_env[] = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", conf,
				   NULL};
	const char *pmixd_env[] = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL,
				   NULL};
	struct owner_spec owner_spec = {.argv = argv, .envp = owner_env},
			  exec_spec = {.argv = argv, .envp = owner_env},
			  pmixd_spec = {.argv = argv,
					.envp = pmixd_env,
					.new_netns = true,
					.no_new_privs = true,
					.pdeathsig = true};
	static struct run owner, pmixd, exec;
	struct event_base *base = c->root ? event_base_new() : NULL;
	bool have_guard = guard_path(c, guard, sizeof(guard));

	netns(c);
	if (c->root && !base) {
		check_say(c, CHECK_FAIL, "pmixev programs",
			  "not run: cannot make an event base");
		return;
	}
	snprintf(conf, sizeof(conf), "SLURM_CONF=%s", c->site.conf);
	snprintf(preload, sizeof(preload), "LD_PRELOAD=%s", guard);
	if (have_guard)
		pmixd_env[1] = preload;
	owner = (struct run){.prog = &prog_owner};
	pmixd = (struct run){.prog = &prog_pmixd};
	exec = (struct run){.prog = &prog_exec};
	argv[0] = prog_owner.name;
	run(c, base, &owner, &owner_spec);
	say_prog(c, &owner, "", CHECK_FAIL,
		 "scheduler events, Slurm queries and job control are off in "
		 "every step");
	argv[0] = prog_pmixd.name;
	run(c, base, &pmixd, &pmixd_spec);
	say_prog(c, &pmixd,
		 c->root ? " in a network namespace of its own, as "
			   "slurmstepd starts it"
			 : "",
		 CHECK_FAIL, "--mpi=pmixev steps are refused");
	argv[0] = prog_exec.name;
	run(c, base, &exec, &exec_spec);
	say_prog(c, &exec, "", CHECK_WARN,
		 "a spawn of several applications needs it");
	say_guard(c, &pmixd, have_guard, guard);
	say_pmix(c, &pmixd);
	if (base)
		event_base_free(base);
}
