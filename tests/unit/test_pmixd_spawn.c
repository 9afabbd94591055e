/*
 * Unit tests for common/pmixev_pmixd_spawn.c: SPAWN and its apps alone,
 * round trips (strict: no prefix and no trailing byte unpacks; canonical: what
 * unpacks packs back to the same bytes), every bound and refusal, and
 * counts checked before anything is allocated (calloc is wrapped at link
 * time to see the largest request).
 */
#define _GNU_SOURCE /* memmem */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "calloc_spy.h"
#include "pmixd_fixture.h"
#include "pmixev_pmixd_spawn.h"
#include "proto_strict.h"

UNPACKER(un_spawn, struct pmixev_pmixd_spawn,
	 (pmixev_pmixd_spawn_unpack(&r, &fx, PMIXEV_PMIXD_SPAWN_BYTES, &m) < 0
		  ? -1
		  : (pmixev_pmixd_spawn_release(&m), 0)))

static char *argv0[] = {"a.out", "-x", "", "last arg"};
static char *argv1[] = {"b"};
static char *env0[] = {"OMPI_PARENT_PORT=1.2:3", "lower_case=", "X=a=b"};
static struct pmixev_pmixd_envop ops[] = {
	{PMIXEV_PMIXD_ENV_SET, "FOO", "bar", 0},
	{PMIXEV_PMIXD_ENV_ADD, "HOME", "/nowhere", 0},
	{PMIXEV_PMIXD_ENV_UNSET, "GONE", "", 0},
	{PMIXEV_PMIXD_ENV_PREPEND, "PATH", "/opt/bin", ':'},
	{PMIXEV_PMIXD_ENV_APPEND, "LD_LIBRARY_PATH", "/opt/lib", ';'},
};
static struct pmixev_pmixd_spawn_app apps[2];

/* Two apps (3 and 1 procs) asked for by local rank 2, every field set. */
static void spawn_fill(struct pmixev_pmixd_spawn *m)
{
	apps[0] = (struct pmixev_pmixd_spawn_app){
		.maxprocs = 3,
		.cmd = "/bin/a.out",
		.argc = 4,
		.argv = argv0,
		.envc = 3,
		.env = env0,
		.cwd = "/home/u",
	};
	apps[1] = (struct pmixev_pmixd_spawn_app){
		.maxprocs = 1,
		.cmd = "b",
		.argc = 1,
		.argv = argv1,
		.cwd = "/tmp",
	};
	*m = (struct pmixev_pmixd_spawn){
		.id = 77,
		.rank = 2,
		.flags = PMIXEV_PMIXD_SPAWN_OVERLAP |
			 PMIXEV_PMIXD_SPAWN_NOTIFY_JOB,
		.timeout_ms = 2500,
		.alloc_job = 12,
		.job_minutes = 5,
		.ntasks_per_node = 2,
		.cpus_per_task = 4,
		.dist = PMIXEV_PMIXD_DIST_CYCLIC,
		.bind = PMIXEV_PMIXD_BIND_CORES,
		.wdir = "",
		.nodelist = "n[1-2],n4",
		.nops = 5,
		.ops = ops,
		.napps = 2,
		.apps = apps,
	};
}

static void assert_app_equal(const struct pmixev_pmixd_spawn_app *a,
			     const struct pmixev_pmixd_spawn_app *b)
{
	assert_int_equal(a->maxprocs, b->maxprocs);
	assert_string_equal(a->cmd, b->cmd);
	assert_int_equal(a->argc, b->argc);
	for (uint32_t i = 0; i < a->argc; i++)
		assert_string_equal(a->argv[i], b->argv[i]);
	assert_int_equal(a->envc, b->envc);
	for (uint32_t i = 0; i < a->envc; i++)
		assert_string_equal(a->env[i], b->env[i]);
	assert_string_equal(a->cwd, b->cwd);
}

/*
 * `m` packs to its computed size; the bytes unpack, equal, and repack;
 * with `strict`, no prefix nor a trailing byte unpacks (slow when big).
 */
static void assert_canonical(const struct pmixev_pmixd_spawn *m, bool strict)
{
	struct pmixev_pmixd_spawn got;
	struct pmixev_buf w, r, again;

	pmixev_buf_init(&w);
	assert_int_equal(pmixev_pmixd_spawn_pack(&w, m), 0);
	assert_int_equal(w.len, pmixev_pmixd_spawn_size(m));
	fx_reader(&r, &w);
	assert_int_equal(pmixev_pmixd_spawn_unpack(&r, &fx, w.len, &got), 0);
	assert_true(got.id == m->id);
	assert_int_equal(got.rank, m->rank);
	assert_int_equal(got.flags, m->flags);
	assert_int_equal(got.timeout_ms, m->timeout_ms);
	assert_int_equal(got.alloc_job, m->alloc_job);
	assert_int_equal(got.job_minutes, m->job_minutes);
	assert_int_equal(got.ntasks_per_node, m->ntasks_per_node);
	assert_int_equal(got.cpus_per_task, m->cpus_per_task);
	assert_int_equal(got.dist, m->dist);
	assert_int_equal(got.bind, m->bind);
	assert_string_equal(got.wdir, m->wdir);
	assert_string_equal(got.nodelist, m->nodelist);
	assert_int_equal(got.nops, m->nops);
	for (uint32_t i = 0; i < m->nops; i++) {
		assert_int_equal(got.ops[i].op, m->ops[i].op);
		assert_string_equal(got.ops[i].name, m->ops[i].name);
		assert_string_equal(got.ops[i].value, m->ops[i].value);
		assert_int_equal(got.ops[i].sep, m->ops[i].sep);
	}
	assert_int_equal(got.napps, m->napps);
	for (uint32_t i = 0; i < m->napps; i++)
		assert_app_equal(&got.apps[i], &m->apps[i]);
	assert_int_equal(pmixev_pmixd_spawn_nprocs(&got),
			 pmixev_pmixd_spawn_nprocs(m));
	pmixev_buf_init(&again);
	assert_int_equal(pmixev_pmixd_spawn_pack(&again, &got), 0);
	assert_int_equal(again.len, w.len);
	assert_memory_equal(again.data, w.data, w.len);
	pmixev_buf_release(&again);
	pmixev_pmixd_spawn_release(&got);
	assert_null(got.apps);
	/* One byte under the cap the caller gives: refused. */
	fx_reader(&r, &w);
	assert_int_equal(pmixev_pmixd_spawn_unpack(&r, &fx, w.len - 1, &got),
			 -1);
	if (strict)
		assert_strict(&w, un_spawn);
	else
		pmixev_buf_release(&w);
}

static void assert_spawn_canonical(const struct pmixev_pmixd_spawn *m)
{
	assert_canonical(m, true);
}

static void test_spawn_round_trip(void **state)
{
	struct pmixev_pmixd_spawn m;

	(void)state;
	spawn_fill(&m);
	assert_spawn_canonical(&m);
	assert_int_equal(pmixev_pmixd_spawn_nprocs(&m), 4);
	/* The least: one app, no argv, env nor ops; a tool asks. */
	spawn_fill(&m);
	m.rank = PMIXEV_PMIXD_NO_RANK;
	m.flags = 0;
	m.timeout_ms = 0;
	m.alloc_job = 0;
	m.job_minutes = 0;
	m.ntasks_per_node = 0;
	m.cpus_per_task = 0;
	m.dist = PMIXEV_PMIXD_DIST_DEFAULT;
	m.bind = PMIXEV_PMIXD_BIND_DEFAULT;
	m.nodelist = "";
	m.nops = 0;
	m.ops = NULL;
	m.napps = 1;
	apps[0].argc = 0;
	apps[0].argv = NULL;
	apps[0].envc = 0;
	apps[0].env = NULL;
	assert_spawn_canonical(&m);
	/* The most of each scalar. */
	spawn_fill(&m);
	m.flags = PMIXEV_PMIXD_SPAWN_FLAGS;
	m.timeout_ms = PMIXEV_PMIXD_SPAWN_MS_MAX;
	m.job_minutes = PMIXEV_PMIXD_SPAWN_MINUTES_MAX;
	m.ntasks_per_node = UINT16_MAX;
	m.cpus_per_task = UINT16_MAX;
	m.bind = PMIXEV_PMIXD_BIND_SOCKETS;
	m.wdir = "/scratch";
	apps[0].maxprocs = PMIXEV_PMIXD_SPAWN_PROCS - 1;
	assert_spawn_canonical(&m);
}

static void assert_pack_refused(const struct pmixev_pmixd_spawn *m)
{
	struct pmixev_buf w;

	pmixev_buf_init(&w);
	errno = 0;
	assert_int_equal(pmixev_pmixd_spawn_pack(&w, m), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(w.len, 0);
	assert_int_equal(pmixev_pmixd_spawn_size(m), 0);
	pmixev_buf_release(&w);
}

static void test_spawn_pack_refuses(void **state)
{
	static struct pmixev_pmixd_envop bad_op;
	static char *bad_env[] = {"NOEQUALS"}, *bad_name[] = {"1X=y"};
	struct pmixev_pmixd_spawn m;

	(void)state;
#define REFUSED(change)                                                        \
	do {                                                                   \
		spawn_fill(&m);                                                \
		change;                                                        \
		assert_pack_refused(&m);                                       \
	} while (0)
	REFUSED(m.flags = PMIXEV_PMIXD_SPAWN_FLAGS + 1);
	REFUSED(m.timeout_ms = PMIXEV_PMIXD_SPAWN_MS_MAX + 1);
	REFUSED(m.job_minutes = PMIXEV_PMIXD_SPAWN_MINUTES_MAX + 1);
	REFUSED(m.dist = (enum pmixev_pmixd_spawn_dist)3);
	REFUSED(m.bind = (enum pmixev_pmixd_spawn_bind)5);
	REFUSED(m.wdir = "relative");
	REFUSED(m.wdir = NULL);
	REFUSED(m.nodelist = "n1 n2");
	REFUSED(m.nodelist = "n1;reboot");
	REFUSED(m.napps = 0);
	REFUSED(m.napps = PMIXEV_PMIXD_SPAWN_APPS + 1);
	REFUSED(m.nops = PMIXEV_PMIXD_SPAWN_ENV + 1);
	REFUSED(apps[1].maxprocs = 0);
	REFUSED(apps[0].maxprocs = PMIXEV_PMIXD_SPAWN_PROCS);
	REFUSED(apps[0].cmd = "");
	REFUSED(apps[0].cwd = "home/u");
	REFUSED(apps[0].cwd = "");
	REFUSED(apps[0].argc = PMIXEV_PMIXD_SPAWN_ARGV + 1);
	REFUSED(apps[0].envc = PMIXEV_PMIXD_SPAWN_ENV + 1);
	REFUSED((apps[0].env = bad_env, apps[0].envc = 1));
	REFUSED((apps[0].env = bad_name, apps[0].envc = 1));
	REFUSED(apps[0].argv = NULL);
	/* Env ops: unknown, bad names, UNSET with a value, separators. */
	bad_op = ops[0];
	REFUSED((m.ops = &bad_op, m.nops = 1, bad_op.op = 0));
	bad_op = ops[0];
	REFUSED((m.ops = &bad_op, m.nops = 1, bad_op.op = 6));
	bad_op = ops[0];
	REFUSED((m.ops = &bad_op, m.nops = 1, bad_op.name = "A-B"));
	bad_op = ops[0];
	REFUSED((m.ops = &bad_op, m.nops = 1, bad_op.name = ""));
	bad_op = ops[0];
	REFUSED((m.ops = &bad_op, m.nops = 1, bad_op.sep = ':'));
	bad_op = ops[2];
	REFUSED((m.ops = &bad_op, m.nops = 1, bad_op.value = "x"));
	bad_op = ops[3];
	REFUSED((m.ops = &bad_op, m.nops = 1, bad_op.sep = 0));
	bad_op = ops[3];
	REFUSED((m.ops = &bad_op, m.nops = 1, bad_op.sep = ' '));
#undef REFUSED
}

/* The sum of maxprocs, strings at their bound, and the body's cap. */
static void test_spawn_sizes(void **state)
{
	static struct pmixev_pmixd_spawn_app many[PMIXEV_PMIXD_SPAWN_APPS];
	char *big = malloc(PMIXEV_PMIXD_SPAWN_STR + 2);
	char **argv = calloc(PMIXEV_PMIXD_SPAWN_ARGV, sizeof(*argv));
	struct pmixev_pmixd_spawn m;

	(void)state;
	assert_non_null(big);
	assert_non_null(argv);
	spawn_fill(&m);
	m.apps = many;
	m.napps = PMIXEV_PMIXD_SPAWN_APPS;
	for (uint32_t i = 0; i < m.napps; i++)
		many[i] = (struct pmixev_pmixd_spawn_app){
			.maxprocs = PMIXEV_PMIXD_SPAWN_PROCS / m.napps,
			.cmd = "x",
			.cwd = "/",
		};
	assert_spawn_canonical(&m);
	many[0].maxprocs++;
	assert_pack_refused(&m);
	/* A string of 4096 bytes passes, 4097 does not. */
	spawn_fill(&m);
	memset(big, 'a', PMIXEV_PMIXD_SPAWN_STR + 1);
	big[PMIXEV_PMIXD_SPAWN_STR] = '\0';
	apps[0].cmd = big;
	assert_spawn_canonical(&m);
	big[PMIXEV_PMIXD_SPAWN_STR] = 'a';
	big[PMIXEV_PMIXD_SPAWN_STR + 1] = '\0';
	assert_pack_refused(&m);
	/* 1024 arguments of 4096 bytes: above 256 KiB. */
	big[PMIXEV_PMIXD_SPAWN_STR] = '\0';
	for (uint32_t i = 0; i < PMIXEV_PMIXD_SPAWN_ARGV; i++)
		argv[i] = i < 60 ? big : "";
	spawn_fill(&m);
	apps[0].argv = argv;
	apps[0].argc = PMIXEV_PMIXD_SPAWN_ARGV;
	assert_canonical(&m, false);
	for (uint32_t i = 60; i < 70; i++)
		argv[i] = big;
	assert_true(pmixev_pmixd_spawn_size(&m) > PMIXEV_PMIXD_SPAWN_BYTES);
	{
		struct pmixev_buf w;

		pmixev_buf_init(&w);
		assert_int_equal(pmixev_pmixd_spawn_pack(&w, &m), -1);
		assert_int_equal(w.len, 0);
	}
	free(argv);
	free(big);
}

/* A packed valid spawn with byte `at` changed to `v`. */
static int spawn_patched(size_t at, uint8_t v)
{
	struct pmixev_pmixd_spawn m;
	struct pmixev_buf w;
	int rc;

	spawn_fill(&m);
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_pmixd_spawn_pack(&w, &m), 0);
	assert_true(at < w.len);
	w.data[at] = v;
	rc = un_spawn(w.data, w.len);
	pmixev_buf_release(&w);
	return rc;
}

static void test_spawn_unpack_refuses(void **state)
{
	struct pmixev_pmixd_spawn m;
	struct pmixev_buf w;
	uint8_t *p;

	(void)state;
	assert_int_equal(spawn_patched(0, 0), 0);
	/* rank: 5 is on node 1; 8 is outside the step. */
	assert_int_equal(spawn_patched(11, 5), -1);
	assert_int_equal(spawn_patched(11, 8), -1);
	/* flags, dist, bind. */
	assert_int_equal(spawn_patched(15, 0x20), -1);
	assert_int_equal(spawn_patched(32, 3), -1);
	assert_int_equal(spawn_patched(33, 5), -1);
	/* A NUL inside a string: nodelist "n[1-2],n4" starts at 42. */
	assert_int_equal(spawn_patched(42 + 2, 0), -1);
	/* ... and inside the first argument. */
	spawn_fill(&m);
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_pmixd_spawn_pack(&w, &m), 0);
	p = memmem(w.data, w.len, "a.out", 5);
	assert_non_null(p);
	p[1] = 0;
	assert_int_equal(un_spawn(w.data, w.len), -1);
	pmixev_buf_release(&w);
}

/* The scalars, wdir "" and nodelist "", then `tail`. */
static void spawn_head(struct pmixev_buf *w)
{
	pmixev_buf_init(w);
	pmixev_buf_put_u64(w, 1);
	pmixev_buf_put_u32(w, 0);
	pmixev_buf_put_u32(w, 0);
	pmixev_buf_put_u32(w, 0);
	pmixev_buf_put_u32(w, 0);
	pmixev_buf_put_u32(w, 0);
	pmixev_buf_put_u16(w, 0);
	pmixev_buf_put_u16(w, 0);
	pmixev_buf_put_u8(w, 0);
	pmixev_buf_put_u8(w, 0);
	pmixev_buf_put_str(w, "");
	pmixev_buf_put_str(w, "");
}

static void assert_no_alloc(struct pmixev_buf *w, size_t most)
{
	calloc_max = 0;
	assert_int_equal(un_spawn(w->data, w->len), -1);
	assert_true(calloc_max <= most);
	pmixev_buf_release(w);
}

static void test_spawn_counts_first(void **state)
{
	struct pmixev_buf w;

	(void)state;
	/* Ops: a huge count, and the most with the bytes of a few. */
	spawn_head(&w);
	pmixev_buf_put_u32(&w, UINT32_MAX);
	assert_no_alloc(&w, 0);
	spawn_head(&w);
	pmixev_buf_put_u32(&w, PMIXEV_PMIXD_SPAWN_ENV);
	pmixev_buf_put_raw(&w, "0123456789012345678901234567890", 30);
	assert_no_alloc(&w, 0);
	/* Apps: 64 with the bytes of one. */
	spawn_head(&w);
	pmixev_buf_put_u32(&w, 0);
	pmixev_buf_put_u32(&w, PMIXEV_PMIXD_SPAWN_APPS);
	pmixev_buf_put_raw(&w, "01234567890123456789", 20);
	assert_no_alloc(&w, 0);
	/* One app whose argv claims 1024 entries in 20 bytes: only the app
	 * array is allocated. */
	spawn_head(&w);
	pmixev_buf_put_u32(&w, 0);
	pmixev_buf_put_u32(&w, 1);
	pmixev_buf_put_u32(&w, 1);
	pmixev_buf_put_str(&w, "x");
	pmixev_buf_put_u32(&w, PMIXEV_PMIXD_SPAWN_ARGV);
	pmixev_buf_put_raw(&w, "01234567890123456789", 20);
	assert_no_alloc(&w, sizeof(struct pmixev_pmixd_spawn_app));
	/* Its env, likewise. */
	spawn_head(&w);
	pmixev_buf_put_u32(&w, 0);
	pmixev_buf_put_u32(&w, 1);
	pmixev_buf_put_u32(&w, 1);
	pmixev_buf_put_str(&w, "x");
	pmixev_buf_put_u32(&w, 0);
	pmixev_buf_put_u32(&w, PMIXEV_PMIXD_SPAWN_ENV);
	pmixev_buf_put_raw(&w, "01234567890123456789", 20);
	assert_no_alloc(&w, sizeof(struct pmixev_pmixd_spawn_app));
	/* Above the counts' bounds, whatever the bytes. */
	spawn_head(&w);
	pmixev_buf_put_u32(&w, PMIXEV_PMIXD_SPAWN_ENV + 1);
	for (int i = 0; i < PMIXEV_PMIXD_SPAWN_ENV + 1; i++)
		pmixev_buf_put_raw(&w, "\1\0\0\0\1A\0\0\0\0\0", 11);
	assert_no_alloc(&w, 0);
	/* A body above the cap is refused before it is read. */
	pmixev_buf_init(&w);
	for (size_t i = 0; i <= PMIXEV_PMIXD_SPAWN_BYTES; i += 8)
		pmixev_buf_put_u64(&w, 0);
	assert_no_alloc(&w, 0);
}

static void test_apps_alone(void **state)
{
	struct pmixev_pmixd_spawn m;
	struct pmixev_pmixd_spawn_app *got = NULL;
	struct pmixev_buf w, r;
	uint32_t n = 0;

	(void)state;
	spawn_fill(&m);
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_pmixd_spawn_apps_pack(&w, m.apps, m.napps), 0);
	fx_reader(&r, &w);
	assert_int_equal(pmixev_pmixd_spawn_apps_unpack(&r, &got, &n), 0);
	assert_int_equal(n, 2);
	assert_app_equal(&got[0], &apps[0]);
	assert_app_equal(&got[1], &apps[1]);
	pmixev_pmixd_spawn_apps_free(got, n);
	/* A trailing byte. */
	pmixev_buf_put_u8(&w, 0);
	fx_reader(&r, &w);
	assert_int_equal(pmixev_pmixd_spawn_apps_unpack(&r, &got, &n), -1);
	assert_null(got);
	assert_int_equal(n, 0);
	pmixev_buf_release(&w);
	assert_int_equal(pmixev_pmixd_spawn_apps_pack(&w, m.apps, 0), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spawn_round_trip),
		cmocka_unit_test(test_spawn_pack_refuses),
		cmocka_unit_test(test_spawn_sizes),
		cmocka_unit_test(test_spawn_unpack_refuses),
		cmocka_unit_test(test_spawn_counts_first),
		cmocka_unit_test(test_apps_alone),
	};

	return cmocka_run_group_tests(tests, fx_setup, fx_teardown);
}
