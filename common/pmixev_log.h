/*
 * pmixev_log.h - log lines into the Slurm daemon's log (slurmd log for
 * slurmstepd) that name the component, the step and the node.
 *
 * Each plugin links its own copy, so the context below is per plugin.
 * PMIxevDebug (0..3) raises pmixev's own debug messages to info level, so
 * a site sees them without raising SlurmdDebug for all of Slurm. Every
 * line is escaped (pmixev_escape.h): it stays one line whatever its
 * strings hold.
 */
#ifndef PMIXEV_LOG_H_
#define PMIXEV_LOG_H_

#include <stdbool.h>
#include <stdint.h>

enum pmixev_log_level {
	PMIXEV_LOG_ERROR,
	PMIXEV_LOG_INFO,
	PMIXEV_LOG_VERBOSE,
	PMIXEV_LOG_DEBUG,
};

/* `component` is a string literal such as "mpi/pmixev". */
void pmixev_log_init(const char *component);

/* Step and node to name in every later line ("12.0", "n1"). */
void pmixev_log_set_step(const char *step_id, const char *node);

/*
 * PMIxevDebug: debug messages of level <= `level` are logged at info, at
 * most `rate` (PMIxevLogRate) of them per second (0: no bound); those
 * over it are counted and summarised in the next line that passes.
 */
void pmixev_log_set_debug(unsigned level, unsigned rate);

/* Say how many debug lines were suppressed since the last summary. */
void pmixev_log_flush(void);

/*
 * Whether one more line fits this second's PMIxevLogRate, the budget of
 * raised debug lines (for lines root logs for another process: the PMIx
 * server's). When it does not, it is counted and summed up as those are.
 */
bool pmixev_log_take(void);

void pmixev_log(enum pmixev_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Debug message shown at info level when PMIxevDebug >= `dbg` (1..3). */
void pmixev_log_debug(unsigned dbg, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Where a finished line goes (escaped, one line): each program links one
 * (pmixev_log_slurm.c: Slurm's log). `component` and `context` as set.
 */
void pmixev_log_sink(enum pmixev_log_level level, const char *component,
		     const char *context, const char *msg);

#define PMIXEV_ERROR(...)      pmixev_log(PMIXEV_LOG_ERROR, __VA_ARGS__)
#define PMIXEV_INFO(...)       pmixev_log(PMIXEV_LOG_INFO, __VA_ARGS__)
#define PMIXEV_VERBOSE(...)    pmixev_log(PMIXEV_LOG_VERBOSE, __VA_ARGS__)
#define PMIXEV_DEBUG(dbg, ...) pmixev_log_debug((dbg), __VA_ARGS__)

/* 1, 2, 4, 8, ...: whether the nth of a growing count is logged, so that
 * what a job or a peer can repeat never floods the log. */
static inline bool pmixev_log_worth(uint64_t n)
{
	return n && !(n & (n - 1));
}

#endif /* PMIXEV_LOG_H_ */
