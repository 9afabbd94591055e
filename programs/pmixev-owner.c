/*
 * pmixev-owner - a step's go-between to slurmctld, running as the job
 * owner.
 *
 * usage (slurmstepd only): pmixev-owner FD [WFD]
 *        (pmixev-check):       pmixev-owner --version
 *
 * slurmstepd runs as root; every RPC it sent would carry uid 0 and pass
 * every permission check in slurmctld. So the mpi plugin forks this
 * helper with the job owner's uid, gid and groups already set for good,
 * and asks it over FD (a SOCK_SEQPACKET socket, common/pmixev_helper_msg.h).
 * The helper reads the cluster's PreemptMode and the job partition's once,
 * then answers each request with one public libslurm call: the job's
 * state, its nodes', another job's (for queries: what Slurm shows the
 * owner) or the partitions', or a job-control request (signal, kill,
 * cancel, requeue), which slurmctld allows or refuses as for the owner. For
 * node states it keeps the last node table and asks slurmctld only for a newer
 * one (which slurmctld answers with "no change" when there is none). It runs in
 * the step, so it gets the signals Slurm sends the step when it acts on the
 * job; it catches them (it must keep answering through a preemption's grace
 * time) and tells the stepd of each at once (PMIXEV_OWNER_SIGNAL), so the stepd
 * looks at the job without waiting for its next look: a hint only, as the
 * owner may signal this process too. Its slurm.conf is slurmstepd's (the
 * SLURM_CONF the stepd gives it), never one the job names. It exits when the
 * stepd closes FD. On WFD a thread of its own writes tasks' PMIx_Log lines
 * into the descriptors the stepd hands it, as the owner (owner_write.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "owner_alloc.h"
#include "owner_mail.h"
#include "owner_write.h"
#include "pmixev_helper_msg.h"
#include "pmixev_preempt.h"
#include "pmixev_untrace.h"
#include "slurm_compat.h"

#define PROG "pmixev-owner"

static uint16_t preempt_mode;	   /* the cluster's */
static uint16_t part_preempt_mode; /* the job's partition's, once known */
static int part_known;
static char *job_nodes;		    /* from the last job look */
static node_info_msg_t *node_table; /* the last one slurmctld sent */
static uint8_t asked_again;	    /* this request's second tries */

/*
 * Whether a call that failed with `rc` is made once more: Slurm 24.11.5's
 * slurmctld at times leaves a new connection unaccepted until its
 * MessageTimeout has passed (its connection manager misses the event,
 * SchedMD ticket 22643, fixed in 24.11.6), the caller's timeout too. Only
 * calls that change nothing when repeated (reads, setting the comment)
 * ask again; the stepd logs it.
 */
static int ask_again(int rc)
{
	if (rc == SLURM_SUCCESS || errno != SLURM_PROTOCOL_SOCKET_IMPL_TIMEOUT)
		return 0;
	asked_again++;
	return 1;
}

static int usage(void)
{
	fprintf(stderr, "usage: " PROG " FD [WFD] (started by slurmstepd)\n");
	return 2;
}

/* Slurm's job state and reason, as pmixev watches them. */
static void fill_state(struct pmixev_job_state *j, const job_info_t *job)
{
	j->state = job->job_state;
	j->restarts = job->restart_cnt;
	j->time_limit = job->time_limit;
	j->end_time = (int64_t)job->end_time;
	j->preempt_time = (int64_t)job->preempt_time;
	j->suspend_time = (int64_t)job->suspend_time;
	j->preemptible = pmixev_preempt_marked(job->comment);
	snprintf(j->reason, sizeof(j->reason), "%s",
		 job->state_desc ? job->state_desc : "");
	snprintf(j->nodes, sizeof(j->nodes), "%s",
		 job->nodes ? job->nodes : "");
}

/* The PreemptMode of partition `name`, if it sets one (one RPC, once). */
static void learn_partition(const char *name)
{
	partition_info_msg_t *parts = NULL;

	int rc;

	part_known = 1;
	if (!name)
		return;
	rc = slurm_load_partitions((time_t)0, &parts, SHOW_ALL);
	if (ask_again(rc))
		rc = slurm_load_partitions((time_t)0, &parts, SHOW_ALL);
	if (rc != SLURM_SUCCESS)
		return;
	for (uint32_t i = 0; i < parts->record_count; i++) {
		const partition_info_t *p = &parts->partition_array[i];

		if (p->name && !strcmp(p->name, name) &&
		    p->preempt_mode != NO_VAL16)
			part_preempt_mode = p->preempt_mode;
	}
	slurm_free_partition_info_msg(parts);
}

/* Job `job_id`'s state; for the step's own job (`own`) also what the
 * watcher needs later: its partition's PreemptMode and its nodes. */
static void job_state(uint32_t job_id, int own, struct pmixev_job_state *j)
{
	job_info_msg_t *resp = NULL;
	int rc;

	j->now = (int64_t)time(NULL);
	j->preempt_mode = preempt_mode;
	/* SHOW_LOCAL: one RPC, no federation lookup first. */
	rc = pmixev_slurm_load_job(&resp, job_id, SHOW_LOCAL);
	if (ask_again(rc))
		rc = pmixev_slurm_load_job(&resp, job_id, SHOW_LOCAL);
	if (rc != SLURM_SUCCESS) {
		j->rc = errno;
		return;
	}
	if (resp->record_count < 1) {
		j->rc = ESLURM_INVALID_JOB_ID;
	} else if (!own) {
		fill_state(j, &resp->job_array[0]);
	} else {
		if (!part_known)
			learn_partition(resp->job_array[0].partition);
		if (part_preempt_mode)
			j->preempt_mode = part_preempt_mode;
		fill_state(j, &resp->job_array[0]);
		free(job_nodes);
		job_nodes = resp->job_array[0].nodes
				    ? strdup(resp->job_array[0].nodes)
				    : NULL;
	}
	slurm_free_job_info_msg(resp);
}

static uint8_t avail(uint32_t state)
{
	if ((state & NODE_STATE_BASE) == NODE_STATE_DOWN)
		return PMIXEV_NODE_DOWN;
	if (state & NODE_STATE_FAIL)
		return PMIXEV_NODE_FAIL;
	if (state & NODE_STATE_DRAIN)
		return PMIXEV_NODE_DRAIN;
	return PMIXEV_NODE_UP;
}

/* The job's nodes (as of the last job look) that are not up. */
static void node_state(struct pmixev_nodes_state *s)
{
	time_t since = node_table ? node_table->last_update : (time_t)0;
	node_info_msg_t *fresh = NULL;
	void *mine; /* hostlist_t: a pointer type, or one pointed to */
	int rc = slurm_load_node(since, &fresh, SHOW_ALL);

	if (ask_again(rc))
		rc = slurm_load_node(since, &fresh, SHOW_ALL);
	if (rc == SLURM_SUCCESS) {
		if (node_table)
			slurm_free_node_info_msg(node_table);
		node_table = fresh;
	} else if (errno != SLURM_NO_CHANGE_IN_DATA || !node_table) {
		s->rc = errno;
		return;
	}
	if (!job_nodes || !(mine = slurm_hostlist_create(job_nodes)))
		return;
	for (uint32_t i = 0; i < node_table->record_count; i++) {
		const node_info_t *n = &node_table->node_array[i];
		struct pmixev_node_state *out;

		if (!n->name || avail(n->node_state) == PMIXEV_NODE_UP ||
		    slurm_hostlist_find(mine, n->name) < 0)
			continue;
		if (s->count == PMIXEV_OWNER_NODES_MAX ||
		    strlen(n->name) >= sizeof(out->name)) {
			s->omitted++;
			continue;
		}
		out = &s->node[s->count++];
		snprintf(out->name, sizeof(out->name), "%s", n->name);
		out->avail = avail(n->node_state);
		snprintf(out->reason, sizeof(out->reason), "%s",
			 n->reason ? n->reason : "");
	}
	slurm_hostlist_destroy(mine);
}

static uint8_t part_avail(uint16_t state_up)
{
	switch (state_up) {
	case PARTITION_UP:
		return PMIXEV_PART_UP;
	case PARTITION_DOWN:
		return PMIXEV_PART_DOWN;
	case PARTITION_DRAIN:
		return PMIXEV_PART_DRAIN;
	default:
		return PMIXEV_PART_INACTIVE;
	}
}

/* The partitions the owner may see, as far as they fit. */
static void partitions(struct pmixev_parts_state *s)
{
	partition_info_msg_t *parts = NULL;
	int rc = slurm_load_partitions((time_t)0, &parts, SHOW_LOCAL);

	if (ask_again(rc))
		rc = slurm_load_partitions((time_t)0, &parts, SHOW_LOCAL);
	if (rc != SLURM_SUCCESS) {
		s->rc = errno;
		return;
	}
	for (uint32_t i = 0; i < parts->record_count; i++) {
		const partition_info_t *p = &parts->partition_array[i];
		struct pmixev_part_state *out;

		if (!p->name)
			continue;
		if (s->count == PMIXEV_OWNER_PARTS_MAX ||
		    strlen(p->name) >= sizeof(out->name)) {
			s->omitted++;
			continue;
		}
		out = &s->part[s->count++];
		snprintf(out->name, sizeof(out->name), "%s", p->name);
		out->avail = part_avail(p->state_up);
		out->nodes = p->total_nodes;
		out->max_time = p->max_time; /* INFINITE is UINT32_MAX */
	}
	slurm_free_partition_info_msg(parts);
}

/* Mark job `job_id` preemptible in its comment, or take the mark off;
 * the rest of the comment stays. SLURM_SUCCESS, or an error with errno. */
static int set_preemptible(uint32_t job_id, bool on)
{
	char comment[PMIXEV_COMMENT_MAX];
	job_info_msg_t *resp = NULL;
	int rc;

	rc = pmixev_slurm_load_job(&resp, job_id, SHOW_LOCAL);
	if (ask_again(rc))
		rc = pmixev_slurm_load_job(&resp, job_id, SHOW_LOCAL);
	if (rc != SLURM_SUCCESS)
		return SLURM_ERROR;
	if (resp->record_count < 1) {
		errno = ESLURM_INVALID_JOB_ID;
		rc = -1;
	} else if ((rc = pmixev_preempt_mark(resp->job_array[0].comment, on,
					     comment, sizeof(comment))) < 0)
		errno = E2BIG;
	slurm_free_job_info_msg(resp);
	if (rc < 0)
		return SLURM_ERROR;
	rc = pmixev_slurm_set_comment(job_id, comment);
	if (ask_again(rc))
		rc = pmixev_slurm_set_comment(job_id, comment);
	return rc;
}

/* A job-control request: one libslurm call, slurmctld decides. */
static void control(const struct pmixev_owner_req *req,
		    struct pmixev_control_result *r)
{
	int rc = SLURM_ERROR;

	if (pmixev_owner_expired(req->not_after_ms)) {
		r->rc = ETIMEDOUT;
		snprintf(r->reason, sizeof(r->reason),
			 "not sent: its PMIX_TIMEOUT passed while the owner "
			 "helper waited for slurmctld");
		return;
	}
	errno = 0;
	switch (req->action) {
	case PMIXEV_CTL_SIGNAL_STEP:
		rc = pmixev_slurm_signal_tasks(req->job_id, req->step_id,
					       req->signo);
		break;
	case PMIXEV_CTL_KILL_STEP:
		rc = pmixev_slurm_signal_step(req->job_id, req->step_id,
					      (uint16_t)req->signo);
		break;
	case PMIXEV_CTL_SIGNAL_JOB:
		rc = pmixev_slurm_kill_job(req->job_id, (uint16_t)req->signo);
		break;
	case PMIXEV_CTL_CANCEL_JOB:
		rc = pmixev_slurm_kill_job(req->job_id, SIGKILL);
		break;
	case PMIXEV_CTL_REQUEUE_JOB:
		rc = pmixev_slurm_requeue(req->job_id);
		break;
	case PMIXEV_CTL_PREEMPTIBLE:
		rc = set_preemptible(req->job_id, req->signo != 0);
		break;
	}
	r->rc = rc == SLURM_SUCCESS ? 0 : (errno ? errno : SLURM_ERROR);
	snprintf(r->reason, sizeof(r->reason), "%s",
		 r->rc ? slurm_strerror(r->rc) : "");
}

/* The signals Slurm sends a step when it acts on the job (preemption,
 * scancel, time limit: SIGCONT then SIGTERM; suspend: SIGTSTP; resume:
 * SIGCONT) and those a user's --signal may pick. */
static const int watched[] = {SIGTERM, SIGCONT, SIGTSTP, SIGINT,
			      SIGHUP,  SIGUSR1, SIGUSR2};

static int sigpipe_w = -1; /* the handler's end of the self-pipe */

static void on_signal(int signo)
{
	unsigned char c = (unsigned char)signo;
	int saved = errno;

	/* Full pipe: a notice is pending already, which is enough. */
	if (write(sigpipe_w, &c, 1) < 0)
		errno = saved;
	errno = saved;
}

/* Catch the watched signals into a non-blocking self-pipe; its read end. */
static int catch_signals(void)
{
	struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_RESTART};
	int p[2];

	if (pipe2(p, O_CLOEXEC | O_NONBLOCK) < 0)
		return -1;
	sigpipe_w = p[1];
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(watched) / sizeof(watched[0]); i++)
		if (sigaction(watched[i], &sa, NULL) < 0)
			return -1;
	return p[0];
}

static int send_resp(int fd, const struct pmixev_owner_resp *resp)
{
	struct pmixev_buf b;
	int rc = 0;

	pmixev_buf_init(&b);
	if (pmixev_owner_resp_pack(&b, resp) < 0 ||
	    send(fd, b.data, b.len, MSG_NOSIGNAL) != (ssize_t)b.len)
		rc = -1;
	pmixev_buf_release(&b);
	return rc;
}

/* Tell the stepd of the signals that arrived (one notice each, in order:
 * the stepd looks at the job once for a burst). */
static int tell_signals(int fd, int sigs)
{
	static struct pmixev_owner_resp note = {.op = PMIXEV_OWNER_SIGNAL};
	unsigned char got[16];
	ssize_t n;

	while ((n = read(sigs, got, sizeof(got))) > 0)
		for (ssize_t i = 0; i < n; i++) {
			note.signo = got[i];
			if (send_resp(fd, &note) < 0)
				return -1;
		}
	return 0;
}

static int answer(int fd, const uint8_t *in, size_t len)
{
	static struct pmixev_owner_resp resp;
	static struct pmixev_owner_req req;
	struct pmixev_buf b;

	pmixev_buf_reader(&b, in, len);
	if (pmixev_owner_req_unpack(&b, &req) < 0) {
		fprintf(stderr, PROG ": malformed request\n");
		return -1;
	}
	memset(&resp, 0, sizeof(resp));
	asked_again = 0;
	resp.op = req.op;
	resp.id = req.id;
	switch (req.op) {
	case PMIXEV_OWNER_NODE_STATE:
		node_state(&resp.nodes);
		break;
	case PMIXEV_OWNER_PARTITIONS:
		partitions(&resp.parts);
		break;
	case PMIXEV_OWNER_CONTROL:
		control(&req, &resp.ctl);
		break;
	case PMIXEV_OWNER_MAIL:
		owner_mail(&req.mail, &resp.ctl);
		break;
	case PMIXEV_OWNER_ALLOC_NEW:
		owner_alloc_new(&req.alloc, &resp.new_job, &resp.ctl);
		break;
	case PMIXEV_OWNER_SHRINK:
		owner_alloc_shrink(req.job_id, &req.alloc, &resp.ctl);
		break;
	case PMIXEV_OWNER_EXTEND:
		owner_alloc_extend(req.job_id, &req.alloc, &resp.ctl);
		break;
	default:
		job_state(req.job_id, req.op == PMIXEV_OWNER_JOB_STATE,
			  &resp.job);
	}
	resp.asked_again = asked_again;
	return send_resp(fd, &resp);
}

static int serve(int fd, int sigs)
{
	static uint8_t in[PMIXEV_OWNER_MSG_MAX];

	for (;;) {
		struct pollfd pfd[2] = {{.fd = fd, .events = POLLIN},
					{.fd = sigs, .events = POLLIN}};
		ssize_t n;

		if (poll(pfd, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, PROG ": poll: %s\n", strerror(errno));
			return 1;
		}
		if ((pfd[1].revents & POLLIN) && tell_signals(fd, sigs) < 0)
			return 1;
		if (!pfd[0].revents)
			continue;
		n = recv(fd, in, sizeof(in), MSG_DONTWAIT);
		if (n == 0)
			return 0;
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0) {
			fprintf(stderr, PROG ": recv: %s\n", strerror(errno));
			return 1;
		}
		if (answer(fd, in, (size_t)n) < 0)
			return 1;
	}
}

/* A descriptor number from the command line, or -1. */
static long fd_arg(const char *arg)
{
	char *end = NULL;
	long fd = strtol(arg, &end, 10);

	return *arg && !*end && fd >= 0 && fd <= 1024 ? fd : -1;
}

int main(int argc, char **argv)
{
	slurm_conf_t *conf = NULL;
	char why[128];
	long fd, wfd = -1;
	int rc, sigs;

	/* For pmixev-check: it runs (libslurm loads). */
	if (argc == 2 && !strcmp(argv[1], "--version")) {
		printf(PROG " (pmixev " PACKAGE_VERSION ")\n");
		return 0;
	}
	if (argc < 2 || argc > 3 || (fd = fd_arg(argv[1])) < 0 ||
	    (argc == 3 && (wfd = fd_arg(argv[2])) < 0))
		return usage();
	/* The identity must be one, for good: real = effective. */
	if (getuid() != geteuid() || getgid() != getegid()) {
		fprintf(stderr, PROG ": refusing to run set-id\n");
		return 2;
	}
	if (pmixev_untraceable(why, sizeof(why)) < 0) {
		fprintf(stderr, PROG ": %s\n", why);
		return 2;
	}
	/* The signals Slurm sends the step stay ignored until caught: the
	 * helper must keep answering through a preemption's grace time. */
	signal(SIGPIPE, SIG_IGN);
	if ((sigs = catch_signals()) < 0) {
		fprintf(stderr, PROG ": cannot catch signals: %s\n",
			strerror(errno));
		return 2;
	}
	if (wfd >= 0 && owner_write_start((int)wfd) < 0) {
		fprintf(stderr, PROG ": cannot start the writer: %s\n",
			strerror(errno));
		return 2;
	}
	slurm_init(NULL);
	if (slurm_load_ctl_conf((time_t)0, &conf) == SLURM_SUCCESS) {
		preempt_mode = conf->preempt_mode;
		pmixev_slurm_free_conf(conf);
	}
	rc = serve((int)fd, sigs);
	if (node_table)
		slurm_free_node_info_msg(node_table);
	free(job_nodes);
	slurm_fini();
	return rc;
}
