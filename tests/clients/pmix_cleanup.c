/*
 * pmix_cleanup - a task asks its PMIx server (slurmstepd: root) to delete
 * files at the end of the task, through PMIx_Job_control's cleanup
 * directives, which OpenPMIx carries out itself in the server process.
 *
 * usage: pmix_cleanup REQUEST...
 *   file PATH       PATH registered with PMIX_REGISTER_CLEANUP
 *   dir PATH        PATH registered with PMIX_REGISTER_CLEANUP_DIR and
 *                   PMIX_CLEANUP_RECURSIVE
 *   swap PATH LINK  PATH, a directory of the task's user, registered like
 *                   dir; once all are registered it is renamed away and
 *                   replaced by a symlink to LINK (the race a path-based
 *                   cleanup loses)
 *
 * Prints "pmix_cleanup: register PATH: STATUS" per request and
 * "pmix_cleanup: swapped PATH for a link to LINK", then finalizes (when
 * OpenPMIx runs a client's cleanups) and prints "pmix_cleanup: done".
 * Exit status 0 when it got that far, whatever the server answered.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pmix.h>

#define PROG "pmix_cleanup"
#include "client_util.h"

static pmix_status_t cleanup(const char *path, bool dir)
{
	pmix_info_t info[2];
	bool yes = true;
	size_t n = 0;
	pmix_status_t rc;

	PMIX_INFO_LOAD(&info[n++],
		       dir ? PMIX_REGISTER_CLEANUP_DIR : PMIX_REGISTER_CLEANUP,
		       path, PMIX_STRING);
	if (dir)
		PMIX_INFO_LOAD(&info[n++], PMIX_CLEANUP_RECURSIVE, &yes,
			       PMIX_BOOL);
	rc = PMIx_Job_control(NULL, 0, info, n, NULL, NULL);
	printf(PROG ": register %s: %s\n", path, PMIx_Error_string(rc));
	for (size_t i = 0; i < n; i++)
		PMIX_INFO_DESTRUCT(&info[i]);
	return rc;
}

/* Rename `path` away and put a symlink to `link` in its place. */
static int swap(const char *path, const char *link)
{
	char moved[4096];

	snprintf(moved, sizeof(moved), "%s.moved", path);
	if (rename(path, moved) < 0 || symlink(link, path) < 0) {
		printf(PROG ": cannot swap %s: FAILED\n", path);
		return -1;
	}
	printf(PROG ": swapped %s for a link to %s\n", path, link);
	return 0;
}

int main(int argc, char **argv)
{
	pmix_proc_t me;
	pmix_status_t rc;
	int i, bad = 0;

	client_watchdog(PROG, 0);
	if ((rc = PMIx_Init(&me, NULL, 0)) != PMIX_SUCCESS) {
		printf(PROG ": PMIx_Init: %s\n", PMIx_Error_string(rc));
		return 1;
	}
	for (i = 1; i < argc; i++) {
		int words = !strcmp(argv[i], "swap")   ? 2
			    : !strcmp(argv[i], "file") ? 1
			    : !strcmp(argv[i], "dir")  ? 1
						       : 0;

		if (!words || i + words >= argc)
			break;
		cleanup(argv[i + 1], strcmp(argv[i], "file") != 0);
		i += words;
	}
	for (int j = 1; j < argc && i == argc; j++)
		if (!strcmp(argv[j], "swap") && j + 2 < argc &&
		    swap(argv[j + 1], argv[j + 2]) < 0)
			bad = 1;
	if (i != argc) {
		fprintf(stderr, "usage: " PROG " {file PATH | dir PATH | "
				"swap PATH LINK}...\n");
		bad = 2;
	}
	PMIx_Finalize(NULL, 0);
	if (!bad)
		printf(PROG ": done\n");
	return bad;
}
