/*
 * srun/spawn_proc.c - one child srun of a spawn (see spawn_proc.h).
 */
#include "config.h"

#include "srun/spawn_proc.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ownerhelper/owner_prog.h"
#include "pmixev_log.h"

#define TAIL_LINES 4
#define LINE_MAX_  256
#define LIVE_MAX   64 /* child sruns signalled at the end */

extern char **environ;

static const struct owner_prog exec_prog = {
	.role = "spawn launcher",
	.name = "pmixev-exec",
	.env_var = NULL,
	.installed = PMIXEV_EXEC_PATH,
};

struct spawn_proc {
	pid_t pid;
	bool reaped;
	int err_fd;
	struct event *err_ev;
	char partial[LINE_MAX_]; /* a line not ended yet */
	size_t npartial;
	char tail[TAIL_LINES][LINE_MAX_]; /* the last "error:" lines */
	unsigned ntail;
	char cmdline[512];
};

/* The pids to signal at the end: srun's main thread reads them. */
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t live[LIVE_MAX];

static void live_set(pid_t old, pid_t pid)
{
	pthread_mutex_lock(&live_lock);
	for (unsigned i = 0; i < LIVE_MAX; i++)
		if (live[i] == old) {
			live[i] = pid;
			break;
		}
	pthread_mutex_unlock(&live_lock);
}

void spawn_proc_signal_all(int sig)
{
	pthread_mutex_lock(&live_lock);
	for (unsigned i = 0; i < LIVE_MAX; i++)
		if (live[i] > 0)
			kill(live[i], sig);
	pthread_mutex_unlock(&live_lock);
}

static void keep_line(struct spawn_proc *p, const char *line)
{
	if (!strstr(line, "error:"))
		return;
	if (p->ntail == TAIL_LINES) {
		memmove(p->tail[0], p->tail[1], sizeof(p->tail[0]) * 3);
		p->ntail--;
	}
	snprintf(p->tail[p->ntail++], LINE_MAX_, "%s", line);
}

/* The child srun's stderr: copied to ours line by line. */
static void on_err(evutil_socket_t fd, short what, void *arg)
{
	struct spawn_proc *p = arg;
	char buf[4096];
	ssize_t n = read(fd, buf, sizeof(buf));

	(void)what;
	if (n <= 0) {
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		event_del(p->err_ev);
		return;
	}
	for (ssize_t i = 0; i < n; i++) {
		if (buf[i] != '\n' && p->npartial < LINE_MAX_ - 1) {
			p->partial[p->npartial++] = buf[i];
			continue;
		}
		if (buf[i] != '\n')
			continue; /* the rest of a long line */
		p->partial[p->npartial] = '\0';
		fprintf(stderr, "%s\n", p->partial);
		keep_line(p, p->partial);
		p->npartial = 0;
	}
}

/* srun's own executable, and pmixev-exec for several apps. */
static int find_paths(struct pmixev_spawn_ctx *ctx, char *srun, size_t slen,
		      char *exec, size_t elen, char *err, size_t errlen)
{
	char dir[512], looked[1024];
	ssize_t n = readlink("/proc/self/exe", srun, slen - 1);

	if (n <= 0) {
		snprintf(err, errlen, "cannot tell srun's own path: %s",
			 strerror(errno));
		return -1;
	}
	srun[n] = '\0';
	ctx->srun = srun;
	ctx->exec = NULL;
	if (owner_prog_find(&exec_prog,
			    owner_prog_plugin_dir(dir, sizeof(dir)) ? dir
								    : NULL,
			    exec, elen, looked, sizeof(looked)))
		ctx->exec = exec;
	return 0;
}

static void format_cmdline(struct spawn_proc *p, char *const *argv)
{
	size_t off = 0;

	for (; *argv && off < sizeof(p->cmdline) - 1; argv++)
		off += (size_t)snprintf(p->cmdline + off,
					sizeof(p->cmdline) - off, "%s%s",
					off ? " " : "", *argv);
}

/* argv, env (with the hub's fd) and the process. */
static int do_spawn(struct spawn_proc *p, const struct pmixev_pmixd_spawn *m,
		    const struct pmixev_spawn_ctx *ctx, int child_hub,
		    int err_w, char *err, size_t errlen)
{
	char **argv = pmixev_spawn_argv(m, ctx, err, errlen), **env = NULL;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	sigset_t none, all;
	char fdvar[48];
	size_t n = 0;
	int rc = -1;

	if (!argv || !(env = pmixev_spawn_env(m, ctx, environ, err, errlen)))
		goto out;
	while (env[n])
		n++;
	snprintf(fdvar, sizeof(fdvar), "%s=%d", PMIXEV_SPAWN_FD_ENV, child_hub);
	{
		char **grown = realloc(env, (n + 2) * sizeof(*env));

		if (!grown || !(grown[n] = strdup(fdvar))) {
			env = grown ? grown : env;
			snprintf(err, errlen, "out of memory");
			goto out;
		}
		env = grown;
		env[n + 1] = NULL;
	}
	format_cmdline(p, argv);
	sigemptyset(&none);
	sigfillset(&all);
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&at);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, err_w, 2);
	/* dup2 onto itself clears close-on-exec: the child keeps it. */
	posix_spawn_file_actions_adddup2(&fa, child_hub, child_hub);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setsigdefault(&at, &all);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK |
					      POSIX_SPAWN_SETSIGDEF);
	rc = posix_spawn(&p->pid, argv[0], &fa, &at, argv, env);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&at);
	if (rc != 0) {
		snprintf(err, errlen, "cannot start %s: %s", argv[0],
			 strerror(rc));
		rc = -1;
	}
out:
	pmixev_spawn_strv_free(argv);
	pmixev_spawn_strv_free(env);
	return rc;
}

struct spawn_proc *spawn_proc_start(struct event_base *base,
				    const struct pmixev_pmixd_spawn *m,
				    struct pmixev_spawn_ctx *ctx, int *hub_fd,
				    char *err, size_t errlen)
{
	struct spawn_proc *p = calloc(1, sizeof(*p));
	char srun[512], exec[512];
	int sv[2] = {-1, -1}, ep[2] = {-1, -1};

	if (!p) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	p->err_fd = -1;
	if (find_paths(ctx, srun, sizeof(srun), exec, sizeof(exec), err,
		       errlen) < 0)
		goto fail;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0 ||
	    pipe2(ep, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "cannot make the child srun's links: %s",
			 strerror(errno));
		goto fail;
	}
	if (do_spawn(p, m, ctx, sv[1], ep[1], err, errlen) < 0)
		goto fail;
	live_set(0, p->pid);
	close(sv[1]);
	close(ep[1]);
	p->err_fd = ep[0];
	evutil_make_socket_nonblocking(p->err_fd);
	evutil_make_socket_nonblocking(sv[0]);
	if ((p->err_ev = event_new(base, p->err_fd, EV_READ | EV_PERSIST,
				   on_err, p)))
		event_add(p->err_ev, NULL);
	*hub_fd = sv[0];
	return p;
fail:
	for (int i = 0; i < 2; i++) {
		if (sv[i] >= 0)
			close(sv[i]);
		if (ep[i] >= 0)
			close(ep[i]);
	}
	free(p);
	return NULL;
}

const char *spawn_proc_cmdline(const struct spawn_proc *p)
{
	return p->cmdline;
}

bool spawn_proc_reaped(struct spawn_proc *p, int *st)
{
	pid_t r;

	if (p->reaped)
		return true;
	r = waitpid(p->pid, st, WNOHANG);
	if (r == 0)
		return false;
	if (r < 0) /* reaped by someone else: its status is lost */
		*st = 0;
	p->reaped = true;
	live_set(p->pid, 0);
	/* What it wrote last is read before its reason is told. */
	if (p->err_ev)
		on_err(p->err_fd, EV_READ, p);
	return true;
}

void spawn_proc_reason(const struct spawn_proc *p, int st, char *buf,
		       size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < p->ntail && off < len - 1; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s",
					off ? "; " : "", p->tail[i]);
	if (off)
		return;
	if (WIFSIGNALED(st))
		snprintf(buf, len, "the child srun was killed by signal %d",
			 WTERMSIG(st));
	else
		snprintf(buf, len,
			 "the child srun exited with status %d before its "
			 "step was ready",
			 WEXITSTATUS(st));
}

static bool said(const struct spawn_proc *p, const char *text)
{
	for (unsigned i = 0; i < p->ntail; i++)
		if (strstr(p->tail[i], text))
			return true;
	return false;
}

enum pmixev_spawn_state spawn_proc_state(const struct spawn_proc *p)
{
	if (said(p, "denied"))
		return PMIXEV_SPAWN_DENIED;
	if (said(p, "Invalid job id") || said(p, "does not exist"))
		return PMIXEV_SPAWN_NO_JOB;
	if (said(p, "Unable to create step") || said(p, "are busy"))
		return PMIXEV_SPAWN_BUSY;
	return PMIXEV_SPAWN_FAILED;
}

void spawn_proc_signal(struct spawn_proc *p, int sig)
{
	if (p && !p->reaped)
		kill(p->pid, sig);
}

void spawn_proc_destroy(struct spawn_proc *p)
{
	if (!p)
		return;
	if (p->err_ev)
		event_free(p->err_ev);
	if (p->err_fd >= 0)
		close(p->err_fd);
	if (!p->reaped)
		live_set(p->pid, 0);
	free(p);
}
