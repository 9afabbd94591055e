/*
 * pmix_intrude - another user tries to talk to a step's PMIx server.
 *
 * usage: pmix_intrude tool URI     attach as a PMIx tool to the server at
 *                                  URI and inject event -3333 to the step
 *        pmix_intrude client       PMIx_Init as the client rank whose
 *                                  PMIX_* environment was copied in, then
 *                                  inject event -3333
 *
 * With PMIXEV_FAKE_UID / PMIXEV_FAKE_GID set, this program claims that uid
 * and gid: it defines getuid() and friends, which libpmix calls to fill
 * in the credential it sends (OpenPMIx's "native" security over TCP takes
 * the claim as it is).
 *
 * Prints "pmix_intrude: MODE: refused: ..." and exits 0 when the server
 * would not serve it, or "pmix_intrude: MODE: ACCEPTED ..." and exits 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <pmix.h>
#include <pmix_tool.h>

#define PROG "pmix_intrude"
#include "client_util.h"

static unsigned fake(const char *name, long real)
{
	const char *v = getenv(name);

	return v && *v ? (unsigned)strtoul(v, NULL, 10) : (unsigned)real;
}

uid_t getuid(void)
{
	return fake("PMIXEV_FAKE_UID", syscall(SYS_getuid));
}

uid_t geteuid(void)
{
	return fake("PMIXEV_FAKE_UID", syscall(SYS_geteuid));
}

gid_t getgid(void)
{
	return fake("PMIXEV_FAKE_GID", syscall(SYS_getgid));
}

gid_t getegid(void)
{
	return fake("PMIXEV_FAKE_GID", syscall(SYS_getegid));
}

static int verdict(const char *mode, const char *what, pmix_status_t rc)
{
	if (rc != PMIX_SUCCESS) {
		printf(PROG ": %s: refused: %s: %s\n", mode, what,
		       PMIx_Error_string(rc));
		return 0;
	}
	printf(PROG ": %s: ACCEPTED: %s succeeded\n", mode, what);
	return 1;
}

/* Inject an event to the whole step; a dead connection fails it. */
static pmix_status_t inject(void)
{
	return PMIx_Notify_event(-3333, NULL, PMIX_RANGE_SESSION, NULL, 0, NULL,
				 NULL);
}

static int as_tool(const char *uri)
{
	pmix_info_t info[2];
	pmix_proc_t me;
	pmix_status_t rc;
	int retries = 0;

	PMIX_INFO_LOAD(&info[0], PMIX_SERVER_URI, uri, PMIX_STRING);
	PMIX_INFO_LOAD(&info[1], PMIX_CONNECT_MAX_RETRIES, &retries,
		       PMIX_UINT32);
	rc = PMIx_tool_init(&me, info, 2);
	if (rc != PMIX_SUCCESS)
		return verdict("tool", "PMIx_tool_init", rc);
	/* Give a shut-out connection time to be noticed. */
	sleep(1);
	rc = verdict("tool", "event injection", inject());
	PMIx_tool_finalize();
	return rc;
}

static int as_client(void)
{
	pmix_proc_t me;
	pmix_status_t rc = PMIx_Init(&me, NULL, 0);

	if (rc != PMIX_SUCCESS)
		return verdict("client", "PMIx_Init", rc);
	sleep(1);
	rc = verdict("client", "event injection", inject());
	PMIx_Finalize(NULL, 0);
	return rc;
}

int main(int argc, char **argv)
{
	client_watchdog(PROG, 20);
	if (argc == 3 && strcmp(argv[1], "tool") == 0)
		return as_tool(argv[2]);
	if (argc == 2 && strcmp(argv[1], "client") == 0)
		return as_client();
	fprintf(stderr, "usage: " PROG " tool URI | client\n");
	return 2;
}
