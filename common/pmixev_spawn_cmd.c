/*
 * pmixev_spawn_cmd.c - the child srun's argv and environment, and the
 * spawn variables (see pmixev_spawn_cmd.h).
 */
#include "config.h"

#include "pmixev_spawn_cmd.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

/* A growable NULL-terminated array of malloc'd strings. */
struct strv {
	char **v;
	size_t n, cap;
};

static int strv_push(struct strv *s, char *str)
{
	char **nv;

	if (!str)
		return -1;
	if (s->n + 2 > s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 32;

		nv = realloc(s->v, cap * sizeof(*nv));
		if (!nv) {
			free(str);
			return -1;
		}
		s->v = nv;
		s->cap = cap;
	}
	s->v[s->n++] = str;
	s->v[s->n] = NULL;
	return 0;
}

static int strv_pushf(struct strv *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int strv_pushf(struct strv *s, const char *fmt, ...)
{
	va_list ap;
	char *str = NULL;
	int rc;

	va_start(ap, fmt);
	rc = vasprintf(&str, fmt, ap);
	va_end(ap);
	return rc < 0 ? -1 : strv_push(s, str);
}

void pmixev_spawn_strv_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

/* On failure: free what was built, say why, errno ENOMEM. */
static char **strv_fail(struct strv *s, char *err, size_t errlen)
{
	pmixev_spawn_strv_free(s->v);
	snprintf(err, errlen, "out of memory");
	errno = ENOMEM;
	return NULL;
}

static char **invalid(char *err, size_t errlen)
{
	snprintf(err, errlen, "not a valid SPAWN");
	errno = EINVAL;
	return NULL;
}

bool pmixev_spawn_multi(const struct pmixev_pmixd_spawn *m)
{
	return m->napps > 1;
}

uint32_t pmixev_spawn_immediate(const struct pmixev_pmixd_spawn *m,
				const struct pmixev_spawn_ctx *c)
{
	uint32_t max = c->timeout_max ? c->timeout_max : 1;
	uint32_t t = m->timeout_ms
			     ? m->timeout_ms / 1000 + !!(m->timeout_ms % 1000)
			     : max;

	return t < 1 ? 1 : t > max ? max : t;
}

static const char *const dist_opt[] = {
	[PMIXEV_PMIXD_DIST_BLOCK] = "block",
	[PMIXEV_PMIXD_DIST_CYCLIC] = "cyclic",
};
static const char *const bind_opt[] = {
	[PMIXEV_PMIXD_BIND_NONE] = "none",
	[PMIXEV_PMIXD_BIND_CORES] = "cores",
	[PMIXEV_PMIXD_BIND_THREADS] = "threads",
	[PMIXEV_PMIXD_BIND_SOCKETS] = "sockets",
};

/* The options §2.2 maps the directives to. */
static int push_shape(struct strv *s, const struct pmixev_pmixd_spawn *m,
		      const struct pmixev_spawn_ctx *c)
{
	bool overlap = (m->flags & PMIXEV_PMIXD_SPAWN_TOOL) || c->overlap ||
		       (m->flags & PMIXEV_PMIXD_SPAWN_OVERLAP);

	if (m->nodelist[0] && strv_pushf(s, "--nodelist=%s", m->nodelist) < 0)
		return -1;
	if (m->ntasks_per_node && strv_pushf(s, "--ntasks-per-node=%u",
					     (unsigned)m->ntasks_per_node) < 0)
		return -1;
	if (m->dist &&
	    strv_pushf(s, "--distribution=%s", dist_opt[m->dist]) < 0)
		return -1;
	if (overlap && strv_pushf(s, "--overlap") < 0)
		return -1;
	if (m->bind && strv_pushf(s, "--cpu-bind=%s", bind_opt[m->bind]) < 0)
		return -1;
	if (m->cpus_per_task &&
	    strv_pushf(s, "--cpus-per-task=%u", (unsigned)m->cpus_per_task) < 0)
		return -1;
	if (m->job_minutes && strv_pushf(s, "--time=%u", m->job_minutes) < 0)
		return -1;
	return 0;
}

/* "--" and the program: the one app's cmd and argv[1..], or the exec. */
static int push_program(struct strv *s, const struct pmixev_pmixd_spawn *m,
			const struct pmixev_spawn_ctx *c)
{
	const struct pmixev_pmixd_spawn_app *a = &m->apps[0];

	if (strv_pushf(s, "--") < 0)
		return -1;
	if (pmixev_spawn_multi(m))
		return strv_push(s, strdup(c->exec));
	if (strv_push(s, strdup(a->cmd)) < 0)
		return -1;
	for (uint32_t i = 1; i < a->argc; i++)
		if (strv_push(s, strdup(a->argv[i])) < 0)
			return -1;
	return 0;
}

char **pmixev_spawn_argv(const struct pmixev_pmixd_spawn *m,
			 const struct pmixev_spawn_ctx *c, char *err,
			 size_t errlen)
{
	struct strv s = {0};
	const char *cwd;

	if (!pmixev_pmixd_spawn_size(m))
		return invalid(err, errlen);
	cwd = m->wdir[0] ? m->wdir : m->apps[0].cwd;
	if (!c->srun || !c->job_name || (pmixev_spawn_multi(m) && !c->exec)) {
		snprintf(err, errlen, "no %s",
			 !c->srun	? "srun path"
			 : !c->job_name ? "job name"
					: "pmixev-exec");
		errno = EINVAL;
		return NULL;
	}
	if (strv_push(&s, strdup(c->srun)) < 0 ||
	    strv_pushf(&s, "--jobid=%u",
		       m->alloc_job ? m->alloc_job : c->job_id) < 0 ||
	    strv_pushf(&s, "--mpi=pmixev") < 0 ||
	    strv_pushf(&s, "--exact") < 0 ||
	    strv_pushf(&s, "--ntasks=%u", pmixev_pmixd_spawn_nprocs(m)) < 0 ||
	    strv_pushf(&s, "--chdir=%s", cwd) < 0 ||
	    strv_pushf(&s, "--immediate=%u", pmixev_spawn_immediate(m, c)) <
		    0 ||
	    strv_pushf(&s, "--job-name=%s.spawn", c->job_name) < 0 ||
	    push_shape(&s, m, c) < 0 || push_program(&s, m, c) < 0)
		return strv_fail(&s, err, errlen);
	return s.v;
}

/* SLURM_* variables srun reads as option defaults (the env_vars tables of
 * src/srun/libsrun/opt.c at 22.05 and src/srun/opt.c at 24.11, but the
 * job's id, name and node list): the child's shape is on its command
 * line. */
static const char *const option_vars[] = {"SLURM_ACCOUNT",
					  "SLURM_ACCTG_FREQ",
					  "SLURM_BCAST",
					  "SLURM_BCAST_EXCLUDE",
					  "SLURM_BURST_BUFFER",
					  "SLURM_CLUSTERS",
					  "SLURM_CLUSTER_CONSTRAINT",
					  "SLURM_COMPRESS",
					  "SLURM_CONSTRAINT",
					  "SLURM_CORE_SPEC",
					  "SLURM_CPUS_PER_GPU",
					  "SLURM_CPUS_PER_TASK",
					  "SLURM_CPU_FREQ_REQ",
					  "SLURM_DEBUG",
					  "SLURM_DELAY_BOOT",
					  "SLURM_DEPENDENCY",
					  "SLURM_DISABLE_STATUS",
					  "SLURM_DISTRIBUTION",
					  "SLURM_DIST_PLANESIZE",
					  "SLURM_EPILOG",
					  "SLURM_EXACT",
					  "SLURM_EXCLUSIVE",
					  "SLURM_EXIT_ERROR",
					  "SLURM_EXIT_IMMEDIATE",
					  "SLURM_EXPORT_ENV",
					  "SLURM_EXTERNAL_LAUNCHER",
					  "SLURM_GPUS",
					  "SLURM_GPUS_PER_NODE",
					  "SLURM_GPUS_PER_SOCKET",
					  "SLURM_GPUS_PER_TASK",
					  "SLURM_GPU_BIND",
					  "SLURM_GPU_FREQ",
					  "SLURM_GRES",
					  "SLURM_GRES_FLAGS",
					  "SLURM_HINT",
					  "SLURM_IMMEDIATE",
					  "SLURM_JOB_NUM_NODES",
					  "SLURM_KILL_BAD_EXIT",
					  "SLURM_LABELIO",
					  "SLURM_MEM_PER_CPU",
					  "SLURM_MEM_PER_GPU",
					  "SLURM_MEM_PER_NODE",
					  "SLURM_MPI_TYPE",
					  "SLURM_NCORES_PER_SOCKET",
					  "SLURM_NETWORK",
					  "SLURM_NNODES",
					  "SLURM_NO_KILL",
					  "SLURM_NPROCS",
					  "SLURM_NSOCKETS_PER_NODE",
					  "SLURM_OOM_KILL_STEP",
					  "SLURM_OPEN_MODE",
					  "SLURM_OVERCOMMIT",
					  "SLURM_OVERLAP",
					  "SLURM_PARTITION",
					  "SLURM_POWER",
					  "SLURM_PROFILE",
					  "SLURM_PROLOG",
					  "SLURM_QOS",
					  "SLURM_REMOTE_CWD",
					  "SLURM_REQ_SWITCH",
					  "SLURM_RESERVATION",
					  "SLURM_RESV_PORTS",
					  "SLURM_SEND_LIBS",
					  "SLURM_SIGNAL",
					  "SLURM_SPREAD_JOB",
					  "SLURM_SRUN_MULTI",
					  "SLURM_SRUN_REDUCE_TASK_EXIT_MSG",
					  "SLURM_STDERRMODE",
					  "SLURM_STDINMODE",
					  "SLURM_STDOUTMODE",
					  "SLURM_TASK_EPILOG",
					  "SLURM_TASK_PROLOG",
					  "SLURM_TEST_EXEC",
					  "SLURM_THREADS",
					  "SLURM_THREADS_PER_CORE",
					  "SLURM_THREAD_SPEC",
					  "SLURM_TIMELIMIT",
					  "SLURM_TRES_BIND",
					  "SLURM_TRES_PER_TASK",
					  "SLURM_UMASK",
					  "SLURM_UNBUFFEREDIO",
					  "SLURM_USE_MIN_NODES",
					  "SLURM_WAIT",
					  "SLURM_WCKEY",
					  "SLURM_WORKING_DIR"};
/* Prefixes dropped always (families of the above included). */
static const char *const dropped_prefixes[] = {
	"SLURM_CPU_BIND",   "SLURM_MEM_BIND",
	"SLURM_NTASKS",	    "SLURM_STEP_",
	"SLURM_SRUN_COMM_", "SLURM_PMIXEV_SPAWN_",
	"PMIXEV_",	    "PMIX_",
};
/* pmixev's own variables for a step (the settings a job lowers stay). */
static const char *const pmixev_internal[] = {
	"SLURM_PMIXEV_TASKMAP",
	"SLURM_PMIXEV_APPS",
	"SLURM_PMIXEV_MULTIPROG",
	"SLURM_PMIXEV_RDV_PORT",
};
/* Job J's, when the child goes to another job. */
static const char *const alloc_vars[] = {"SLURM_JOBID", "SLURM_NODELIST"};

static bool name_in(const char *var, size_t n, const char *const *list,
		    size_t count)
{
	for (size_t i = 0; i < count; i++)
		if (strlen(list[i]) == n && !strncmp(var, list[i], n))
			return true;
	return false;
}

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

bool pmixev_spawn_env_dropped(const char *var, bool alloc_job)
{
	const char *eq = strchr(var, '=');
	size_t n = eq ? (size_t)(eq - var) : strlen(var);

	for (size_t i = 0; i < COUNT(dropped_prefixes); i++)
		if (!strncmp(var, dropped_prefixes[i],
			     strlen(dropped_prefixes[i])))
			return true;
	if (name_in(var, n, option_vars, COUNT(option_vars)) ||
	    name_in(var, n, pmixev_internal, COUNT(pmixev_internal)))
		return true;
	return alloc_job && (!strncmp(var, "SLURM_JOB_", 10) ||
			     name_in(var, n, alloc_vars, COUNT(alloc_vars)));
}

/* The index of `name` (`n` bytes) in `s`, or -1. */
static ssize_t env_find(const struct strv *s, const char *name, size_t n)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strncmp(s->v[i], name, n) && s->v[i][n] == '=')
			return (ssize_t)i;
	return -1;
}

/* Put `var` ("NAME=value", malloc'd, taken) in place of NAME's entry. */
static int env_put(struct strv *s, char *var)
{
	ssize_t at;

	if (!var)
		return -1;
	at = env_find(s, var, (size_t)(strchr(var, '=') - var));
	if (at < 0)
		return strv_push(s, var);
	free(s->v[at]);
	s->v[at] = var;
	return 0;
}

static void env_unset(struct strv *s, const char *name)
{
	ssize_t at = env_find(s, name, strlen(name));

	if (at < 0)
		return;
	free(s->v[at]);
	memmove(&s->v[at], &s->v[at + 1], (s->n - (size_t)at) * sizeof(*s->v));
	s->n--;
}

static char *env_make(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static char *env_make(const char *fmt, ...)
{
	va_list ap;
	char *str = NULL;
	int rc;

	va_start(ap, fmt);
	rc = vasprintf(&str, fmt, ap);
	va_end(ap);
	return rc < 0 ? NULL : str;
}

static int env_op(struct strv *s, const struct pmixev_pmixd_envop *o)
{
	ssize_t at = env_find(s, o->name, strlen(o->name));
	const char *old = at < 0 ? NULL : s->v[at] + strlen(o->name) + 1;

	switch (o->op) {
	case PMIXEV_PMIXD_ENV_ADD:
		if (old)
			return 0;
		/* fall through */
	case PMIXEV_PMIXD_ENV_SET:
		return env_put(s, env_make("%s=%s", o->name, o->value));
	case PMIXEV_PMIXD_ENV_UNSET:
		env_unset(s, o->name);
		return 0;
	case PMIXEV_PMIXD_ENV_PREPEND:
		return env_put(s, old ? env_make("%s=%s%c%s", o->name, o->value,
						 o->sep, old)
				      : env_make("%s=%s", o->name, o->value));
	case PMIXEV_PMIXD_ENV_APPEND:
		return env_put(s, old ? env_make("%s=%s%c%s", o->name, old,
						 o->sep, o->value)
				      : env_make("%s=%s", o->name, o->value));
	}
	return -1;
}

/* The spawn variables, last: nothing the job gave overrides them. */
static int push_spawn_vars(struct strv *s, const struct pmixev_pmixd_spawn *m,
			   const struct pmixev_spawn_ctx *c)
{
	char parent[PMIXEV_NSPACE_MAX + 16], id[PMIXEV_SPAWN_ID_LEN];
	struct pmixev_pmixd_spawn_app *each;
	char *apps;
	int rc;

	if (pmixev_spawn_parent_format(parent, sizeof(parent), c->parent,
				       c->parent_rank) < 0 ||
	    pmixev_spawn_id_format(id, c->spawn_id) < 0)
		return -2;
	if (env_put(s, env_make("%s=%s", PMIXEV_SPAWN_PARENT_ENV, parent)) <
		    0 ||
	    env_put(s, env_make("%s=%s", PMIXEV_SPAWN_ID_ENV, id)) < 0 ||
	    (c->layout && env_put(s, env_make("%s=%s", PMIXEV_SPAWN_LAYOUT_ENV,
					      c->layout)) < 0) ||
	    (m->flags &
		     (PMIXEV_PMIXD_SPAWN_NON_PMI | PMIXEV_PMIXD_SPAWN_TOOL) &&
	     env_put(s, env_make("%s=%s", PMIXEV_SPAWN_NONPMI_ENV,
				 m->flags & PMIXEV_PMIXD_SPAWN_TOOL ? "tool"
								    : "1")) <
		     0))
		return -1;
	if (!pmixev_spawn_multi(m))
		return 0;
	/* pmixev-exec goes where the apps say: wdir, when given, for all. */
	each = malloc(m->napps * sizeof(*each));
	if (!each)
		return -1;
	memcpy(each, m->apps, m->napps * sizeof(*each));
	for (uint32_t i = 0; m->wdir[0] && i < m->napps; i++)
		each[i].cwd = m->wdir;
	apps = pmixev_spawn_apps_encode(each, m->napps);
	free(each);
	if (!apps)
		return errno == ENOMEM ? -1 : -3;
	rc = env_put(s, env_make("%s=%s", PMIXEV_SPAWN_APPS_ENV, apps));
	free(apps);
	return rc;
}

char **pmixev_spawn_env(const struct pmixev_pmixd_spawn *m,
			const struct pmixev_spawn_ctx *c, char *const *base,
			char *err, size_t errlen)
{
	bool alloc_job = m->alloc_job && m->alloc_job != c->job_id;
	struct strv s = {0};
	int rc;

	if (!pmixev_pmixd_spawn_size(m))
		return invalid(err, errlen);
	for (size_t i = 0; base && base[i]; i++)
		if (strchr(base[i], '=') &&
		    !pmixev_spawn_env_dropped(base[i], alloc_job) &&
		    env_put(&s, strdup(base[i])) < 0)
			return strv_fail(&s, err, errlen);
	for (uint32_t i = 0; !pmixev_spawn_multi(m) && i < m->apps[0].envc; i++)
		if (env_put(&s, strdup(m->apps[0].env[i])) < 0)
			return strv_fail(&s, err, errlen);
	for (uint32_t i = 0; i < m->nops; i++)
		if (env_op(&s, &m->ops[i]) < 0)
			return strv_fail(&s, err, errlen);
	rc = push_spawn_vars(&s, m, c);
	if (rc == -1 || (!rc && !s.v && !(s.v = calloc(1, sizeof(*s.v)))))
		return strv_fail(&s, err, errlen);
	if (rc < 0) {
		pmixev_spawn_strv_free(s.v);
		snprintf(err, errlen, "%s",
			 rc == -2 ? "invalid spawner or spawn id"
				  : "the apps do not fit "
				    "in " PMIXEV_SPAWN_APPS_ENV);
		errno = rc == -2 ? EINVAL : E2BIG;
		return NULL;
	}
	return s.v;
}
