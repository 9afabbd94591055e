/*
 * jobmgmt/taskproc.h - a local task's own stdout or stderr, for PMIx_Log, and
 * signals to it. slurmstepd takes a duplicate of the task's descriptor
 * (pidfd_getfd): the very file the task writes to, so the line joins the
 * task's output in order (through srun, labelled as the task's). The task
 * chose what that is: root never writes into it, the owner helper does
 * (ownerhelper/helper_write.h). The process must be slurmstepd's child, a
 * task of this step, when the descriptor is taken. Agent thread.
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

#endif /* PMIXEV_PMIX_TASKPROC_H_ */
