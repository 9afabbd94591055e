/*
 * pmixev_ptable.h - the step's process table between stepds, and what a
 * stepd reads about a task of its node.
 *
 * A node that answers PMIX_QUERY_PROC_TABLE or PMIX_QUERY_MEMORY_USAGE
 * asks every other node of the step (overlay PTABLE_REQ) for its tasks;
 * each answers (PTABLE_RESP) with one entry per local task: global rank,
 * pid, whether it exited and how, its resident memory and its name. At
 * most PMIXEV_PTABLE_MAX entries per message. The stepd reads a running
 * task's name and memory from /proc/PID/status, only while the process
 * still belongs to the job's user (pmixev_proc_status_parse).
 * Pure code, unit-tested.
 */
#ifndef PMIXEV_PTABLE_H_
#define PMIXEV_PTABLE_H_

#include <stddef.h>
#include <stdint.h>

#include "pmixev_buf.h"

#define PMIXEV_PTABLE_MAX 4096 /* tasks of one node */
#define PMIXEV_PROC_NAME  16   /* /proc's comm, incl. NUL */

enum pmixev_proc_run {
	PMIXEV_PROC_STARTING, /* launched, no pid known yet */
	PMIXEV_PROC_RUNNING,
	PMIXEV_PROC_EXITED,
};

struct pmixev_ptable_entry {
	uint32_t rank;
	uint32_t pid;	 /* 0: not known */
	uint8_t run;	 /* enum pmixev_proc_run */
	int32_t status;	 /* wait(2) status, when exited */
	uint64_t rss_kb; /* 0: not known */
	char name[PMIXEV_PROC_NAME];
};

struct pmixev_ptable_msg {
	uint32_t id;
	uint32_t count; /* entries (0 in a request) */
	struct pmixev_ptable_entry *e;
};

int pmixev_ptable_pack(struct pmixev_buf *b, const struct pmixev_ptable_msg *m);
/* Fills m->e with a malloc'd array (free it), or NULL when count is 0. */
int pmixev_ptable_unpack(struct pmixev_buf *b, struct pmixev_ptable_msg *m);

/* The same with at most `max` entries instead of PMIXEV_PTABLE_MAX: a
 * whole step's table (QUERY_DONE, pmixev_pmixd_ctl.h). */
int pmixev_ptable_pack_max(struct pmixev_buf *b,
			   const struct pmixev_ptable_msg *m, uint32_t max);
int pmixev_ptable_unpack_max(struct pmixev_buf *b, struct pmixev_ptable_msg *m,
			     uint32_t max);

/* What /proc/PID/status says of a process: its name, real uid and RSS. */
struct pmixev_proc_status {
	char name[PMIXEV_PROC_NAME];
	uint32_t uid;
	uint64_t rss_kb;
};

/* Parse the text of a status file (len bytes). 0, or -1 when the Name or
 * Uid line is missing or malformed (VmRSS may be: a zombie has none). */
int pmixev_proc_status_parse(const char *text, size_t len,
			     struct pmixev_proc_status *out);

#endif /* PMIXEV_PTABLE_H_ */
