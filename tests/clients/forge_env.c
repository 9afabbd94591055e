/*
 * forge_env.so - what the job's user can do to srun, which runs as them:
 * preloaded into srun (LD_PRELOAD), it rewrites variables srun puts into
 * the step's launch environment through libslurmfull's
 * env_array_overwrite_fmt (SLURM_STEP_NUM_NODES, SLURM_STEP_NODELIST, ...).
 * PMIXEV_FORGE_ENV holds "NAME=VALUE" pairs separated by spaces. Used by
 * tests/integration/36-site-limits.t.
 */
#define _GNU_SOURCE
#include "config.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int (*overwrite_fn)(char ***, const char *, const char *);

int env_array_overwrite_fmt(char ***array, const char *name, const char *fmt,
			    ...) __attribute__((format(printf, 3, 4)));

/* The value PMIXEV_FORGE_ENV gives `name` (malloc'd), or NULL. */
static char *forged(const char *name)
{
	const char *list = getenv("PMIXEV_FORGE_ENV"), *p, *end;
	size_t n = strlen(name);

	for (p = list; p && *p; p = *end ? end + 1 : end) {
		end = p + strcspn(p, " ");
		if ((size_t)(end - p) > n && !strncmp(p, name, n) &&
		    p[n] == '=')
			return strndup(p + n + 1, (size_t)(end - p) - n - 1);
	}
	return NULL;
}

int env_array_overwrite_fmt(char ***array, const char *name, const char *fmt,
			    ...)
{
	overwrite_fn real =
		(overwrite_fn)dlsym(RTLD_NEXT, "env_array_overwrite");
	char *value = forged(name);
	va_list ap;
	int rc = 0;

	if (!real)
		goto out;
	if (value) {
		fprintf(stderr, "forge_env: %s=%s\n", name, value);
	} else {
		va_start(ap, fmt);
		if (vasprintf(&value, fmt, ap) < 0)
			value = NULL;
		va_end(ap);
	}
	if (value)
		rc = real(array, name, value);
out:
	free(value);
	return rc;
}
