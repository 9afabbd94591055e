/*
 * owner_run.h - a site's command run by the owner helper as the job owner
 * (PMIx_Log's mail command, PMIxevAllocExtendCmd): its text on stdin,
 * nothing of the helper's but stdio along, a time limit, and its first
 * line of output as the reason when it fails.
 */
#ifndef PMIXEV_OWNER_RUN_H_
#define PMIXEV_OWNER_RUN_H_

#include "pmixev_helper_msg.h"

/*
 * Run argv[0] (an absolute path) with `argv` as this process; `text` (at
 * most a pipe's buffer, 64 KiB) on its stdin; killed after `wait_ms`.
 * r->rc: 0 when it exited 0, else SLURM_ERROR with why in r->reason
 * (its first output line when it said one).
 */
void owner_run(char *const argv[], const char *text, unsigned wait_ms,
	       struct pmixev_control_result *r);

#endif /* PMIXEV_OWNER_RUN_H_ */
