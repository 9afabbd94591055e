/*
 * pmixev_spawn_cmd.h - what the parent step's srun makes of a checked
 * SPAWN (doc/spawn.md §2.2, §2.4): the child srun's argv and environment,
 * and the spawn variables the child step reads (SLURM_PMIXEV_SPAWN_*).
 * No shell and no quoting anywhere: argv arrays, and the apps as one
 * base64 value. Pure code, unit-tested; the apps' decoder is fuzzed.
 */
#ifndef PMIXEV_SPAWN_CMD_H_
#define PMIXEV_SPAWN_CMD_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmixev_pmixd_spawn.h"

/* The spawn variables (srun A sets them; the child's stepds read them). */
#define PMIXEV_SPAWN_PARENT_ENV "SLURM_PMIXEV_SPAWN_PARENT" /* nspace,rank */
#define PMIXEV_SPAWN_ID_ENV	"SLURM_PMIXEV_SPAWN_ID"	    /* u64, >= 1 */
#define PMIXEV_SPAWN_APPS_ENV	"SLURM_PMIXEV_SPAWN_APPS"   /* several apps */
#define PMIXEV_SPAWN_LAYOUT_ENV "SLURM_PMIXEV_SPAWN_LAYOUT" /* the parent's */
#define PMIXEV_SPAWN_NONPMI_ENV                                                \
	"SLURM_PMIXEV_SPAWN_NONPMI" /* "1": PMIX_NON_PMI, "tool":              \
				       PMIX_SPAWN_TOOL */
/* The child srun's end of the hub link (srun only; not the tasks'). */
#define PMIXEV_SPAWN_FD_ENV "PMIXEV_SPAWN_FD"
/* SLURM_PMIXEV_SPAWN_APPS's value at most, characters. */
#define PMIXEV_SPAWN_APPS_MAX (256u << 10)

/* What srun A knows besides the SPAWN. */
struct pmixev_spawn_ctx {
	const char *srun;     /* the child's argv[0] (srun's path) */
	const char *exec;     /* pmixev-exec's path, for several apps */
	uint32_t job_id;      /* this job (J) */
	const char *job_name; /* its name: the child's is NAME.spawn */
	uint32_t timeout_max; /* PMIxevTimeout, seconds, >= 1 */
	bool overlap;	      /* SPANK --pmixev-spawn-overlap */
	const char *parent;   /* the spawner's namespace */
	uint32_t parent_rank; /* and rank */
	uint64_t spawn_id;    /* >= 1 */
	const char *layout;   /* the parent step's LAYOUT, base64, or NULL */
};

/* Does the child run pmixev-exec (more than one app)? */
bool pmixev_spawn_multi(const struct pmixev_pmixd_spawn *m);
/* --immediate's seconds: the spawn's timeout, 1..ctx->timeout_max. */
uint32_t pmixev_spawn_immediate(const struct pmixev_pmixd_spawn *m,
				const struct pmixev_spawn_ctx *c);

/*
 * The child srun's argv (NULL-terminated, malloc'd; free with
 * pmixev_spawn_strv_free): srun --jobid=J --mpi=pmixev --exact --ntasks=N
 * --chdir=CWD --immediate=T --job-name=NAME.spawn, the options §2.2 maps
 * the directives to, then "--" and the program: the one app's cmd and
 * argv[1..], or pmixev-exec. NULL with errno (and a reason in `err`).
 */
char **pmixev_spawn_argv(const struct pmixev_pmixd_spawn *m,
			 const struct pmixev_spawn_ctx *c, char *err,
			 size_t errlen);

/*
 * The child srun's environment: `base` (srun A's own) without what
 * pmixev_spawn_env_dropped names, then the one app's env, then the env
 * ops in order, then the spawn variables (with several apps, the apps
 * for pmixev-exec, each with the SPAWN's wdir as its cwd when it has
 * one). Same conventions as argv.
 */
char **pmixev_spawn_env(const struct pmixev_pmixd_spawn *m,
			const struct pmixev_spawn_ctx *c, char *const *base,
			char *err, size_t errlen);

/*
 * Is "NAME=value" kept out of the child srun's environment: a SLURM_*
 * variable srun reads as an option default, SLURM_STEP_*,
 * SLURM_SRUN_COMM_*, pmixev's internals (SLURM_PMIXEV_ that pmixev sets,
 * PMIXEV_*), PMIX_*, and with `alloc_job` job J's SLURM_JOB_* (and
 * SLURM_JOBID, SLURM_NODELIST). pmixev's settings a job may lower
 * (SLURM_PMIXEV_TIMEOUT, ...) are kept.
 */
bool pmixev_spawn_env_dropped(const char *var, bool alloc_job);

/* Free a NULL-terminated array of strings (NULL-safe). */
void pmixev_spawn_strv_free(char **v);

/*
 * SLURM_PMIXEV_SPAWN_APPS's value: the apps (pmixev_pmixd_spawn.h's
 * "apps" encoding), base64. Encode: malloc'd text, or NULL with errno
 * EINVAL (apps out of SPAWN's bounds), E2BIG (text above
 * PMIXEV_SPAWN_APPS_MAX) or ENOMEM. Decode: 0 with *apps (free with
 * pmixev_pmixd_spawn_apps_free), or -1 when the value is not exactly
 * such an encoding.
 */
char *pmixev_spawn_apps_encode(const struct pmixev_pmixd_spawn_app *apps,
			       uint32_t napps);
int pmixev_spawn_apps_decode(const char *value,
			     struct pmixev_pmixd_spawn_app **apps,
			     uint32_t *napps);

/*
 * SLURM_PMIXEV_SPAWN_PARENT's value "<nspace>,<rank>": a family
 * namespace (pmixev_pmixd_family_nspace) and a canonical decimal rank
 * below PMIXEV_SPAWN_RANK_MAX. Format: 0, or -1 (EINVAL, or ENOSPC when
 * `len` is short). Parse: 0, or -1 when the value is not exactly that.
 */
#define PMIXEV_SPAWN_RANK_MAX 0xffffffcdu /* PMIx's PMIX_RANK_VALID */
int pmixev_spawn_parent_format(char *buf, size_t len, const char *nspace,
			       uint32_t rank);
int pmixev_spawn_parent_parse(const char *value, char nspace[PMIXEV_NSPACE_MAX],
			      uint32_t *rank);

/*
 * SLURM_PMIXEV_SPAWN_LAYOUT's value: the parent step's XSTEP LAYOUT body
 * (pmixev_xstep.h; not read here), base64, at most PMIXEV_SPAWN_APPS_MAX
 * characters. Encode: malloc'd text, or NULL with errno E2BIG (too long)
 * or ENOMEM. Decode: 0 with the bytes in *data (malloc'd) and *n, or -1
 * when the value is empty, too long or not base64.
 */
char *pmixev_spawn_layout_encode(const uint8_t *data, size_t n);
int pmixev_spawn_layout_decode(const char *value, uint8_t **data, size_t *n);

/* SLURM_PMIXEV_SPAWN_ID's value: a canonical decimal u64, >= 1. */
#define PMIXEV_SPAWN_ID_LEN 21 /* its longest, with the NUL */
int pmixev_spawn_id_format(char buf[PMIXEV_SPAWN_ID_LEN], uint64_t id);
int pmixev_spawn_id_parse(const char *value, uint64_t *id);

#endif /* PMIXEV_SPAWN_CMD_H_ */
