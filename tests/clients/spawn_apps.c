/*
 * spawn_apps - print SLURM_PMIXEV_SPAWN_APPS's value for the applications
 * given, as a spawn's srun sets it for pmixev-exec (44-spawn.t).
 *
 * usage: spawn_apps APP...   APP = "N|CWD|ENV|CMD|ARG..." with N the
 * process count, CWD "" or an absolute path, ENV "" or "NAME=VALUE" (one
 * entry), then the command and its arguments, argv[0] being CMD. Fields
 * are split at '|'. Exit 0 and the value on stdout, else 2.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmixev_pmixd_spawn.h"
#include "pmixev_spawn_cmd.h"

#define MAX_FIELDS 16

static int parse(char *spec, struct pmixev_pmixd_spawn_app *a)
{
	static char *argv[MAX_FIELDS * 8];
	static size_t used;
	char *f[MAX_FIELDS], *save = NULL, *t;
	int n = 0;

	for (t = strtok_r(spec, "|", &save); t && n < MAX_FIELDS;
	     t = strtok_r(NULL, "|", &save))
		f[n++] = t;
	/* strtok skips empty fields: "-" stands for one */
	if (n < 4)
		return -1;
	a->maxprocs = (uint32_t)atoi(f[0]);
	a->cwd = strcmp(f[1], "-") ? f[1] : "";
	a->envc = strcmp(f[2], "-") ? 1 : 0;
	a->env = a->envc ? &f[2] : NULL;
	if (a->envc)
		a->env = memcpy(&argv[used++], &f[2], sizeof(char *));
	a->cmd = f[3];
	a->argc = (uint32_t)(n - 3);
	a->argv = &argv[used];
	for (int i = 3; i < n; i++)
		argv[used++] = f[i];
	return 0;
}

int main(int argc, char **argv)
{
	struct pmixev_pmixd_spawn_app apps[8];
	char *text;

	if (argc < 2 || argc - 1 > 8) {
		fprintf(stderr,
			"usage: spawn_apps 'N|CWD|ENV|CMD|ARG...'...\n");
		return 2;
	}
	memset(apps, 0, sizeof(apps));
	for (int i = 1; i < argc; i++)
		if (parse(argv[i], &apps[i - 1]) < 0) {
			fprintf(stderr, "spawn_apps: bad application '%s'\n",
				argv[i]);
			return 2;
		}
	if (!(text = pmixev_spawn_apps_encode(apps, (uint32_t)argc - 1))) {
		perror("spawn_apps: cannot encode");
		return 2;
	}
	printf("%s\n", text);
	free(text);
	return 0;
}
