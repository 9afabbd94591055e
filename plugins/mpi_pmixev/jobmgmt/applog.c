/*
 * jobmgmt/applog.c - PMIx_Log: the pmix side's LOG frames carried out on
 * the channels, one LOG_DONE each (agent thread).
 */
#include "config.h"

#include "jobmgmt/applog.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <pmix_common.h>

#include "base/step.h"
#include "overlay/overlay.h"
#include "jobmgmt/logsink.h"
#include "jobmgmt/pmixstatus.h"
#include "jobmgmt/ptable.h"
#include "jobmgmt/taskproc.h"
#include "pmixd/chan.h"
#include "pmixev_buf.h"
#include "pmixev_frame.h"
#include "pmixev_log.h"
#include "pmixev_logline.h"
#include "pmixev_pmixd_ctl.h"
#include "ownerhelper/helper.h"

#define WRITE_MS      5000 /* the owner helper's deadline for a task's line */
#define GLOBAL_ROOT   0	   /* the node whose syslog is the step's */
#define TEXTLINE_MAX  (PMIXEV_LOGLINE_MAX + 512) /* with "step J.S rank R" */
#define CALLS_MAX     256 /* requests in progress at once */
#define MAILS_MAX     16  /* mails of one step from one node */
#define REFUSALS_SAID 10  /* refusals logged per second; the rest counted */
#define WHY_MAX	      PMIXEV_PMIXD_WHY_MAX

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

/* A LOG frame, carried out one message at a time, in order. */
struct log_call {
	struct applog *al;
	struct pmixev_pmixd_log rq; /* checked; `who` made safe to log */
	size_t i;		    /* the message being delivered */
	unsigned took;		    /* messages a channel took */
	int32_t first_err;	    /* the first refusal's PMIx status */
	char why[WHY_MAX];	    /* why the current message was refused */
	/* The message going into a task's output, until the owner helper
	 * has it. */
	int fd;
	char *out;
	size_t out_len;
};

static const char *const channel_names[] = {
	[PMIXEV_PMIXD_STDOUT] = "stdout",
	[PMIXEV_PMIXD_STDERR] = "stderr",
	[PMIXEV_PMIXD_SYSLOG] = "syslog",
	[PMIXEV_PMIXD_GLOBAL] = "global syslog",
	[PMIXEV_PMIXD_JOBREC] = "job record",
	[PMIXEV_PMIXD_EMAIL] = "email",
};

/* "stdout", "global syslog", ... */
static const char *channel_name(enum pmixev_pmixd_channel ch)
{
	return channel_names[ch];
}

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
static int32_t to_syslog(struct applog *al, int level, const char *text,
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
	return pmixstatus_from_errno(err);
}

/* "step J.S rank R (uid U): TEXT", escaped and cut. */
static void sys_text(const struct log_call *c, const char *text, char *out,
		     size_t len)
{
	const struct step *s = c->al->s;
	char clean[PMIXEV_LOGLINE_MAX + 1];

	pmixev_logline_clean(clean, sizeof(clean), text);
	snprintf(out, len, "step %s %s (uid %u): %s", s->lay.step.id, c->rq.who,
		 (unsigned)s->lay.uid, clean);
}

static int32_t to_global(struct applog *al, struct log_call *c,
			 const char *text)
{
	struct step *s = al->s;
	char line[TEXTLINE_MAX];
	struct pmixev_buf b;
	int rc;

	sys_text(c, text, line, sizeof(line));
	if (s->lay.nodeid == GLOBAL_ROOT)
		return to_syslog(al, c->rq.level, line, c->why);
	pmixev_buf_init(&b);
	pmixev_buf_put_u32(&b, c->rq.level);
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
		    GLOBAL_ROOT, c->rq.who);
	return to_syslog(al, c->rq.level, line, c->why);
}

static int32_t to_job_record(struct applog *al, struct log_call *c,
			     const char *text)
{
	char clean[PMIXEV_LOGLINE_MAX + 1];

	if (!within_rate(al)) {
		snprintf(c->why, WHY_MAX, "over PMIxevLogRate");
		return PMIX_ERR_OUT_OF_RESOURCE;
	}
	pmixev_logline_clean(clean, sizeof(clean), text);
	PMIXEV_INFO("job record: %s: %s", c->rq.who, clean);
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
static int output_text(struct log_call *c, const struct pmixev_pmixd_log_msg *m)
{
	const struct step *s = c->al->s;
	char prefix[PMIX_MAX_NSLEN + 96] = "", stamp[40] = "";
	size_t len = strlen(m->text), plen;
	bool nl = len && m->text[len - 1] == '\n';
	time_t when = (time_t)c->rq.when;
	struct tm tm;

	if ((c->rq.flags & PMIXEV_PMIXD_LOG_STAMP) && localtime_r(&when, &tm))
		strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S ", &tm);
	if (c->rq.flags & PMIXEV_PMIXD_LOG_TAG)
		snprintf(prefix, sizeof(prefix), "%s[%s,%u]<%s>: ", stamp,
			 s->lay.nspace, c->rq.rank, channel_name(m->ch));
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
static int32_t to_task(struct applog *al, struct log_call *c,
		       const struct pmixev_pmixd_log_msg *m)
{
	uint32_t pid;

	if (!c->rq.task || !(pid = ptable_pid(al->s->ptable, c->rq.rank))) {
		snprintf(c->why, WHY_MAX,
			 "only a running task of this node has one");
		return PMIX_ERR_NOT_SUPPORTED;
	}
	if ((c->fd = taskproc_fd(pid, m->ch == PMIXEV_PMIXD_STDOUT ? 1 : 2)) <
	    0) {
		int err = -c->fd;

		snprintf(c->why, WHY_MAX, "its %s: %s", channel_name(m->ch),
			 strerror(err));
		return pmixstatus_from_errno(err);
	}
	if (output_text(c, m) < 0)
		return PMIX_ERR_NOMEM;
	if (helper_write(al->s->helper, c->fd, c->out, c->out_len, WRITE_MS,
			 on_written, c) < 0) {
		int err = errno;

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
static int32_t to_mail(struct applog *al, struct log_call *c,
		       const struct pmixev_pmixd_log_msg *m)
{
	struct step *s = al->s;
	struct pmixev_owner_mail mail = {0};

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
	/* Parts checked by the frame's unpack (pmixev_owner_mail_ok). */
	snprintf(mail.cmd, sizeof(mail.cmd), "%s", s->conf.log_mail);
	memcpy(mail.to, m->to, sizeof(mail.to));
	memcpy(mail.subject, m->subject, sizeof(mail.subject));
	snprintf(mail.text, sizeof(mail.text), "%s", m->text);
	if (helper_mail(s->helper, &mail, on_mailed, c) < 0) {
		snprintf(c->why, WHY_MAX, "the owner helper is not available");
		return PMIX_ERR_UNREACH;
	}
	al->mails++;
	return PMIX_OPERATION_IN_PROGRESS;
}

static int32_t deliver(struct applog *al, struct log_call *c,
		       const struct pmixev_pmixd_log_msg *m)
{
	char line[TEXTLINE_MAX];

	switch (m->ch) {
	case PMIXEV_PMIXD_STDOUT:
	case PMIXEV_PMIXD_STDERR:
		return to_task(al, c, m);
	case PMIXEV_PMIXD_SYSLOG:
		sys_text(c, m->text, line, sizeof(line));
		return to_syslog(al, c->rq.level, line, c->why);
	case PMIXEV_PMIXD_GLOBAL:
		return to_global(al, c, m->text);
	case PMIXEV_PMIXD_JOBREC:
		return to_job_record(al, c, m->text);
	case PMIXEV_PMIXD_EMAIL:
		return to_mail(al, c, m);
	default:
		return PMIX_ERR_NOT_SUPPORTED;
	}
}

/* Why message `m` was refused with `st`, when the channel did not say. */
static void default_why(struct log_call *c,
			const struct pmixev_pmixd_log_msg *m, int32_t st)
{
	if (m->ch == PMIXEV_PMIXD_EMAIL && st == PMIX_ERR_BAD_PARAM)
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
		snprintf(c->why, WHY_MAX, "%s", pmixstatus_name(st));
}

static void settle(struct applog *al, struct log_call *c,
		   const struct pmixev_pmixd_log_msg *m, int32_t st)
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
		PMIXEV_INFO("log: %s: %s refused (%s): %s", c->rq.who,
			    channel_name(m->ch), pmixstatus_name(st), c->why);
	else
		al->unsaid++;
	c->why[0] = '\0';
}

static void call_free(struct log_call *c)
{
	output_end(c);
	pmixev_pmixd_log_release(&c->rq);
	free(c);
}

/* Answer the pmix side's request `id` with `st`. */
static void answer(struct applog *al, uint64_t id, int32_t st)
{
	struct pmixev_pmixd_status m = {.id = id, .status = st};
	struct pmixev_buf b;

	pmixev_buf_init(&b);
	chan_frame_begin(&b);
	if ((pmixev_pmixd_status_pack(&b, &m) < 0 ||
	     chan_send(al->s->chan, PMIXEV_PMIXD_LOG_DONE, &b) < 0) &&
	    chan_is_open(al->s->chan))
		PMIXEV_ERROR("log: cannot answer the pmix side's request %llu "
			     "(out of memory): it waits until the channel "
			     "closes",
			     (unsigned long long)id);
	pmixev_buf_release(&b);
}

static void run(struct log_call *c)
{
	struct applog *al = c->al;
	bool once = c->rq.flags & PMIXEV_PMIXD_LOG_ONCE;
	int32_t st;

	for (; c->i < c->rq.n && !(once && c->took); c->i++) {
		const struct pmixev_pmixd_log_msg *m = &c->rq.m[c->i];

		st = m->bad ? m->bad : deliver(al, c, m);
		if (st == PMIX_OPERATION_IN_PROGRESS)
			return;
		output_end(c);
		settle(al, c, m, st);
	}
	if (c->took && (once || c->took == c->rq.n))
		st = PMIX_SUCCESS;
	else if (c->took)
		st = PMIX_ERR_PARTIAL_SUCCESS;
	else if (c->rq.n)
		st = c->first_err;
	else
		st = c->rq.flags & PMIXEV_PMIXD_LOG_LIB_DONE
			     ? PMIX_SUCCESS
			     : PMIX_ERR_BAD_PARAM;
	answer(al, c->rq.id, st);
	al->inflight--;
	call_free(c);
}

/* The owner helper wrote the task's line (`err` 0), or could not: the
 * message is settled, on to the next. */
static void on_written(void *arg, int err, size_t done)
{
	struct log_call *c = arg;
	const struct pmixev_pmixd_log_msg *m = &c->rq.m[c->i];
	int32_t st = PMIX_SUCCESS;

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
		st = pmixstatus_from_errno(err);
	}
	settle(c->al, c, &c->rq.m[c->i++], st);
	run(c);
}

/* The helper ran the mail command: the message is settled, on to the
 * next. */
static void on_mailed(void *arg, const struct pmixev_owner_resp *r)
{
	struct log_call *c = arg;
	int32_t st = PMIX_SUCCESS;

	if (!r || r->ctl.rc) {
		snprintf(c->why, WHY_MAX, "%s",
			 r ? r->ctl.reason : "the owner helper did not answer");
		st = r ? PMIX_ERROR : PMIX_ERR_UNREACH;
	}
	settle(c->al, c, &c->rq.m[c->i++], st);
	run(c);
}

/* Who asks, as it goes into the logs: a task by its rank; a tool's name
 * is the pmix side's claim, escaped. */
static void name_requester(struct log_call *c)
{
	char claim[sizeof(c->rq.who)];

	if (c->rq.task) {
		snprintf(c->rq.who, sizeof(c->rq.who), "rank %u", c->rq.rank);
		return;
	}
	memcpy(claim, c->rq.who, sizeof(claim));
	pmixev_logline_clean(c->rq.who, sizeof(c->rq.who), claim);
}

/* A LOG frame: checked, then carried out (or refused whole). */
static int on_log(void *ctx, struct pmixev_buf *body)
{
	struct applog *al = ctx;
	struct pmixev_pmixd_log rq;
	struct log_call *c;

	if (pmixev_pmixd_log_unpack(body, &al->s->pmixd_lim, &rq) < 0)
		return -1;
	al->requests++;
	if (!(c = calloc(1, sizeof(*c)))) {
		al->refused += rq.n;
		answer(al, rq.id, PMIX_ERR_NOMEM);
		pmixev_pmixd_log_release(&rq);
		return 0;
	}
	c->al = al;
	c->rq = rq;
	c->fd = -1;
	c->first_err = PMIX_SUCCESS;
	name_requester(c);
	/* Requests wait on a full task output or the mail command: a job
	 * may not make the stepd hold more than CALLS_MAX of them. */
	if (al->inflight == CALLS_MAX) {
		if (!al->busy++)
			PMIXEV_INFO("log: %d requests in progress: more are "
				    "refused (PMIX_ERR_OUT_OF_RESOURCE) and "
				    "counted",
				    CALLS_MAX);
		al->refused += c->rq.n;
		answer(al, c->rq.id, PMIX_ERR_OUT_OF_RESOURCE);
		call_free(c);
		return 0;
	}
	al->inflight++;
	run(c);
	return 0;
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
	chan_on(s->chan, PMIXEV_PMIXD_LOG, on_log, al);
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
