/*
 * jobmgmt/applog_read.c - a PMIx_Log request read: channels, messages and
 * directives (PMIx progress thread).
 */
#include "config.h"

#include "jobmgmt/applog_call.h"

#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include <pmix.h>

#include "jobmgmt/logmail.h"

/* The flag OpenPMIx sets on an item it has logged itself: its internal
 * PMIX_INFO_OP_COMPLETE (src/include/pmix_globals.h, 4.2 to 6.x), in the
 * range pmix_common.h reserves to the library (PMIX_INFO_DIR_RESERVED). */
#define LIB_DONE 0x80000000u

static const char *const channel_names[] = {
	[CH_STDOUT] = "stdout",	    [CH_STDERR] = "stderr",
	[CH_SYSLOG] = "syslog",	    [CH_GLOBAL] = "global syslog",
	[CH_JOBREC] = "job record", [CH_EMAIL] = "email",
};

const char *channel_name(enum channel ch)
{
	return channel_names[ch];
}

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
	if (!text)
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
		if (ch == CH_EMAIL && c->n < MSGS_MAX) {
			c->m[c->n].ch = ch;
			c->m[c->n].mail = logmail_read(&d[i].value, c->who,
						       &c->m[c->n].bad);
			c->n++;
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

void applog_read(struct log_call *c, const pmix_info_t data[], size_t ndata,
		 const pmix_info_t directives[], size_t ndirs)
{
	read_directives(c, directives, ndirs);
	read_data(c, data, ndata);
}
