/*
 * pmix_listen - does an event from outside the step (a PMIx tool such as
 * pevent) reach every process?
 *
 * usage: pmix_listen CODE FLAGFILE
 *
 * Every rank registers a handler for CODE, prints "pmix_listen: rank R:
 * ready", waits until FLAGFILE exists (the test creates it after the tool
 * sent its event) and 2 s more, then prints
 *   "pmix_listen: rank R on HOST: got G event(s) from NSPACE"
 * with the source namespace of the last event ("none" without one).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

#define PROG "pmix_listen"
#include "client_util.h"

int main(int argc, char **argv)
{
	char from[PMIX_MAX_NSLEN + 1];
	pmix_status_t code;
	pmix_proc_t me;
	unsigned got;
	long v;

	if (argc != 3 ||
	    client_parse_long(argv[1], -2147483647L, 2147483647L, &v)) {
		fprintf(stderr, "usage: " PROG " CODE FLAGFILE\n");
		return 2;
	}
	code = (pmix_status_t)v;
	client_watchdog(PROG, 0);
	if (PMIx_Init(&me, NULL, 0) != PMIX_SUCCESS)
		return 1;
	if (client_register(&code, 1, client_count_event) < 0 ||
	    client_sync(&me, 1) != PMIX_SUCCESS) {
		printf(PROG ": rank %u: setup failed\n", me.rank);
		return 1;
	}
	printf(PROG ": rank %u: ready\n", me.rank);
	while (access(argv[2], F_OK) != 0)
		usleep(10000);
	sleep(2);
	got = client_counted(from);
	printf(PROG ": rank %u on %s: got %u event(s) from %s\n", me.rank,
	       client_host(), got, from);
	client_sync(&me, 2);
	PMIx_Finalize(NULL, 0);
	return 0;
}
