/*
 * Unit tests for common/pmixev_spawn_cmd.c: the child srun's argv and
 * environment for representative spawns, the environment filter and
 * SLURM_PMIXEV_SPAWN_APPS (test_spawn_vars.c: the other spawn variables).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pmixev_base64.h"
#include "pmixev_spawn_cmd.h"

static char *argv0[] = {"ignored", "-n", "", "two words"};
static char *env0[] = {"PATH=/app/bin", "OMPI_PARENT_PORT=1:2"};
static struct pmixev_pmixd_spawn_app apps[2];
static struct pmixev_pmixd_envop ops[8];

static const struct pmixev_spawn_ctx ctx = {
	.srun = "/usr/bin/srun",
	.exec = "/usr/libexec/pmixev/pmixev-exec",
	.job_id = 7,
	.job_name = "bash",
	.timeout_max = 30,
	.parent = "slurm.pmixev.7.0",
	.parent_rank = 2,
	.spawn_id = 99,
};

/* One app of 4 procs, nothing else asked. */
static void spawn_fill(struct pmixev_pmixd_spawn *m)
{
	apps[0] = (struct pmixev_pmixd_spawn_app){
		.maxprocs = 4,
		.cmd = "./child",
		.argc = 4,
		.argv = argv0,
		.envc = 2,
		.env = env0,
		.cwd = "/home/u",
	};
	apps[1] = (struct pmixev_pmixd_spawn_app){
		.maxprocs = 2,
		.cmd = "other",
		.cwd = "/tmp",
	};
	*m = (struct pmixev_pmixd_spawn){
		.id = 1,
		.rank = 0,
		.wdir = "",
		.nodelist = "",
		.napps = 1,
		.apps = apps,
	};
}

static size_t count(char **v)
{
	size_t n = 0;

	while (v[n])
		n++;
	return n;
}

static void assert_argv(char **got, const char *const *want)
{
	size_t i = 0;

	assert_non_null(got);
	for (; want[i]; i++) {
		assert_non_null(got[i]);
		assert_string_equal(got[i], want[i]);
	}
	assert_null(got[i]);
	pmixev_spawn_strv_free(got);
}

static void test_argv_plain(void **state)
{
	static const char *const want[] = {"/usr/bin/srun",
					   "--jobid=7",
					   "--mpi=pmixev",
					   "--exact",
					   "--ntasks=4",
					   "--chdir=/home/u",
					   "--immediate=30",
					   "--job-name=bash.spawn",
					   "--",
					   "./child",
					   "-n",
					   "",
					   "two words",
					   NULL};
	struct pmixev_pmixd_spawn m;
	char err[128];

	(void)state;
	spawn_fill(&m);
	assert_argv(pmixev_spawn_argv(&m, &ctx, err, sizeof(err)), want);
}

static void test_argv_directives(void **state)
{
	static const char *const want[] = {"/usr/bin/srun",
					   "--jobid=12",
					   "--mpi=pmixev",
					   "--exact",
					   "--ntasks=6",
					   "--chdir=/scratch",
					   "--immediate=3",
					   "--job-name=bash.spawn",
					   "--nodelist=n[1-2]",
					   "--ntasks-per-node=2",
					   "--distribution=cyclic",
					   "--overlap",
					   "--cpu-bind=cores",
					   "--cpus-per-task=4",
					   "--time=90",
					   "--",
					   "/usr/libexec/pmixev/pmixev-exec",
					   NULL};
	static const char *const tool[] = {"/usr/bin/srun",
					   "--jobid=7",
					   "--mpi=pmixev",
					   "--exact",
					   "--ntasks=4",
					   "--chdir=/home/u",
					   "--immediate=1",
					   "--job-name=bash.spawn",
					   "--overlap",
					   "--cpu-bind=threads",
					   "--",
					   "./child",
					   "-n",
					   "",
					   "two words",
					   NULL};
	struct pmixev_pmixd_spawn m;
	char err[128];

	(void)state;
	spawn_fill(&m);
	m.napps = 2;
	m.alloc_job = 12;
	m.wdir = "/scratch";
	m.timeout_ms = 2001;
	m.nodelist = "n[1-2]";
	m.ntasks_per_node = 2;
	m.dist = PMIXEV_PMIXD_DIST_CYCLIC;
	m.flags = PMIXEV_PMIXD_SPAWN_OVERLAP;
	m.bind = PMIXEV_PMIXD_BIND_CORES;
	m.cpus_per_task = 4;
	m.job_minutes = 90;
	assert_argv(pmixev_spawn_argv(&m, &ctx, err, sizeof(err)), want);
	/* A tool: pmixev's step, overlapping; --overlap comes once. */
	spawn_fill(&m);
	m.flags = PMIXEV_PMIXD_SPAWN_TOOL | PMIXEV_PMIXD_SPAWN_OVERLAP;
	m.timeout_ms = 1;
	m.bind = PMIXEV_PMIXD_BIND_THREADS;
	assert_argv(pmixev_spawn_argv(&m, &ctx, err, sizeof(err)), tool);
	/* NON_PMI; the SPANK option's overlap; block. */
	spawn_fill(&m);
	m.flags = PMIXEV_PMIXD_SPAWN_NON_PMI;
	m.dist = PMIXEV_PMIXD_DIST_BLOCK;
	{
		struct pmixev_spawn_ctx c = ctx;
		char **v;

		c.overlap = true;
		v = pmixev_spawn_argv(&m, &c, err, sizeof(err));
		assert_non_null(v);
		assert_string_equal(v[2], "--mpi=pmixev");
		assert_string_equal(v[8], "--distribution=block");
		assert_string_equal(v[9], "--overlap");
		pmixev_spawn_strv_free(v);
	}
	/* Refused: an invalid SPAWN, no exec for several apps. */
	spawn_fill(&m);
	m.dist = (enum pmixev_pmixd_spawn_dist)7;
	errno = 0;
	assert_null(pmixev_spawn_argv(&m, &ctx, err, sizeof(err)));
	assert_int_equal(errno, EINVAL);
	spawn_fill(&m);
	m.napps = 2;
	{
		struct pmixev_spawn_ctx c = ctx;

		c.exec = NULL;
		assert_null(pmixev_spawn_argv(&m, &c, err, sizeof(err)));
		assert_string_equal(err, "no pmixev-exec");
	}
}

static void test_immediate(void **state)
{
	struct pmixev_pmixd_spawn m;

	(void)state;
	spawn_fill(&m);
	assert_int_equal(pmixev_spawn_immediate(&m, &ctx), 30);
	m.timeout_ms = 1;
	assert_int_equal(pmixev_spawn_immediate(&m, &ctx), 1);
	m.timeout_ms = 1000;
	assert_int_equal(pmixev_spawn_immediate(&m, &ctx), 1);
	m.timeout_ms = 1001;
	assert_int_equal(pmixev_spawn_immediate(&m, &ctx), 2);
	m.timeout_ms = PMIXEV_PMIXD_SPAWN_MS_MAX;
	assert_int_equal(pmixev_spawn_immediate(&m, &ctx), 30);
}

static void test_env_filter(void **state)
{
	static const char *const dropped[] = {"SLURM_NTASKS=3",
					      "SLURM_NTASKS_PER_NODE=1",
					      "SLURM_NNODES=3",
					      "SLURM_NPROCS=3",
					      "SLURM_DISTRIBUTION=block",
					      "SLURM_CPU_BIND=cores",
					      "SLURM_CPU_BIND_TYPE=cores",
					      "SLURM_EXACT=1",
					      "SLURM_OVERLAP=1",
					      "SLURM_MPI_TYPE=pmix",
					      "SLURM_STEP_ID=0",
					      "SLURM_STEP_NODELIST=n1",
					      "SLURM_SRUN_COMM_PORT=4",
					      "SLURM_SRUN_COMM_HOST=h",
					      "SLURM_PMIXEV_TASKMAP=0",
					      "SLURM_PMIXEV_APPS=",
					      "PMIXEV_SPAWN_FD=3",
					      "SLURM_PMIXEV_SPAWN_ID=4",
					      "PMIX_SERVER_URI=x",
					      "PMIX_RANK=0",
					      "SLURM_TIMELIMIT=5",
					      "SLURM_EXPORT_ENV=NONE",
					      NULL};
	static const char *const kept[] = {"HOME=/home/u",
					   "SLURM_JOB_ID=7",
					   "SLURM_JOB_NODELIST=n[1-3]",
					   "SLURM_JOBID=7",
					   "SLURM_PMIXEV_TIMEOUT=10",
					   "SLURM_CONF=/etc/s",
					   "SLURM_NTASK=odd",
					   "PMIXX=1",
					   "OMPI_MCA_x=1",
					   "SLURMD_NODENAME=n1",
					   NULL};

	(void)state;
	for (size_t i = 0; dropped[i]; i++) {
		assert_true(pmixev_spawn_env_dropped(dropped[i], false));
		assert_true(pmixev_spawn_env_dropped(dropped[i], true));
	}
	for (size_t i = 0; kept[i]; i++)
		assert_false(pmixev_spawn_env_dropped(kept[i], false));
	/* Job J's, when the child goes to another job. */
	assert_true(pmixev_spawn_env_dropped("SLURM_JOB_ID=7", true));
	assert_true(pmixev_spawn_env_dropped("SLURM_JOBID=7", true));
	assert_true(pmixev_spawn_env_dropped("SLURM_NODELIST=n1", true));
	assert_false(pmixev_spawn_env_dropped("SLURM_JOBIDX=7", true));
	assert_false(pmixev_spawn_env_dropped("HOME=/", true));
}

/* The value of `name` in `env`, or NULL. */
static const char *get(char **env, const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; env[i]; i++)
		if (!strncmp(env[i], name, n) && env[i][n] == '=')
			return env[i] + n + 1;
	return NULL;
}

static void test_env_build(void **state)
{
	static char *base[] = {
		"HOME=/home/u",	  "PATH=/usr/bin",  "GONE=1",
		"SLURM_NTASKS=3", "SLURM_JOB_ID=7", "PMIX_NAMESPACE=x",
		"LIST=a",	  "noequals",	    NULL};
	struct pmixev_pmixd_spawn m;
	char err[128], **env;
	struct pmixev_pmixd_spawn_app *got;
	uint32_t n;

	(void)state;
	spawn_fill(&m);
	ops[0] = (struct pmixev_pmixd_envop){PMIXEV_PMIXD_ENV_SET, "FOO", "1",
					     0};
	ops[1] = (struct pmixev_pmixd_envop){PMIXEV_PMIXD_ENV_ADD, "HOME", "/x",
					     0};
	ops[2] = (struct pmixev_pmixd_envop){PMIXEV_PMIXD_ENV_ADD, "NEW", "n",
					     0};
	ops[3] = (struct pmixev_pmixd_envop){PMIXEV_PMIXD_ENV_UNSET, "GONE", "",
					     0};
	ops[4] = (struct pmixev_pmixd_envop){PMIXEV_PMIXD_ENV_PREPEND, "PATH",
					     "/opt", ':'};
	ops[5] = (struct pmixev_pmixd_envop){PMIXEV_PMIXD_ENV_APPEND, "LIST",
					     "b", ','};
	ops[6] = (struct pmixev_pmixd_envop){PMIXEV_PMIXD_ENV_APPEND, "LD",
					     "/l", ':'};
	ops[7] = (struct pmixev_pmixd_envop){PMIXEV_PMIXD_ENV_SET,
					     "SLURM_PMIXEV_SPAWN_ID", "666", 0};
	m.ops = ops;
	m.nops = 8;
	env = pmixev_spawn_env(&m, &ctx, base, err, sizeof(err));
	assert_non_null(env);
	assert_string_equal(get(env, "HOME"), "/home/u");
	/* The app's PATH, then the prepend. */
	assert_string_equal(get(env, "PATH"), "/opt:/app/bin");
	assert_string_equal(get(env, "OMPI_PARENT_PORT"), "1:2");
	assert_string_equal(get(env, "FOO"), "1");
	assert_string_equal(get(env, "NEW"), "n");
	assert_null(get(env, "GONE"));
	assert_string_equal(get(env, "LIST"), "a,b");
	assert_string_equal(get(env, "LD"), "/l");
	assert_null(get(env, "SLURM_NTASKS"));
	assert_null(get(env, "PMIX_NAMESPACE"));
	assert_string_equal(get(env, "SLURM_JOB_ID"), "7");
	assert_string_equal(get(env, PMIXEV_SPAWN_PARENT_ENV),
			    "slurm.pmixev.7.0,2");
	assert_string_equal(get(env, PMIXEV_SPAWN_ID_ENV), "99");
	assert_null(get(env, PMIXEV_SPAWN_APPS_ENV));
	assert_null(get(env, PMIXEV_SPAWN_LAYOUT_ENV));
	assert_int_equal(count(env), 10);
	pmixev_spawn_strv_free(env);
	/* The parent's layout, when srun has it, last as the others. */
	{
		struct pmixev_spawn_ctx c = ctx;

		c.layout = "AAEC/3g=";
		env = pmixev_spawn_env(&m, &c, base, err, sizeof(err));
		assert_non_null(env);
		assert_string_equal(get(env, PMIXEV_SPAWN_LAYOUT_ENV),
				    "AAEC/3g=");
		assert_null(get(env, PMIXEV_SPAWN_NONPMI_ENV));
		assert_int_equal(count(env), 11);
		pmixev_spawn_strv_free(env);
	}
	/* PMIX_NON_PMI: the child step is up once launched ("1"); a tool
	 * spawn's too, and its tasks are tools ("tool"). */
	for (int t = 0; t < 2; t++) {
		m.flags = t ? PMIXEV_PMIXD_SPAWN_TOOL
			    : PMIXEV_PMIXD_SPAWN_NON_PMI;
		env = pmixev_spawn_env(&m, &ctx, base, err, sizeof(err));
		assert_non_null(env);
		assert_string_equal(get(env, PMIXEV_SPAWN_NONPMI_ENV),
				    t ? "tool" : "1");
		assert_int_equal(count(env), 11);
		pmixev_spawn_strv_free(env);
	}
	m.flags = 0;
	/* Two apps in another job: their env travels in SPAWN_APPS. */
	m.napps = 2;
	m.alloc_job = 12;
	env = pmixev_spawn_env(&m, &ctx, base, err, sizeof(err));
	assert_non_null(env);
	assert_null(get(env, "SLURM_JOB_ID"));
	assert_null(get(env, "OMPI_PARENT_PORT"));
	assert_string_equal(get(env, "PATH"), "/opt:/usr/bin");
	assert_int_equal(pmixev_spawn_apps_decode(
				 get(env, PMIXEV_SPAWN_APPS_ENV), &got, &n),
			 0);
	assert_int_equal(n, 2);
	assert_string_equal(got[0].env[0], "PATH=/app/bin");
	assert_string_equal(got[0].cwd, "/home/u");
	assert_string_equal(got[1].cmd, "other");
	assert_string_equal(got[1].cwd, "/tmp");
	pmixev_pmixd_spawn_apps_free(got, n);
	pmixev_spawn_strv_free(env);
	/* A wdir sends every app there. */
	m.wdir = "/scratch";
	env = pmixev_spawn_env(&m, &ctx, base, err, sizeof(err));
	assert_non_null(env);
	assert_int_equal(pmixev_spawn_apps_decode(
				 get(env, PMIXEV_SPAWN_APPS_ENV), &got, &n),
			 0);
	assert_string_equal(got[0].cwd, "/scratch");
	assert_string_equal(got[1].cwd, "/scratch");
	pmixev_pmixd_spawn_apps_free(got, n);
	pmixev_spawn_strv_free(env);
	m.wdir = "";
	/* No base; a bad spawner. */
	m.nops = 0;
	env = pmixev_spawn_env(&m, &ctx, NULL, err, sizeof(err));
	assert_non_null(env);
	assert_int_equal(count(env), 3);
	pmixev_spawn_strv_free(env);
	{
		struct pmixev_spawn_ctx c = ctx;

		c.parent = "group";
		errno = 0;
		assert_null(pmixev_spawn_env(&m, &c, base, err, sizeof(err)));
		assert_int_equal(errno, EINVAL);
		c = ctx;
		c.spawn_id = 0;
		assert_null(pmixev_spawn_env(&m, &c, base, err, sizeof(err)));
	}
}

static void test_apps_var(void **state)
{
	static const char *const bad[] = {
		"",    "AAAA", "!!!!", "AAA=", "AA==AAAA",
		"AQ=", "AR==", "AAE ", "A===", NULL};
	struct pmixev_pmixd_spawn m;
	struct pmixev_pmixd_spawn_app *got = NULL;
	char *text, *big;
	size_t len;
	uint32_t n = 0;

	(void)state;
	spawn_fill(&m);
	m.napps = 2;
	text = pmixev_spawn_apps_encode(m.apps, m.napps);
	assert_non_null(text);
	assert_int_equal(pmixev_spawn_apps_decode(text, &got, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(got[0].argv[3], "two words");
	pmixev_pmixd_spawn_apps_free(got, n);
	/* A character changed, one cut, one added. */
	len = strlen(text);
	text[len - 1] = text[len - 1] == 'A' ? 'B' : 'A';
	assert_int_equal(pmixev_spawn_apps_decode(text, &got, &n), -1);
	text[len - 1] = '\0';
	assert_int_equal(pmixev_spawn_apps_decode(text, &got, &n), -1);
	assert_null(got);
	free(text);
	for (size_t i = 0; bad[i]; i++)
		assert_int_equal(pmixev_spawn_apps_decode(bad[i], &got, &n),
				 -1);
	/* Too long a value, whatever it holds. */
	big = malloc(PMIXEV_SPAWN_APPS_MAX + 5);
	assert_non_null(big);
	memset(big, 'A', PMIXEV_SPAWN_APPS_MAX + 4);
	big[PMIXEV_SPAWN_APPS_MAX + 4] = '\0';
	assert_int_equal(pmixev_spawn_apps_decode(big, &got, &n), -1);
	free(big);
	/* Invalid apps do not encode. */
	m.napps = 0;
	errno = 0;
	assert_null(pmixev_spawn_apps_encode(m.apps, m.napps));
	assert_int_equal(errno, EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_argv_plain),
		cmocka_unit_test(test_argv_directives),
		cmocka_unit_test(test_immediate),
		cmocka_unit_test(test_env_filter),
		cmocka_unit_test(test_env_build),
		cmocka_unit_test(test_apps_var),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
