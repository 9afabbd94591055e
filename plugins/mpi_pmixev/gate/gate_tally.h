/*
 * gate/gate_tally.h - the gate's refusals, summed up in the log (gate
 * thread only).
 *
 * Anyone on the node can connect to the gate as often as they like: one
 * log line per refused connection would let another user flood the
 * node's log. The first refusal after a quiet interval is logged as it
 * happens; those that follow within the interval are counted and summed
 * up once when it ends ("N connection(s) refused in the last 10 s, from
 * uid(s) ...; the last from ...: cause"), so there is at most about one
 * line per interval however fast they come.
 *
 * The lines are at info level: slurmstepd copies its error lines (and
 * lower levels only if the user asked for them, srun --slurmd-debug) to
 * the step's stderr, i.e. to the very job under attack; the slurmd log
 * takes info lines by default.
 */
#ifndef PMIXEV_PMIX_GATE_TALLY_H_
#define PMIXEV_PMIX_GATE_TALLY_H_

#include <stdint.h>
#include <sys/types.h>

struct gate_tally;

/* NULL on failure (out of memory). */
struct gate_tally *gate_tally_create(void);

/* A connection from `peer` (address:port) owned by `uid` ((uid_t)-1:
 * unknown) is refused or closed, because of `fmt`... (a phrase such as
 * "its hello has no credential"). */
void gate_tally_refused(struct gate_tally *t, uid_t uid, const char *peer,
			const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Milliseconds until the summary is due, or -1 if none is. */
int gate_tally_wait_ms(const struct gate_tally *t);

/* Log the summary if it is due. */
void gate_tally_tick(struct gate_tally *t);

/* Log what is not summed up yet, and free. NULL is ignored. */
void gate_tally_destroy(struct gate_tally *t);

#endif /* PMIXEV_PMIX_GATE_TALLY_H_ */
