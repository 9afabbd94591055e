/*
 * ownerhelper/owner_proc.c - a program of the job owner's: found, started as
 * the owner, explained when it ends, reaped.
 */
#include "config.h"

#include "ownerhelper/owner_proc.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <libgen.h>
#include <net/if.h>
#include <pwd.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ownerhelper/owner_env.h"
#include "pmixev_log.h"
#include "pmixev_sigign.h"

/* glibc before 2.36 does not name it (Linux 5.4). */
#ifndef P_PIDFD
#define P_PIDFD 3
#endif

#define MAX_GROUPS 1024
#define FD_FLOOR   (OWNER_PROC_FD_MAX + 1) /* above every placed one */
/* A stopped program gets SIGKILL at once; it is reaped from the event loop
 * (one the job's user traces could never be waited for). */
#define REAP_TICK_MS 100
#define REAP_TICKS   100 /* then it is left to init */
#define MAX_CORPSES  8

/* What the child reports when a call before exec fails. */
enum stage {
	STAGE_FDS = 1,
	STAGE_ROOT,
	STAGE_CGROUP,
	STAGE_NETNS,
	STAGE_LOOPBACK,
	STAGE_GROUPS,
	STAGE_GID,
	STAGE_UID,
	STAGE_KEPT_ROOT,
	STAGE_NO_NEW_PRIVS,
	STAGE_PDEATHSIG,
	STAGE_ORPHAN,
	STAGE_EXEC
};

static const char *const stage_names[] = {
	[STAGE_FDS] = "cannot set up its descriptors",
	[STAGE_ROOT] = "cannot become root again to change identity",
	[STAGE_CGROUP] = "cannot join the step's process-tracking cgroup",
	[STAGE_NETNS] = "cannot make a network namespace of its own",
	[STAGE_LOOPBACK] = "cannot bring up lo in its network namespace",
	[STAGE_GROUPS] = "setgroups failed",
	[STAGE_GID] = "setgid failed",
	[STAGE_UID] = "setuid failed",
	[STAGE_KEPT_ROOT] = "root could be regained after setuid",
	[STAGE_NO_NEW_PRIVS] = "cannot set no_new_privs",
	[STAGE_PDEATHSIG] = "cannot ask for SIGKILL when its parent ends",
	[STAGE_ORPHAN] = "its parent ended before it started",
	[STAGE_EXEC] = "exec failed",
};

struct report {
	int stage;
	int err;
};

/* A process of ours, and a pidfd of it (-1 when the kernel has none). */
struct child {
	pid_t pid; /* 0: none */
	int pidfd;
};

/* How a child ended. */
struct ending {
	bool signaled;
	int code; /* its signal or exit status */
};

struct owner_proc {
	struct event_base *base;
	char role[64];	   /* "owner helper" */
	uid_t uid;	   /* the owner's */
	gid_t gid;	   /* ... and primary group */
	char path[512];	   /* the program */
	char looked[1600]; /* where it was looked for */
	struct child run;  /* the running one */
	int report;	   /* its pre-exec report pipe, or -1 */
	struct timespec started;
	struct event *reap; /* ticks while corpses are left */
	struct {
		struct child c;
		unsigned ticks;
	} corpses[MAX_CORPSES];
};

/* What the child is given besides the spec. */
struct launch {
	int report; /* write end */
	int null;   /* /dev/null */
	int errw;   /* write end of the stderr pipe, or -1 */
	const gid_t *groups;
	int ngroups;
	pid_t parent;
	const char *const *envp; /* owner_env.h */
};

int owner_spec_place(struct owner_spec *s, int fd, int target)
{
	if (fd < 0 || target < 3 || target > OWNER_PROC_FD_MAX) {
		errno = EINVAL;
		return -1;
	}
	for (unsigned i = 0; i < s->nfds; i++)
		if (s->fds[i].target == target) {
			errno = EINVAL;
			return -1;
		}
	if (s->nfds == OWNER_PROC_FDS) {
		errno = ENOSPC;
		return -1;
	}
	s->fds[s->nfds].fd = fd;
	s->fds[s->nfds].target = target;
	s->nfds++;
	return 0;
}

struct owner_proc *owner_proc_create(struct event_base *base,
				     const struct owner_prog *prog, uid_t uid,
				     gid_t gid)
{
	char dir[512];

	return owner_proc_create_in(
		base, prog,
		owner_prog_plugin_dir(dir, sizeof(dir)) ? dir : NULL, uid, gid);
}

struct owner_proc *owner_proc_create_in(struct event_base *base,
					const struct owner_prog *prog,
					const char *dir, uid_t uid, gid_t gid)
{
	struct owner_proc *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->base = base;
	snprintf(p->role, sizeof(p->role), "%s", prog->role);
	p->uid = uid;
	p->gid = gid;
	p->run.pidfd = -1;
	p->report = -1;
	owner_prog_find(prog, dir, p->path, sizeof(p->path), p->looked,
			sizeof(p->looked));
	return p;
}

const char *owner_proc_path(const struct owner_proc *p)
{
	return p->path;
}

const char *owner_proc_looked(const struct owner_proc *p)
{
	return p->looked;
}

pid_t owner_proc_pid(const struct owner_proc *p)
{
	return p->run.pid;
}

int owner_proc_pidfd(const struct owner_proc *p)
{
	return p->run.pidfd;
}

/* In the child: tell the parent which call failed, and end. */
static void child_fail(int report, enum stage stage)
{
	struct report r = {.stage = stage, .err = errno};

	if (write(report, &r, sizeof(r)) < 0)
		_exit(125);
	_exit(stage == STAGE_EXEC ? 127 : 126);
}

/* In the child: 0-2 on /dev/null (2, and 1 if asked, on the stderr pipe
 * if any), the spec's at their numbers. All are moved above the placed
 * numbers first: any may sit where another goes. -1 with errno. */
static int place_fds(const struct owner_spec *s, int null, int errw)
{
	int moved[OWNER_PROC_FDS];

	if ((null = fcntl(null, F_DUPFD, FD_FLOOR)) < 0 ||
	    (errw >= 0 && (errw = fcntl(errw, F_DUPFD, FD_FLOOR)) < 0))
		return -1;
	for (unsigned i = 0; i < s->nfds; i++)
		if ((moved[i] = fcntl(s->fds[i].fd, F_DUPFD, FD_FLOOR)) < 0)
			return -1;
	if (dup2(null, 0) < 0 ||
	    dup2(errw >= 0 && s->stdout_pipe ? errw : null, 1) < 0 ||
	    dup2(errw >= 0 ? errw : null, 2) < 0)
		return -1;
	for (unsigned i = 0; i < s->nfds; i++)
		if (dup2(moved[i], s->fds[i].target) < 0)
			return -1;
	return 0;
}

/* In the child: close all but 0-2, the placed ones and `report`. */
static void close_others(const struct owner_spec *s, int report)
{
	for (int fd = 3; fd <= OWNER_PROC_FD_MAX; fd++) {
		bool placed = false;

		for (unsigned i = 0; i < s->nfds; i++)
			placed = placed || s->fds[i].target == fd;
		if (!placed)
			close(fd);
	}
	close_range(FD_FLOOR, (unsigned)report - 1, 0);
	close_range((unsigned)report + 1, ~0U, 0);
}

/* In the child, in its new network namespace: `lo` up (gate.c does the
 * same on its thread). -1 with errno. */
static int loopback_up(void)
{
	struct ifreq ifr = {.ifr_name = "lo"};
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), rc = -1, err;

	if (fd < 0)
		return -1;
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) == 0) {
		ifr.ifr_flags |= IFF_UP;
		rc = ioctl(fd, SIOCSIFFLAGS, &ifr);
	}
	err = errno;
	close(fd);
	errno = err;
	return rc;
}

/* In the child, between fork and exec: async-signal-safe calls only. */
static void become_owner(const struct owner_proc *p, const struct owner_spec *s,
			 const struct launch *l)
{
	int report;
	sigset_t none;

	/* Ignored stays ignored across exec: until the program sets its
	 * own dispositions, a signal Slurm sends the step (or a user's
	 * --signal, any number) cannot kill it. */
	pmixev_ignore_step_signals();
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if ((report = fcntl(l->report, F_DUPFD_CLOEXEC, FD_FLOOR)) < 0)
		_exit(126);
	/* slurmstepd's main thread drops to the job owner's euid for a while
	 * around task launch (and glibc applies that to every thread): a
	 * child forked then is not root and could not join a cgroup, set the
	 * owner's groups nor make a namespace. Its real and saved uid are
	 * still root; become root again first. */
	if (geteuid() != 0 && (seteuid(0) < 0 || setegid(0) < 0))
		child_fail(report, STAGE_ROOT);
	/* "0": the writer itself (cgroup v1). Root's descriptor, closed
	 * below: the program cannot move anything there. */
	if (s->join_cgroup && write(s->cgroup_procs, "0", 1) != 1)
		child_fail(report, STAGE_CGROUP);
	/* Nothing of slurmstepd's may stay open in the program: a task's
	 * output pipe it held would keep the step's I/O from ending. */
	if (place_fds(s, l->null, l->errw) < 0)
		child_fail(report, STAGE_FDS);
	close_others(s, report);
	if (s->new_netns && unshare(CLONE_NEWNET) < 0)
		child_fail(report, STAGE_NETNS);
	if (s->new_netns && loopback_up() < 0)
		child_fail(report, STAGE_LOOPBACK);
	if (setgroups((size_t)l->ngroups, l->groups) < 0)
		child_fail(report, STAGE_GROUPS);
	if (setgid(p->gid) < 0)
		child_fail(report, STAGE_GID);
	if (setuid(p->uid) < 0)
		child_fail(report, STAGE_UID);
	/* For good: root cannot be regained. */
	if (p->uid != 0 && (setuid(0) == 0 || seteuid(0) == 0)) {
		errno = EPERM;
		child_fail(report, STAGE_KEPT_ROOT);
	}
	if (s->no_new_privs && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		child_fail(report, STAGE_NO_NEW_PRIVS);
	/* After setuid, which clears it. It is tied to the forking thread; a
	 * parent gone before it was set would never send it. */
	if (s->pdeathsig && prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		child_fail(report, STAGE_PDEATHSIG);
	if (s->pdeathsig && getppid() != l->parent) {
		errno = ESRCH;
		child_fail(report, STAGE_ORPHAN);
	}
	execve(p->path, (char *const *)s->argv, (char *const *)l->envp);
	child_fail(report, STAGE_EXEC);
}

static void owner_groups(const struct owner_proc *p, gid_t *groups, int *n)
{
	struct passwd pw, *res = NULL;
	char buf[4096];

	*n = MAX_GROUPS;
	if (getpwuid_r(p->uid, &pw, buf, sizeof(buf), &res) != 0 || !res ||
	    getgrouplist(pw.pw_name, p->gid, groups, n) < 0) {
		/* Unknown user, or too many groups: the primary one only. */
		groups[0] = p->gid;
		*n = 1;
	}
}

int owner_proc_start(struct owner_proc *p, const struct owner_spec *spec,
		     int *err_fd, char *why, size_t len)
{
	gid_t *groups = malloc(MAX_GROUPS * sizeof(*groups));
	struct launch l = {.errw = -1, .groups = groups, .parent = getpid()};
	struct owner_env env;
	int rep[2] = {-1, -1}, errp[2] = {-1, -1}, null = -1, rc = -1;
	pid_t pid;

	if (!groups) {
		snprintf(why, len, "out of memory");
		goto out;
	}
	if (!(l.envp = owner_env_make(&env, spec->envp))) {
		snprintf(why, len, "its environment does not fit");
		goto out;
	}
	owner_groups(p, groups, &l.ngroups);
	if (pipe2(rep, O_CLOEXEC | O_NONBLOCK) < 0 ||
	    (spec->stderr_pipe && (pipe2(errp, O_CLOEXEC) < 0 ||
				   fcntl(errp[0], F_SETFL, O_NONBLOCK) < 0)) ||
	    (null = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0) {
		snprintf(why, len, "cannot make its pipes: %s",
			 strerror(errno));
		goto out;
	}
	l.report = rep[1];
	l.null = null;
	l.errw = errp[1];
	clock_gettime(CLOCK_MONOTONIC, &p->started);
	if ((pid = fork()) == 0)
		become_owner(p, spec, &l);
	if (pid < 0) {
		snprintf(why, len, "fork failed: %s", strerror(errno));
		goto out;
	}
	p->run.pid = pid;
	/* -1 on a kernel without pidfds: then signalled and reaped by pid. */
	p->run.pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	p->report = rep[0];
	rep[0] = -1;
	if (spec->stderr_pipe) {
		*err_fd = errp[0];
		errp[0] = -1;
	}
	PMIXEV_DEBUG(1, "%s %s started as uid %u (pid %d)", p->role, p->path,
		     (unsigned)p->uid, (int)pid);
	rc = 0;
out:
	for (int i = 0; i < 2; i++) {
		if (rep[i] >= 0)
			close(rep[i]);
		if (errp[i] >= 0)
			close(errp[i]);
	}
	if (null >= 0)
		close(null);
	free(groups);
	return rc;
}

/* Reap `c` if it has ended: 1 (and how, into `e`), 0 while it runs, -1
 * when it is not ours to reap any more (Slurm's wait3(-1) reaped it). */
static int child_reap(const struct child *c, struct ending *e)
{
	siginfo_t si = {0};
	int rc;

	if (c->pidfd >= 0)
		rc = waitid((idtype_t)P_PIDFD, (id_t)c->pidfd, &si,
			    WEXITED | WNOHANG);
	else
		rc = waitid(P_PID, (id_t)c->pid, &si, WEXITED | WNOHANG);
	if (rc < 0)
		return -1;
	if (si.si_pid == 0)
		return 0;
	e->signaled = si.si_code != CLD_EXITED;
	e->code = si.si_status;
	return 1;
}

static void child_forget(struct child *c)
{
	if (c->pidfd >= 0)
		close(c->pidfd);
	c->pid = 0;
	c->pidfd = -1;
}

static double since(const struct timespec *t0)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t0->tv_sec) +
	       (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
}

void owner_proc_ended(struct owner_proc *p, char *why, size_t len)
{
	struct report r;
	struct ending e = {0};
	double age = since(&p->started);
	int done = 0;

	/* Its channel closes as it exits: give the kernel a moment (20 ms at
	 * most, on this rare path) to make it a zombie with a status. */
	for (int i = 0; p->run.pid && i < 20; i++) {
		if ((done = child_reap(&p->run, &e)) != 0)
			break;
		nanosleep(&(struct timespec){0, 1000 * 1000}, NULL);
	}

	if (p->report >= 0 && read(p->report, &r, sizeof(r)) == sizeof(r) &&
	    r.stage >= STAGE_FDS && r.stage <= STAGE_EXEC)
		snprintf(why, len, "%s as uid %u: %s", stage_names[r.stage],
			 (unsigned)p->uid, strerror(r.err));
	else if (done == 1 && e.signaled)
		snprintf(why, len,
			 "it was killed by signal %d (%s) %.3f s "
			 "after it started",
			 e.code, strsignal(e.code), age);
	else if (done == 1)
		snprintf(why, len,
			 "it exited with status %d %.3f s after it "
			 "started",
			 e.code, age);
	else
		snprintf(why, len,
			 "it closed its channel %.3f s after it "
			 "started",
			 age);
	if (done != 0)
		child_forget(&p->run);
	owner_proc_stop(p);
}

/* Reap what can be reaped; true if corpses are left. */
static bool reap_corpses(struct owner_proc *p, bool last)
{
	struct ending e;
	bool left = false;

	for (size_t i = 0; i < MAX_CORPSES; i++) {
		struct child *c = &p->corpses[i].c;

		if (!c->pid)
			continue;
		if (child_reap(c, &e) != 0) {
			child_forget(c);
			continue;
		}
		if (last || ++p->corpses[i].ticks >= REAP_TICKS) {
			PMIXEV_ERROR("%s (pid %d) cannot be reaped (traced?); "
				     "it is left to init",
				     p->role, (int)c->pid);
			child_forget(c);
			continue;
		}
		left = true;
	}
	return left;
}

static void on_reap(evutil_socket_t fd, short what, void *arg)
{
	struct owner_proc *p = arg;
	struct timeval tick = {0, REAP_TICK_MS * 1000};

	if (reap_corpses(p, false))
		evtimer_add(p->reap, &tick);
}

/* It may hang or be stopped: SIGKILL (through its pidfd, never to a pid
 * reused after Slurm reaped it), and reap it from the event loop, never
 * waiting here. */
static void bury(struct owner_proc *p, struct child *c)
{
	struct timeval tick = {0, REAP_TICK_MS * 1000};
	struct ending e;
	size_t i;

	if (c->pidfd >= 0)
		syscall(SYS_pidfd_send_signal, c->pidfd, SIGKILL, NULL, 0);
	else
		kill(c->pid, SIGKILL);
	if (child_reap(c, &e) != 0) {
		child_forget(c);
		return;
	}
	for (i = 0; i < MAX_CORPSES && p->corpses[i].c.pid; i++)
		;
	if (i == MAX_CORPSES ||
	    (!p->reap && !(p->reap = evtimer_new(p->base, on_reap, p)))) {
		PMIXEV_ERROR("%s (pid %d) not reaped: too many unreaped "
			     "ones; it is left to init",
			     p->role, (int)c->pid);
		child_forget(c);
		return;
	}
	p->corpses[i].c = *c;
	p->corpses[i].ticks = 0;
	c->pid = 0;
	c->pidfd = -1;
	evtimer_add(p->reap, &tick);
}

void owner_proc_stop(struct owner_proc *p)
{
	if (p->report >= 0)
		close(p->report);
	p->report = -1;
	if (p->run.pid > 0)
		bury(p, &p->run);
}

void owner_proc_destroy(struct owner_proc *p)
{
	if (!p)
		return;
	owner_proc_stop(p);
	for (int i = 0; i < 20 && reap_corpses(p, false); i++)
		nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
	reap_corpses(p, true);
	if (p->reap)
		event_free(p->reap);
	free(p);
}
