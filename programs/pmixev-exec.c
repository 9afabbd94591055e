/*
 * pmixev-exec - the program of a spawned step with several applications
 * (MPI_Comm_spawn_multiple, doc/spawn.md §2.4). It runs as the task, in
 * the task's environment: it reads the applications from
 * SLURM_PMIXEV_SPAWN_APPS (pmixev_spawn_cmd.h), takes the one its rank
 * (SLURM_PROCID) falls in, in order of the applications' process counts,
 * sets that application's environment over its own, changes to its
 * working directory, and execs its command with its argv (argv[0]
 * included), looked up in PATH as execvp does. The variable itself does
 * not reach the application. No shell, no quoting, no file.
 *
 * On any failure it says why on stderr, with the rank, and exits 127.
 * With --version alone it says its version (for pmixev-check).
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmixev_pmixd_spawn.h"
#include "pmixev_spawn_cmd.h"

#define PROG "pmixev-exec"

static long rank = -1;

/* Say why (`what` `arg`, and errno's text when `sys`) and end. */
static void die(const char *what, const char *arg, int sys)
{
	int err = errno;

	fprintf(stderr, PROG ": rank %ld: %s%s%s%s%s\n", rank, what,
		arg ? " " : "", arg ? arg : "", sys ? ": " : "",
		sys ? strerror(err) : "");
	exit(127);
}

/* SLURM_PROCID as a rank, or die. */
static uint32_t my_rank(void)
{
	const char *v = getenv("SLURM_PROCID");
	char *end = NULL;
	unsigned long r;

	if (!v || !*v)
		die("SLURM_PROCID is not set: not a task of a Slurm step", NULL,
		    0);
	errno = 0;
	r = strtoul(v, &end, 10);
	if (errno || *end || r > UINT32_MAX || (*v == '0' && v[1]))
		die("SLURM_PROCID is not a rank:", v, 0);
	rank = (long)r;
	return (uint32_t)r;
}

/* The application rank `r` falls in, or NULL past the last. */
static const struct pmixev_pmixd_spawn_app *
app_of(const struct pmixev_pmixd_spawn_app *apps, uint32_t napps, uint32_t r)
{
	uint64_t first = 0;

	for (uint32_t i = 0; i < napps; i++) {
		if (r < first + apps[i].maxprocs)
			return &apps[i];
		first += apps[i].maxprocs;
	}
	return NULL;
}

/* "NAME=value" into the environment. */
static void put(const char *entry)
{
	const char *eq = strchr(entry, '=');
	char *name;

	if (!eq || eq == entry)
		die("an environment entry without a name:", entry, 0);
	if (!(name = strndup(entry, (size_t)(eq - entry))) ||
	    setenv(name, eq + 1, 1) < 0)
		die("cannot set", entry, 1);
	free(name);
}

int main(int argc, char **argv)
{
	const char *v = getenv(PMIXEV_SPAWN_APPS_ENV);
	const struct pmixev_pmixd_spawn_app *app;
	struct pmixev_pmixd_spawn_app *apps = NULL;
	uint32_t napps = 0, r;
	char **args;

	/* For pmixev-check: it runs. A spawn gives it no argument. */
	if (argc == 2 && !strcmp(argv[1], "--version")) {
		printf(PROG " (pmixev " PACKAGE_VERSION ")\n");
		return 0;
	}
	r = my_rank();
	if (!v)
		die(PMIXEV_SPAWN_APPS_ENV " is not set: run by a spawn only",
		    NULL, 0);
	if (pmixev_spawn_apps_decode(v, &apps, &napps) < 0)
		die(PMIXEV_SPAWN_APPS_ENV " is not a list of applications",
		    NULL, 0);
	if (!(app = app_of(apps, napps, r)))
		die("no application for this rank: the applications hold fewer "
		    "processes than the step",
		    NULL, 0);
	for (uint32_t i = 0; i < app->envc; i++)
		put(app->env[i]);
	unsetenv(PMIXEV_SPAWN_APPS_ENV);
	if (app->cwd && *app->cwd && chdir(app->cwd) < 0)
		die("cannot change to the working directory", app->cwd, 1);
	if (!(args = calloc((size_t)app->argc + 2, sizeof(*args))))
		die("out of memory", NULL, 0);
	for (uint32_t i = 0; i < app->argc; i++)
		args[i] = app->argv[i];
	if (!app->argc)
		args[0] = app->cmd;
	execvp(app->cmd, args);
	die("cannot run", app->cmd, 1);
	return 127;
}
