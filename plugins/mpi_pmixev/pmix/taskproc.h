/*
 * pmix/taskproc.h - a line into a local task's own stdout or stderr, for
 * PMIx_Log. slurmstepd takes a duplicate of the task's descriptor
 * (pidfd_getfd): the very file the task writes to, so the line joins the
 * task's output in order (through srun, labelled as the task's) and goes
 * only where the task itself could write. The process must be slurmstepd's
 * child, a task of this step, when the descriptor is taken. Writes never
 * block: a full pipe is the caller's to retry. Agent thread.
 */
#ifndef PMIXEV_PMIX_TASKPROC_H_
#define PMIXEV_PMIX_TASKPROC_H_

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Descriptor `which` (1 or 2) of task process `pid`: a descriptor of
 * ours, or -errno (-ESRCH: not a running task of this step). */
int taskproc_fd(uint32_t pid, int which);

/* Signal `signo` to task process `pid`: 0, or -errno (-ESRCH: not a
 * running task of this step). */
int taskproc_signal(uint32_t pid, int signo);

/* Up to `n` bytes of `p` into `fd` without blocking: the bytes written,
 * -EAGAIN when it is full, or -errno. */
ssize_t taskproc_write(int fd, const char *p, size_t n);

#endif /* PMIXEV_PMIX_TASKPROC_H_ */
