/*
 * programs/pmixd_log.c - the PMIx server process's log lines (the sink of
 * pmixev_log.h): one line each on stderr, a pipe root reads, marks as the
 * process's and logs in the slurmd log with the step's context
 * (pmixd/logpipe.h), so the line carries neither. The first character
 * says the level: E(rror), I(nfo), V(erbose), D(ebug).
 */
#include "config.h"

#include "pmixev_log.h"

#include <stdio.h>

void pmixev_log_sink(enum pmixev_log_level level, const char *component,
		     const char *context, const char *msg)
{
	static const char mark[] = {
		[PMIXEV_LOG_ERROR] = 'E',
		[PMIXEV_LOG_INFO] = 'I',
		[PMIXEV_LOG_VERBOSE] = 'V',
		[PMIXEV_LOG_DEBUG] = 'D',
	};

	fprintf(stderr, "%c %s\n", mark[level], msg);
	fflush(stderr);
}
