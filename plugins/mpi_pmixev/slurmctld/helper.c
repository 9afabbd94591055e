/*
 * slurmctld/helper.c - starting the owner helper and talking to it.
 */
#include "config.h"

#include "slurmctld/helper.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "base/agent.h"
#include "pmixev_log.h"

#define HELPER_FD  3
#define MAX_GROUPS 1024
/* Longest wait for an answer: a Slurm call retries for a few of Slurm's
 * MessageTimeout (default 10 s); a helper silent longer is stuck. */
#define ANSWER_DEADLINE_SEC 30
/* A stopped helper gets SIGKILL at once; it is reaped from the event loop
 * (a helper the job's user traces could never be waited for). */
#define REAP_TICK_MS 100
#define REAP_TICKS   100 /* then it is left to init */
#define MAX_CORPSES  8

struct helper {
	struct agent *agent;
	const struct layout *lay;
	char path[512];	     /* the helper */
	char conf_env[600];  /* "SLURM_CONF=..." for the helper, or "" */
	int fd;		     /* our end, or -1 */
	pid_t pid;	     /* the helper, or 0 */
	struct event *ev;    /* readable fd */
	struct event *late;  /* the answer's deadline */
	uint32_t next_id;    /* of the next request */
	uint32_t pending_id; /* 0: none in flight */
	uint8_t pending_op;
	helper_fn fn;
	void *arg;
	uint8_t in[PMIXEV_OWNER_MSG_MAX]; /* the answer being read */
	struct pmixev_owner_resp resp;	  /* ... and decoded */
	struct event *reap;		  /* ticks while corpses are left */
	struct {
		pid_t pid;
		unsigned ticks;
	} corpses[MAX_CORPSES];
};

struct helper *helper_create(const struct step *s)
{
	const char *slurm_conf = s->slurm_conf;
	struct helper *o = calloc(1, sizeof(*o));
	const char *path = getenv("PMIXEV_OWNER_HELPER");

	if (!o)
		return NULL;
	o->agent = s->agent;
	o->lay = &s->lay;
	o->fd = -1;
	snprintf(o->path, sizeof(o->path), "%s",
		 path && *path ? path : PMIXEV_OWNER_HELPER_PATH);
	if (slurm_conf && *slurm_conf)
		snprintf(o->conf_env, sizeof(o->conf_env), "SLURM_CONF=%s",
			 slurm_conf);
	return o;
}

/* Reap what can be reaped; 1 if corpses are left. */
static int reap_corpses(struct helper *o, bool last)
{
	int left = 0;

	for (size_t i = 0; i < MAX_CORPSES; i++) {
		pid_t pid = o->corpses[i].pid;

		if (!pid)
			continue;
		if (waitpid(pid, NULL, WNOHANG) != 0) { /* or ECHILD */
			o->corpses[i].pid = 0;
			continue;
		}
		if (last || ++o->corpses[i].ticks >= REAP_TICKS) {
			PMIXEV_ERROR("owner helper (pid %d) cannot be reaped "
				     "(traced?); it is left to init",
				     (int)pid);
			o->corpses[i].pid = 0;
			continue;
		}
		left = 1;
	}
	return left;
}

static void on_reap(evutil_socket_t fd, short what, void *arg)
{
	struct helper *o = arg;
	struct timeval tick = {0, REAP_TICK_MS * 1000};

	if (reap_corpses(o, false))
		evtimer_add(o->reap, &tick);
}

/* It exits on EOF, but may hang in a Slurm call or be stopped: SIGKILL,
 * and reap it from the event loop, never waiting here. */
static void bury(struct helper *o, pid_t pid)
{
	struct timeval tick = {0, REAP_TICK_MS * 1000};
	size_t i;

	kill(pid, SIGKILL);
	if (waitpid(pid, NULL, WNOHANG) != 0)
		return;
	for (i = 0; i < MAX_CORPSES && o->corpses[i].pid; i++)
		;
	if (i == MAX_CORPSES ||
	    (!o->reap &&
	     !(o->reap = evtimer_new(agent_base(o->agent), on_reap, o)))) {
		PMIXEV_ERROR("owner helper (pid %d) not reaped: too many "
			     "unreaped helpers; it is left to init",
			     (int)pid);
		return;
	}
	o->corpses[i].pid = pid;
	o->corpses[i].ticks = 0;
	evtimer_add(o->reap, &tick);
}

static void stop_helper(struct helper *o)
{
	if (o->ev) {
		event_free(o->ev);
		o->ev = NULL;
	}
	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
	if (o->pid > 0)
		bury(o, o->pid);
	o->pid = 0;
}

/* The answer to the request in flight (NULL: there will be none). */
static void answer(struct helper *o, const struct pmixev_owner_resp *resp)
{
	helper_fn fn = o->fn;

	o->pending_id = 0;
	o->fn = NULL;
	evtimer_del(o->late);
	if (fn)
		fn(o->arg, resp);
}

static void on_late(evutil_socket_t fd, short what, void *arg)
{
	struct helper *o = arg;

	PMIXEV_ERROR("owner helper: no answer in %d s; restarting it for the "
		     "next request",
		     ANSWER_DEADLINE_SEC);
	stop_helper(o);
	answer(o, NULL);
}

static void on_readable(evutil_socket_t fd, short what, void *arg)
{
	struct helper *o = arg;
	struct pmixev_owner_resp *resp = &o->resp;
	struct pmixev_buf b;
	ssize_t n = recv(fd, o->in, sizeof(o->in), MSG_DONTWAIT);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	pmixev_buf_reader(&b, o->in, n > 0 ? (size_t)n : 0);
	if (n == 0 && !o->pending_id) {
		/* Killed with the step's processes at its end, most likely. */
		PMIXEV_DEBUG(1, "owner helper exited");
		stop_helper(o);
		return;
	}
	if (n <= 0) {
		/* Slurm kills it with the step's processes at the end. */
		PMIXEV_DEBUG(1,
			     "owner helper: %s; a new one starts with the "
			     "next request",
			     n == 0 ? "it exited" : strerror(errno));
		stop_helper(o);
		answer(o, NULL);
		return;
	}
	if (pmixev_owner_resp_unpack(&b, resp) < 0 ||
	    resp->id != o->pending_id || resp->op != o->pending_op) {
		PMIXEV_ERROR("owner helper: malformed or unexpected answer; "
			     "restarting it for the next request");
		stop_helper(o);
		answer(o, NULL);
		return;
	}
	answer(o, resp);
}

/* In the child, between fork and exec: async-signal-safe calls only. */
static void become_owner(const struct helper *o, int fd, int null,
			 const gid_t *groups, int ngroups, char *const envp[])
{
	const struct layout *lay = o->lay;
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* Nothing of slurmstepd's may stay open in the helper: a task's
	 * output pipe it held would keep the step's I/O from ending. */
	/* (both moved above 0..3 first: either may sit where the other
	 * goes) */
	if ((fd = fcntl(fd, F_DUPFD, 10)) < 0 ||
	    (null = fcntl(null, F_DUPFD, 10)) < 0)
		_exit(126);
	for (int i = 0; i < 3; i++)
		if (dup2(null, i) < 0)
			_exit(126);
	if (dup2(fd, HELPER_FD) < 0)
		_exit(126);
	close_range(HELPER_FD + 1, ~0U, 0);
	if (setgroups((size_t)ngroups, groups) < 0 || setgid(lay->gid) < 0 ||
	    setuid(lay->uid) < 0)
		_exit(126);
	/* For good: root cannot be regained. */
	if (lay->uid != 0 && (setuid(0) == 0 || seteuid(0) == 0))
		_exit(126);
	execle(o->path, "pmixev-owner", "3", (char *)NULL, envp);
	_exit(127);
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

static int start_helper(struct helper *o)
{
	gid_t *groups = malloc(MAX_GROUPS * sizeof(*groups));
	char *envp[3] = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL, NULL};
	int sv[2] = {-1, -1}, ngroups = 0, null = -1;

	if (o->conf_env[0])
		envp[1] = o->conf_env;
	if (!groups)
		goto fail;
	owner_groups(o->lay, groups, &ngroups);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0 ||
	    (null = open("/dev/null", O_RDWR | O_CLOEXEC)) < 0)
		goto fail;
	o->pid = fork();
	if (o->pid == 0)
		become_owner(o, sv[1], null, groups, ngroups, envp);
	close(null);
	null = -1;
	if (o->pid < 0)
		goto fail;
	close(sv[1]);
	sv[1] = -1;
	o->fd = sv[0];
	o->ev = event_new(agent_base(o->agent), o->fd, EV_READ | EV_PERSIST,
			  on_readable, o);
	if (!o->ev || event_add(o->ev, NULL) < 0)
		goto fail;
	free(groups);
	PMIXEV_DEBUG(1, "owner helper %s started as uid %u (pid %d)", o->path,
		     (unsigned)o->lay->uid, (int)o->pid);
	return 0;
fail:
	PMIXEV_ERROR("cannot start the owner helper %s: %m", o->path);
	if (null >= 0)
		close(null);
	if (sv[1] >= 0)
		close(sv[1]);
	if (o->fd < 0 && sv[0] >= 0)
		close(sv[0]);
	stop_helper(o);
	free(groups);
	return -1;
}

int helper_request(struct helper *o, enum pmixev_owner_op op, helper_fn fn,
		   void *arg)
{
	struct pmixev_owner_req req = {.op = (uint8_t)op,
				       .job_id = o->lay->step.job_id};
	struct timeval deadline = {ANSWER_DEADLINE_SEC, 0};
	struct pmixev_buf b;
	int rc = -1;

	if (!o->late &&
	    !(o->late = evtimer_new(agent_base(o->agent), on_late, o)))
		return -1;
	if (o->pending_id || (o->fd < 0 && start_helper(o) < 0))
		return -1;
	req.id = ++o->next_id ? o->next_id : ++o->next_id;
	pmixev_buf_init(&b);
	if (pmixev_owner_req_pack(&b, &req) == 0 &&
	    send(o->fd, b.data, b.len, MSG_NOSIGNAL | MSG_DONTWAIT) ==
		    (ssize_t)b.len) {
		o->pending_id = req.id;
		o->pending_op = req.op;
		o->fn = fn;
		o->arg = arg;
		evtimer_add(o->late, &deadline);
		rc = 0;
	} else {
		PMIXEV_ERROR("owner helper: cannot send a request: %m");
		stop_helper(o);
	}
	pmixev_buf_release(&b);
	return rc;
}

void helper_destroy(struct helper *o)
{
	if (!o)
		return;
	stop_helper(o);
	/* The step ends: a killed helper gets a moment (0.2 s at most) to
	 * be reaped before it is left to init. */
	for (int i = 0; i < 20 && reap_corpses(o, false); i++)
		nanosleep(&(struct timespec){0, 10 * 1000 * 1000}, NULL);
	reap_corpses(o, true);
	if (o->reap)
		event_free(o->reap);
	if (o->late)
		event_free(o->late);
	free(o);
}
