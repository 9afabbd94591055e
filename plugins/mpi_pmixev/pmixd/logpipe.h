/*
 * pmixd/logpipe.h - the PMIx server process's log lines (its stderr, a
 * pipe root reads on its agent): each line, at most LOGPIPE_LINE_MAX
 * bytes (longer ones are cut), goes to the slurmd log with the step's
 * context like root's own, at the level its first character says (E, I,
 * V, D; anything else is info). The process runs as the job's user, so its
 * lines are the job's words: they pass pmixev_log's escaping like any
 * other, and share the budget of root's raised debug lines (PMIxevLogRate
 * per second: pmixev_log_take; the rest are counted and summed up with
 * those).
 */
#ifndef PMIXEV_PMIXD_LOGPIPE_H_
#define PMIXEV_PMIXD_LOGPIPE_H_

#include <event2/event.h>

#define LOGPIPE_LINE_MAX 1024

struct logpipe;

/* Read `fd` (taken) on `base`. NULL when out of memory (fd closed). */
struct logpipe *logpipe_create(struct event_base *base, int fd);

/* Log what is left to read now, and free. NULL-safe. */
void logpipe_destroy(struct logpipe *lp);

#endif /* PMIXEV_PMIXD_LOGPIPE_H_ */
