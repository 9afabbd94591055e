/*
 * pmix_log - PMIx_Log from a rank, between lines of its own output.
 *
 * usage: pmix_log [--by RANK] [--once] [--tag] [--stamp] [--pri N]
 *                 [--jrec] [--repeat N] [--out KIND] CHANNEL=TEXT...
 *   CHANNEL  stdout | stderr | syslog | lsyslog | gsyslog | jrec | email |
 *            number (a PMIX_LOG_STDOUT whose value is an int: bad) |
 *            mail (TEXT: "ADDRESSES|SUBJECT|MESSAGE", an email array;
 *            email=TEXT is a plain string: bad)
 *
 * Every rank prints "pmix_log: rank R: before" to stdout (and "... before
 * on stderr" to stderr); rank
 * --by (default 0) then logs every CHANNEL=TEXT in one PMIx_Log (with
 * PMIX_LOG_ONCE, _TAG_OUTPUT, _TIMESTAMP_OUTPUT, _SYSLOG_PRI N, or
 * PMIX_LOG_JOB_RECORD as a directive) and prints "pmix_log: rank R: log:
 * STATUS"; with --repeat N it logs N times and prints "pmix_log: rank R: N
 * requests: S succeeded, F refused". With --out, rank --by's stdout is
 * something else while it logs (pmix_out.h: a SO_PASSCRED socket whose
 * messages it then prints with their sender's credentials, a full pipe,
 * a nearly full pty, a file), and the line ends "(N ms)". Then every rank
 * prints "pmix_log:
 * rank R: after" likewise, and fences. Exit status 0 unless PMIx_Init or
 * the fence failed.
 */
#define _GNU_SOURCE 1 /* pmix_out.h */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include <pmix.h>

#define PROG "pmix_log"
#include "client_util.h"
#include "pmix_out.h"

#define ITEMS_MAX 16

static const struct {
	const char *name, *key;
} channels[] = {
	{"stdout", PMIX_LOG_STDOUT},	     {"stderr", PMIX_LOG_STDERR},
	{"syslog", PMIX_LOG_SYSLOG},	     {"lsyslog", PMIX_LOG_LOCAL_SYSLOG},
	{"gsyslog", PMIX_LOG_GLOBAL_SYSLOG}, {"jrec", PMIX_LOG_JOB_RECORD},
	{"email", PMIX_LOG_EMAIL},	     {"number", PMIX_LOG_STDOUT},
};

/* mail=ADDR|SUBJECT|TEXT: a PMIX_LOG_EMAIL array (empty parts left out). */
static void mail_item(const char *spec, pmix_info_t *in)
{
	static const char *const keys[] = {PMIX_LOG_EMAIL_ADDR,
					   PMIX_LOG_EMAIL_SUBJECT,
					   PMIX_LOG_EMAIL_MSG};
	char *copy = strdup(spec), *part = copy, *bar;
	pmix_data_array_t *a;
	pmix_info_t *infos;
	size_t n = 0;

	PMIX_DATA_ARRAY_CREATE(a, 3, PMIX_INFO);
	infos = a->array;
	for (size_t k = 0; k < 3 && part; k++, part = bar ? bar + 1 : NULL) {
		if ((bar = strchr(part, '|')))
			*bar = '\0';
		if (*part)
			PMIX_INFO_LOAD(&infos[n++], keys[k], part, PMIX_STRING);
	}
	a->size = n;
	PMIX_INFO_LOAD(in, PMIX_LOG_EMAIL, a, PMIX_DATA_ARRAY);
	free(copy);
}

/* CHANNEL=TEXT into `in`: 0, or -1 if unknown. */
static int item(const char *arg, pmix_info_t *in)
{
	const char *eq = strchr(arg, '=');
	size_t len = eq ? (size_t)(eq - arg) : 0;

	if (eq && !strncmp(arg, "mail=", 5)) {
		mail_item(eq + 1, in);
		return 0;
	}
	for (size_t i = 0; eq && i < sizeof(channels) / sizeof(*channels);
	     i++) {
		if (strlen(channels[i].name) != len ||
		    strncmp(arg, channels[i].name, len))
			continue;
		if (!strcmp(channels[i].name, "number")) {
			int v = 7;

			PMIX_INFO_LOAD(in, channels[i].key, &v, PMIX_INT);
		} else {
			PMIX_INFO_LOAD(in, channels[i].key, eq + 1,
				       PMIX_STRING);
		}
		return 0;
	}
	return -1;
}

static void both(const pmix_proc_t *me, const char *what)
{
	printf(PROG ": rank %u: %s\n", me->rank, what);
	fflush(stdout);
	fprintf(stderr, PROG ": rank %u: %s on stderr\n", me->rank, what);
}

int main(int argc, char **argv)
{
	pmix_info_t data[ITEMS_MAX], dirs[5];
	size_t ndata = 0, ndirs = 0;
	long by = 0, repeat = 1, ok = 0;
	bool yes = true;
	pmix_status_t rc = PMIX_SUCCESS, first = PMIX_SUCCESS;
	const char *out_kind = NULL;
	struct pmix_out po = {.fd = -1};
	pmix_proc_t me;
	int i;

	for (i = 1; i < argc && !strncmp(argv[i], "--", 2); i++) {
		if (!strcmp(argv[i], "--once"))
			PMIX_INFO_LOAD(&dirs[ndirs++], PMIX_LOG_ONCE, &yes,
				       PMIX_BOOL);
		else if (!strcmp(argv[i], "--tag"))
			PMIX_INFO_LOAD(&dirs[ndirs++], PMIX_LOG_TAG_OUTPUT,
				       &yes, PMIX_BOOL);
		else if (!strcmp(argv[i], "--stamp"))
			PMIX_INFO_LOAD(&dirs[ndirs++],
				       PMIX_LOG_TIMESTAMP_OUTPUT, &yes,
				       PMIX_BOOL);
		else if (!strcmp(argv[i], "--jrec"))
			PMIX_INFO_LOAD(&dirs[ndirs++], PMIX_LOG_JOB_RECORD,
				       &yes, PMIX_BOOL);
		else if (i + 1 < argc && !strcmp(argv[i], "--by"))
			by = atol(argv[++i]);
		else if (i + 1 < argc && !strcmp(argv[i], "--repeat"))
			repeat = atol(argv[++i]);
		else if (i + 1 < argc && !strcmp(argv[i], "--out"))
			out_kind = argv[++i];
		else if (i + 1 < argc && !strcmp(argv[i], "--pri")) {
			int p = atoi(argv[++i]);

			PMIX_INFO_LOAD(&dirs[ndirs++], PMIX_LOG_SYSLOG_PRI, &p,
				       PMIX_INT);
		} else
			break;
		if (ndirs == sizeof(dirs) / sizeof(*dirs))
			break;
	}
	for (; i < argc && ndata < ITEMS_MAX; i++)
		if (item(argv[i], &data[ndata++]) < 0) {
			fprintf(stderr, "usage: " PROG " [--by RANK] [--once] "
					"[--tag] [--stamp] [--pri N] [--jrec] "
					"[--repeat N] CHANNEL=TEXT...\n");
			return 2;
		}
	client_watchdog(PROG, 30);
	if ((rc = PMIx_Init(&me, NULL, 0)) != PMIX_SUCCESS) {
		printf(PROG ": PMIx_Init: %s\n", PMIx_Error_string(rc));
		return 1;
	}
	both(&me, "before");
	if (me.rank == (uint32_t)by && ndata) {
		if (out_kind && pmix_out_begin(&po, out_kind) < 0)
			return 1;
		for (long r = 0; r < repeat; r++) {
			rc = PMIx_Log(data, ndata, ndirs ? dirs : NULL, ndirs);
			if (rc == PMIX_SUCCESS)
				ok++;
			else if (first == PMIX_SUCCESS)
				first = rc;
		}
		if (out_kind)
			pmix_out_end(&po);
		if (out_kind)
			printf(PROG ": rank %u: log: %s (%ld ms)\n", me.rank,
			       PMIx_Error_string(rc), pmix_out_ms(&po));
		else if (repeat > 1)
			printf(PROG ": rank %u: %ld requests: %ld succeeded, "
				    "%ld refused (first %s)\n",
			       me.rank, repeat, ok, repeat - ok,
			       PMIx_Error_string(first));
		else
			printf(PROG ": rank %u: log: %s\n", me.rank,
			       PMIx_Error_string(rc));
		fflush(stdout);
	}
	both(&me, "after");
	if ((rc = PMIx_Fence(NULL, 0, NULL, 0)) != PMIX_SUCCESS) {
		printf(PROG ": rank %u: fence: %s\n", me.rank,
		       PMIx_Error_string(rc));
		return 1;
	}
	PMIx_Finalize(NULL, 0);
	return 0;
}
