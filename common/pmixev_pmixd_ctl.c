/*
 * pmixev_pmixd_ctl.c - query, job control and log messages of the pmixd
 * channel.
 *
 * Wire layouts (see pmixev_pmixd_msg.c):
 *
 *   query       u64 id, u8 refresh, u32 timeout_sec, u32 n (<= 32),
 *               n * { u8 key (1..4), u32 job (0 unless Q_JOB),
 *               u8 local (0 unless Q_PTABLE) }, no item twice
 *   query_done  u64 id, u32 n (<= 32),
 *               n * { u8 key, u8 result, u32 age_ms, bytes answer }
 *               answer: Q_JOB, Q_PARTS: pmixev_owner_resp (helper_msg.h);
 *               Q_PTABLE: u8 complete, pmixev_ptable_msg (ptable.h, up
 *               to PMIXEV_PMIXD_TASKS_MAX entries); Q_GROUPS:
 *               pmixev_group_list.h's list; empty unless OK
 *   jobctl      u64 id, u32 rank, u8 action (1..9), u32 signo,
 *               u8 preemptible, str ckpt.id, str ckpt.ctl_id,
 *               u32 ckpt.rank, u32 ckpt.signo, u32 ckpt.timeout_sec,
 *               str ctl_id, u32 timeout_sec, u32 nt (<= 16),
 *               nt * { u32 job, u32 step, u8 tasks, u32 rank }
 *   status      u64 id, i32 status, str why       (JOBCTL_DONE, LOG_DONE)
 *   log         u64 id, u32 rank, u8 task, str who, u8 flags, u8 level,
 *               u64 when, u32 n (<= 16),
 *               n * { u8 channel (0..5), i32 bad (<= 0), [bad 0: str
 *               text, [EMAIL: str to, str subject]] }
 */
#include "config.h"

#include "pmixev_pmixd_ctl.h"
#include "pmixev_pmixd_int.h"

#include <stdlib.h>
#include <string.h>

static bool timeout_ok(uint32_t t)
{
	return t <= PMIXEV_PMIXD_TIMEOUT_MAX;
}

static bool qkey_ok(unsigned k)
{
	return k >= PMIXEV_PMIXD_Q_JOB && k <= PMIXEV_PMIXD_Q_GROUPS;
}

/* Item `i` of `m` is well formed and not one of those before it. */
static bool qitem_ok(const struct pmixev_pmixd_query *m, uint32_t i)
{
	const struct pmixev_pmixd_qitem *it = &m->item[i];

	if (!qkey_ok(it->key) || (it->job && it->key != PMIXEV_PMIXD_Q_JOB) ||
	    (it->local && it->key != PMIXEV_PMIXD_Q_PTABLE))
		return false;
	for (uint32_t k = 0; k < i; k++)
		if (m->item[k].key == it->key && m->item[k].job == it->job &&
		    m->item[k].local == it->local)
			return false;
	return true;
}

int pmixev_pmixd_query_pack(struct pmixev_buf *b,
			    const struct pmixev_pmixd_query *m)
{
	if (m->n > PMIXEV_PMIXD_ITEMS_MAX || !timeout_ok(m->timeout_sec))
		return pmixd_invalid();
	for (uint32_t i = 0; i < m->n; i++)
		if (!qitem_ok(m, i))
			return pmixd_invalid();
	pmixev_buf_put_u64(b, m->id);
	pmixd_put_flag(b, m->refresh);
	pmixev_buf_put_u32(b, m->timeout_sec);
	pmixev_buf_put_u32(b, m->n);
	for (uint32_t i = 0; i < m->n; i++) {
		pmixev_buf_put_u8(b, (uint8_t)m->item[i].key);
		pmixev_buf_put_u32(b, m->item[i].job);
		pmixd_put_flag(b, m->item[i].local);
	}
	return pmixd_pack_done(b);
}

int pmixev_pmixd_query_unpack(struct pmixev_buf *b,
			      struct pmixev_pmixd_query *m)
{
	struct pmixev_pmixd_query t;
	uint8_t refresh = 0, key = 0, local = 0;

	pmixev_buf_get_u64(b, &t.id);
	pmixev_buf_get_u8(b, &refresh);
	pmixev_buf_get_u32(b, &t.timeout_sec);
	pmixev_buf_get_u32(b, &t.n);
	if (!pmixev_buf_ok(b) || !pmixd_flag_ok(refresh) ||
	    !timeout_ok(t.timeout_sec) || t.n > PMIXEV_PMIXD_ITEMS_MAX)
		return -1;
	t.refresh = refresh;
	for (uint32_t i = 0; i < t.n; i++) {
		pmixev_buf_get_u8(b, &key);
		pmixev_buf_get_u32(b, &t.item[i].job);
		pmixev_buf_get_u8(b, &local);
		if (!pmixev_buf_ok(b) || !qkey_ok(key) || !pmixd_flag_ok(local))
			return -1;
		t.item[i].key = (enum pmixev_pmixd_qkey)key;
		t.item[i].local = local;
		if (!qitem_ok(&t, i))
			return -1;
	}
	if (pmixd_unpack_done(b) < 0)
		return -1;
	*m = t;
	return 0;
}

/* The typed answer's bytes, packed into `b` (empty unless OK). */
static int put_answer(struct pmixev_buf *b,
		      const struct pmixev_pmixd_qanswer *a)
{
	struct pmixev_buf body;
	int rc = 0;

	pmixev_buf_init(&body);
	if (a->result == PMIXEV_OK && a->key == PMIXEV_PMIXD_Q_PTABLE) {
		pmixd_put_flag(&body, a->complete);
		rc = pmixev_ptable_pack_max(&body, &a->pt,
					    PMIXEV_PMIXD_TASKS_MAX);
	} else if (a->result == PMIXEV_OK && a->key == PMIXEV_PMIXD_Q_GROUPS) {
		rc = a->groups ? pmixev_group_list_pack(&body, a->groups,
							PMIXEV_PMIXD_TASKS_MAX)
			       : pmixd_invalid();
	} else if (a->result == PMIXEV_OK)
		rc = a->resp ? pmixev_owner_resp_pack(&body, a->resp)
			     : pmixd_invalid();
	if (rc == 0)
		rc = pmixev_buf_put_bytes(b, body.data, body.len);
	pmixev_buf_release(&body);
	return rc;
}

int pmixev_pmixd_query_done_pack(struct pmixev_buf *b,
				 const struct pmixev_pmixd_query_done *m)
{
	struct pmixev_buf w;
	int rc = -1;

	if (m->n > PMIXEV_PMIXD_ITEMS_MAX)
		return pmixd_invalid();
	for (uint32_t i = 0; i < m->n; i++)
		if (!qkey_ok(m->a[i].key) ||
		    !pmixev_result_valid(m->a[i].result) ||
		    (m->a[i].complete &&
		     (m->a[i].key != PMIXEV_PMIXD_Q_PTABLE ||
		      m->a[i].result != PMIXEV_OK)))
			return pmixd_invalid();
	/* Into a scratch writer, so a refused answer leaves `b` as it was. */
	pmixev_buf_init(&w);
	pmixev_buf_put_u64(&w, m->id);
	pmixev_buf_put_u32(&w, m->n);
	for (uint32_t i = 0; i < m->n; i++) {
		pmixev_buf_put_u8(&w, (uint8_t)m->a[i].key);
		pmixev_buf_put_u8(&w, (uint8_t)m->a[i].result);
		pmixev_buf_put_u32(&w, m->a[i].age_ms);
		if (put_answer(&w, &m->a[i]) < 0)
			goto out;
	}
	if (pmixd_pack_done(&w) == 0)
		rc = pmixev_buf_put_raw(b, w.data, w.len);
out:
	pmixev_buf_release(&w);
	return rc;
}

/* Read the answer's bytes as its key's type. */
static int get_answer(struct pmixev_buf *b, struct pmixev_pmixd_qanswer *a)
{
	struct pmixev_buf r;
	const uint8_t *p = NULL;
	size_t n = 0;

	if (pmixev_buf_get_bytes(b, &p, &n) < 0)
		return -1;
	if (a->result != PMIXEV_OK)
		return n ? -1 : 0;
	pmixev_buf_reader(&r, p, n);
	if (a->key == PMIXEV_PMIXD_Q_PTABLE) {
		uint8_t complete = 0;

		pmixev_buf_get_u8(&r, &complete);
		if (!pmixev_buf_ok(&r) || !pmixd_flag_ok(complete))
			return -1;
		a->complete = complete;
		return pmixev_ptable_unpack_max(&r, &a->pt,
						PMIXEV_PMIXD_TASKS_MAX);
	}
	if (a->key == PMIXEV_PMIXD_Q_GROUPS) {
		a->groups = calloc(1, sizeof(*a->groups));
		if (a->groups &&
		    pmixev_group_list_unpack(&r, PMIXEV_PMIXD_TASKS_MAX,
					     a->groups) == 0)
			return 0;
		free(a->groups);
		a->groups = NULL;
		return -1;
	}
	a->resp = malloc(sizeof(*a->resp));
	if (!a->resp || pmixev_owner_resp_unpack(&r, a->resp) < 0) {
		free(a->resp);
		a->resp = NULL;
		return -1;
	}
	return 0;
}

int pmixev_pmixd_query_done_unpack(struct pmixev_buf *b,
				   struct pmixev_pmixd_query_done *m)
{
	struct pmixev_pmixd_query_done *t = calloc(1, sizeof(*t));
	uint8_t key = 0, result = 0;
	int rc = -1;

	if (!t)
		return -1;
	pmixev_buf_get_u64(b, &t->id);
	pmixev_buf_get_u32(b, &t->n);
	if (!pmixev_buf_ok(b) || t->n > PMIXEV_PMIXD_ITEMS_MAX) {
		t->n = 0;
		goto out;
	}
	for (uint32_t i = 0; i < t->n; i++) {
		struct pmixev_pmixd_qanswer *a = &t->a[i];

		pmixev_buf_get_u8(b, &key);
		pmixev_buf_get_u8(b, &result);
		pmixev_buf_get_u32(b, &a->age_ms);
		if (!pmixev_buf_ok(b) || !qkey_ok(key) ||
		    !pmixev_result_valid(result))
			goto out;
		a->key = (enum pmixev_pmixd_qkey)key;
		a->result = (enum pmixev_result)result;
		if (get_answer(b, a) < 0)
			goto out;
	}
	if (pmixd_unpack_done(b) < 0)
		goto out;
	*m = *t;
	memset(t, 0, sizeof(*t));
	rc = 0;
out:
	pmixev_pmixd_query_done_release(t);
	free(t);
	return rc;
}

void pmixev_pmixd_query_done_release(struct pmixev_pmixd_query_done *m)
{
	if (!m)
		return;
	for (uint32_t i = 0; i < m->n && i < PMIXEV_PMIXD_ITEMS_MAX; i++) {
		free(m->a[i].resp);
		free(m->a[i].pt.e);
		pmixev_group_list_release(m->a[i].groups);
		free(m->a[i].groups);
	}
	memset(m, 0, sizeof(*m));
}

static const char *const action_names[PMIXEV_PMIXD_ACTION_MAX + 1] = {
	[PMIXEV_PMIXD_SIGNAL] = "signal",
	[PMIXEV_PMIXD_TERMINATE] = "terminate",
	[PMIXEV_PMIXD_KILL] = "kill",
	[PMIXEV_PMIXD_RESTART] = "restart (requeue)",
	[PMIXEV_PMIXD_PAUSE] = "pause",
	[PMIXEV_PMIXD_RESUME] = "resume",
	[PMIXEV_PMIXD_CHECKPOINT] = "checkpoint",
	[PMIXEV_PMIXD_CANCEL] = "cancel",
	[PMIXEV_PMIXD_PREEMPTIBLE] = "preemptible",
};

const char *pmixev_pmixd_action_name(unsigned action)
{
	return action >= PMIXEV_PMIXD_SIGNAL &&
			       action <= PMIXEV_PMIXD_ACTION_MAX
		       ? action_names[action]
		       : "?";
}

/* A rank of the step, or `other` (a wildcard or "no rank"). */
static bool rank_or(const struct pmixev_pmixd_bounds *lim, uint32_t rank,
		    uint32_t other)
{
	return rank == other || (lim ? pmixd_rank_ok(lim, rank) : true);
}

/* What a packer can check (lim NULL) and an unpacker must (lim set). */
static bool jobctl_ok(const struct pmixev_pmixd_jobctl *m,
		      const struct pmixev_pmixd_bounds *lim)
{
	const struct pmixev_pmixd_ckpt *k = &m->ckpt;

	if (m->action < PMIXEV_PMIXD_SIGNAL ||
	    m->action > PMIXEV_PMIXD_ACTION_MAX ||
	    m->signo > PMIXEV_PMIXD_SIGNO_MAX ||
	    (m->action == PMIXEV_PMIXD_SIGNAL && !m->signo) ||
	    k->signo > PMIXEV_PMIXD_SIGNO_MAX || !timeout_ok(k->timeout_sec) ||
	    !timeout_ok(m->timeout_sec) || m->nt > PMIXEV_PMIXD_TARGETS_MAX ||
	    !pmixd_text_ok(k->id, sizeof(k->id)) ||
	    !pmixd_text_ok(k->ctl_id, sizeof(k->ctl_id)) ||
	    !pmixd_text_ok(m->ctl_id, sizeof(m->ctl_id)) ||
	    !rank_or(lim, m->rank, PMIXEV_PMIXD_NO_RANK) ||
	    !rank_or(lim, k->rank, PMIXEV_PMIXD_ALL))
		return false;
	for (uint32_t i = 0; i < m->nt; i++)
		if (m->t[i].tasks &&
		    !rank_or(lim, m->t[i].rank, PMIXEV_PMIXD_ALL))
			return false;
	return true;
}

int pmixev_pmixd_jobctl_pack(struct pmixev_buf *b,
			     const struct pmixev_pmixd_jobctl *m)
{
	if (!jobctl_ok(m, NULL))
		return pmixd_invalid();
	pmixev_buf_put_u64(b, m->id);
	pmixev_buf_put_u32(b, m->rank);
	pmixev_buf_put_u8(b, (uint8_t)m->action);
	pmixev_buf_put_u32(b, m->signo);
	pmixd_put_flag(b, m->preemptible);
	pmixev_buf_put_str(b, m->ckpt.id);
	pmixev_buf_put_str(b, m->ckpt.ctl_id);
	pmixev_buf_put_u32(b, m->ckpt.rank);
	pmixev_buf_put_u32(b, m->ckpt.signo);
	pmixev_buf_put_u32(b, m->ckpt.timeout_sec);
	pmixev_buf_put_str(b, m->ctl_id);
	pmixev_buf_put_u32(b, m->timeout_sec);
	pmixev_buf_put_u32(b, m->nt);
	for (uint32_t i = 0; i < m->nt; i++) {
		pmixev_buf_put_u32(b, m->t[i].job);
		pmixev_buf_put_u32(b, m->t[i].step);
		pmixd_put_flag(b, m->t[i].tasks);
		pmixev_buf_put_u32(b, m->t[i].rank);
	}
	return pmixd_pack_done(b);
}

int pmixev_pmixd_jobctl_unpack(struct pmixev_buf *b,
			       const struct pmixev_pmixd_bounds *lim,
			       struct pmixev_pmixd_jobctl *m)
{
	struct pmixev_pmixd_jobctl t;
	uint8_t action = 0, preempt = 0, tasks = 0;

	pmixev_buf_get_u64(b, &t.id);
	pmixev_buf_get_u32(b, &t.rank);
	pmixev_buf_get_u8(b, &action);
	pmixev_buf_get_u32(b, &t.signo);
	pmixev_buf_get_u8(b, &preempt);
	pmixev_buf_get_str(b, t.ckpt.id, sizeof(t.ckpt.id));
	pmixev_buf_get_str(b, t.ckpt.ctl_id, sizeof(t.ckpt.ctl_id));
	pmixev_buf_get_u32(b, &t.ckpt.rank);
	pmixev_buf_get_u32(b, &t.ckpt.signo);
	pmixev_buf_get_u32(b, &t.ckpt.timeout_sec);
	pmixev_buf_get_str(b, t.ctl_id, sizeof(t.ctl_id));
	pmixev_buf_get_u32(b, &t.timeout_sec);
	pmixev_buf_get_u32(b, &t.nt);
	if (!pmixev_buf_ok(b) || !pmixd_flag_ok(preempt) ||
	    t.nt > PMIXEV_PMIXD_TARGETS_MAX)
		return -1;
	t.action = (enum pmixev_pmixd_action)action;
	t.preemptible = preempt;
	for (uint32_t i = 0; i < t.nt; i++) {
		pmixev_buf_get_u32(b, &t.t[i].job);
		pmixev_buf_get_u32(b, &t.t[i].step);
		pmixev_buf_get_u8(b, &tasks);
		pmixev_buf_get_u32(b, &t.t[i].rank);
		if (!pmixd_flag_ok(tasks))
			return -1;
		t.t[i].tasks = tasks;
	}
	if (pmixd_unpack_done(b) < 0 || !jobctl_ok(&t, lim))
		return -1;
	*m = t;
	return 0;
}

int pmixev_pmixd_status_pack(struct pmixev_buf *b,
			     const struct pmixev_pmixd_status *m)
{
	if (!pmixd_text_ok(m->why, sizeof(m->why)))
		return pmixd_invalid();
	pmixev_buf_put_u64(b, m->id);
	pmixev_buf_put_i32(b, m->status);
	pmixev_buf_put_str(b, m->why);
	return pmixd_pack_done(b);
}

int pmixev_pmixd_status_unpack(struct pmixev_buf *b,
			       struct pmixev_pmixd_status *m)
{
	struct pmixev_pmixd_status t;

	pmixev_buf_get_u64(b, &t.id);
	pmixev_buf_get_i32(b, &t.status);
	pmixev_buf_get_str(b, t.why, sizeof(t.why));
	if (pmixd_unpack_done(b) < 0)
		return -1;
	*m = t;
	return 0;
}

/* An email's parts as the owner helper will take them. */
static bool mail_ok(const struct pmixev_pmixd_log_msg *x)
{
	struct pmixev_owner_mail mail = {.cmd = "/"}; /* root's, later */

	if (!pmixd_text_ok(x->to, sizeof(x->to)) ||
	    !pmixd_text_ok(x->subject, sizeof(x->subject)) ||
	    strlen(x->text) >= sizeof(mail.text))
		return false;
	memcpy(mail.to, x->to, sizeof(mail.to));
	memcpy(mail.subject, x->subject, sizeof(mail.subject));
	memcpy(mail.text, x->text, strlen(x->text) + 1);
	return pmixev_owner_mail_ok(&mail);
}

static bool log_msg_ok(const struct pmixev_pmixd_log_msg *x)
{
	if (x->ch > PMIXEV_PMIXD_CHANNEL_MAX || x->bad > 0)
		return false;
	if (x->bad) /* refused by O: nothing to deliver */
		return !x->text && !x->to[0] && !x->subject[0];
	return x->text && strlen(x->text) <= PMIXEV_PMIXD_TEXT_MAX &&
	       (x->ch != PMIXEV_PMIXD_EMAIL || mail_ok(x));
}

static bool log_ok(const struct pmixev_pmixd_log *m)
{
	if (!pmixd_text_ok(m->who, sizeof(m->who)) ||
	    (m->flags & ~PMIXEV_PMIXD_LOG_FLAGS) ||
	    m->level > PMIXEV_PMIXD_LEVEL_MAX || m->n > PMIXEV_PMIXD_MSGS_MAX)
		return false;
	for (uint32_t i = 0; i < m->n; i++)
		if (!log_msg_ok(&m->m[i]))
			return false;
	return true;
}

int pmixev_pmixd_log_pack(struct pmixev_buf *b,
			  const struct pmixev_pmixd_log *m)
{
	if (!log_ok(m))
		return pmixd_invalid();
	pmixev_buf_put_u64(b, m->id);
	pmixev_buf_put_u32(b, m->rank);
	pmixd_put_flag(b, m->task);
	pmixev_buf_put_str(b, m->who);
	pmixev_buf_put_u8(b, m->flags);
	pmixev_buf_put_u8(b, m->level);
	pmixev_buf_put_u64(b, (uint64_t)m->when);
	pmixev_buf_put_u32(b, m->n);
	for (uint32_t i = 0; i < m->n; i++) {
		pmixev_buf_put_u8(b, (uint8_t)m->m[i].ch);
		pmixev_buf_put_i32(b, m->m[i].bad);
		if (m->m[i].bad)
			continue;
		pmixev_buf_put_str(b, m->m[i].text);
		if (m->m[i].ch != PMIXEV_PMIXD_EMAIL)
			continue;
		pmixev_buf_put_str(b, m->m[i].to);
		pmixev_buf_put_str(b, m->m[i].subject);
	}
	return pmixd_pack_done(b);
}

/* Message `x` of a LOG body; its text is allocated only once the channel
 * is known to be one and the message not refused. */
static int get_log_msg(struct pmixev_buf *b, struct pmixev_pmixd_log_msg *x)
{
	uint8_t ch = 0;

	if (pmixev_buf_get_u8(b, &ch) < 0 || ch > PMIXEV_PMIXD_CHANNEL_MAX ||
	    pmixev_buf_get_i32(b, &x->bad) < 0 || x->bad > 0)
		return -1;
	x->ch = (enum pmixev_pmixd_channel)ch;
	if (x->bad)
		return 0;
	if (pmixd_get_text(b, PMIXEV_PMIXD_TEXT_MAX, &x->text) < 0)
		return -1;
	if (x->ch == PMIXEV_PMIXD_EMAIL) {
		pmixev_buf_get_str(b, x->to, sizeof(x->to));
		pmixev_buf_get_str(b, x->subject, sizeof(x->subject));
	}
	return pmixev_buf_ok(b) && log_msg_ok(x) ? 0 : -1;
}

int pmixev_pmixd_log_unpack(struct pmixev_buf *b,
			    const struct pmixev_pmixd_bounds *lim,
			    struct pmixev_pmixd_log *m)
{
	struct pmixev_pmixd_log *t = calloc(1, sizeof(*t));
	uint64_t when = 0;
	uint8_t task = 0;
	uint32_t n = 0;
	int rc = -1;

	if (!t)
		return -1;
	pmixev_buf_get_u64(b, &t->id);
	pmixev_buf_get_u32(b, &t->rank);
	pmixev_buf_get_u8(b, &task);
	pmixev_buf_get_str(b, t->who, sizeof(t->who));
	pmixev_buf_get_u8(b, &t->flags);
	pmixev_buf_get_u8(b, &t->level);
	pmixev_buf_get_u64(b, &when);
	pmixev_buf_get_u32(b, &n);
	t->task = task;
	t->when = (int64_t)when;
	if (!pmixev_buf_ok(b) || !pmixd_flag_ok(task) ||
	    (t->task && !pmixd_rank_local(lim, t->rank)) ||
	    n > PMIXEV_PMIXD_MSGS_MAX)
		goto out;
	for (t->n = 0; t->n < n; t->n++)
		if (get_log_msg(b, &t->m[t->n]) < 0) {
			t->n++; /* release its text too */
			goto out;
		}
	if (pmixd_unpack_done(b) < 0 || !log_ok(t))
		goto out;
	*m = *t;
	memset(t, 0, sizeof(*t));
	rc = 0;
out:
	pmixev_pmixd_log_release(t);
	free(t);
	return rc;
}

void pmixev_pmixd_log_release(struct pmixev_pmixd_log *m)
{
	if (!m)
		return;
	for (uint32_t i = 0; i < m->n && i < PMIXEV_PMIXD_MSGS_MAX; i++)
		free(m->m[i].text);
	memset(m, 0, sizeof(*m));
}
