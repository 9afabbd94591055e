/*
 * pmixd/toolsdir.h - the rendezvous of root's PMIx tools (an admin's `pps`
 * as root) with the step's PMIx server process: root's own directory
 * PMIXEV_RUN_DIR/NAME.srv/tools (only root writes it, so the job's user
 * cannot steer root's tools; doc/app-guide.md "Attaching PMIx tools"), whose
 * files root writes from what root knows - the server's namespace and rank, the
 * gate's port, the process's pid and identity, the library's version it was
 * built with - never from the process's own files. One file per name a tool may
 * look for: the server's namespace, the process's pid and slurmstepd's
 * (`pevent --pid`).
 */
#ifndef PMIXEV_PMIXD_TOOLSDIR_H_
#define PMIXEV_PMIXD_TOOLSDIR_H_

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/layout.h"

/*
 * Make NAME.srv/tools in `rundir` (root's, 0755) with the files for the
 * server behind the gate at 127.0.0.1:`port`, run by process `pid`. 0, or
 * -1 with the cause in `why`.
 */
int toolsdir_make(int rundir, const char *name, const struct layout *lay,
		  uint16_t port, pid_t pid, char *why, size_t len);

/* Remove NAME.srv, if made. */
void toolsdir_remove(int rundir, const char *name);

#endif /* PMIXEV_PMIXD_TOOLSDIR_H_ */
