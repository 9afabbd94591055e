/*
 * pmixev_untrace.c - see pmixev_untrace.h.
 */
#include "config.h"

#include "pmixev_untrace.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>

int pmixev_untraceable(char *why, size_t len)
{
	char line[256];
	FILE *f;
	long tracer = -1;

	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0) {
		snprintf(why, len, "cannot make itself undumpable: %s",
			 strerror(errno));
		return -1;
	}
	if ((f = fopen("/proc/self/status", "r"))) {
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "TracerPid: %ld", &tracer) == 1)
				break;
		fclose(f);
	}
	if (tracer != 0) {
		snprintf(why, len, "refusing to run under a tracer (pid %ld)",
			 tracer);
		return -1;
	}
	return 0;
}
