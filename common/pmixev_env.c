/*
 * pmixev_env.c - environment array lookups.
 */
#include "config.h"

#include "pmixev_env.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const char *pmixev_env_get(char *const *env, const char *name)
{
	size_t n;

	if (!env || !name)
		return NULL;
	n = strlen(name);
	for (; *env; env++)
		if (strncmp(*env, name, n) == 0 && (*env)[n] == '=')
			return *env + n + 1;
	return NULL;
}

int pmixev_env_get_u32(char *const *env, const char *name, uint32_t *out)
{
	const char *v = pmixev_env_get(env, name);
	char *end = NULL;
	unsigned long long x;

	if (!v)
		return -1;
	if (*v < '0' || *v > '9')
		return -2;
	errno = 0;
	x = strtoull(v, &end, 10);
	if (errno || *end != '\0' || x > UINT32_MAX)
		return -2;
	*out = (uint32_t)x;
	return 0;
}
