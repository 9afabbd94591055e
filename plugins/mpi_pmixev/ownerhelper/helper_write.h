/*
 * ownerhelper/helper_write.h - the stepd's end of the owner helper's writer
 * channel (common/pmixev_owner_write.h): a task's line handed, with the
 * descriptor to write it into, to the helper, which writes it as the job
 * owner. Root never writes it and never waits: the answer comes through
 * the agent's event loop, or the deadline passes. Agent thread.
 */
#ifndef PMIXEV_SLURMCTLD_HELPER_WRITE_H_
#define PMIXEV_SLURMCTLD_HELPER_WRITE_H_

#include <stddef.h>

struct agent;
struct helper_write;

/* `err`: 0, or an errno (ETIMEDOUT: not written in time, `done` of the
 * bytes were); `done`: bytes written. */
typedef void (*helper_write_fn)(void *arg, int err, size_t done);

/* Over channel `fd` (taken; closed by destroy). NULL: out of memory. */
struct helper_write *helper_write_create(struct agent *a, int fd);

/* `n` bytes of `p` into `fd` (ours; the helper gets a duplicate), within
 * `timeout_ms`: 0, and `fn` is called once, later; or -1 with errno
 * (EAGAIN: too many in flight or the channel is full). */
int helper_write_send(struct helper_write *w, int fd, const char *p, size_t n,
		      unsigned timeout_ms, helper_write_fn fn, void *arg);

/* Close the channel; the writes in flight are told `err` (0: nothing,
 * at the step's end). */
void helper_write_destroy(struct helper_write *w, int err);

#endif /* PMIXEV_SLURMCTLD_HELPER_WRITE_H_ */
