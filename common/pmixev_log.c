/*
 * pmixev_log.c - pmixev's log lines: context prefix, escaping, the rate
 * bound of raised debug lines. Where a line goes is the sink's
 * (pmixev_log_sink: Slurm's log in slurmstepd, srun and the owner helper,
 * pmixev_log_slurm.c; root's pipe in the PMIx server process).
 */
#include "config.h"

#include "pmixev_log.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "pmixev_escape.h"

/* Per-plugin context: set once in the plugin's process, read by all lines. */
static const char *component = "pmixev";
static char context[128];
static unsigned debug_level;

/*
 * Debug lines raised to info (PMIxevDebug, which a job may set) are held
 * to PMIxevLogRate per second: the job gets no more of the log than the
 * site allows. Lines come from the PMIx progress thread and the agent
 * thread; the lock only guards these counters.
 */
static struct {
	pthread_mutex_t lock;
	unsigned rate;	     /* lines per second; 0: no bound */
	time_t second;	     /* of the lines counted in `used` */
	unsigned used;	     /* raised lines in `second` */
	uint64_t suppressed; /* since the last summary */
	uint64_t total;	     /* suppressed in all */
} limit = {.lock = PTHREAD_MUTEX_INITIALIZER};

void pmixev_log_init(const char *name)
{
	component = name;
	context[0] = '\0';
}

void pmixev_log_set_step(const char *step_id, const char *node)
{
	snprintf(context, sizeof(context), "step %s on %s: ", step_id, node);
}

void pmixev_log_set_debug(unsigned level, unsigned rate)
{
	debug_level = level;
	pthread_mutex_lock(&limit.lock);
	limit.rate = rate;
	pthread_mutex_unlock(&limit.lock);
}

__attribute__((format(printf, 2, 0))) static void
emit(enum pmixev_log_level level, const char *fmt, va_list ap)
{
	char raw[1024], msg[2048];

	/* The one place every line passes: whatever a client, a peer or the
	 * job's environment put in it stays on this line. */
	vsnprintf(raw, sizeof(raw), fmt, ap);
	pmixev_escape(msg, sizeof(msg), raw);
	pmixev_log_sink(level, component, context, msg);
}

void pmixev_log(enum pmixev_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(level, fmt, ap);
	va_end(ap);
}

/* Whether one more raised debug line fits in this second's rate; the
 * count suppressed before it, to summarise, in *said. */
static int take_line(uint64_t *said)
{
	time_t now = time(NULL);
	int ok;

	*said = 0;
	pthread_mutex_lock(&limit.lock);
	if (now != limit.second) {
		limit.second = now;
		limit.used = 0;
	}
	ok = !limit.rate || limit.used < limit.rate;
	if (ok) {
		limit.used++;
		*said = limit.suppressed;
		limit.suppressed = 0;
	} else {
		limit.suppressed++;
		limit.total++;
	}
	pthread_mutex_unlock(&limit.lock);
	return ok;
}

static void summarise(uint64_t n, const char *when)
{
	pmixev_log(PMIXEV_LOG_INFO,
		   "log: %llu debug line(s) over PMIxevLogRate=%u per second "
		   "suppressed%s (%llu in all)",
		   (unsigned long long)n, limit.rate, when,
		   (unsigned long long)limit.total);
}

void pmixev_log_debug(unsigned dbg, const char *fmt, ...)
{
	uint64_t said = 0;
	va_list ap;

	if (dbg <= debug_level && !take_line(&said))
		return;
	if (said)
		summarise(said, "");
	va_start(ap, fmt);
	emit(dbg <= debug_level ? PMIXEV_LOG_INFO : PMIXEV_LOG_DEBUG, fmt, ap);
	va_end(ap);
}

bool pmixev_log_take(void)
{
	uint64_t said = 0;
	int ok = take_line(&said);

	if (said)
		summarise(said, "");
	return ok;
}

void pmixev_log_flush(void)
{
	uint64_t n;

	pthread_mutex_lock(&limit.lock);
	n = limit.suppressed;
	limit.suppressed = 0;
	pthread_mutex_unlock(&limit.lock);
	if (n)
		summarise(n, " at the end of the step");
}
