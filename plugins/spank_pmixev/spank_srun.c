/*
 * spank_srun.c - SPANK plugin work inside srun.
 */
#include "config.h"

#include "spank_srun.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmixev_log.h"

#define MAX_CONF (1 << 20) /* multi-prog configurations are small */

/* Was srun given --multi-prog? (SPANK does not say; the command line does.) */
static int multi_prog(void)
{
	FILE *f = fopen("/proc/self/cmdline", "r");
	char arg[64];
	int c, n = 0, found = 0;

	if (!f)
		return 0;
	while ((c = fgetc(f)) != EOF) {
		if (c) {
			if (n < (int)sizeof(arg) - 1)
				arg[n++] = (char)c;
			continue;
		}
		arg[n] = '\0';
		n = 0;
		if (strcmp(arg, "--multi-prog") == 0)
			found = 1;
	}
	fclose(f);
	return found;
}

static char *read_conf(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t n;

	if (!f)
		return NULL;
	if ((text = malloc(MAX_CONF + 1))) {
		n = fread(text, 1, MAX_CONF, f);
		text[n] = '\0';
	}
	fclose(f);
	return text;
}

int spank_srun_user_init(spank_t sp)
{
	const char *mpi = getenv("SLURM_MPI_TYPE");
	uint32_t ntasks = 0, napps = 0;
	char **argv = NULL, *text = NULL, *map = NULL, *val = NULL, err[256];
	int argc = 0, rc = ESPANK_ERROR;

	if (!mpi || strcmp(mpi, "pmixev") != 0 || !multi_prog())
		return ESPANK_SUCCESS;
	if (spank_get_item(sp, S_JOB_ARGV, &argc, &argv) != ESPANK_SUCCESS ||
	    argc < 1 ||
	    spank_get_item(sp, S_JOB_TOTAL_TASK_COUNT, &ntasks) !=
		    ESPANK_SUCCESS) {
		PMIXEV_ERROR("--multi-prog: cannot read the step's command");
		return ESPANK_ERROR;
	}
	if (!(text = read_conf(argv[0]))) {
		PMIXEV_ERROR("--multi-prog: cannot read %s: %m", argv[0]);
		return ESPANK_ERROR;
	}
	if (!(map = pmixev_multiprog_appmap(text, ntasks, &napps, err,
					    sizeof(err)))) {
		PMIXEV_ERROR("--multi-prog: %s: %s", argv[0], err);
		goto out;
	}
	if (asprintf(&val, "%ld:%u:%s", (long)getpid(), napps, map) < 0 ||
	    setenv(PMIXEV_MULTIPROG_ENV, val, 1) < 0) {
		PMIXEV_ERROR("--multi-prog: out of memory");
		goto out;
	}
	PMIXEV_VERBOSE("--multi-prog: %u PMIx application(s): %s", napps, map);
	rc = ESPANK_SUCCESS;
out:
	free(val);
	free(map);
	free(text);
	return rc;
}
