/*
 * ptrace_attach - can the caller trace process PID?
 *
 * usage: ptrace_attach PID
 *
 * Attaches with PTRACE_SEIZE, then with PTRACE_ATTACH, detaching at once
 * after either. Prints each outcome; exit 0 when the kernel refused both,
 * 1 when one worked, 2 on usage.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/wait.h>

/* 0 when the kernel refuses `req`, 1 when it attaches (then detached). */
static int attach(pid_t pid, enum __ptrace_request req, const char *name)
{
	if (ptrace(req, pid, NULL, NULL) < 0) {
		printf("ptrace_attach: %d: %s refused: %s\n", (int)pid, name,
		       strerror(errno));
		return 0;
	}
	/* PTRACE_ATTACH stopped it: detaching lets it run on. */
	if (req == PTRACE_ATTACH)
		waitpid(pid, NULL, __WALL);
	ptrace(PTRACE_DETACH, pid, NULL, NULL);
	printf("ptrace_attach: %d: %s ATTACHED\n", (int)pid, name);
	return 1;
}

int main(int argc, char **argv)
{
	pid_t pid;

	if (argc != 2 || (pid = (pid_t)atol(argv[1])) <= 0) {
		fprintf(stderr, "usage: ptrace_attach PID\n");
		return 2;
	}
	return attach(pid, PTRACE_SEIZE, "PTRACE_SEIZE") |
	       attach(pid, PTRACE_ATTACH, "PTRACE_ATTACH");
}
