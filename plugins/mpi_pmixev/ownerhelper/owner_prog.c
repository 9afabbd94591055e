/*
 * ownerhelper/owner_prog.c - where a program of the job owner's is (see
 * owner_prog.h).
 */
#include "config.h"

#include "ownerhelper/owner_prog.h"

#include <dlfcn.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Add `path` to the places looked at; true if it is a file. */
static bool look(char *looked, size_t len, const char *path)
{
	size_t off = strlen(looked);
	struct stat sb;

	snprintf(looked + off, len - off, "%s%s", off ? ", " : "", path);
	return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

bool owner_prog_find(const struct owner_prog *prog, const char *plugin_dir,
		     char *path, size_t path_len, char *looked,
		     size_t looked_len)
{
	const char *env = prog->env_var ? getenv(prog->env_var) : NULL;
	char beside[512];

	looked[0] = '\0';
	if (env && *env) {
		snprintf(path, path_len, "%s", env);
		return look(looked, looked_len, env);
	}
	if (plugin_dir) {
		snprintf(beside, sizeof(beside), "%s/%s", plugin_dir,
			 prog->name);
		if (look(looked, looked_len, beside)) {
			snprintf(path, path_len, "%s", beside);
			return true;
		}
	}
	snprintf(path, path_len, "%s", prog->installed);
	return look(looked, looked_len, prog->installed);
}

bool owner_prog_plugin_dir(char *dir, size_t len)
{
	char file[512];
	Dl_info dl;

	if (!dladdr((void *)owner_prog_plugin_dir, &dl) || !dl.dli_fname ||
	    dl.dli_fname[0] != '/')
		return false;
	snprintf(file, sizeof(file), "%s", dl.dli_fname);
	snprintf(dir, len, "%s", dirname(file));
	return true;
}
