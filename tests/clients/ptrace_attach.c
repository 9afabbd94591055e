/*
 * ptrace_attach - can the caller trace process PID?
 *
 * usage: ptrace_attach PID
 *
 * Attaches with PTRACE_SEIZE and detaches at once. Prints the outcome;
 * exit 0 when the kernel refused, 1 when the attach worked, 2 on usage.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/types.h>

int main(int argc, char **argv)
{
	pid_t pid;

	if (argc != 2 || (pid = (pid_t)atol(argv[1])) <= 0) {
		fprintf(stderr, "usage: ptrace_attach PID\n");
		return 2;
	}
	if (ptrace(PTRACE_SEIZE, pid, NULL, NULL) < 0) {
		printf("ptrace_attach: %d: refused: %s\n", (int)pid,
		       strerror(errno));
		return 0;
	}
	ptrace(PTRACE_DETACH, pid, NULL, NULL);
	printf("ptrace_attach: %d: ATTACHED\n", (int)pid);
	return 1;
}
