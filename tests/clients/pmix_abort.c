/*
 * pmix_abort - one rank calls PMIx_Abort; the host must end the step.
 *
 * usage: pmix_abort RANK STATUS
 *
 * After a synchronising fence, rank RANK calls
 *   PMIx_Abort(STATUS, "pmix_abort: rank RANK aborting on purpose", NULL, 0)
 * (the message is only passed to the host: the client never prints it, so
 * seeing it in srun's output shows that the host reported it). Every other
 * rank, and RANK itself if PMIx_Abort returns, sleeps up to 60 s waiting to
 * be killed, then exits 3 with "still running" - so a host that ignores the
 * abort shows up as a slow step with that line, not as a quick exit.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

#include "client_util.h"

#define PROG	  "pmix_abort"
#define WAIT_SECS 60

static void usage(void)
{
	fprintf(stderr, "usage: " PROG " RANK STATUS\n");
	exit(2);
}

int main(int argc, char **argv)
{
	long rank, status;
	pmix_status_t rc;
	pmix_proc_t me;
	uint32_t size;
	char msg[128];

	if (argc != 3 || client_parse_long(argv[1], 0, 0x7fffffffL, &rank) ||
	    client_parse_long(argv[2], 0, 255, &status))
		usage();
	client_watchdog(PROG, WAIT_SECS);
	if ((rc = PMIx_Init(&me, NULL, 0)) != PMIX_SUCCESS) {
		printf(PROG ": PMIx_Init: %s\n", PMIx_Error_string(rc));
		return 1;
	}
	size = client_job_size(&me);
	if (size == 0 || rank >= (long)size) {
		printf(PROG
		       ": rank %u: RANK %ld is not below the job size %u\n",
		       me.rank, rank, size);
		PMIx_Finalize(NULL, 0);
		return 2;
	}
	if ((rc = client_sync(&me, 1)) != PMIX_SUCCESS) {
		printf(PROG ": rank %u: fence: %s\n", me.rank,
		       PMIx_Error_string(rc));
		return 1;
	}
	if (me.rank == (pmix_rank_t)rank) {
		printf(PROG ": rank %u on %s: calling PMIx_Abort(%ld)\n",
		       me.rank, client_host(), status);
		fflush(stdout);
		snprintf(msg, sizeof(msg),
			 PROG ": rank %ld aborting on purpose", rank);
		rc = PMIx_Abort((int)status, msg, NULL, 0);
		printf(PROG ": rank %u: PMIx_Abort returned %s; waiting to be "
			    "killed\n",
		       me.rank, PMIx_Error_string(rc));
	} else {
		printf(PROG ": rank %u on %s: waiting for rank %ld to abort\n",
		       me.rank, client_host(), rank);
	}
	fflush(stdout);
	for (int i = 0; i < WAIT_SECS; i++)
		sleep(1);
	printf(PROG ": rank %u: still running %d s after the abort\n", me.rank,
	       WAIT_SECS);
	fflush(stdout);
	return 3;
}
