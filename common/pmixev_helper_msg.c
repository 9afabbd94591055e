/*
 * pmixev_helper_msg.c - encoding of the stepd <-> owner helper messages.
 */
#include "config.h"

#include "pmixev_helper_msg.h"

#include <ctype.h>
#include <errno.h>
#include <string.h>
#include <time.h>

static int done_packing(const struct pmixev_buf *b)
{
	return pmixev_buf_ok(b) && b->len <= PMIXEV_OWNER_MSG_MAX ? 0 : -1;
}

static int done_unpacking(const struct pmixev_buf *b)
{
	return pmixev_buf_ok(b) && pmixev_buf_remaining(b) == 0 ? 0 : -1;
}

/* What the stepd may ask. */
static int known_op(uint8_t op)
{
	return op == PMIXEV_OWNER_JOB_STATE || op == PMIXEV_OWNER_NODE_STATE ||
	       op == PMIXEV_OWNER_OTHER_JOB || op == PMIXEV_OWNER_PARTITIONS ||
	       op == PMIXEV_OWNER_CONTROL || op == PMIXEV_OWNER_MAIL ||
	       op == PMIXEV_OWNER_ALLOC_NEW || op == PMIXEV_OWNER_SHRINK ||
	       op == PMIXEV_OWNER_EXTEND;
}

static int printable(const char *s, size_t size)
{
	if (!memchr(s, '\0', size))
		return 0;
	for (; *s; s++)
		if ((unsigned char)*s < ' ' || *s == 0x7f)
			return 0;
	return 1;
}

int pmixev_owner_mail_ok(const struct pmixev_owner_mail *m)
{
	unsigned n = 0;

	if (!printable(m->cmd, sizeof(m->cmd)) || m->cmd[0] != '/' ||
	    !printable(m->subject, sizeof(m->subject)) ||
	    !memchr(m->to, '\0', sizeof(m->to)) ||
	    !memchr(m->text, '\0', sizeof(m->text)))
		return 0;
	for (const char *p = m->to; *p; p++) {
		int start = p == m->to || p[-1] == ',';

		if (*p == ',') {
			if (start || !p[1]) /* an empty address */
				return 0;
			continue;
		}
		if ((!isalnum((unsigned char)*p) && !strchr("._%+-@", *p)) ||
		    (start && *p == '-'))
			return 0;
		n += start;
	}
	return n <= PMIXEV_OWNER_MAIL_TO;
}

/* Text of `size` bytes holding a NUL, of `ok`'s characters only. */
static int text_of(const char *s, size_t size, const char *ok)
{
	return memchr(s, '\0', size) && strspn(s, ok) == strlen(s);
}

static const char name_chars[] = "abcdefghijklmnopqrstuvwxyz"
				 "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				 "0123456789._-";
static const char hostlist_chars[] = "abcdefghijklmnopqrstuvwxyz"
				     "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				     "0123456789._-,[]";

/* An allocation request Slurm could be asked (see the header). */
static int alloc_ok(uint8_t op, const struct pmixev_owner_alloc *a)
{
	if (!text_of(a->name, sizeof(a->name), name_chars) ||
	    !text_of(a->partition, sizeof(a->partition), name_chars) ||
	    !text_of(a->nodes, sizeof(a->nodes), hostlist_chars) ||
	    !text_of(a->exclude, sizeof(a->exclude), hostlist_chars) ||
	    a->nnodes > PMIXEV_OWNER_ALLOC_NODES_MAX ||
	    !printable(a->cmd, sizeof(a->cmd)))
		return 0;
	if (op == PMIXEV_OWNER_EXTEND)
		return a->cmd[0] == '/' && (a->minutes || a->nnodes);
	if (a->cmd[0])
		return 0;
	if (op == PMIXEV_OWNER_SHRINK)
		return a->nodes[0] != '\0' || a->nnodes;
	return a->name[0] && (a->nnodes || a->ncpus);
}

static void put_alloc(struct pmixev_buf *b, const struct pmixev_owner_alloc *a)
{
	pmixev_buf_put_u32(b, a->nnodes);
	pmixev_buf_put_u32(b, a->ncpus);
	pmixev_buf_put_u64(b, a->mem_mb);
	pmixev_buf_put_u32(b, a->minutes);
	pmixev_buf_put_str(b, a->name);
	pmixev_buf_put_str(b, a->partition);
	pmixev_buf_put_str(b, a->nodes);
	pmixev_buf_put_str(b, a->exclude);
	pmixev_buf_put_str(b, a->cmd);
}

static void get_alloc(struct pmixev_buf *b, struct pmixev_owner_alloc *a)
{
	pmixev_buf_get_u32(b, &a->nnodes);
	pmixev_buf_get_u32(b, &a->ncpus);
	pmixev_buf_get_u64(b, &a->mem_mb);
	pmixev_buf_get_u32(b, &a->minutes);
	pmixev_buf_get_str(b, a->name, sizeof(a->name));
	pmixev_buf_get_str(b, a->partition, sizeof(a->partition));
	pmixev_buf_get_str(b, a->nodes, sizeof(a->nodes));
	pmixev_buf_get_str(b, a->exclude, sizeof(a->exclude));
	pmixev_buf_get_str(b, a->cmd, sizeof(a->cmd));
}

/* Whether `op` carries an allocation. */
static int alloc_op(uint8_t op)
{
	return op == PMIXEV_OWNER_ALLOC_NEW || op == PMIXEV_OWNER_SHRINK ||
	       op == PMIXEV_OWNER_EXTEND;
}

/* A control request Slurm could be asked. */
static int control_ok(const struct pmixev_owner_req *m)
{
	return m->action <= PMIXEV_CTL_ACTION_MAX && m->signo <= 64 &&
	       (m->signo || (m->action != PMIXEV_CTL_SIGNAL_STEP &&
			     m->action != PMIXEV_CTL_SIGNAL_JOB &&
			     m->action != PMIXEV_CTL_KILL_STEP));
}

/* What the helper may say: an answer, or a signal it received (id 0). */
static int known_resp(uint8_t op, uint32_t id)
{
	return known_op(op) || (op == PMIXEV_OWNER_SIGNAL && id == 0);
}

int pmixev_owner_req_pack(struct pmixev_buf *b,
			  const struct pmixev_owner_req *m)
{
	if (!known_op(m->op)) {
		errno = EINVAL;
		return -1;
	}
	if ((m->op == PMIXEV_OWNER_CONTROL && !control_ok(m)) ||
	    (m->op == PMIXEV_OWNER_MAIL && !pmixev_owner_mail_ok(&m->mail)) ||
	    (alloc_op(m->op) && !alloc_ok(m->op, &m->alloc))) {
		errno = EINVAL;
		return -1;
	}
	pmixev_buf_put_u8(b, m->op);
	pmixev_buf_put_u32(b, m->id);
	pmixev_buf_put_u32(b, m->job_id);
	if (m->op == PMIXEV_OWNER_CONTROL) {
		pmixev_buf_put_u8(b, m->action);
		pmixev_buf_put_u32(b, m->step_id);
		pmixev_buf_put_u32(b, m->signo);
		pmixev_buf_put_u64(b, m->not_after_ms);
	}
	if (m->op == PMIXEV_OWNER_MAIL) {
		pmixev_buf_put_str(b, m->mail.cmd);
		pmixev_buf_put_str(b, m->mail.to);
		pmixev_buf_put_str(b, m->mail.subject);
		pmixev_buf_put_str(b, m->mail.text);
	}
	if (alloc_op(m->op))
		put_alloc(b, &m->alloc);
	return done_packing(b);
}

int pmixev_owner_req_unpack(struct pmixev_buf *b, struct pmixev_owner_req *m)
{
	struct pmixev_owner_req t = {0};

	pmixev_buf_get_u8(b, &t.op);
	pmixev_buf_get_u32(b, &t.id);
	pmixev_buf_get_u32(b, &t.job_id);
	if (pmixev_buf_ok(b) && t.op == PMIXEV_OWNER_CONTROL) {
		pmixev_buf_get_u8(b, &t.action);
		pmixev_buf_get_u32(b, &t.step_id);
		pmixev_buf_get_u32(b, &t.signo);
		pmixev_buf_get_u64(b, &t.not_after_ms);
		if (!pmixev_buf_ok(b) || !control_ok(&t))
			return -1;
	}
	if (pmixev_buf_ok(b) && t.op == PMIXEV_OWNER_MAIL) {
		pmixev_buf_get_str(b, t.mail.cmd, sizeof(t.mail.cmd));
		pmixev_buf_get_str(b, t.mail.to, sizeof(t.mail.to));
		pmixev_buf_get_str(b, t.mail.subject, sizeof(t.mail.subject));
		pmixev_buf_get_str(b, t.mail.text, sizeof(t.mail.text));
		if (!pmixev_buf_ok(b) || !pmixev_owner_mail_ok(&t.mail))
			return -1;
	}
	if (pmixev_buf_ok(b) && alloc_op(t.op)) {
		get_alloc(b, &t.alloc);
		if (!pmixev_buf_ok(b) || !alloc_ok(t.op, &t.alloc))
			return -1;
	}
	if (done_unpacking(b) < 0 || !known_op(t.op))
		return -1;
	*m = t;
	return 0;
}

static int pack_nodes(struct pmixev_buf *b, const struct pmixev_nodes_state *s)
{
	if (s->count > PMIXEV_OWNER_NODES_MAX)
		return -1;
	for (uint32_t i = 0; i < s->count; i++) {
		const struct pmixev_node_state *n = &s->node[i];

		if (!memchr(n->name, '\0', sizeof(n->name)) ||
		    !memchr(n->reason, '\0', sizeof(n->reason)) ||
		    n->avail == PMIXEV_NODE_UP ||
		    n->avail > PMIXEV_NODE_AVAIL_MAX)
			return -1;
	}
	pmixev_buf_put_i32(b, s->rc);
	pmixev_buf_put_u32(b, s->count);
	pmixev_buf_put_u32(b, s->omitted);
	for (uint32_t i = 0; i < s->count; i++) {
		pmixev_buf_put_str(b, s->node[i].name);
		pmixev_buf_put_u8(b, s->node[i].avail);
		pmixev_buf_put_str(b, s->node[i].reason);
	}
	return 0;
}

static int unpack_nodes(struct pmixev_buf *b, struct pmixev_nodes_state *s)
{
	pmixev_buf_get_i32(b, &s->rc);
	pmixev_buf_get_u32(b, &s->count);
	pmixev_buf_get_u32(b, &s->omitted);
	if (!pmixev_buf_ok(b) || s->count > PMIXEV_OWNER_NODES_MAX)
		return -1;
	for (uint32_t i = 0; i < s->count; i++) {
		struct pmixev_node_state *n = &s->node[i];

		pmixev_buf_get_str(b, n->name, sizeof(n->name));
		pmixev_buf_get_u8(b, &n->avail);
		pmixev_buf_get_str(b, n->reason, sizeof(n->reason));
		if (n->avail == PMIXEV_NODE_UP ||
		    n->avail > PMIXEV_NODE_AVAIL_MAX)
			return -1;
	}
	return 0;
}

static int pack_parts(struct pmixev_buf *b, const struct pmixev_parts_state *s)
{
	if (s->count > PMIXEV_OWNER_PARTS_MAX)
		return -1;
	for (uint32_t i = 0; i < s->count; i++)
		if (!memchr(s->part[i].name, '\0', sizeof(s->part[i].name)) ||
		    s->part[i].avail > PMIXEV_PART_AVAIL_MAX)
			return -1;
	pmixev_buf_put_i32(b, s->rc);
	pmixev_buf_put_u32(b, s->count);
	pmixev_buf_put_u32(b, s->omitted);
	for (uint32_t i = 0; i < s->count; i++) {
		pmixev_buf_put_str(b, s->part[i].name);
		pmixev_buf_put_u8(b, s->part[i].avail);
		pmixev_buf_put_u32(b, s->part[i].nodes);
		pmixev_buf_put_u32(b, s->part[i].max_time);
	}
	return 0;
}

static int unpack_parts(struct pmixev_buf *b, struct pmixev_parts_state *s)
{
	pmixev_buf_get_i32(b, &s->rc);
	pmixev_buf_get_u32(b, &s->count);
	pmixev_buf_get_u32(b, &s->omitted);
	if (!pmixev_buf_ok(b) || s->count > PMIXEV_OWNER_PARTS_MAX)
		return -1;
	for (uint32_t i = 0; i < s->count; i++) {
		struct pmixev_part_state *p = &s->part[i];

		pmixev_buf_get_str(b, p->name, sizeof(p->name));
		pmixev_buf_get_u8(b, &p->avail);
		pmixev_buf_get_u32(b, &p->nodes);
		pmixev_buf_get_u32(b, &p->max_time);
		if (p->avail > PMIXEV_PART_AVAIL_MAX)
			return -1;
	}
	return 0;
}

int pmixev_owner_resp_pack(struct pmixev_buf *b,
			   const struct pmixev_owner_resp *m)
{
	const struct pmixev_job_state *j = &m->job;

	if (!known_resp(m->op, m->id)) {
		errno = EINVAL;
		return -1;
	}
	pmixev_buf_put_u8(b, m->op);
	pmixev_buf_put_u32(b, m->id);
	pmixev_buf_put_u8(b, m->asked_again);
	if (m->op == PMIXEV_OWNER_SIGNAL) {
		pmixev_buf_put_u32(b, m->signo);
		return done_packing(b);
	}
	if (m->op == PMIXEV_OWNER_NODE_STATE) {
		if (pack_nodes(b, &m->nodes) < 0) {
			errno = EINVAL;
			return -1;
		}
		return done_packing(b);
	}
	if (m->op == PMIXEV_OWNER_PARTITIONS) {
		if (pack_parts(b, &m->parts) < 0) {
			errno = EINVAL;
			return -1;
		}
		return done_packing(b);
	}
	if (m->op == PMIXEV_OWNER_CONTROL || m->op == PMIXEV_OWNER_MAIL ||
	    alloc_op(m->op)) {
		if (!memchr(m->ctl.reason, '\0', sizeof(m->ctl.reason)) ||
		    (m->op != PMIXEV_OWNER_ALLOC_NEW && m->new_job)) {
			errno = EINVAL;
			return -1;
		}
		pmixev_buf_put_i32(b, m->ctl.rc);
		pmixev_buf_put_str(b, m->ctl.reason);
		if (m->op == PMIXEV_OWNER_ALLOC_NEW)
			pmixev_buf_put_u32(b, m->new_job);
		return done_packing(b);
	}
	if (!memchr(j->reason, '\0', sizeof(j->reason)) ||
	    !memchr(j->nodes, '\0', sizeof(j->nodes))) {
		errno = EINVAL;
		return -1;
	}
	pmixev_buf_put_i32(b, j->rc);
	pmixev_buf_put_u32(b, j->state);
	pmixev_buf_put_u32(b, j->restarts);
	pmixev_buf_put_u32(b, j->time_limit);
	pmixev_buf_put_u16(b, j->preempt_mode);
	pmixev_buf_put_u8(b, j->preemptible);
	pmixev_buf_put_u64(b, (uint64_t)j->end_time);
	pmixev_buf_put_u64(b, (uint64_t)j->preempt_time);
	pmixev_buf_put_u64(b, (uint64_t)j->suspend_time);
	pmixev_buf_put_u64(b, (uint64_t)j->now);
	pmixev_buf_put_str(b, j->reason);
	pmixev_buf_put_str(b, j->nodes);
	return done_packing(b);
}

int pmixev_owner_resp_unpack(struct pmixev_buf *b, struct pmixev_owner_resp *m)
{
	struct pmixev_owner_resp t;
	struct pmixev_job_state *j = &t.job;
	uint64_t end = 0, preempt = 0, suspend = 0, now = 0;

	t.new_job = 0;
	pmixev_buf_get_u8(b, &t.op);
	pmixev_buf_get_u32(b, &t.id);
	pmixev_buf_get_u8(b, &t.asked_again);
	if (pmixev_buf_ok(b) && t.op == PMIXEV_OWNER_SIGNAL) {
		pmixev_buf_get_u32(b, &t.signo);
		if (done_unpacking(b) < 0 || !known_resp(t.op, t.id))
			return -1;
		*m = t;
		return 0;
	}
	if (pmixev_buf_ok(b) && t.op == PMIXEV_OWNER_NODE_STATE) {
		if (unpack_nodes(b, &t.nodes) < 0 || done_unpacking(b) < 0)
			return -1;
		*m = t;
		return 0;
	}
	if (pmixev_buf_ok(b) && t.op == PMIXEV_OWNER_PARTITIONS) {
		if (unpack_parts(b, &t.parts) < 0 || done_unpacking(b) < 0)
			return -1;
		*m = t;
		return 0;
	}
	if (pmixev_buf_ok(b) && (t.op == PMIXEV_OWNER_CONTROL ||
				 t.op == PMIXEV_OWNER_MAIL || alloc_op(t.op))) {
		pmixev_buf_get_i32(b, &t.ctl.rc);
		pmixev_buf_get_str(b, t.ctl.reason, sizeof(t.ctl.reason));
		if (t.op == PMIXEV_OWNER_ALLOC_NEW)
			pmixev_buf_get_u32(b, &t.new_job);
		if (done_unpacking(b) < 0)
			return -1;
		*m = t;
		return 0;
	}
	pmixev_buf_get_i32(b, &j->rc);
	pmixev_buf_get_u32(b, &j->state);
	pmixev_buf_get_u32(b, &j->restarts);
	pmixev_buf_get_u32(b, &j->time_limit);
	pmixev_buf_get_u16(b, &j->preempt_mode);
	pmixev_buf_get_u8(b, &j->preemptible);
	pmixev_buf_get_u64(b, &end);
	pmixev_buf_get_u64(b, &preempt);
	pmixev_buf_get_u64(b, &suspend);
	pmixev_buf_get_u64(b, &now);
	pmixev_buf_get_str(b, j->reason, sizeof(j->reason));
	pmixev_buf_get_str(b, j->nodes, sizeof(j->nodes));
	if (done_unpacking(b) < 0 || !known_op(t.op))
		return -1;
	j->end_time = (int64_t)end;
	j->preempt_time = (int64_t)preempt;
	j->suspend_time = (int64_t)suspend;
	j->now = (int64_t)now;
	*m = t;
	return 0;
}

/* What a node may ask the root for (never the watcher's node looks). */
static int query_op(uint8_t op)
{
	return op == PMIXEV_OWNER_JOB_STATE || op == PMIXEV_OWNER_OTHER_JOB ||
	       op == PMIXEV_OWNER_PARTITIONS;
}

int pmixev_jobinfo_req_pack(struct pmixev_buf *b,
			    const struct pmixev_jobinfo_req *m)
{
	if (!query_op(m->op) || m->refresh > 1) {
		errno = EINVAL;
		return -1;
	}
	pmixev_buf_put_u32(b, m->id);
	pmixev_buf_put_u8(b, m->op);
	pmixev_buf_put_u32(b, m->job_id);
	pmixev_buf_put_u8(b, m->refresh);
	return done_packing(b);
}

int pmixev_jobinfo_req_unpack(struct pmixev_buf *b,
			      struct pmixev_jobinfo_req *m)
{
	struct pmixev_jobinfo_req t;

	pmixev_buf_get_u32(b, &t.id);
	pmixev_buf_get_u8(b, &t.op);
	pmixev_buf_get_u32(b, &t.job_id);
	pmixev_buf_get_u8(b, &t.refresh);
	if (done_unpacking(b) < 0 || !query_op(t.op) || t.refresh > 1)
		return -1;
	*m = t;
	return 0;
}

int pmixev_jobinfo_resp_pack(struct pmixev_buf *b,
			     const struct pmixev_jobinfo_resp *m)
{
	if (!m->failed && !query_op(m->resp.op)) {
		errno = EINVAL;
		return -1;
	}
	pmixev_buf_put_u32(b, m->id);
	pmixev_buf_put_u32(b, m->age_ms);
	pmixev_buf_put_i32(b, m->failed);
	if (m->failed)
		return done_packing(b);
	return pmixev_owner_resp_pack(b, &m->resp);
}

int pmixev_jobinfo_resp_unpack(struct pmixev_buf *b,
			       struct pmixev_jobinfo_resp *m)
{
	struct pmixev_jobinfo_resp t = {0};

	pmixev_buf_get_u32(b, &t.id);
	pmixev_buf_get_u32(b, &t.age_ms);
	pmixev_buf_get_i32(b, &t.failed);
	if (!pmixev_buf_ok(b))
		return -1;
	if (t.failed ? done_unpacking(b) < 0
		     : pmixev_owner_resp_unpack(b, &t.resp) < 0 ||
			       !query_op(t.resp.op))
		return -1;
	*m = t;
	return 0;
}

static uint64_t monotonic_ms(void)
{
	struct timespec now;

	if (clock_gettime(CLOCK_MONOTONIC, &now) != 0)
		return 0;
	return (uint64_t)now.tv_sec * 1000 + (uint64_t)now.tv_nsec / 1000000;
}

uint64_t pmixev_owner_deadline(unsigned timeout_sec)
{
	uint64_t now = monotonic_ms();

	return timeout_sec && now ? now + (uint64_t)timeout_sec * 1000 : 0;
}

bool pmixev_owner_expired(uint64_t not_after_ms)
{
	return not_after_ms && monotonic_ms() > not_after_ms;
}
