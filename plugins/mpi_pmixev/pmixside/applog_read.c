/*
 * pmixside/applog_read.c - a PMIx_Log request read: channels, messages and
 * directives (see applog_read.h).
 */
#include "config.h"

#include "pmixside/applog_read.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include <pmix.h>

#include "pmixside/logmail.h"

/* The flag OpenPMIx sets on an item it has logged itself: its internal
 * PMIX_INFO_OP_COMPLETE (src/include/pmix_globals.h, 4.2 to 6.x), in the
 * range pmix_common.h reserves to the library (PMIX_INFO_DIR_RESERVED). */
#define LIB_DONE 0x80000000u

static bool channel_of(const pmix_info_t *in, enum pmixev_pmixd_channel *ch)
{
	if (PMIX_CHECK_KEY(in, PMIX_LOG_STDOUT))
		*ch = PMIXEV_PMIXD_STDOUT;
	else if (PMIX_CHECK_KEY(in, PMIX_LOG_STDERR))
		*ch = PMIXEV_PMIXD_STDERR;
	else if (PMIX_CHECK_KEY(in, PMIX_LOG_SYSLOG) ||
		 PMIX_CHECK_KEY(in, PMIX_LOG_LOCAL_SYSLOG))
		*ch = PMIXEV_PMIXD_SYSLOG;
	else if (PMIX_CHECK_KEY(in, PMIX_LOG_GLOBAL_SYSLOG))
		*ch = PMIXEV_PMIXD_GLOBAL;
	else if (PMIX_CHECK_KEY(in, PMIX_LOG_JOB_RECORD))
		*ch = PMIXEV_PMIXD_JOBREC;
	else if (PMIX_CHECK_KEY(in, PMIX_LOG_EMAIL))
		*ch = PMIXEV_PMIXD_EMAIL;
	else
		return false;
	return true;
}

void applog_refuse(struct pmixev_pmixd_log_msg *x, pmix_status_t st)
{
	free(x->text);
	x->text = NULL;
	x->to[0] = x->subject[0] = '\0';
	x->bad = st;
}

static void add_msg(struct pmixev_pmixd_log *m, enum pmixev_pmixd_channel ch,
		    const char *text)
{
	struct pmixev_pmixd_log_msg *x;

	if (m->n == PMIXEV_PMIXD_MSGS_MAX)
		return;
	x = &m->m[m->n++];
	x->ch = ch;
	if (!text || strlen(text) > PMIXEV_PMIXD_TEXT_MAX)
		applog_refuse(x, PMIX_ERR_BAD_PARAM);
	else if (!(x->text = strdup(text)))
		applog_refuse(x, PMIX_ERR_NOMEM);
}

static void set_flag(struct pmixev_pmixd_log *m, uint8_t flag, bool on)
{
	m->flags = on ? m->flags | flag : m->flags & ~flag;
}

static void read_directives(struct pmixev_pmixd_log *m, const pmix_info_t *d,
			    size_t n)
{
	bool generate = false;

	for (size_t i = 0; i < n; i++) {
		if (PMIX_CHECK_KEY(&d[i], PMIX_LOG_ONCE))
			set_flag(m, PMIXEV_PMIXD_LOG_ONCE,
				 PMIX_INFO_TRUE(&d[i]));
		else if (PMIX_CHECK_KEY(&d[i], PMIX_LOG_TAG_OUTPUT))
			set_flag(m, PMIXEV_PMIXD_LOG_TAG,
				 PMIX_INFO_TRUE(&d[i]));
		else if (PMIX_CHECK_KEY(&d[i], PMIX_LOG_TIMESTAMP_OUTPUT))
			set_flag(m, PMIXEV_PMIXD_LOG_STAMP,
				 PMIX_INFO_TRUE(&d[i]));
		else if (PMIX_CHECK_KEY(&d[i], PMIX_LOG_GENERATE_TIMESTAMP))
			generate = PMIX_INFO_TRUE(&d[i]);
		else if (PMIX_CHECK_KEY(&d[i], PMIX_LOG_JOB_RECORD))
			set_flag(m, PMIXEV_PMIXD_LOG_JREC_ALL,
				 PMIX_INFO_TRUE(&d[i]));
		else if (PMIX_CHECK_KEY(&d[i], PMIX_LOG_TIMESTAMP) &&
			 d[i].value.type == PMIX_TIME)
			m->when = d[i].value.data.time;
		else if (PMIX_CHECK_KEY(&d[i], PMIX_LOG_SYSLOG_PRI) &&
			 d[i].value.type == PMIX_INT &&
			 d[i].value.data.integer >= LOG_EMERG &&
			 d[i].value.data.integer <= LOG_DEBUG)
			m->level = (uint8_t)d[i].value.data.integer;
	}
	if (m->when <= 0 && (generate || (m->flags & PMIXEV_PMIXD_LOG_STAMP)))
		m->when = time(NULL);
}

static void read_data(struct pmixev_pmixd_log *m, const char *step_id,
		      const pmix_info_t *d, size_t n)
{
	uint32_t first = m->n;

	for (size_t i = 0; i < n; i++) {
		enum pmixev_pmixd_channel ch;
		struct pmixev_pmixd_log_msg *x;
		pmix_status_t st;

		/* Done by the library already (a duplicate it suppressed). */
		if ((d[i].flags & LIB_DONE)) {
			m->flags |= PMIXEV_PMIXD_LOG_LIB_DONE;
			continue;
		}
		if (!channel_of(&d[i], &ch))
			continue;
		/* As a flag, PMIX_LOG_JOB_RECORD is a directive. */
		if (ch == PMIXEV_PMIXD_JOBREC && d[i].value.type == PMIX_BOOL) {
			if (d[i].value.data.flag)
				m->flags |= PMIXEV_PMIXD_LOG_JREC_ALL;
			continue;
		}
		if (ch == PMIXEV_PMIXD_EMAIL && m->n < PMIXEV_PMIXD_MSGS_MAX) {
			x = &m->m[m->n++];
			x->ch = ch;
			st = logmail_read(&d[i].value, m->who, step_id, x);
			if (st != PMIX_SUCCESS)
				applog_refuse(x, st);
			continue;
		}
		add_msg(m, ch,
			d[i].value.type == PMIX_STRING ? d[i].value.data.string
						       : NULL);
	}
	/* Every message (an email is not one) in the job record too. */
	for (uint32_t i = first; (m->flags & PMIXEV_PMIXD_LOG_JREC_ALL) &&
				 i < m->n && m->n < PMIXEV_PMIXD_MSGS_MAX;
	     i++)
		if (m->m[i].text && m->m[i].ch != PMIXEV_PMIXD_JOBREC &&
		    m->m[i].ch != PMIXEV_PMIXD_EMAIL)
			add_msg(m, PMIXEV_PMIXD_JOBREC, m->m[i].text);
}

void applog_read(struct pmixev_pmixd_log *m, const char *step_id,
		 const pmix_info_t data[], size_t ndata,
		 const pmix_info_t directives[], size_t ndirs)
{
	read_directives(m, directives, ndirs);
	read_data(m, step_id, data, ndata);
}
