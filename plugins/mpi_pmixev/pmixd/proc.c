/*
 * pmixd/proc.c - the PMIx server process from root's side (see proc.h).
 */
#include "config.h"

#include "pmixd/proc.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "slurm_compat.h"

#include "base/agent.h"
#include "gate/gate_doors.h"
#include "ownerhelper/owner_proc.h"
#include "pmixd/chan.h"
#include "pmixd/logpipe.h"
#include "pmixd/toolsdir.h"
#include "pmixev_bridge.h"
#include "pmixev_fsafe.h"
#include "pmixev_log.h"
#include "pmix_guard.h"
#include "pmixev_pmixd_start.h"

#define PROG_NAME      "pmixev-pmixd"
#define READY_WAIT_MAX 30 /* seconds */
#define END_WAIT_MS    2000
/* How often root looks whether the process is stopped: one waitid a
 * look; stopped on two looks in a row, it is ended (0.25-0.5 s after). */
#define WATCH_MS    250
#define WATCH_LOOKS 2

/* glibc before 2.36 does not name it (Linux 5.4). */
#ifndef P_PIDFD
#define P_PIDFD 3
#endif

static const struct owner_prog prog = {
	.role = "PMIx server process",
	.name = PROG_NAME,
	.env_var = "PMIXEV_PMIXD",
	.installed = PMIXEV_PMIXD_PATH,
};

struct pmixd_proc {
	struct step *s;
	struct owner_proc *op;
	struct logpipe *log;
	int rundir;	  /* PMIXEV_RUN_DIR, or -1 */
	char name[128];	  /* "CLUSTER.J.S.NODE" in it, the owner's */
	char dir[640];	  /* its path: the tasks' and tools' directory */
	char srvdir[700]; /* dir/srv: the library's rendezvous files */
	bool dir_made;
	struct pmixev_pmixd_ready ready;
	char **vars; /* the last task's variables (pmixd_proc_task_vars) */
	/* Is it stopped (pmixd_proc_watch)? Agent thread. */
	struct event *watch;
	pmixd_stop_fn stop_ends;
	void *stop_ctx;
	unsigned stopped_looks; /* in a row */
	bool stopped_said;	/* "left alone" logged for this stop */
	int killed_sig;		/* the stop signal root killed it for, or 0 */
	int end_fd; /* a pidfd of its own, for the main thread (or -1) */
};

struct pmixd_proc *pmixd_proc_create(struct step *s)
{
	struct pmixd_proc *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->s = s;
	p->rundir = -1;
	p->end_fd = -1;
	if (!(p->op = owner_proc_create(agent_base(s->agent), &prog, s->lay.uid,
					s->lay.gid))) {
		free(p);
		return NULL;
	}
	return p;
}

/* A new directory `name` of the owner in the run directory, with `subs`
 * (NULL-terminated) in it. 0, or -1 with errno. */
static int owner_dir(struct pmixd_proc *p, const char *name,
		     const char *const *subs)
{
	const struct layout *lay = &p->s->lay;
	int fd = pmixev_fsafe_mkdir_new(p->rundir, name, 0700), rc = -1;

	if (fd < 0)
		return -1;
	for (; *subs; subs++) {
		int sub = pmixev_fsafe_mkdir_new(fd, *subs, 0700);

		if (sub < 0)
			goto out;
		close(sub);
		if (pmixev_fsafe_give(fd, *subs, lay->uid, lay->gid, 0700) < 0)
			goto out;
	}
	rc = pmixev_fsafe_give(p->rundir, name, lay->uid, lay->gid, 0700);
out:
	close(fd);
	return rc;
}

/* Remove what a killed stepd of this step left under `suffix`. */
static int remove_stale(struct pmixd_proc *p, const char *suffix)
{
	char name[sizeof(p->name) + 8];
	struct stat st;

	snprintf(name, sizeof(name), "%s%s", p->name, suffix);
	if (fstatat(p->rundir, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return 0;
	return pmixev_fsafe_remove_tree(p->rundir, name);
}

/*
 * The owner's directories, new: NAME for the tasks (tmp, ns) and the
 * owner's tools, NAME.lib for the library's own rendezvous files (out of
 * the tools' way: they name its port in its private network).
 */
static int make_dir(struct pmixd_proc *p, char *why, size_t len)
{
	static const char *const task_subs[] = {"tmp", "ns", NULL},
				 *const no_subs[] = {NULL};
	const struct layout *lay = &p->s->lay;
	char lib[sizeof(p->name) + 8];

	if (pmixev_step_dir_name(
		    p->name, sizeof(p->name) - 8,
		    slurm_conf.cluster_name ? slurm_conf.cluster_name : "",
		    lay->step.job_id, lay->step.step_id, lay->step.node) < 0) {
		snprintf(why, len,
			 "the cluster and node names are too long "
			 "for a directory name");
		return -1;
	}
	snprintf(lib, sizeof(lib), "%s.lib", p->name);
	snprintf(p->dir, sizeof(p->dir), "%s/%s", PMIXEV_RUN_DIR, p->name);
	snprintf(p->srvdir, sizeof(p->srvdir), "%s/%s", PMIXEV_RUN_DIR, lib);
	if ((p->rundir = pmixev_fsafe_root_dir(PMIXEV_RUN_DIR,
					       PMIXEV_RUN_MODE)) < 0) {
		snprintf(why, len,
			 "%s must be a directory of root that only root can "
			 "write: %s",
			 PMIXEV_RUN_DIR, strerror(errno));
		return -1;
	}
	/* Left by a killed stepd of this step: their files would mislead. */
	p->dir_made = true;
	if (remove_stale(p, "") < 0 || remove_stale(p, ".lib") < 0 ||
	    remove_stale(p, ".srv") < 0 ||
	    owner_dir(p, p->name, task_subs) < 0 ||
	    owner_dir(p, lib, no_subs) < 0) {
		snprintf(why, len,
			 "cannot make %s and %s for the job owner: %s", p->dir,
			 p->srvdir, strerror(errno));
		return -1;
	}
	return 0;
}

/* Send START: the step, its settings, the directories, the binding. */
static int send_start(struct pmixd_proc *p, int fd, uint32_t bind_type,
		      const char *bind_list, int ms)
{
	const struct pmixev_conf *c = &p->s->conf;
	struct pmixev_pmixd_start m = {0};
	struct pmixev_buf b;
	int rc;

	layout_to_start(&p->s->lay, &m);
	snprintf(m.server_dir, sizeof(m.server_dir), "%s", p->srvdir);
	snprintf(m.task_dir, sizeof(m.task_dir), "%s", p->dir);
	m.event_cache = c->event_cache;
	m.timeout_sec = c->timeout_sec;
	m.event_kib = c->event_kib;
	m.debug = c->debug;
	m.event_cache_mib = c->event_cache_mib;
	m.publish_mib = c->publish_mib;
	m.log_rate = c->log_rate;
	m.gds = c->gds;
	m.spawn = c->spawn;
	m.bind_type = bind_type;
	snprintf(m.bind_list, sizeof(m.bind_list), "%s",
		 bind_list ? bind_list : "");
	pmixev_buf_init(&b);
	chan_frame_begin(&b);
	rc = pmixev_pmixd_start_pack(&b, &m) < 0
		     ? -1
		     : chan_write_frame(fd, PMIXEV_PMIXD_START, &b, ms);
	pmixev_buf_release(&b);
	return rc;
}

/* READY, checked with the step's bounds. 0, or -1 with `why`. */
static int wait_ready(struct pmixd_proc *p, int fd, uint16_t port, int ms,
		      char *why, size_t len)
{
	const char *bad = NULL;
	struct pmixev_buf r;
	uint8_t type = 0, *body = NULL;
	uint32_t n = 0;
	int rc = -1;

	if (chan_read_frame(fd, PMIXEV_PMIXD_FROM_OWNER, ms, &type, &body, &n,
			    &bad) < 0) {
		snprintf(why, len, "no READY: %s", bad ? bad : strerror(errno));
		return -1;
	}
	pmixev_buf_reader(&r, body, n);
	if (type != PMIXEV_PMIXD_READY ||
	    pmixev_pmixd_ready_unpack(&r, &p->s->pmixd_lim, &p->ready) < 0)
		snprintf(why, len, "its first message is not a valid READY");
	else if (p->ready.status != PMIXEV_OK)
		snprintf(why, len, "its PMIx server did not start");
	else if (p->ready.gate_port != port)
		snprintf(why, len, "READY names port %u, not its gate's %u",
			 (unsigned)p->ready.gate_port, (unsigned)port);
	else
		rc = 0;
	free(body);
	return rc;
}

/*
 * "LD_PRELOAD=" the PMIx query guard (pmixbase/guard.h): beside this
 * plugin, else where `make install` put it. False if it is in neither.
 */
static bool guard_path(char *env, size_t len)
{
	char dir[512];
	struct stat st;
	Dl_info dl = {0};

	if (dladdr((void *)pmixd_proc_create, &dl) && dl.dli_fname &&
	    dl.dli_fname[0] == '/') {
		snprintf(dir, sizeof(dir), "%s", dl.dli_fname);
		snprintf(env, len, "LD_PRELOAD=%s/" PMIXEV_PMIX_GUARD_FILE,
			 dirname(dir));
		if (stat(env + 11, &st) == 0 && S_ISREG(st.st_mode))
			return true;
	}
	snprintf(env, len, "LD_PRELOAD=%s", PMIXEV_PMIX_GUARD_PATH);
	return stat(env + 11, &st) == 0 && S_ISREG(st.st_mode);
}

/* Start the program with its descriptors; its stderr into the log. */
static int launch(struct pmixd_proc *p, int chan,
		  const struct pmix_gate_doors *d, char *why, size_t len)
{
	static const char *const argv[] = {PROG_NAME, NULL};
	const char *envp[] = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL, NULL};
	char preload[600];
	struct owner_spec spec = {.argv = argv,
				  .envp = envp,
				  .stderr_pipe = true,
				  .new_netns = true,
				  .no_new_privs = true,
				  .pdeathsig = true};
	int err_fd = -1;

	/* The query guard first in the program's symbol scope: before
	 * libpmix, which an executable's own dlopen cannot precede. */
	if (guard_path(preload, sizeof(preload)))
		envp[1] = preload;
	if (owner_spec_place(&spec, chan, 3) < 0 ||
	    owner_spec_place(&spec, d->listen_fd, 4) < 0 ||
	    (d->sockdiag_fd >= 0 &&
	     owner_spec_place(&spec, d->sockdiag_fd, 5) < 0) ||
	    (d->tcp_fd >= 0 && owner_spec_place(&spec, d->tcp_fd, 6) < 0) ||
	    (d->tcp6_fd >= 0 && owner_spec_place(&spec, d->tcp6_fd, 7) < 0)) {
		snprintf(why, len, "cannot place its descriptors");
		return -1;
	}
	if (owner_proc_start(p->op, &spec, &err_fd, why, len) < 0) {
		char said[256];

		snprintf(said, sizeof(said), "%s", why);
		snprintf(why, len, "%s: %s (looked for it in: %s)",
			 owner_proc_path(p->op), said,
			 owner_proc_looked(p->op));
		return -1;
	}
	p->log = logpipe_create(agent_base(p->s->agent), err_fd);
	return 0;
}

int pmixd_proc_start(struct pmixd_proc *p, uint32_t bind_type,
		     const char *bind_list, int *chan_fd, char *why, size_t len)
{
	unsigned wait = p->s->conf.timeout_sec;
	struct pmix_gate_doors doors;
	int fds[2] = {-1, -1}, ms, rc = -1;
	char ended[256];

	ms = (int)(wait && wait < READY_WAIT_MAX ? wait : READY_WAIT_MAX) *
	     1000;
	if (make_dir(p, why, len) < 0)
		return -1;
	if (pmix_gate_doors_create(&doors) < 0) {
		snprintf(why, len, "cannot open the gate's doors (logged)");
		return -1;
	}
	if (chan_socketpair(fds) < 0) {
		snprintf(why, len, "cannot make its channel: %s",
			 strerror(errno));
		goto out;
	}
	if (launch(p, fds[1], &doors, why, len) < 0)
		goto out;
	/* Its end is its own now: its exit ends the channel at once. */
	close(fds[1]);
	fds[1] = -1;
	if (send_start(p, fds[0], bind_type, bind_list, ms) < 0)
		snprintf(why, len, "cannot send START: %s", strerror(errno));
	else if (wait_ready(p, fds[0], doors.port, ms, why, len) == 0)
		rc = 0;
	if (rc < 0) {
		char said[256];

		owner_proc_ended(p->op, ended, sizeof(ended));
		snprintf(said, sizeof(said), "%s", why);
		snprintf(why, len, "%s: %s; %s (looked for it in: %s)",
			 owner_proc_path(p->op), said, ended,
			 owner_proc_looked(p->op));
		goto out;
	}
	/* The main thread's own: the agent closes owner_proc's at the end. */
	if (owner_proc_pidfd(p->op) >= 0)
		p->end_fd = fcntl(owner_proc_pidfd(p->op), F_DUPFD_CLOEXEC, 0);
	PMIXEV_DEBUG(1, "PMIx server process %s started as uid %u",
		     owner_proc_path(p->op), (unsigned)p->s->lay.uid);
	/* Without it root's tools do not find the server; the step runs. */
	if (toolsdir_make(p->rundir, p->name, &p->s->lay, doors.port,
			  owner_proc_pid(p->op), ended, sizeof(ended)) < 0)
		PMIXEV_ERROR("%s", ended);
	*chan_fd = fds[0];
	fds[0] = -1;
out:
	if (rc < 0)
		owner_proc_stop(p->op);
	for (int i = 0; i < 2; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	pmix_gate_doors_close(&doors);
	return rc;
}

/* "NS_META_SEG_SIZE=N" or "NS_DATA_SEG_SIZE=N", N decimal digits. */
static bool ds_size_var(const char *var)
{
	const char *v;

	if (strncmp(var, "NS_META_SEG_SIZE=", 17) != 0 &&
	    strncmp(var, "NS_DATA_SEG_SIZE=", 17) != 0)
		return false;
	v = var + 17;
	if (!*v || strlen(v) > 12)
		return false;
	return strspn(v, "0123456789") == strlen(v);
}

int pmixd_proc_task_vars(struct pmixd_proc *p, uint32_t rank, char ***vars)
{
	for (uint32_t i = 0; i < p->ready.nenv; i++) {
		const struct pmixev_pmixd_env *e = &p->ready.env[i];
		uint32_t n = 0;

		if (e->rank != rank)
			continue;
		/* The process is the job's: only the library's variables
		 * (and ds21's segment sizes, a number each:
		 * pmixside/pmixlib.c). */
		free(p->vars);
		if (!(p->vars = calloc(e->count + 1, sizeof(*p->vars))))
			return -1;
		for (uint32_t v = 0; v < e->count; v++)
			if (!strncmp(e->vars[v], "PMIX_", 5) ||
			    ds_size_var(e->vars[v]))
				p->vars[n++] = e->vars[v];
		*vars = p->vars;
		return 0;
	}
	return -1;
}

/* The signal that stopped the process, 0 while it is not stopped, -1
 * when there is none to look at (ended, reaped). Leaves the stop for
 * other waiters (WNOWAIT); Slurm's wait3 does not ask for stops. */
static int stop_signal(const struct pmixd_proc *p)
{
	siginfo_t si = {0};
	int fd = owner_proc_pidfd(p->op), rc;
	pid_t pid = owner_proc_pid(p->op);

	if (pid <= 0)
		return -1;
	if (fd >= 0)
		rc = waitid((idtype_t)P_PIDFD, (id_t)fd, &si,
			    WSTOPPED | WNOHANG | WNOWAIT);
	else
		rc = waitid(P_PID, (id_t)pid, &si,
			    WSTOPPED | WNOHANG | WNOWAIT);
	if (rc < 0)
		return -1;
	return si.si_pid && si.si_code == CLD_STOPPED ? si.si_status : 0;
}

/* SIGKILL through its pidfd (never a pid reused after Slurm reaped it);
 * its channel closes, and the channel's close does the rest. */
static void kill_stopped(struct pmixd_proc *p, int sig)
{
	int fd = owner_proc_pidfd(p->op);
	pid_t pid = owner_proc_pid(p->op);

	PMIXEV_ERROR("the PMIx server process (pid %d) was stopped (signal "
		     "%d, %s) while this node's tasks run; root ends it: the "
		     "step cannot go on without it",
		     (int)pid, sig, strsignal(sig));
	p->killed_sig = sig;
	if (fd >= 0)
		syscall(SYS_pidfd_send_signal, fd, SIGKILL, NULL, 0);
	else
		kill(pid, SIGKILL);
}

static void on_watch(evutil_socket_t fd, short what, void *arg)
{
	struct pmixd_proc *p = arg;
	int sig = stop_signal(p);

	if (sig < 0) {
		event_del(p->watch);
		return;
	}
	if (sig == 0) {
		p->stopped_looks = 0;
		p->stopped_said = false;
		return;
	}
	if (++p->stopped_looks < WATCH_LOOKS)
		return;
	/* Stopped with the node's tasks (Slurm's suspend): it goes on with
	 * them at the resume. */
	if (!p->stop_ends(p->stop_ctx)) {
		if (!p->stopped_said)
			PMIXEV_INFO("the PMIx server process (pid %d) is "
				    "stopped (signal %d) with this node's "
				    "tasks: left alone",
				    (int)owner_proc_pid(p->op), sig);
		p->stopped_said = true;
		return;
	}
	event_del(p->watch);
	kill_stopped(p, sig);
}

int pmixd_proc_watch(struct pmixd_proc *p, pmixd_stop_fn ends, void *ctx)
{
	struct timeval tick = {0, WATCH_MS * 1000};

	p->stop_ends = ends;
	p->stop_ctx = ctx;
	if (!(p->watch = event_new(agent_base(p->s->agent), -1, EV_PERSIST,
				   on_watch, p)) ||
	    event_add(p->watch, &tick) < 0)
		return -1;
	return 0;
}

void pmixd_proc_ended(struct pmixd_proc *p, char *why, size_t len)
{
	char said[200];
	int sig = p->killed_sig;

	owner_proc_ended(p->op, said, sizeof(said));
	if (sig)
		snprintf(why, len,
			 "it was stopped (signal %d, %s), so root killed it; "
			 "%s",
			 sig, strsignal(sig), said);
	else
		snprintf(why, len, "%s", said);
}

void pmixd_proc_wait_end(struct pmixd_proc *p)
{
	struct pollfd pfd = {.fd = p->end_fd, .events = POLLIN};

	if (pfd.fd >= 0)
		poll(&pfd, 1, END_WAIT_MS);
}

void pmixd_proc_destroy(struct pmixd_proc *p)
{
	if (!p)
		return;
	if (p->watch)
		event_free(p->watch);
	pmixd_proc_wait_end(p);
	owner_proc_destroy(p->op);
	logpipe_destroy(p->log);
	pmixev_pmixd_ready_release(&p->ready);
	if (p->end_fd >= 0)
		close(p->end_fd);
	free(p->vars);
	if (p->dir_made) {
		if (remove_stale(p, "") < 0 || remove_stale(p, ".lib") < 0)
			PMIXEV_ERROR("cannot remove %s or %s: %m", p->dir,
				     p->srvdir);
		toolsdir_remove(p->rundir, p->name);
	}
	if (p->rundir >= 0)
		close(p->rundir);
	free(p);
}
