/*
 * jobmgmt/applog.c - PMIx_Log: the upcall (PMIx progress thread) and the
 * channels (agent thread).
 */
#include "config.h"

#include "jobmgmt/applog.h"
#include "jobmgmt/applog_call.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>
#include <pmix.h>

#include "base/agent.h"
#include "base/step.h"
#include "overlay/overlay.h"
#include "pmixbase/confine.h"
#include "pmixbase/status.h"
#include "jobmgmt/logsink.h"
#include "jobmgmt/ptable.h"
#include "jobmgmt/taskproc.h"
#include "pmixev_buf.h"
#include "pmixev_frame.h"
#include "pmixev_log.h"
#include "pmixev_logline.h"
#include "ownerhelper/helper.h"
#include "ownerhelper/jobinfo.h"

#define WRITE_MS      5000 /* the owner helper's deadline for a task's line */
#define GLOBAL_ROOT   0	   /* the node whose syslog is the step's */
#define TEXTLINE_MAX  (PMIXEV_LOGLINE_MAX + 512) /* with "step J.S rank R" */
#define CALLS_MAX     256 /* requests in progress at once */
#define MAILS_MAX     16  /* mails of one step from one node */
#define REFUSALS_SAID 10  /* refusals logged per second; the rest counted */

struct applog {
	struct step *s;
	struct logsink *sink; /* NULL: PMIxevLogSyslog=none */
	uint64_t requests, lines, refused, over_rate;
	unsigned mails;	    /* handed to the mail command */
	unsigned inflight;  /* requests being carried out */
	uint64_t busy;	    /* refused: CALLS_MAX in progress */
	time_t second;	    /* the rate's current second ... */
	unsigned used;	    /* ... and its lines so far */
	time_t said_second; /* refusals logged in this second ... */
	unsigned said;	    /* ... so many */
	uint64_t unsaid;    /* refusals not logged (over REFUSALS_SAID) */
};

/* --- the channels (agent thread) ----------------------------------------- */

static bool within_rate(struct applog *al)
{
	time_t now = time(NULL);

	if (now != al->second) {
		al->second = now;
		al->used = 0;
	}
	if (al->used < al->s->conf.log_rate) {
		al->used++;
		return true;
	}
	if (!al->over_rate++)
		PMIXEV_INFO("log: more than PMIxevLogRate=%u syslog and job "
			    "record lines in a second; the excess is refused "
			    "and counted",
			    al->s->conf.log_rate);
	return false;
}

/* `text` (clean) to this node's syslog. */
static pmix_status_t to_syslog(struct applog *al, int level, const char *text,
			       char *why)
{
	const char *path = al->s->conf.log_syslog;
	int err;

	if (!al->sink) {
		snprintf(why, WHY_MAX, "syslog is off (PMIxevLogSyslog=none)");
		return PMIX_ERR_NOT_AVAILABLE;
	}
	if (!within_rate(al)) {
		snprintf(why, WHY_MAX, "over PMIxevLogRate");
		return PMIX_ERR_OUT_OF_RESOURCE;
	}
	if (!(err = logsink_syslog(al->sink, level, text)))
		return PMIX_SUCCESS;
	snprintf(why, WHY_MAX, "no syslog at %s: %s", path, strerror(err));
	return status_from_errno(err);
}

/* "step J.S rank R (uid U): TEXT", escaped and cut. */
static void sys_text(const struct log_call *c, const char *text, char *out,
		     size_t len)
{
	const struct step *s = step_served();
	char clean[PMIXEV_LOGLINE_MAX + 1];

	pmixev_logline_clean(clean, sizeof(clean), text);
	snprintf(out, len, "step %s %s (uid %u): %s", s->lay.step.id, c->who,
		 (unsigned)s->lay.uid, clean);
}

static pmix_status_t to_global(struct applog *al, struct log_call *c,
			       const char *text)
{
	struct step *s = al->s;
	char line[TEXTLINE_MAX];
	struct pmixev_buf b;
	int rc;

	sys_text(c, text, line, sizeof(line));
	if (s->lay.nodeid == GLOBAL_ROOT)
		return to_syslog(al, c->level, line, c->why);
	pmixev_buf_init(&b);
	pmixev_buf_put_u32(&b, (uint32_t)c->level);
	pmixev_buf_put_str(&b, line);
	rc = pmixev_buf_ok(&b)
		     ? overlay_send(s->ov, GLOBAL_ROOT, PMIXEV_MSG_LOG_GLOBAL,
				    b.data, b.len)
		     : -1;
	pmixev_buf_release(&b);
	if (rc == 0)
		return PMIX_SUCCESS;
	PMIXEV_INFO("log: node %u is gone: the global syslog line of %s goes "
		    "to this node's syslog",
		    GLOBAL_ROOT, c->who);
	return to_syslog(al, c->level, line, c->why);
}

static pmix_status_t to_job_record(struct applog *al, struct log_call *c,
				   const char *text)
{
	char clean[PMIXEV_LOGLINE_MAX + 1];

	if (!within_rate(al)) {
		snprintf(c->why, WHY_MAX, "over PMIxevLogRate");
		return PMIX_ERR_OUT_OF_RESOURCE;
	}
	pmixev_logline_clean(clean, sizeof(clean), text);
	PMIXEV_INFO("job record: %s: %s", c->who, clean);
	return PMIX_SUCCESS;
}

static void output_end(struct log_call *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	free(c->out);
	c->out = NULL;
	c->out_len = 0;
}

/* c->out: the text with the asked prefixes and a final newline. */
static int output_text(struct log_call *c, const struct msg *m)
{
	const struct step *s = step_served();
	char prefix[PMIX_MAX_NSLEN + 96] = "", stamp[40] = "";
	size_t len = strlen(m->text), plen;
	bool nl = len && m->text[len - 1] == '\n';
	struct tm tm;

	if (c->stamp && localtime_r(&c->when, &tm))
		strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S ", &tm);
	if (c->tag)
		snprintf(prefix, sizeof(prefix), "%s[%s,%u]<%s>: ", stamp,
			 s->lay.nspace, c->rank, channel_name(m->ch));
	else
		snprintf(prefix, sizeof(prefix), "%s", stamp);
	plen = strlen(prefix);
	if (!(c->out = malloc(plen + len + 2)))
		return -1;
	memcpy(c->out, prefix, plen);
	memcpy(c->out + plen, m->text, len);
	c->out_len = plen + len;
	if (!nl)
		c->out[c->out_len++] = '\n';
	return 0;
}

static void on_written(void *arg, int err, size_t done);

/*
 * Into the task's stdout or stderr, written by the owner helper as the
 * job owner (ownerhelper/helper_write.h): root takes the task's descriptor
 * but never writes into what the task chose it to be, nor waits on it.
 * PMIX_OPERATION_IN_PROGRESS: answered in on_written.
 */
static pmix_status_t to_task(struct applog *al, struct log_call *c,
			     const struct msg *m)
{
	struct helper *h;
	uint32_t pid;

	if (!c->task || !(pid = ptable_pid(al->s->ptable, c->rank))) {
		snprintf(c->why, WHY_MAX,
			 "only a running task of this node has one");
		return PMIX_ERR_NOT_SUPPORTED;
	}
	if ((c->fd = taskproc_fd(pid, m->ch == CH_STDOUT ? 1 : 2)) < 0) {
		int err = -c->fd;

		snprintf(c->why, WHY_MAX, "its %s: %s", channel_name(m->ch),
			 strerror(err));
		return status_from_errno(err);
	}
	if (output_text(c, m) < 0)
		return PMIX_ERR_NOMEM;
	if (!(h = jobinfo_node_helper(al->s->jobinfo)) ||
	    helper_write(h, c->fd, c->out, c->out_len, WRITE_MS, on_written,
			 c) < 0) {
		int err = h ? errno : ENOMEM;

		snprintf(c->why, WHY_MAX,
			 "the owner helper, which writes it as the job owner, "
			 "cannot take it: %s",
			 strerror(err));
		return err == EAGAIN ? PMIX_ERR_OUT_OF_RESOURCE
				     : PMIX_ERR_UNREACH;
	}
	/* The helper has its duplicate; out_len stays for the answer. */
	close(c->fd);
	c->fd = -1;
	free(c->out);
	c->out = NULL;
	return PMIX_OPERATION_IN_PROGRESS;
}

static void on_mailed(void *arg, const struct pmixev_owner_resp *r);

/* By the owner helper, with the site's mail command; at most MAILS_MAX. */
static pmix_status_t to_mail(struct applog *al, struct log_call *c,
			     const struct msg *m)
{
	struct step *s = al->s;
	struct helper *h;

	if (!s->conf.log_mail[0]) {
		snprintf(c->why, WHY_MAX, "email is off (PMIxevLogMail=none)");
		return PMIX_ERR_NOT_SUPPORTED;
	}
	if (al->mails == MAILS_MAX || !within_rate(al)) {
		snprintf(c->why, WHY_MAX,
			 "at most %d mails per step and node, and "
			 "PMIxevLogRate",
			 MAILS_MAX);
		return PMIX_ERR_OUT_OF_RESOURCE;
	}
	snprintf(m->mail->cmd, sizeof(m->mail->cmd), "%s", s->conf.log_mail);
	if (!(h = jobinfo_node_helper(s->jobinfo)) ||
	    helper_mail(h, m->mail, on_mailed, c) < 0) {
		snprintf(c->why, WHY_MAX, "the owner helper is not available");
		return PMIX_ERR_UNREACH;
	}
	al->mails++;
	return PMIX_OPERATION_IN_PROGRESS;
}

static pmix_status_t deliver(struct applog *al, struct log_call *c,
			     const struct msg *m)
{
	char line[TEXTLINE_MAX];

	switch (m->ch) {
	case CH_STDOUT:
	case CH_STDERR:
		return to_task(al, c, m);
	case CH_SYSLOG:
		sys_text(c, m->text, line, sizeof(line));
		return to_syslog(al, c->level, line, c->why);
	case CH_GLOBAL:
		return to_global(al, c, m->text);
	case CH_JOBREC:
		return to_job_record(al, c, m->text);
	case CH_EMAIL:
		return to_mail(al, c, m);
	default:
		return PMIX_ERR_NOT_SUPPORTED;
	}
}

/* Why message `m` was refused with `st`, when the channel did not say. */
static void default_why(struct log_call *c, const struct msg *m,
			pmix_status_t st)
{
	if (m->ch == CH_EMAIL && st == PMIX_ERR_BAD_PARAM)
		snprintf(c->why, WHY_MAX,
			 "not an array of PMIX_LOG_EMAIL_ADDR (comma-separated "
			 "letters, digits, ._%%+-@), _SUBJECT, _MSG (< 1 KiB)");
	else if (st == PMIX_ERR_BAD_PARAM)
		snprintf(c->why, WHY_MAX, "not a string of at most 64 KiB");
	else if (st == PMIX_ERR_NO_PERMISSIONS)
		snprintf(c->why, WHY_MAX,
			 "the PMIx thread could not take the "
			 "job owner's identity");
	else
		snprintf(c->why, WHY_MAX, "%s", PMIx_Error_string(st));
}

static void settle(struct applog *al, struct log_call *c, struct msg *m,
		   pmix_status_t st)
{
	if (st == PMIX_SUCCESS) {
		c->took++;
		al->lines++;
		return;
	}
	al->refused++;
	if (c->first_err == PMIX_SUCCESS)
		c->first_err = st;
	if (!c->why[0])
		default_why(c, m, st);
	if (al->said_second != time(NULL)) {
		al->said_second = time(NULL);
		al->said = 0;
	}
	if (al->said++ < REFUSALS_SAID)
		PMIXEV_INFO("log: %s: %s refused (%s): %s", c->who,
			    channel_name(m->ch), PMIx_Error_string(st), c->why);
	else
		al->unsaid++;
	c->why[0] = '\0';
}

static void call_free(struct log_call *c)
{
	output_end(c);
	for (size_t i = 0; i < c->n; i++) {
		free(c->m[i].text);
		free(c->m[i].mail);
	}
	free(c);
}

static void run(struct log_call *c)
{
	struct applog *al = step_served()->applog;
	pmix_status_t st;

	for (; c->i < c->n && !(c->once && c->took); c->i++) {
		struct msg *m = &c->m[c->i];

		st = m->bad ? m->bad : deliver(al, c, m);
		if (st == PMIX_OPERATION_IN_PROGRESS)
			return;
		output_end(c);
		settle(al, c, m, st);
	}
	if (c->took && (c->once || c->took == c->n))
		st = PMIX_SUCCESS;
	else if (c->took)
		st = PMIX_ERR_PARTIAL_SUCCESS;
	else if (c->n)
		st = c->first_err;
	else
		st = c->lib_done ? PMIX_SUCCESS : PMIX_ERR_BAD_PARAM;
	c->cbfunc(st, c->cbdata);
	al->inflight--;
	call_free(c);
}

/* The owner helper wrote the task's line (`err` 0), or could not: the
 * message is settled, on to the next. */
static void on_written(void *arg, int err, size_t done)
{
	struct log_call *c = arg;
	struct applog *al = step_served()->applog;
	const struct msg *m = &c->m[c->i];
	pmix_status_t st = PMIX_SUCCESS;

	if (err == ETIMEDOUT) {
		snprintf(c->why, WHY_MAX,
			 "its %s took %zu of %zu bytes in %d s (full, or "
			 "nobody reads it)",
			 channel_name(m->ch), done, c->out_len,
			 WRITE_MS / 1000);
		st = PMIX_ERR_TIMEOUT;
	} else if (err) {
		snprintf(c->why, WHY_MAX,
			 "its %s, written as the job owner: %s",
			 channel_name(m->ch), strerror(err));
		st = status_from_errno(err);
	}
	settle(al, c, &c->m[c->i++], st);
	run(c);
}

/* The helper ran the mail command: the message is settled, on to the
 * next. */
static void on_mailed(void *arg, const struct pmixev_owner_resp *r)
{
	struct log_call *c = arg;
	struct applog *al = step_served()->applog;
	pmix_status_t st = PMIX_SUCCESS;

	if (!r || r->ctl.rc) {
		snprintf(c->why, WHY_MAX, "%s",
			 r ? r->ctl.reason : "the owner helper did not answer");
		st = r ? PMIX_ERROR : PMIX_ERR_UNREACH;
	}
	settle(al, c, &c->m[c->i++], st);
	run(c);
}

static void applog_agent(void *arg)
{
	struct log_call *c = arg;
	struct applog *al = step_served()->applog;

	al->requests++;
	/* Requests wait on a full task output or the mail command: a job
	 * may not make the stepd hold more than CALLS_MAX of them. */
	if (al->inflight == CALLS_MAX) {
		if (!al->busy++)
			PMIXEV_INFO("log: %d requests in progress: more are "
				    "refused (PMIX_ERR_OUT_OF_RESOURCE) and "
				    "counted",
				    CALLS_MAX);
		al->refused += c->n;
		c->cbfunc(PMIX_ERR_OUT_OF_RESOURCE, c->cbdata);
		call_free(c);
		return;
	}
	al->inflight++;
	run(c);
}

/* The root: a node's line for the step's syslog. */
static void on_global(void *ctx, uint32_t src, const uint8_t *buf, size_t len)
{
	struct applog *al = ctx;
	char line[TEXTLINE_MAX], why[WHY_MAX] = "";
	struct pmixev_buf b;
	uint32_t level;
	bool clean = true;

	pmixev_buf_reader(&b, buf, len);
	pmixev_buf_get_u32(&b, &level);
	pmixev_buf_get_str(&b, line, sizeof(line));
	for (const char *p = line; pmixev_buf_ok(&b) && *p; p++)
		clean &= (unsigned char)*p >= ' ' && *p != 0x7f;
	if (src >= al->s->lay.step.nnodes || !pmixev_buf_ok(&b) ||
	    pmixev_buf_remaining(&b) || level > LOG_DEBUG || !clean) {
		PMIXEV_ERROR("log: malformed global syslog line from node %u",
			     src);
		return;
	}
	if (to_syslog(al, (int)level, line, why) != PMIX_SUCCESS) {
		al->refused++;
		PMIXEV_INFO("log: node %u's global syslog line refused: %s",
			    src, why);
		return;
	}
	al->lines++;
}

/* --- the upcall (PMIx progress thread) ---------------------------------- */

void applog_upcall(const pmix_proc_t *client, const pmix_info_t data[],
		   size_t ndata, const pmix_info_t directives[], size_t ndirs,
		   pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	const struct step *s = step_served();
	struct log_call *c = calloc(1, sizeof(*c));

	if (!c) {
		PMIXEV_ERROR("log: a request dropped: out of memory");
		return;
	}
	c->fd = -1;
	c->level = LOG_ERR;
	c->first_err = PMIX_SUCCESS;
	c->rank = client ? client->rank : PMIX_RANK_UNDEF;
	c->task = client && PMIX_CHECK_NSPACE(client->nspace, s->lay.nspace);
	if (c->task)
		snprintf(c->who, sizeof(c->who), "rank %u", c->rank);
	else
		snprintf(c->who, sizeof(c->who), "tool %.*s:%u", PMIX_MAX_NSLEN,
			 client ? client->nspace : "?", c->rank);
	applog_read(c, data, ndata, directives, ndirs);
	/* The library may carry out cleanups on this thread later. */
	if (!confine_pmix_thread(s->lay.uid, s->lay.gid))
		for (size_t i = 0; i < c->n; i++)
			c->m[i].bad = PMIX_ERR_NO_PERMISSIONS;
	c->cbfunc = cbfunc;
	c->cbdata = cbdata;
	/* Never answered from here: the library holds a lock around this
	 * call that its callback takes. */
	if (agent_post(s->agent, applog_agent, c) < 0) {
		PMIXEV_ERROR("log: a request from %s dropped: the agent thread "
			     "is gone",
			     c->who);
		call_free(c);
	}
}

struct applog *applog_create(struct step *s)
{
	struct applog *al = calloc(1, sizeof(*al));

	if (!al)
		return NULL;
	al->s = s;
	if (s->conf.log_syslog[0] &&
	    !(al->sink = logsink_create(s->conf.log_syslog))) {
		free(al);
		return NULL;
	}
	overlay_on(s->ov, PMIXEV_MSG_LOG_GLOBAL, on_global, al);
	return al;
}

void applog_destroy(struct applog *al)
{
	if (!al)
		return;
	if (al->requests || al->lines || al->refused)
		PMIXEV_INFO("log: %llu request(s), %llu message(s) written, "
			    "%llu refused (%llu over PMIxevLogRate)",
			    (unsigned long long)al->requests,
			    (unsigned long long)al->lines,
			    (unsigned long long)al->refused,
			    (unsigned long long)al->over_rate);
	if (al->unsaid)
		PMIXEV_INFO("log: %llu refusal(s) not logged (more than %d "
			    "in a second)",
			    (unsigned long long)al->unsaid, REFUSALS_SAID);
	if (al->busy)
		PMIXEV_INFO("log: %llu request(s) refused while %d were in "
			    "progress",
			    (unsigned long long)al->busy, CALLS_MAX);
	logsink_destroy(al->sink);
	free(al);
}
