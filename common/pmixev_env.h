/*
 * pmixev_env.h - reading NULL-terminated "NAME=value" environment arrays
 * (the step env slurmstepd hands to the mpi plugin, a task env, environ).
 * Pure code, unit-tested.
 */
#ifndef PMIXEV_ENV_H_
#define PMIXEV_ENV_H_

#include <stdint.h>

/* Value of `name` in `env`, or NULL when absent (or env is NULL). */
const char *pmixev_env_get(char *const *env, const char *name);

/*
 * Parse `name` from `env` as a uint32 (strict decimal). Returns 0, -1 when
 * absent, -2 when present but not a valid uint32.
 */
int pmixev_env_get_u32(char *const *env, const char *name, uint32_t *out);

#endif /* PMIXEV_ENV_H_ */
