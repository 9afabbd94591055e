/*
 * ownerhelper/helper_proc.c - the owner helper's process: found, started as
 * the job owner, explained when it ends, reaped.
 */
#include "config.h"

#include "ownerhelper/helper_proc.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <libgen.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "base/agent.h"
#include "pmixev_log.h"

#define HELPER_NAME "pmixev-owner"
#define HELPER_FD   3
#define HELPER_WFD  4 /* the writer's channel (owner_write.h) */
#define MAX_GROUPS  1024
/* A stopped helper gets SIGKILL at once; it is reaped from the event loop
 * (a helper the job's user traces could never be waited for). */
#define REAP_TICK_MS 100
#define REAP_TICKS   100 /* then it is left to init */
#define MAX_CORPSES  8

/* What the child reports when a call before exec fails. */
enum stage {
	STAGE_STDIO = 1,
	STAGE_ROOT,
	STAGE_GROUPS,
	STAGE_GID,
	STAGE_UID,
	STAGE_KEPT_ROOT,
	STAGE_EXEC
};

static const char *const stage_names[] = {
	[STAGE_STDIO] = "cannot set up its descriptors",
	[STAGE_ROOT] = "cannot become root again to change identity",
	[STAGE_GROUPS] = "setgroups failed",
	[STAGE_GID] = "setgid failed",
	[STAGE_UID] = "setuid failed",
	[STAGE_KEPT_ROOT] = "root could be regained after setuid",
	[STAGE_EXEC] = "exec failed",
};

struct report {
	int stage;
	int err;
};

struct helper_proc {
	struct agent *agent;
	const struct layout *lay;
	char path[512];	    /* the program */
	char looked[1600];  /* where it was looked for */
	char conf_env[600]; /* "SLURM_CONF=..." for the helper, or "" */
	pid_t pid;	    /* the running helper, or 0 */
	int report;	    /* its pre-exec report pipe, or -1 */
	struct timespec started;
	struct event *reap; /* ticks while corpses are left */
	struct {
		pid_t pid;
		unsigned ticks;
	} corpses[MAX_CORPSES];
};

static bool is_file(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* Add `path` to the places looked at; true if it is there. */
static bool look(struct helper_proc *p, const char *path)
{
	size_t off = strlen(p->looked);

	snprintf(p->looked + off, sizeof(p->looked) - off, "%s%s",
		 off ? ", " : "", path);
	if (!is_file(path))
		return false;
	snprintf(p->path, sizeof(p->path), "%s", path);
	return true;
}

static void find_program(struct helper_proc *p)
{
	const char *env = getenv("PMIXEV_OWNER_HELPER");
	char beside[512], dir[512];
	Dl_info dl;

	if (env && *env) {
		look(p, env);
		snprintf(p->path, sizeof(p->path), "%s", env);
		return;
	}
	if (dladdr((void *)helper_proc_create, &dl) && dl.dli_fname &&
	    dl.dli_fname[0] == '/') {
		snprintf(dir, sizeof(dir), "%s", dl.dli_fname);
		snprintf(beside, sizeof(beside), "%s/" HELPER_NAME,
			 dirname(dir));
		if (look(p, beside))
			return;
	}
	if (!look(p, PMIXEV_OWNER_HELPER_PATH))
		snprintf(p->path, sizeof(p->path), "%s",
			 PMIXEV_OWNER_HELPER_PATH);
}

struct helper_proc *helper_proc_create(const struct step *s)
{
	struct helper_proc *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->agent = s->agent;
	p->lay = &s->lay;
	p->report = -1;
	if (s->slurm_conf[0])
		snprintf(p->conf_env, sizeof(p->conf_env), "SLURM_CONF=%s",
			 s->slurm_conf);
	find_program(p);
	return p;
}

const char *helper_proc_path(const struct helper_proc *p)
{
	return p->path;
}

const char *helper_proc_looked(const struct helper_proc *p)
{
	return p->looked;
}

/* In the child: tell the parent which call failed, and end. */
static void child_fail(int report, enum stage stage)
{
	struct report r = {.stage = stage, .err = errno};

	if (write(report, &r, sizeof(r)) < 0)
		_exit(125);
	_exit(stage == STAGE_EXEC ? 127 : 126);
}

/* In the child, between fork and exec: async-signal-safe calls only. */
static void become_owner(const struct helper_proc *p, int fd, int wfd, int null,
			 int report, const gid_t *groups, int ngroups,
			 char *const envp[])
{
	static const int ignored[] = {SIGTERM, SIGINT,	SIGHUP, SIGTSTP,
				      SIGUSR1, SIGUSR2, SIGPIPE};
	struct sigaction ign = {.sa_handler = SIG_IGN};
	const struct layout *lay = p->lay;
	sigset_t none;

	/* Ignored stays ignored across exec: until the program sets its
	 * own dispositions, a signal Slurm sends the step cannot kill it. */
	for (size_t i = 0; i < sizeof(ignored) / sizeof(ignored[0]); i++)
		sigaction(ignored[i], &ign, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* Nothing of slurmstepd's may stay open in the helper: a task's
	 * output pipe it held would keep the step's I/O from ending. All
	 * four are moved above 0..4 first: any may sit where another goes. */
	if ((fd = fcntl(fd, F_DUPFD, 10)) < 0 ||
	    (wfd = fcntl(wfd, F_DUPFD, 10)) < 0 ||
	    (null = fcntl(null, F_DUPFD, 10)) < 0 ||
	    (report = fcntl(report, F_DUPFD_CLOEXEC, 10)) < 0)
		_exit(126);
	for (int i = 0; i < 3; i++)
		if (dup2(null, i) < 0)
			child_fail(report, STAGE_STDIO);
	if (dup2(fd, HELPER_FD) < 0 || dup2(wfd, HELPER_WFD) < 0)
		child_fail(report, STAGE_STDIO);
	close_range(HELPER_WFD + 1, (unsigned)report - 1, 0);
	close_range((unsigned)report + 1, ~0U, 0);
	/* slurmstepd's main thread drops to the job owner's euid for a while
	 * around task launch (and glibc applies that to every thread): a
	 * child forked then is not root and could not set the owner's groups.
	 * Its real and saved uid are still root; become root again first. */
	if (geteuid() != 0 && (seteuid(0) < 0 || setegid(0) < 0))
		child_fail(report, STAGE_ROOT);
	if (setgroups((size_t)ngroups, groups) < 0)
		child_fail(report, STAGE_GROUPS);
	if (setgid(lay->gid) < 0)
		child_fail(report, STAGE_GID);
	if (setuid(lay->uid) < 0)
		child_fail(report, STAGE_UID);
	/* For good: root cannot be regained. */
	if (lay->uid != 0 && (setuid(0) == 0 || seteuid(0) == 0)) {
		errno = EPERM;
		child_fail(report, STAGE_KEPT_ROOT);
	}
	execle(p->path, HELPER_NAME, "3", "4", (char *)NULL, envp);
	child_fail(report, STAGE_EXEC);
}

static void owner_groups(const struct layout *lay, gid_t *groups, int *n)
{
	struct passwd pw, *res = NULL;
	char buf[4096];

	*n = MAX_GROUPS;
	if (getpwuid_r(lay->uid, &pw, buf, sizeof(buf), &res) != 0 || !res ||
	    getgrouplist(pw.pw_name, lay->gid, groups, n) < 0) {
		/* Unknown user, or too many groups: the primary one only. */
		groups[0] = lay->gid;
		*n = 1;
	}
}

int helper_proc_start(struct helper_proc *p, int *wfd, char *why, size_t len)
{
	gid_t *groups = malloc(MAX_GROUPS * sizeof(*groups));
	char *envp[3] = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL, NULL};
	int sv[2] = {-1, -1}, wv[2] = {-1, -1}, rep[2] = {-1, -1};
	int ngroups = 0, null = -1, fd = -1;

	if (p->conf_env[0])
		envp[1] = p->conf_env;
	if (!groups) {
		snprintf(why, len, "out of memory");
		goto out;
	}
	owner_groups(p->lay, groups, &ngroups);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0 ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, wv) < 0 ||
	    pipe2(rep, O_CLOEXEC | O_NONBLOCK) < 0 ||
	    (null = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0) {
		snprintf(why, len, "cannot make its channel: %s",
			 strerror(errno));
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &p->started);
	p->pid = fork();
	if (p->pid == 0)
		become_owner(p, sv[1], wv[1], null, rep[1], groups, ngroups,
			     envp);
	if (p->pid < 0) {
		snprintf(why, len, "fork failed: %s", strerror(errno));
		p->pid = 0;
		goto out;
	}
	fd = sv[0];
	sv[0] = -1;
	*wfd = wv[0];
	wv[0] = -1;
	p->report = rep[0];
	rep[0] = -1;
	PMIXEV_DEBUG(1, "owner helper %s started as uid %u (pid %d)", p->path,
		     (unsigned)p->lay->uid, (int)p->pid);
out:
	for (int i = 0; i < 2; i++) {
		if (sv[i] >= 0)
			close(sv[i]);
		if (wv[i] >= 0)
			close(wv[i]);
		if (rep[i] >= 0)
			close(rep[i]);
	}
	if (null >= 0)
		close(null);
	free(groups);
	return fd;
}

static double since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t0->tv_sec) +
	       (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
}

void helper_proc_ended(struct helper_proc *p, char *why, size_t len)
{
	struct report r;
	double age = since(&p->started);
	int status = 0;
	pid_t done = -1;

	/* Its channel closes as it exits: give the kernel a moment (20 ms at
	 * most, on this rare path) to make it a zombie with a status. */
	for (int i = 0; p->pid && i < 20; i++) {
		if ((done = waitpid(p->pid, &status, WNOHANG)) != 0)
			break;
		nanosleep(&(struct timespec){0, 1000 * 1000}, NULL);
	}

	if (p->report >= 0 && read(p->report, &r, sizeof(r)) == sizeof(r) &&
	    r.stage >= STAGE_STDIO && r.stage <= STAGE_EXEC)
		snprintf(why, len, "%s as uid %u: %s", stage_names[r.stage],
			 (unsigned)p->lay->uid, strerror(r.err));
	else if (done == p->pid && WIFSIGNALED(status))
		snprintf(why, len,
			 "it was killed by signal %d (%s) %.3f s "
			 "after it started",
			 WTERMSIG(status), strsignal(WTERMSIG(status)), age);
	else if (done == p->pid && WIFEXITED(status))
		snprintf(why, len,
			 "it exited with status %d %.3f s after it "
			 "started",
			 WEXITSTATUS(status), age);
	else
		snprintf(why, len,
			 "it closed its channel %.3f s after it "
			 "started",
			 age);
	if (done == p->pid)
		p->pid = 0;
	helper_proc_stop(p);
}

/* Reap what can be reaped; true if corpses are left. */
static bool reap_corpses(struct helper_proc *p, bool last)
{
	bool left = false;

	for (size_t i = 0; i < MAX_CORPSES; i++) {
		pid_t pid = p->corpses[i].pid;

		if (!pid)
			continue;
		if (waitpid(pid, NULL, WNOHANG) != 0) { /* or ECHILD */
			p->corpses[i].pid = 0;
			continue;
		}
		if (last || ++p->corpses[i].ticks >= REAP_TICKS) {
			PMIXEV_ERROR("owner helper (pid %d) cannot be reaped "
				     "(traced?); it is left to init",
				     (int)pid);
			p->corpses[i].pid = 0;
			continue;
		}
		left = true;
	}
	return left;
}

static void on_reap(evutil_socket_t fd, short what, void *arg)
{
	struct helper_proc *p = arg;
	struct timeval tick = {0, REAP_TICK_MS * 1000};

	if (reap_corpses(p, false))
		evtimer_add(p->reap, &tick);
}

/* It exits on EOF, but may hang in a Slurm call or be stopped: SIGKILL,
 * and reap it from the event loop, never waiting here. */
static void bury(struct helper_proc *p, pid_t pid)
{
	struct timeval tick = {0, REAP_TICK_MS * 1000};
	size_t i;

	kill(pid, SIGKILL);
	if (waitpid(pid, NULL, WNOHANG) != 0)
		return;
	for (i = 0; i < MAX_CORPSES && p->corpses[i].pid; i++)
		;
	if (i == MAX_CORPSES ||
	    (!p->reap &&
	     !(p->reap = evtimer_new(agent_base(p->agent), on_reap, p)))) {
		PMIXEV_ERROR("owner helper (pid %d) not reaped: too many "
			     "unreaped helpers; it is left to init",
			     (int)pid);
		return;
	}
	p->corpses[i].pid = pid;
	p->corpses[i].ticks = 0;
	evtimer_add(p->reap, &tick);
}

void helper_proc_stop(struct helper_proc *p)
{
	if (p->report >= 0)
		close(p->report);
	p->report = -1;
	if (p->pid > 0)
		bury(p, p->pid);
	p->pid = 0;
}

void helper_proc_destroy(struct helper_proc *p)
{
	if (!p)
		return;
	helper_proc_stop(p);
	for (int i = 0; i < 20 && reap_corpses(p, false); i++)
		nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
	reap_corpses(p, true);
	if (p->reap)
		event_free(p->reap);
	free(p);
}
