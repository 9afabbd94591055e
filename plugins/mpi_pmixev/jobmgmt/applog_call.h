/*
 * jobmgmt/applog_call.h - one PMIx_Log request as jobmgmt/applog.c carries it
 * out: its messages, one per channel, in order, and the directives. Read
 * from the request on the PMIx progress thread (jobmgmt/applog_read.c),
 * carried out on the agent thread (jobmgmt/applog.c).
 */
#ifndef PMIXEV_PMIX_APPLOG_CALL_H_
#define PMIXEV_PMIX_APPLOG_CALL_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <pmix_common.h>

struct pmixev_owner_mail;

#define MSGS_MAX 16
#define TEXT_MAX 65536 /* one message to a task's output */
#define WHY_MAX	 256

enum channel {
	CH_STDOUT,
	CH_STDERR,
	CH_SYSLOG,
	CH_GLOBAL,
	CH_JOBREC,
	CH_EMAIL
};

/* "stdout", "global syslog", ... */
const char *channel_name(enum channel ch);

struct msg {
	enum channel ch;
	char *text;
	struct pmixev_owner_mail *mail; /* CH_EMAIL */
	pmix_status_t bad;		/* found so at reading: not delivered */
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
	/* The message going into a task's output, until the owner helper
	 * has it. */
	int fd;
	char *out;
	size_t out_len;
	pmix_op_cbfunc_t cbfunc;
	void *cbdata;
};

/* Read `data` and `directives` into `c` (its `who` set). */
void applog_read(struct log_call *c, const pmix_info_t data[], size_t ndata,
		 const pmix_info_t directives[], size_t ndirs);

#endif /* PMIXEV_PMIX_APPLOG_CALL_H_ */
