/*
 * pmix/applog.c - PMIx_Log: the upcall (PMIx progress thread) and the
 * channels (agent thread).
 */
#include "config.h"

#include "pmix/applog.h"

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
#include "pmix/confine.h"
#include "pmix/logsink.h"
#include "pmix/ptable.h"
#include "pmix/taskproc.h"
#include "pmixev_buf.h"
#include "pmixev_frame.h"
#include "pmixev_log.h"
#include "pmixev_logline.h"

#define MSGS_MAX     16
#define TEXT_MAX     65536 /* one message to a task's output */
#define RETRY_MS     20	   /* a task's full output is tried again */
#define FULL_MS	     10000 /* ... until it has been full this long */
#define GLOBAL_ROOT  0	   /* the node whose syslog is the step's */
#define TEXTLINE_MAX (PMIXEV_LOGLINE_MAX + 512) /* with "step J.S rank R" */
#define WHY_MAX	     256
/* The flag OpenPMIx sets on an item it has logged itself: its internal
 * PMIX_INFO_OP_COMPLETE (src/include/pmix_globals.h, 4.2 to 6.x), in the
 * range pmix_common.h reserves to the library (PMIX_INFO_DIR_RESERVED). */
#define LIB_DONE 0x80000000u

enum channel {
	CH_STDOUT,
	CH_STDERR,
	CH_SYSLOG,
	CH_GLOBAL,
	CH_JOBREC,
	CH_EMAIL
};

static const char *const channel_names[] = {
	[CH_STDOUT] = "stdout",	    [CH_STDERR] = "stderr",
	[CH_SYSLOG] = "syslog",	    [CH_GLOBAL] = "global syslog",
	[CH_JOBREC] = "job record", [CH_EMAIL] = "email",
};

struct applog {
	struct step *s;
	uint64_t requests, lines, refused, over_rate;
	time_t second; /* the rate's current second ... */
	unsigned used; /* ... and its lines so far */
};

struct msg {
	enum channel ch;
	char *text;
	pmix_status_t bad; /* found so at reading: not delivered */
};

struct log_call {
	uint32_t rank;
	char who[PMIX_MAX_NSLEN + 32]; /* "rank R" or "tool NSPACE:R" */
	bool task;		       /* the source is a task of this step */
	bool once, tag, stamp, jrec_all;
	bool lib_done; /* the library took care of some items */
	int level;
	time_t when;
	struct msg m[MSGS_MAX];
	size_t n, i;
	unsigned took;
	pmix_status_t first_err;
	char why[WHY_MAX];
	/* The message going into a task's output. */
	int fd;
	char *out;
	size_t out_len, out_done;
	unsigned full_ms;
	struct event *retry;
	pmix_op_cbfunc_t cbfunc;
	void *cbdata;
};

/* --- reading the request (PMIx progress thread) -------------------------- */

static bool channel_of(const pmix_info_t *in, enum channel *ch)
{
	if (PMIX_CHECK_KEY(in, PMIX_LOG_STDOUT))
		*ch = CH_STDOUT;
	else if (PMIX_CHECK_KEY(in, PMIX_LOG_STDERR))
		*ch = CH_STDERR;
	else if (PMIX_CHECK_KEY(in, PMIX_LOG_SYSLOG) ||
		 PMIX_CHECK_KEY(in, PMIX_LOG_LOCAL_SYSLOG))
		*ch = CH_SYSLOG;
	else if (PMIX_CHECK_KEY(in, PMIX_LOG_GLOBAL_SYSLOG))
		*ch = CH_GLOBAL;
	else if (PMIX_CHECK_KEY(in, PMIX_LOG_JOB_RECORD))
		*ch = CH_JOBREC;
	else if (PMIX_CHECK_KEY(in, PMIX_LOG_EMAIL))
		*ch = CH_EMAIL;
	else
		return false;
	return true;
}

static void add_msg(struct log_call *c, enum channel ch, const char *text)
{
	struct msg *m;

	if (c->n == MSGS_MAX)
		return;
	m = &c->m[c->n++];
	m->ch = ch;
	if (ch == CH_EMAIL)
		m->bad = PMIX_ERR_NOT_SUPPORTED;
	else if (!text)
		m->bad = PMIX_ERR_BAD_PARAM;
	else if (strlen(text) > TEXT_MAX)
		m->bad = PMIX_ERR_BAD_PARAM;
	else if (!(m->text = strdup(text)))
		m->bad = PMIX_ERR_NOMEM;
}

static void read_directives(struct log_call *c, const pmix_info_t *d, size_t n)
{
	bool generate = false;

	for (size_t i = 0; i < n; i++) {
		if (PMIX_CHECK_KEY(&d[i], PMIX_LOG_ONCE))
			c->once = PMIX_INFO_TRUE(&d[i]);
		else if (PMIX_CHECK_KEY(&d[i], PMIX_LOG_TAG_OUTPUT))
			c->tag = PMIX_INFO_TRUE(&d[i]);
		else if (PMIX_CHECK_KEY(&d[i], PMIX_LOG_TIMESTAMP_OUTPUT))
			c->stamp = PMIX_INFO_TRUE(&d[i]);
		else if (PMIX_CHECK_KEY(&d[i], PMIX_LOG_GENERATE_TIMESTAMP))
			generate = PMIX_INFO_TRUE(&d[i]);
		else if (PMIX_CHECK_KEY(&d[i], PMIX_LOG_JOB_RECORD))
			c->jrec_all = PMIX_INFO_TRUE(&d[i]);
		else if (PMIX_CHECK_KEY(&d[i], PMIX_LOG_TIMESTAMP) &&
			 d[i].value.type == PMIX_TIME)
			c->when = d[i].value.data.time;
		else if (PMIX_CHECK_KEY(&d[i], PMIX_LOG_SYSLOG_PRI) &&
			 d[i].value.type == PMIX_INT &&
			 d[i].value.data.integer >= LOG_EMERG &&
			 d[i].value.data.integer <= LOG_DEBUG)
			c->level = d[i].value.data.integer;
	}
	if (c->when <= 0 && (generate || c->stamp))
		c->when = time(NULL);
}

static void read_data(struct log_call *c, const pmix_info_t *d, size_t n)
{
	size_t first = c->n;

	for (size_t i = 0; i < n; i++) {
		enum channel ch;

		/* Done by the library already (a duplicate it suppressed). */
		if ((d[i].flags & LIB_DONE)) {
			c->lib_done = true;
			continue;
		}
		if (!channel_of(&d[i], &ch))
			continue;
		/* As a flag, PMIX_LOG_JOB_RECORD is a directive. */
		if (ch == CH_JOBREC && d[i].value.type == PMIX_BOOL) {
			c->jrec_all |= d[i].value.data.flag;
			continue;
		}
		add_msg(c, ch,
			d[i].value.type == PMIX_STRING ? d[i].value.data.string
						       : NULL);
	}
	for (size_t i = first; c->jrec_all && i < c->n && c->n < MSGS_MAX; i++)
		if (c->m[i].text && c->m[i].ch != CH_JOBREC)
			add_msg(c, CH_JOBREC, c->m[i].text);
}

/* --- the channels (agent thread) ----------------------------------------- */

/* The one place errno becomes a PMIx status here. */
static pmix_status_t errno_status(int err)
{
	switch (err) {
	case EAGAIN:
	case ENOBUFS:
		return PMIX_ERR_OUT_OF_RESOURCE;
	case EACCES:
	case EPERM:
		return PMIX_ERR_NO_PERMISSIONS;
	case ESRCH:
		return PMIX_ERR_NOT_FOUND;
	case ENOMEM:
		return PMIX_ERR_NOMEM;
	default:
		return PMIX_ERR_NOT_AVAILABLE;
	}
}

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

	if (!path[0]) {
		snprintf(why, WHY_MAX, "syslog is off (PMIxevLogSyslog=none)");
		return PMIX_ERR_NOT_AVAILABLE;
	}
	if (!within_rate(al)) {
		snprintf(why, WHY_MAX, "over PMIxevLogRate");
		return PMIX_ERR_OUT_OF_RESOURCE;
	}
	if (!(err = logsink_syslog(path, level, text)))
		return PMIX_SUCCESS;
	snprintf(why, WHY_MAX, "no syslog at %s: %s", path, strerror(err));
	return errno_status(err);
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

static void run(struct log_call *c);

static void on_retry(evutil_socket_t fd, short what, void *arg)
{
	struct log_call *c = arg;

	c->full_ms += RETRY_MS;
	run(c);
}

static void output_end(struct log_call *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	free(c->out);
	c->out = NULL;
	c->out_len = c->out_done = 0;
	c->full_ms = 0;
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
			 s->lay.nspace, c->rank, channel_names[m->ch]);
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

/* Into the task's stdout or stderr; PMIX_OPERATION_IN_PROGRESS: later. */
static pmix_status_t to_task(struct applog *al, struct log_call *c,
			     const struct msg *m)
{
	struct timeval tv = {0, RETRY_MS * 1000};
	uint32_t pid;
	ssize_t w = 0;

	if (c->fd < 0) {
		if (!c->task || !(pid = ptable_pid(al->s->ptable, c->rank))) {
			snprintf(c->why, WHY_MAX,
				 "only a running task of this node has one");
			return PMIX_ERR_NOT_SUPPORTED;
		}
		if ((c->fd = taskproc_fd(pid, m->ch == CH_STDOUT ? 1 : 2)) <
		    0) {
			int err = -c->fd;

			snprintf(c->why, WHY_MAX, "its %s: %s",
				 channel_names[m->ch], strerror(err));
			return errno_status(err);
		}
		if (output_text(c, m) < 0)
			return PMIX_ERR_NOMEM;
	}
	while (c->out_done < c->out_len &&
	       (w = taskproc_write(c->fd, c->out + c->out_done,
				   c->out_len - c->out_done)) > 0)
		c->out_done += (size_t)w;
	if (c->out_done == c->out_len)
		return PMIX_SUCCESS;
	if (w == -EAGAIN && c->full_ms < FULL_MS &&
	    (c->retry ||
	     (c->retry = evtimer_new(agent_base(al->s->agent), on_retry, c)))) {
		evtimer_add(c->retry, &tv);
		return PMIX_OPERATION_IN_PROGRESS;
	}
	snprintf(c->why, WHY_MAX, "its %s: %s", channel_names[m->ch],
		 w == -EAGAIN ? "full for 10 s" : strerror((int)-w));
	return w == -EAGAIN ? PMIX_ERR_TIMEOUT : errno_status((int)-w);
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
	default:
		return PMIX_ERR_NOT_SUPPORTED;
	}
}

/* Why message `m` was refused with `st`, when the channel did not say. */
static void default_why(struct log_call *c, const struct msg *m,
			pmix_status_t st)
{
	if (m->ch == CH_EMAIL)
		snprintf(c->why, WHY_MAX, "pmixev sends no mail");
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
	PMIXEV_INFO("log: %s: %s refused (%s): %s", c->who,
		    channel_names[m->ch], PMIx_Error_string(st), c->why);
	c->why[0] = '\0';
}

static void call_free(struct log_call *c)
{
	output_end(c);
	if (c->retry)
		event_free(c->retry);
	for (size_t i = 0; i < c->n; i++)
		free(c->m[i].text);
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
	call_free(c);
}

static void applog_agent(void *arg)
{
	struct log_call *c = arg;

	step_served()->applog->requests++;
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
	read_directives(c, directives, ndirs);
	read_data(c, data, ndata);
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
	free(al);
}
