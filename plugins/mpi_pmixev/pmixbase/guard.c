/*
 * pmixbase/guard.c - pmixev_pmix_guard.so found and loaded (see guard.h).
 */
#include "config.h"

#include "pmixbase/guard.h"

#include <dlfcn.h>
#include <libgen.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <pmix_server.h>

#include "pmix_guard.h"
#include "pmixev_log.h"

static void *handle;

static bool is_file(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* Where it is: beside this plugin or program (a site that stages
 * pmixev's files into its PluginDir, the test cluster), else where `make
 * install` put it. */
static void find(char *path, size_t len, char *looked, size_t looked_len)
{
	char dir[512];
	ssize_t n;
	Dl_info dl = {0};

	/* A program's own name in its link map is no path: ask the kernel. */
	if (dladdr((void *)guard_load, &dl) && dl.dli_fname &&
	    dl.dli_fname[0] != '/' &&
	    (n = readlink("/proc/self/exe", dir, sizeof(dir) - 1)) > 0) {
		dir[n] = '\0';
		dl.dli_fname = dir;
	}
	if (dl.dli_fname && dl.dli_fname[0] == '/') {
		if (dl.dli_fname != dir)
			snprintf(dir, sizeof(dir), "%s", dl.dli_fname);
		snprintf(path, len, "%s/" PMIXEV_PMIX_GUARD_FILE, dirname(dir));
		snprintf(looked, looked_len, "%s, ", path);
		if (is_file(path))
			return;
	}
	snprintf(path, len, "%s", PMIXEV_PMIX_GUARD_PATH);
	snprintf(looked + strlen(looked), looked_len - strlen(looked), "%s",
		 path);
}

/*
 * The library's own PMIx_Query_info_nb, from libpmix itself (found by a
 * function only it has): in the PMIx server process the guard is preloaded,
 * so the program's own reference already names the guard's. NULL if not
 * found.
 */
static pmixev_query_nb_fn library_query(void)
{
	Dl_info dl = {0};
	void *lib, *fn;

	if (!dladdr((void *)PMIx_server_init, &dl) || !dl.dli_fname ||
	    !(lib = dlopen(dl.dli_fname, RTLD_NOW | RTLD_NOLOAD)))
		return NULL;
	fn = dlsym(lib, "PMIx_Query_info_nb");
	dlclose(lib);
	return (pmixev_query_nb_fn)(uintptr_t)fn;
}

/* The guard at `path`, armed with the library's function, then made
 * global; NULL (dlerror() says why) if any of it failed. */
static void *open_armed(const char *path)
{
	pmixev_guard_arm_fn arm;
	pmixev_query_nb_fn lib = library_query();
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);

	if (!h)
		return NULL;
	arm = (pmixev_guard_arm_fn)(uintptr_t)dlsym(h, PMIXEV_GUARD_ARM_SYMBOL);
	if (arm && lib) {
		arm(lib);
		if (dlopen(path, RTLD_NOW | RTLD_NOLOAD | RTLD_GLOBAL))
			return h;
	}
	dlclose(h);
	return NULL;
}

bool guard_load(void)
{
	char path[600], looked[1300] = "";
	void *ours, *seen;

	if (handle)
		return true;
	find(path, sizeof(path), looked, sizeof(looked));
	if (!(handle = open_armed(path))) {
		PMIXEV_ERROR("cannot load the PMIx query guard (looked for it "
			     "in: %s): %s; an attribute-support query "
			     "(PMIx_Query_info with PMIX_QUERY_ATTRIBUTE_"
			     "SUPPORT, pattrs) may crash this slurmstepd on "
			     "OpenPMIx 4.2",
			     looked, dlerror());
		return false;
	}
	ours = dlsym(handle, "PMIx_Query_info_nb");
	seen = dlsym(RTLD_DEFAULT, "PMIx_Query_info_nb");
	if (!ours || ours != seen) {
		PMIXEV_ERROR("the PMIx query guard %s is loaded but another "
			     "PMIx_Query_info_nb comes first in slurmstepd; "
			     "an attribute-support query may crash this "
			     "slurmstepd on OpenPMIx 4.2",
			     path);
		return false;
	}
	PMIXEV_DEBUG(1, "PMIx query guard %s in place", path);
	return true;
}

void guard_report(void)
{
	pmixev_guard_counts_fn counts;
	unsigned long carried = 0, mended = 0;

	if (!handle || !(counts = (pmixev_guard_counts_fn)(uintptr_t)dlsym(
				 handle, PMIXEV_GUARD_COUNTS_SYMBOL)))
		return;
	counts(&carried, &mended);
	if (carried)
		PMIXEV_INFO("pmix: %lu attribute-support quer(ies) answered, "
			    "%lu of them with the PMIx library's callback data "
			    "put right",
			    carried, mended);
}
