/*
 * srun/spawn_proc.h - one child srun of a spawn (srun/spawn.h): started
 * with posix_spawn from this srun's own executable, without a shell, stdin
 * /dev/null, stdout this srun's, stderr a pipe whose lines are copied to
 * this srun's stderr as they come, the last error lines kept as the
 * failure's reason; the hub socketpair's other end at the same number in
 * the child, named by PMIXEV_SPAWN_FD. On the rendezvous' agent thread,
 * but for spawn_proc_signal_all.
 */
#ifndef PMIXEV_SRUN_SPAWN_PROC_H_
#define PMIXEV_SRUN_SPAWN_PROC_H_

#include <stdbool.h>
#include <stddef.h>

#include <event2/event.h>

#include "pmixev_pmixd_spawn.h"
#include "pmixev_spawn_cmd.h"
#include "pmixev_xstep_ctl.h"

struct spawn_proc;

/*
 * Start the child srun of `m` (its command line and environment from
 * pmixev_spawn_argv/env with `ctx`, whose srun and exec paths this fills).
 * The process, with this srun's end of the hub link in `*hub_fd`; NULL
 * with the reason in `err`.
 */
struct spawn_proc *spawn_proc_start(struct event_base *base,
				    const struct pmixev_pmixd_spawn *m,
				    struct pmixev_spawn_ctx *ctx, int *hub_fd,
				    char *err, size_t errlen);

/* Its command line, for the log ("srun --jobid=7 ... -- prog"). */
const char *spawn_proc_cmdline(const struct spawn_proc *p);

/* Whether it exited (its wait status in `*st`). */
bool spawn_proc_reaped(struct spawn_proc *p, int *st);

/* Why it ended before its step was ready: its last error lines, or how
 * it exited. */
void spawn_proc_reason(const struct spawn_proc *p, int st, char *buf,
		       size_t len);

/* Why Slurm did not start the step, as its errors say: BUSY (no room
 * now), DENIED (not the owner's job), NO_JOB, else FAILED. */
enum pmixev_spawn_state spawn_proc_state(const struct spawn_proc *p);

void spawn_proc_signal(struct spawn_proc *p, int sig);

/* Every child srun not yet reaped (any thread). */
void spawn_proc_signal_all(int sig);

/* Stop watching it (it is not waited for). NULL-safe. */
void spawn_proc_destroy(struct spawn_proc *p);

#endif /* PMIXEV_SRUN_SPAWN_PROC_H_ */
