/*
 * ownerhelper/helper.c - requests to the owner helper and its answers; a
 * helper that cannot start is said once per step.
 */
#include "config.h"

#include "ownerhelper/helper.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/event.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "base/agent.h"
#include "overlay/overlay.h"
#include "pmixev_frame.h"
#include "pmixev_proto.h"
#include "pmixev_log.h"
#include "slurm_compat.h"
#include "ownerhelper/freezer.h"
#include "ownerhelper/helper_write.h"
#include "ownerhelper/owner_proc.h"

/* Longest wait for an answer: a Slurm call retries for a few of Slurm's
 * MessageTimeout (default 10 s); a helper silent longer is stuck. */
#define ANSWER_DEADLINE_SEC 30
#define QUEUE_MAX	    64 /* requests waiting behind the one in flight */
#define HELPER_FD	    3  /* its channel, in the helper */
#define HELPER_WFD	    4  /* its writer's channel (owner_write.h) */

static const struct owner_prog helper_prog = {
	.role = "owner helper",
	.name = "pmixev-owner",
	.env_var = "PMIXEV_OWNER_HELPER",
	.installed = PMIXEV_OWNER_HELPER_PATH,
};

struct helper_req {
	struct pmixev_owner_req m; /* its id set when sent */
	helper_fn fn;
	void *arg;
};

struct helper {
	struct agent *agent;
	struct overlay *ov; /* to tell srun */
	struct owner_proc *proc;
	char conf_env[600]; /* "SLURM_CONF=..." for the helper, or "" */
	uint32_t job_id;
	int fd;	     /* our end of the channel, or -1 */
	int freezer; /* the step's freezer cgroup.procs (freezer.h), or -1 */
	struct helper_write *writer; /* its writer's channel, or NULL */
	bool served;		     /* this helper answered at least once */
	unsigned failures;	     /* starts that failed in a row */
	bool said;		     /* a failed start was logged this step */
	bool tasks_ended;	     /* every task here ended */
	struct event *ev;	     /* readable fd */
	struct event *late;	     /* the answer's deadline */
	uint32_t next_id;	     /* of the next request */
	uint32_t pending_id;	     /* 0: none in flight */
	uint8_t pending_op;
	helper_fn fn;
	void *arg;
	helper_signal_fn sig_fn;
	void *sig_arg;
	struct helper_req queue[QUEUE_MAX]; /* waiting, oldest at head */
	unsigned head, queued;
	uint8_t in[PMIXEV_OWNER_MSG_MAX]; /* the answer being read */
	struct pmixev_owner_resp resp;	  /* ... and decoded */
};

/* The helper reads slurmstepd's slurm.conf, never one the job's
 * environment names: a user's PluginDir would run the user's code in it. */
static void set_conf(struct helper *o)
{
	const char *conf = pmixev_slurm_conf_path();

	if (conf &&
	    (size_t)snprintf(o->conf_env, sizeof(o->conf_env), "SLURM_CONF=%s",
			     conf) >= sizeof(o->conf_env)) {
		PMIXEV_ERROR(
			"owner helper: slurmstepd's slurm.conf path %s is "
			"longer than %zu bytes; the helper uses libslurm's "
			"default",
			conf, sizeof(o->conf_env) - sizeof("SLURM_CONF="));
		o->conf_env[0] = '\0';
	}
}

/* Prefork, root: where the helper must sit to get the step's signals
 * under proctrack/cgroup on cgroup v1 (freezer.h). Without it the helper
 * still works; scheduler events then wait for the watcher's interval. */
static void open_freezer(struct helper *o, const struct pmixev_step *step)
{
	char path[4200];

	o->freezer =
		freezer_open(step->job_id, step->step_id, path, sizeof(path));
	if (o->freezer >= 0)
		PMIXEV_DEBUG(1,
			     "owner helper: will run in the step's freezer "
			     "cgroup %s (proctrack/cgroup)",
			     path);
	else if (o->freezer == -1)
		PMIXEV_DEBUG(1, "owner helper: no freezer cgroup to join (%s)",
			     path);
	else
		PMIXEV_ERROR("owner helper: cannot join the step's freezer "
			     "cgroup (%s): Slurm's signals to the step will "
			     "not reach it, and scheduler events wait for "
			     "the watcher's interval",
			     path);
}

struct helper *helper_create(const struct step *s)
{
	struct helper *o = calloc(1, sizeof(*o));

	if (!o ||
	    !(o->proc = owner_proc_create(agent_base(s->agent), &helper_prog,
					  s->lay.uid, s->lay.gid))) {
		free(o);
		return NULL;
	}
	set_conf(o);
	o->agent = s->agent;
	o->ov = s->ov;
	o->job_id = s->lay.step.job_id;
	o->fd = -1;
	open_freezer(o, &s->lay.step);
	return o;
}

static void close_channel(struct helper *o)
{
	helper_write_destroy(o->writer, EPIPE);
	o->writer = NULL;
	if (o->ev) {
		event_free(o->ev);
		o->ev = NULL;
	}
	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
}

/* Show `text` to the user: srun prints it. */
static void tell_srun(struct helper *o, const char *text)
{
	if (overlay_tell_srun(o->ov, text) < 0)
		PMIXEV_DEBUG(1, "owner helper: srun could not be told");
}

/* A start failed (`why`): said once per step, in the slurmd log and by
 * srun. */
static void start_failed(struct helper *o, const char *why)
{
	char text[PMIXEV_MSG_TEXT_MAX];

	o->failures++;
	/* A helper that starts as the step ends is killed with it (a step
	 * of `true`): nothing the user needs to hear. */
	if (o->said || o->tasks_ended) {
		PMIXEV_DEBUG(1, "owner helper %s: %s (%u failed starts)",
			     owner_proc_path(o->proc), why, o->failures);
		return;
	}
	o->said = true;
	snprintf(text, sizeof(text),
		 "owner helper %s cannot start: %s (looked for it in: %s); "
		 "scheduler events are off for this step until it starts, "
		 "tried again at every look",
		 owner_proc_path(o->proc), why, owner_proc_looked(o->proc));
	PMIXEV_ERROR("%s", text);
	tell_srun(o, text);
}

static int send_req(struct helper *o, const struct helper_req *r);

/* The next waiting request goes out; those that cannot fail at once. */
static void send_next(struct helper *o)
{
	while (o->queued && !o->pending_id) {
		struct helper_req r = o->queue[o->head];

		o->head = (o->head + 1) % QUEUE_MAX;
		o->queued--;
		if (send_req(o, &r) < 0)
			r.fn(r.arg, NULL);
	}
}

/* The answer to the request in flight (NULL: there will be none); then
 * the next waiting one goes out. */
static void answer(struct helper *o, const struct pmixev_owner_resp *resp)
{
	helper_fn fn = o->fn;

	o->pending_id = 0;
	o->fn = NULL;
	evtimer_del(o->late);
	if (resp && !o->served) {
		o->served = true;
		if (o->failures)
			PMIXEV_INFO("owner helper %s answers after %u failed "
				    "start(s); scheduler events are on again",
				    owner_proc_path(o->proc), o->failures);
		o->failures = 0;
	}
	if (fn)
		fn(o->arg, resp);
	send_next(o);
}

static void on_late(evutil_socket_t fd, short what, void *arg)
{
	struct helper *o = arg;

	PMIXEV_ERROR("owner helper: no answer in %d s; restarting it for the "
		     "next request",
		     ANSWER_DEADLINE_SEC);
	close_channel(o);
	owner_proc_stop(o->proc);
	answer(o, NULL);
}

/*
 * The helper is gone: its channel closed (`err` 0) or broke while
 * `doing`. A helper that never answered failed to start; one that did was
 * most likely killed with the step's processes at its end.
 */
static void gone(struct helper *o, const char *doing, int err)
{
	char why[256];

	close_channel(o);
	owner_proc_ended(o->proc, why, sizeof(why));
	if (!o->served)
		start_failed(o, why);
	else
		PMIXEV_DEBUG(1,
			     "owner helper: %s (%s %s); a new one starts with "
			     "the next request",
			     why, doing, err ? strerror(err) : "saw EOF");
}

static const char *op_name(uint8_t op)
{
	switch (op) {
	case PMIXEV_OWNER_JOB_STATE:
		return "the job's state";
	case PMIXEV_OWNER_NODE_STATE:
		return "the nodes' state";
	case PMIXEV_OWNER_OTHER_JOB:
		return "another job's state";
	case PMIXEV_OWNER_PARTITIONS:
		return "the partitions";
	case PMIXEV_OWNER_ALLOC_NEW:
		return "a new allocation";
	case PMIXEV_OWNER_SHRINK:
		return "a job shrink";
	default:
		return "a job-control request";
	}
}

static void on_readable(evutil_socket_t fd, short what, void *arg)
{
	struct helper *o = arg;
	struct pmixev_owner_resp *resp = &o->resp;
	struct pmixev_buf b;
	ssize_t n = recv(fd, o->in, sizeof(o->in), MSG_DONTWAIT);

	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0 && !o->pending_id) {
		/* Killed with the step's processes at its end, most likely. */
		PMIXEV_DEBUG(1, "owner helper exited");
		close_channel(o);
		owner_proc_stop(o->proc);
		return;
	}
	if (n <= 0) {
		gone(o, "reading its answer:", n < 0 ? errno : 0);
		answer(o, NULL);
		return;
	}
	pmixev_buf_reader(&b, o->in, (size_t)n);
	if (pmixev_owner_resp_unpack(&b, resp) < 0 ||
	    (resp->op != PMIXEV_OWNER_SIGNAL &&
	     (resp->id != o->pending_id || resp->op != o->pending_op))) {
		PMIXEV_ERROR("owner helper: malformed or unexpected answer; "
			     "restarting it for the next request");
		close_channel(o);
		owner_proc_stop(o->proc);
		answer(o, NULL);
		return;
	}
	if (resp->op == PMIXEV_OWNER_SIGNAL) {
		if (o->sig_fn)
			o->sig_fn(o->sig_arg, resp->signo);
		return;
	}
	if (resp->asked_again)
		PMIXEV_INFO("owner helper: slurmctld let %u call(s) for %s "
			    "time out (a slurmctld stall, e.g. Slurm 24.11.5's "
			    "missed connections); asked again",
			    resp->asked_again, op_name(resp->op));
	answer(o, resp);
}

/* Start the helper as the owner, its channels at 3 and 4. -1 when it
 * cannot be (said). */
static int start(struct helper *o)
{
	const char *argv[] = {"pmixev-owner", "3", "4", NULL};
	const char *envp[] = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin",
			      o->conf_env[0] ? o->conf_env : NULL, NULL};
	struct owner_spec spec = {.argv = argv,
				  .envp = envp,
				  .join_cgroup = o->freezer >= 0,
				  .cgroup_procs = o->freezer};
	int sv[2] = {-1, -1}, wv[2] = {-1, -1}, rc = -1;
	char why[256];

	o->served = false;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0 ||
	    socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, wv) < 0) {
		snprintf(why, sizeof(why), "cannot make its channel: %s",
			 strerror(errno));
		start_failed(o, why);
		goto out;
	}
	owner_spec_place(&spec, sv[1], HELPER_FD);
	owner_spec_place(&spec, wv[1], HELPER_WFD);
	if (owner_proc_start(o->proc, &spec, NULL, why, sizeof(why)) < 0) {
		start_failed(o, why);
		goto out;
	}
	o->fd = sv[0];
	sv[0] = -1;
	o->writer = helper_write_create(o->agent, wv[0]);
	wv[0] = -1;
	o->ev = event_new(agent_base(o->agent), o->fd, EV_READ | EV_PERSIST,
			  on_readable, o);
	if (!o->writer || !o->ev || event_add(o->ev, NULL) < 0) {
		PMIXEV_ERROR("owner helper: cannot watch its channel: out of "
			     "memory");
		close_channel(o);
		owner_proc_stop(o->proc);
		goto out;
	}
	rc = 0;
out:
	for (int i = 0; i < 2; i++) {
		if (sv[i] >= 0)
			close(sv[i]);
		if (wv[i] >= 0)
			close(wv[i]);
	}
	return rc;
}

static int send_req(struct helper *o, const struct helper_req *r)
{
	struct pmixev_owner_req req = r->m;
	struct timeval deadline = {ANSWER_DEADLINE_SEC, 0};
	struct pmixev_buf b;
	int rc = -1;

	if (o->fd < 0 && start(o) < 0)
		return -1;
	req.id = ++o->next_id ? o->next_id : ++o->next_id;
	pmixev_buf_init(&b);
	if (pmixev_owner_req_pack(&b, &req) == 0 &&
	    send(o->fd, b.data, b.len, MSG_NOSIGNAL | MSG_DONTWAIT) ==
		    (ssize_t)b.len) {
		o->pending_id = req.id;
		o->pending_op = req.op;
		o->fn = r->fn;
		o->arg = r->arg;
		evtimer_add(o->late, &deadline);
		rc = 0;
	} else {
		gone(o, "sending a request:", errno);
	}
	pmixev_buf_release(&b);
	return rc;
}

/* Send `r` now, or queue it behind the one in flight. */
static int submit(struct helper *o, const struct helper_req *r)
{
	if (!o->late &&
	    !(o->late = evtimer_new(agent_base(o->agent), on_late, o)))
		return -1;
	if (!o->pending_id)
		return send_req(o, r);
	if (o->queued == QUEUE_MAX)
		return -1;
	o->queue[(o->head + o->queued++) % QUEUE_MAX] = *r;
	return 0;
}

int helper_request(struct helper *o, enum pmixev_owner_op op, uint32_t job_id,
		   helper_fn fn, void *arg)
{
	struct helper_req r = {.m = {.op = (uint8_t)op, .job_id = o->job_id},
			       .fn = fn,
			       .arg = arg};

	if (op == PMIXEV_OWNER_OTHER_JOB && job_id)
		r.m.job_id = job_id;
	return submit(o, &r);
}

int helper_control(struct helper *o, enum pmixev_control_action action,
		   uint32_t job_id, uint32_t step_id, uint32_t signo,
		   unsigned timeout_sec, helper_fn fn, void *arg)
{
	struct helper_req r = {
		.m = {.op = PMIXEV_OWNER_CONTROL,
		      .job_id = job_id,
		      .action = (uint8_t)action,
		      .step_id = step_id,
		      .signo = signo,
		      .not_after_ms = pmixev_owner_deadline(timeout_sec)},
		.fn = fn,
		.arg = arg};

	return submit(o, &r);
}

int helper_mail(struct helper *o, const struct pmixev_owner_mail *mail,
		helper_fn fn, void *arg)
{
	struct helper_req r = {.m = {.op = PMIXEV_OWNER_MAIL,
				     .job_id = o->job_id,
				     .mail = *mail},
			       .fn = fn,
			       .arg = arg};

	return submit(o, &r);
}

int helper_alloc(struct helper *o, enum pmixev_owner_op op, uint32_t job_id,
		 const struct pmixev_owner_alloc *a, helper_fn fn, void *arg)
{
	struct helper_req r = {
		.m = {.op = (uint8_t)op, .job_id = job_id, .alloc = *a},
		.fn = fn,
		.arg = arg};

	if (op != PMIXEV_OWNER_ALLOC_NEW && op != PMIXEV_OWNER_SHRINK &&
	    op != PMIXEV_OWNER_EXTEND)
		return -1;
	return submit(o, &r);
}

int helper_write(struct helper *o, int fd, const char *p, size_t n,
		 unsigned timeout_ms, helper_write_fn fn, void *arg)
{
	if (o->fd < 0 && start(o) < 0) {
		errno = ENOTCONN;
		return -1;
	}
	return helper_write_send(o->writer, fd, p, n, timeout_ms, fn, arg);
}

void helper_on_signal(struct helper *o, helper_signal_fn fn, void *arg)
{
	o->sig_fn = fn;
	o->sig_arg = arg;
}

pmix_status_t helper_pmix_status(int32_t slurm_rc)
{
	switch (slurm_rc) {
	case SLURM_SUCCESS:
		return PMIX_SUCCESS;
	case ESLURM_INVALID_JOB_ID:
	case ESLURM_ALREADY_DONE:
		return PMIX_ERR_NOT_FOUND;
	case ESLURM_ACCESS_DENIED:
	case ESLURM_USER_ID_MISSING:
		return PMIX_ERR_NO_PERMISSIONS;
	case ESLURM_DISABLED:
	case ESLURM_BATCH_ONLY:
	case ESLURM_NOT_SUPPORTED:
		return PMIX_ERR_NOT_SUPPORTED;
	case SLURM_COMMUNICATIONS_CONNECTION_ERROR:
	case SLURM_COMMUNICATIONS_SEND_ERROR:
	case SLURM_COMMUNICATIONS_RECEIVE_ERROR:
	case SLURM_COMMUNICATIONS_SHUTDOWN_ERROR:
	case SLURMCTLD_COMMUNICATIONS_CONNECTION_ERROR:
	case SLURMCTLD_COMMUNICATIONS_SEND_ERROR:
	case SLURMCTLD_COMMUNICATIONS_RECEIVE_ERROR:
	case SLURMCTLD_COMMUNICATIONS_SHUTDOWN_ERROR:
	case SLURM_PROTOCOL_SOCKET_IMPL_TIMEOUT:
		return PMIX_ERR_UNREACH;
	case ETIMEDOUT:
		return PMIX_ERR_TIMEOUT;
	case ESLURM_INVALID_NODE_NAME:
	case ESLURM_INVALID_NODE_COUNT:
		return PMIX_ERR_BAD_PARAM;
	default:
		return PMIX_ERROR;
	}
}

void helper_tasks_ended(struct helper *o)
{
	o->tasks_ended = true;
	if (o->freezer < 0)
		return;
	close(o->freezer);
	o->freezer = -1;
	PMIXEV_DEBUG(1, "owner helper: the step's tasks ended here; a new "
			"helper stays out of the step's freezer cgroup");
}

void helper_destroy(struct helper *o)
{
	if (!o)
		return;
	/* The step ends: writes in flight are not answered any more. */
	helper_write_destroy(o->writer, 0);
	o->writer = NULL;
	close_channel(o);
	owner_proc_destroy(o->proc);
	if (o->late)
		event_free(o->late);
	if (o->freezer >= 0)
		close(o->freezer);
	free(o);
}
