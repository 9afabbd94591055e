/*
 * Unit tests for programs/check_conf.c (pmixev-check): slurm.conf's keys
 * as Slurm reads them (any case, the last one wins, quotes, comments,
 * continued lines, includes relative to the including file), the SPANK
 * plugin's line in plugstack.conf and the files it includes, and mpi.conf's
 * PMIxev entries validated with the plugin's own rules.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "check_conf.h"

static char dir[64];

/* `text` into the file `name` of the test's folder; its path in `path`. */
static void put(const char *name, const char *text, char *path, size_t len)
{
	FILE *f;

	snprintf(path, len, "%s/%s", dir, name);
	assert_non_null(f = fopen(path, "w"));
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/test_check_conf.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_site(void **state)
{
	struct check_site s;
	char path[128], inc[128], why[256];

	put("more.conf", "authinfo=socket=/run/x.sock,ttl=60\n", inc,
	    sizeof(inc));
	put("slurm.conf",
	    "# a comment PluginDir=/not\n"
	    "ClusterName=c1 PluginDir=/a:/b   # trailing\n"
	    "NodeName=n1 CPUs=2\n"
	    "pluginDIR=\"/c d\"\n"
	    "PlugStackConfig=/etc/slurm/\\\n"
	    "plugstack.conf\n"
	    "Include more.conf\n"
	    "MpiDefault=pmixev AuthType=auth/munge\n",
	    path, sizeof(path));
	assert_int_equal(check_conf_read(&s, path, why, sizeof(why)), 0);
	assert_string_equal(s.conf, path);
	assert_string_equal(s.plugin_dir, "/c d");
	assert_string_equal(s.plugstack, "/etc/slurm/plugstack.conf");
	assert_string_equal(s.authinfo, "socket=/run/x.sock,ttl=60");
	assert_string_equal(s.authtype, "auth/munge");
	assert_string_equal(s.mpi_default, "pmixev");
}

static void test_site_unreadable(void **state)
{
	struct check_site s;
	char path[128], why[256];

	snprintf(path, sizeof(path), "%s/none.conf", dir);
	assert_int_equal(check_conf_read(&s, path, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "cannot read "));
	assert_non_null(strstr(why, "none.conf: No such file or directory"));
	assert_string_equal(s.conf, path);

	/* An include that names no file fails the same way. */
	put("broken.conf", "Include missing.conf\n", path, sizeof(path));
	assert_int_equal(check_conf_read(&s, path, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "missing.conf: No such file"));

	/* One that includes itself stops. */
	put("loop.conf", "include loop.conf\n", path, sizeof(path));
	assert_int_equal(check_conf_read(&s, path, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "includes nested deeper than"));
}

static void test_plugstack(void **state)
{
	struct check_spank sp = {0};
	char path[128], inc[128], why[256];

	snprintf(inc, sizeof(inc), "%s/plugstack.conf.d", dir);
	assert_int_equal(mkdir(inc, 0755), 0);
	put("plugstack.conf.d/a.conf",
	    "required /x/other.so\n"
	    "\n"
	    "  optional spank_pmixev.so arg=1\n",
	    inc, sizeof(inc));
	put("plugstack.conf",
	    "required /x/spank_pmixev.so.old\n"
	    "# required /x/spank_pmixev.so\n"
	    "include plugstack.conf.d/*.conf\n",
	    path, sizeof(path));
	assert_int_equal(check_plugstack_find(path, "spank_pmixev.so", &sp, why,
					      sizeof(why)),
			 1);
	assert_string_equal(sp.file, inc);
	assert_int_equal(sp.line, 3);
	assert_false(sp.required);
	assert_string_equal(sp.path, "spank_pmixev.so");

	/* The first line that loads it wins. */
	put("plugstack.conf",
	    "required /y/spank_pmixev.so\n"
	    "include plugstack.conf.d/*.conf\n",
	    path, sizeof(path));
	assert_int_equal(check_plugstack_find(path, "spank_pmixev.so", &sp, why,
					      sizeof(why)),
			 1);
	assert_true(sp.required);
	assert_string_equal(sp.path, "/y/spank_pmixev.so");
	assert_int_equal(sp.line, 1);

	/* None; a pattern that matches nothing is no error. */
	put("plugstack.conf", "include none.d/*.conf\nrequired /x/a.so\n", path,
	    sizeof(path));
	assert_int_equal(check_plugstack_find(path, "spank_pmixev.so", &sp, why,
					      sizeof(why)),
			 0);
	snprintf(path, sizeof(path), "%s/absent.conf", dir);
	assert_int_equal(check_plugstack_find(path, "spank_pmixev.so", &sp, why,
					      sizeof(why)),
			 -1);
	assert_non_null(strstr(why, "absent.conf: No such file"));
}

static void test_mpiconf(void **state)
{
	char path[128], why[256], want[256];

	put("mpi.conf",
	    "PMIxCliTmpDirBase=/tmp\n"
	    "PMIxevTimeout=42 pmixevdebug=2\n"
	    "# PMIxevTimeout=banana\n",
	    path, sizeof(path));
	assert_int_equal(check_mpiconf(path, why, sizeof(why)), 2);

	put("mpi.conf", "PMIxevDebug=1\n\nPMIxevTimeout=banana\n", path,
	    sizeof(path));
	assert_int_equal(check_mpiconf(path, why, sizeof(why)), -1);
	snprintf(want, sizeof(want),
		 "%s:3: PMIxevTimeout=banana: expected an integer in 1..86400 "
		 "seconds",
		 path);
	assert_string_equal(why, want);

	put("mpi.conf", "PMIxevTimout=5\n", path, sizeof(path));
	assert_int_equal(check_mpiconf(path, why, sizeof(why)), -1);
	assert_non_null(strstr(why, ":1: PMIxevTimout: not an option of "));

	/* The site's policy must be one it allows. */
	put("mpi.conf",
	    "PMIxevMonitorPolicy=kill\nPMIxevMonitorAllowed=notify\n", path,
	    sizeof(path));
	assert_int_equal(check_mpiconf(path, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "PMIxevMonitorPolicy=kill is not among"));

	snprintf(path, sizeof(path), "%s/none/mpi.conf", dir);
	assert_int_equal(check_mpiconf(path, why, sizeof(why)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_site),
		cmocka_unit_test(test_site_unreadable),
		cmocka_unit_test(test_plugstack),
		cmocka_unit_test(test_mpiconf),
	};

	return cmocka_run_group_tests_name("check_conf", tests, setup,
					   teardown);
}
