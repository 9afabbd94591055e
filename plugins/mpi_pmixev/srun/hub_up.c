/*
 * srun/hub_up.c - a spawned step's srun and its parent srun (see
 * hub_up.h).
 */
#define _GNU_SOURCE /* struct ucred */
#include "config.h"

#include "srun/hub_up.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "slurm_compat.h"

#include "overlay/conn.h"
#include "pmixev_frame.h"
#include "pmixev_log.h"
#include "pmixev_spawn_cmd.h"
#include "pmixev_xstep.h"
#include "pmixev_xstep_ctl.h"

#define HUB_FRAME_MAX (1u << 20)

struct hub_up {
	uint32_t job, step, nnodes;
	char name[32];
	uint64_t spawn_id;
	char parent[PMIXEV_NSPACE_MAX];
	uint32_t parent_rank;
	uint32_t parent_job, parent_step;
	int fd; /* until the conn owns it */
	struct conn *conn;
	bool *ready; /* [nnodes] */
	uint32_t nready;
	bool told;
	bool layout_sent; /* node 0's LAYOUT went up (once) */
	hub_up_xstep_fn xstep;
	void *xstep_ctx;
};

/* The descriptor is a Unix socket to our parent process, of our uid. */
static int check_fd(int fd, char *err, size_t errlen)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	struct stat sb;

	if (fstat(fd, &sb) < 0 || !S_ISSOCK(sb.st_mode)) {
		snprintf(err, errlen, "%s=%d is not a socket",
			 PMIXEV_SPAWN_FD_ENV, fd);
		return -1;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 ||
	    cred.pid != getppid() || cred.uid != getuid()) {
		snprintf(err, errlen,
			 "%s=%d is not a link to the parent srun (its peer "
			 "is pid %ld uid %ld)",
			 PMIXEV_SPAWN_FD_ENV, fd, (long)cred.pid,
			 (long)cred.uid);
		return -1;
	}
	return 0;
}

static int parse_fd(const char *v, int *fd)
{
	char *end = NULL;
	long n;

	errno = 0;
	n = strtol(v, &end, 10);
	if (errno || end == v || *end || n < 3 || n > 65535)
		return -1;
	*fd = (int)n;
	return 0;
}

static int read_parent(struct hub_up *h, char *err, size_t errlen)
{
	const char *parent = getenv(PMIXEV_SPAWN_PARENT_ENV);
	const char *id = getenv(PMIXEV_SPAWN_ID_ENV);

	if (!parent || !id ||
	    pmixev_spawn_parent_parse(parent, h->parent, &h->parent_rank) < 0 ||
	    !pmixev_pmixd_step_nspace(h->parent, &h->parent_job,
				      &h->parent_step) ||
	    pmixev_spawn_id_parse(id, &h->spawn_id) < 0) {
		snprintf(err, errlen, "%s or %s is missing or malformed",
			 PMIXEV_SPAWN_PARENT_ENV, PMIXEV_SPAWN_ID_ENV);
		return -1;
	}
	return 0;
}

struct hub_up *hub_up_create(uint32_t job, uint32_t step, uint32_t nnodes,
			     char ***env, char *err, size_t errlen)
{
	const char *v = getenv(PMIXEV_SPAWN_FD_ENV);
	struct hub_up *h = NULL;
	int fd = -1;

	err[0] = '\0';
	if (!v) {
		/* Inherited by a plain srun in a spawned step's task: this
		 * step is not spawned. */
		slurm_unsetenvp(*env, PMIXEV_SPAWN_PARENT_ENV);
		slurm_unsetenvp(*env, PMIXEV_SPAWN_ID_ENV);
		slurm_unsetenvp(*env, PMIXEV_SPAWN_APPS_ENV);
		slurm_unsetenvp(*env, PMIXEV_SPAWN_LAYOUT_ENV);
		slurm_unsetenvp(*env, PMIXEV_SPAWN_NONPMI_ENV);
		return NULL;
	}
	slurm_unsetenvp(*env, PMIXEV_SPAWN_FD_ENV);
	if (parse_fd(v, &fd) < 0) {
		snprintf(err, errlen, "%s=%.32s is not a descriptor",
			 PMIXEV_SPAWN_FD_ENV, v);
		return NULL;
	}
	/* Never into the tasks, nor into a grandchild srun. */
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	unsetenv(PMIXEV_SPAWN_FD_ENV);
	if (check_fd(fd, err, errlen) < 0)
		goto fail;
	if (!(h = calloc(1, sizeof(*h))) ||
	    !(h->ready = calloc(nnodes, sizeof(*h->ready)))) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	h->job = job;
	h->step = step;
	h->nnodes = nnodes;
	h->fd = fd;
	snprintf(h->name, sizeof(h->name), "%u.%u", job, step);
	if (read_parent(h, err, errlen) < 0)
		goto fail;
	return h;
fail:
	if (h)
		free(h->ready);
	free(h);
	close(fd);
	return NULL;
}

static int on_frame(struct conn *c, const struct pmixev_frame_hdr *hdr,
		    const uint8_t *payload, void *ctx)
{
	struct hub_up *h = ctx;

	(void)c;
	if (hdr->type == PMIXEV_MSG_XSTEP && h->xstep) {
		h->xstep(h->xstep_ctx, payload, hdr->len);
		return 0;
	}
	PMIXEV_ERROR("step %s: unexpected %s from the parent srun", h->name,
		     pmixev_msg_type_name(hdr->type));
	return -1;
}

static void on_close(struct conn *c, enum conn_close reason, const char *why,
		     void *ctx)
{
	struct hub_up *h = ctx;
	struct pmixev_buf b;

	(void)c;
	(void)reason;
	PMIXEV_DEBUG(1, "step %s: the link to the parent srun closed: %s",
		     h->name, why);
	h->conn = NULL;
	/* Tell this step's root (LEFT): what it has in flight with the
	 * parent fails at once. */
	pmixev_buf_init(&b);
	if (h->xstep &&
	    pmixev_xstep_left_pack(&b, h->parent_job, h->parent_step, h->job,
				   h->step) == 0)
		h->xstep(h->xstep_ctx, b.data, b.len);
	pmixev_buf_release(&b);
}

static int send_frame(struct hub_up *h, uint8_t type, struct pmixev_buf *b)
{
	if (!h->conn || conn_send(h->conn, type, 0, 0, b->data, b->len) < 0) {
		PMIXEV_ERROR("step %s: cannot reach the parent srun (spawn "
			     "%llu)",
			     h->name, (unsigned long long)h->spawn_id);
		return -1;
	}
	return 0;
}

void hub_up_on_xstep(struct hub_up *h, hub_up_xstep_fn fn, void *ctx)
{
	h->xstep = fn;
	h->xstep_ctx = ctx;
}

int hub_up_pass(struct hub_up *h, const uint8_t *data, size_t len)
{
	if (!h->conn ||
	    conn_send(h->conn, PMIXEV_MSG_XSTEP, 0, 0, data, len) < 0) {
		PMIXEV_ERROR("step %s: a frame for another step dropped: the "
			     "link to the parent srun is gone",
			     h->name);
		return -1;
	}
	return 0;
}

int hub_up_start(struct hub_up *h, struct event_base *base)
{
	struct pmixev_hub_hello m = {
		.job = h->job, .step = h->step, .spawn_id = h->spawn_id};
	struct pmixev_buf b;
	int rc = -1;

	evutil_make_socket_nonblocking(h->fd);
	h->conn = conn_create(base, h->fd, NULL, 0, HUB_FRAME_MAX, on_frame,
			      on_close, h);
	h->fd = -1;
	pmixev_buf_init(&b);
	if (h->conn && pmixev_hub_hello_pack(&b, &m) == 0)
		rc = send_frame(h, PMIXEV_MSG_HUB_HELLO, &b);
	pmixev_buf_release(&b);
	return rc;
}

/* The step's READY (`r`) to the parent step's root, once. */
static void tell(struct hub_up *h, const struct pmixev_xstep_ready *r)
{
	const struct pmixev_xstep_hdr hdr = {.src_job = h->job,
					     .src_step = h->step,
					     .src_node = 0,
					     .dst_job = h->parent_job,
					     .dst_step = h->parent_step,
					     .dst_node = PMIXEV_XSTEP_ROOT,
					     .inner = PMIXEV_XSTEP_READY};
	struct pmixev_buf b;

	if (h->told)
		return;
	h->told = true;
	pmixev_buf_init(&b);
	if (pmixev_xstep_hdr_pack(&b, &hdr) < 0 ||
	    pmixev_xstep_ready_pack(&b, r) < 0 ||
	    send_frame(h, PMIXEV_MSG_XSTEP, &b) < 0)
		PMIXEV_ERROR("step %s: cannot tell the parent srun that the "
			     "step is %s",
			     h->name, r->status == PMIXEV_OK ? "up" : "failed");
	pmixev_buf_release(&b);
}

int hub_up_node_ready(struct hub_up *h, uint32_t node, const uint8_t *data,
		      size_t len)
{
	struct pmixev_xstep_ready r;
	struct pmixev_buf b;

	pmixev_buf_reader(&b, data, len);
	if (node >= h->nnodes || pmixev_xstep_ready_unpack(&b, &r) < 0 ||
	    r.spawn_id != h->spawn_id) {
		PMIXEV_ERROR("step %s: a malformed NODE_READY from node %u",
			     h->name, node);
		return -1;
	}
	if (r.status != PMIXEV_OK) {
		tell(h, &r);
		return 0;
	}
	if (!h->ready[node]) {
		h->ready[node] = true;
		h->nready++;
	}
	if (h->nready == h->nnodes) {
		r = (struct pmixev_xstep_ready){.spawn_id = h->spawn_id,
						.status = PMIXEV_OK,
						.failed_rank =
							PMIXEV_XSTEP_NO_RANK};
		tell(h, &r);
	}
	return 0;
}

int hub_up_xstep(struct hub_up *h, uint32_t node, const uint8_t *data,
		 size_t len)
{
	struct pmixev_xstep_hdr hdr;
	struct pmixev_buf b;

	pmixev_buf_reader(&b, data, len);
	if (node >= h->nnodes || pmixev_xstep_hdr_unpack(&b, &hdr) < 0 ||
	    (hdr.inner != PMIXEV_XSTEP_EVENT &&
	     (hdr.inner != PMIXEV_XSTEP_LAYOUT || node != 0 ||
	      h->layout_sent)) ||
	    hdr.src_job != h->job || hdr.src_step != h->step ||
	    hdr.src_node != node || hdr.dst_job != h->parent_job ||
	    hdr.dst_step != h->parent_step) {
		PMIXEV_ERROR("step %s: node %u sent an XSTEP that is neither "
			     "an event nor the tree root's one layout of this "
			     "step for the parent step",
			     h->name, node);
		return -1;
	}
	if (hdr.inner == PMIXEV_XSTEP_LAYOUT)
		h->layout_sent = true;
	if (!h->conn ||
	    conn_send(h->conn, PMIXEV_MSG_XSTEP, 0, 0, data, len) < 0)
		PMIXEV_ERROR("step %s: cannot pass node %u's %s to the parent "
			     "srun",
			     h->name, node,
			     hdr.inner == PMIXEV_XSTEP_LAYOUT ? "layout"
							      : "event");
	return 0;
}

void hub_up_node_gone(struct hub_up *h, uint32_t node)
{
	struct pmixev_xstep_ready r = {.spawn_id = h->spawn_id,
				       .status = PMIXEV_ERR_UNREACH,
				       .failed_rank = PMIXEV_XSTEP_NO_RANK};

	if (node >= h->nnodes || h->ready[node])
		return;
	snprintf(r.reason, sizeof(r.reason),
		 "node %u of step %s left before its ranks registered", node,
		 h->name);
	tell(h, &r);
}

void hub_up_destroy(struct hub_up *h)
{
	if (!h)
		return;
	if (h->conn)
		conn_finish(h->conn);
	conn_destroy(h->conn);
	if (h->fd >= 0)
		close(h->fd);
	free(h->ready);
	free(h);
}
