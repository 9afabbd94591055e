/*
 * ownerhelper/owner_env.h - the environment a program started as the owner
 * (ownerhelper/owner_proc.h) execs with: the one its spec gives. In a build
 * with sanitizers (configure --enable-sanitizers) also what their runtime
 * needs across that exec: the runtime first in LD_PRELOAD (ASan refuses to
 * start when a preloaded library, e.g. the PMIx query guard, comes before
 * it), and slurmstepd's ASAN_OPTIONS and UBSAN_OPTIONS (where reports go,
 * abort on error). A production build execs with the spec's alone.
 */
#ifndef PMIXEV_OWNERHELPER_OWNER_ENV_H_
#define PMIXEV_OWNERHELPER_OWNER_ENV_H_

#define OWNER_ENV_VARS 8 /* entries of a spec's environment, at most */

struct owner_env {
	const char *vars[OWNER_ENV_VARS + 4];
	char preload[1024];
	char options[2][512];
};

/*
 * The environment to exec with, made from `envp` (NULL-terminated) into
 * `e` where it adds to it: `envp` itself in a production build. Before
 * fork: it reads this process's environment. NULL when `envp` has more
 * than OWNER_ENV_VARS entries or a value does not fit.
 */
const char *const *owner_env_make(struct owner_env *e, const char *const *envp);

#endif /* PMIXEV_OWNERHELPER_OWNER_ENV_H_ */
