/*
 * programs/check_slurm.c - pmixev in the node's Slurm: slurm.conf read,
 * mpi_pmixev.so in PluginDir and the release it was built for against the
 * node's, the SPANK plugin's line in plugstack.conf, mpi.conf's PMIxev
 * options (see check.h).
 */
#include "config.h"

#include "check.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_elf.h"

#define MPI_PLUGIN   "mpi_pmixev.so"
#define SPANK_PLUGIN "spank_pmixev.so"
#define VERSION_MS   5000

/* Slurm's release numbers: major << 16 | minor << 8 | micro. */
#define REL_MAJOR(v) ((v) >> 16 & 0xff)
#define REL_MINOR(v) ((v) >> 8 & 0xff)
#define REL_MICRO(v) ((v)&0xff)

static void rel_text(uint32_t v, char *out, size_t len)
{
	snprintf(out, len, "%u.%02u.%u", REL_MAJOR(v), REL_MINOR(v),
		 REL_MICRO(v));
}

/* `name` in the first folder of the colon-separated `dirs` that has it as
 * a regular file, into `out`; false if none has. */
static bool in_dirs(const char *dirs, const char *name, char *out, size_t len)
{
	const char *d = dirs;

	while (*d) {
		size_t n = strcspn(d, ":");
		struct stat st;

		snprintf(out, len, "%.*s/%s", (int)n, d, name);
		if (n && stat(out, &st) == 0 && S_ISREG(st.st_mode))
			return true;
		d += n + (d[n] == ':');
	}
	out[0] = '\0';
	return false;
}

static void read_site(struct check *c)
{
	char why[PATH_MAX + 128], dir[PATH_MAX];

	if (check_conf_read(&c->site, c->site.conf, why, sizeof(why)) < 0)
		check_say(c, CHECK_FAIL, "slurm.conf",
			  "%s (%s); what follows assumes Slurm's defaults", why,
			  c->conf_from);
	else
		check_say(c, CHECK_OK, "slurm.conf", "%s (%s)", c->site.conf,
			  c->conf_from);
	snprintf(dir, sizeof(dir), "%s", c->site.conf);
	if (!c->site.plugin_dir[0])
		snprintf(c->site.plugin_dir, sizeof(c->site.plugin_dir), "%s",
			 PMIXEV_SLURM_PLUGINDIR);
	if (!c->site.plugstack[0])
		check_conf_beside(dirname(dir), "plugstack.conf",
				  c->site.plugstack, sizeof(c->site.plugstack));
}

static void mpi_plugin(struct check *c)
{
	char why[256], rel[32], *slash;

	if (!in_dirs(c->site.plugin_dir, MPI_PLUGIN, c->mpi_plugin,
		     sizeof(c->mpi_plugin))) {
		check_say(c, CHECK_FAIL, "mpi plugin",
			  "no " MPI_PLUGIN " in PluginDir %s: Slurm does not "
			  "know --mpi=pmixev",
			  c->site.plugin_dir);
		return;
	}
	snprintf(c->plugin_dir, sizeof(c->plugin_dir), "%s", c->mpi_plugin);
	if ((slash = strrchr(c->plugin_dir, '/')))
		*slash = '\0';
	if (check_elf_u32(c->mpi_plugin, "plugin_version", &c->mpi_version, why,
			  sizeof(why)) < 0) {
		c->mpi_version = 0;
		check_say(c, CHECK_FAIL, "mpi plugin", "%s: %s", c->mpi_plugin,
			  why);
		return;
	}
	rel_text(c->mpi_version, rel, sizeof(rel));
	check_say(c, CHECK_OK, "mpi plugin", "%s, built for Slurm %s; %s",
		  c->mpi_plugin, rel,
		  strcmp(c->site.mpi_default, "pmixev")
			  ? "steps ask for it with --mpi=pmixev"
			  : "the default (MpiDefault=pmixev)");
}

/* Slurm's program `name`: in PATH, else in the usual places. */
static bool find_prog(const char *name, char *out, size_t len)
{
	const char *path = getenv("PATH");
	char dirs[4096];

	snprintf(dirs, sizeof(dirs), "%s:/usr/sbin:/usr/local/sbin:/usr/bin",
		 path ? path : "");
	return in_dirs(dirs, name, out, len) && access(out, X_OK) == 0;
}

/* The release `prog` (slurmd, srun) says it is: `-V`'s "slurm 22.05.8". */
static int prog_release(const char *prog, uint32_t *rel, char *why, size_t len)
{
	const char *argv[] = {prog, "-V", NULL};
	const char *envp[] = {"PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL};
	char out[512], *word;
	unsigned a, b, m;
	int st = check_capture(argv, envp, VERSION_MS, out, sizeof(out));

	out[strcspn(out, "\n")] = '\0';
	word = strrchr(out, ' ');
	if (st < 0 || !WIFEXITED(st) || WEXITSTATUS(st) ||
	    sscanf(word ? word + 1 : out, "%u.%u.%u", &a, &b, &m) != 3 ||
	    a > 255 || b > 255 || m > 255) {
		snprintf(why, len, "%s -V said '%s'", prog, out);
		return -1;
	}
	*rel = a << 16 | b << 8 | m;
	return 0;
}

static void slurm_release(struct check *c)
{
	char prog[PATH_MAX], why[PATH_MAX + 600], node[32], built[32];
	const char *name = "slurmd";

	if (!find_prog(name, prog, sizeof(prog)) &&
	    !find_prog(name = "srun", prog, sizeof(prog))) {
		check_say(c, CHECK_WARN, "Slurm release",
			  "neither slurmd nor srun found (PATH, /usr/sbin, "
			  "/usr/local/sbin): not compared");
		return;
	}
	if (prog_release(prog, &c->slurm_version, why, sizeof(why)) < 0) {
		c->slurm_version = 0;
		check_say(c, CHECK_FAIL, "Slurm release", "%s", why);
		return;
	}
	rel_text(c->slurm_version, node, sizeof(node));
	rel_text(c->mpi_version, built, sizeof(built));
	if (!c->mpi_version)
		check_say(c, CHECK_WARN, "Slurm release",
			  "%s %s; no mpi_pmixev.so to compare it with", name,
			  node);
	else if (c->mpi_version != c->slurm_version)
		check_say(c, CHECK_FAIL, "Slurm release",
			  "%s is %s but mpi_pmixev.so was built for %s: Slurm "
			  "loads an mpi plugin of its own release only "
			  "(rebuild pmixev with Slurm %s's headers)",
			  name, node, built, node);
	else
		check_say(c, CHECK_OK, "Slurm release",
			  "%s %s, the release mpi_pmixev.so was built for",
			  name, node);
}

static void spank_line(struct check *c)
{
	struct check_spank sp = {0};
	char why[PATH_MAX + 256], path[PATH_MAX], rel[32];
	uint32_t v = 0,
		 want = c->slurm_version ? c->slurm_version : c->mpi_version;
	int rc = check_plugstack_find(c->site.plugstack, SPANK_PLUGIN, &sp, why,
				      sizeof(why));

	if (rc < 0) {
		check_say(c, CHECK_FAIL, "plugstack.conf",
			  "%s: --mpi=pmixev steps are refused without "
			  "spank_pmixev.so",
			  why);
		return;
	}
	if (rc == 0) {
		check_say(
			c, CHECK_FAIL, "plugstack.conf",
			"no line loads " SPANK_PLUGIN " in %s: --mpi=pmixev "
			"steps are refused (the step's owner is unknown); add "
			"'required %s/" SPANK_PLUGIN "'",
			c->site.plugstack,
			c->plugin_dir[0] ? c->plugin_dir : "PLUGINDIR");
		return;
	}
	if (sp.path[0] == '/')
		snprintf(path, sizeof(path), "%s", sp.path);
	else if (!in_dirs(c->site.plugin_dir, sp.path, path, sizeof(path))) {
		check_say(c, CHECK_FAIL, "plugstack.conf",
			  "%s:%u: %s is in no PluginDir folder (%s)", sp.file,
			  sp.line, sp.path, c->site.plugin_dir);
		return;
	}
	if (check_elf_u32(path, "plugin_version", &v, why, sizeof(why)) < 0) {
		check_say(c, CHECK_FAIL, "plugstack.conf", "%s:%u: %s: %s",
			  sp.file, sp.line, path, why);
		return;
	}
	rel_text(v, rel, sizeof(rel));
	if (want && (REL_MAJOR(v) != REL_MAJOR(want) ||
		     REL_MINOR(v) != REL_MINOR(want)))
		check_say(c, CHECK_FAIL, "plugstack.conf",
			  "%s:%u: %s was built for Slurm %s: Slurm loads a "
			  "SPANK plugin of its own major release only",
			  sp.file, sp.line, path, rel);
	else
		check_say(c, sp.required ? CHECK_OK : CHECK_WARN,
			  "plugstack.conf",
			  "%s:%u: %s %s, built for Slurm %s%s", sp.file,
			  sp.line, sp.required ? "required" : "optional", path,
			  rel,
			  sp.required ? ""
				      : " (optional: should it fail to load, "
					"Slurm goes on without it and "
					"--mpi=pmixev steps are refused)");
}

static void mpi_conf(struct check *c)
{
	char dir[PATH_MAX], path[PATH_MAX], why[PATH_MAX + 512];
	int n;

	snprintf(dir, sizeof(dir), "%s", c->site.conf);
	check_conf_beside(dirname(dir), "mpi.conf", path, sizeof(path));
	if (access(path, F_OK) < 0 && errno == ENOENT)
		check_say(c, CHECK_OK, "mpi.conf", "%s: absent, the defaults",
			  path);
	else if ((n = check_mpiconf(path, why, sizeof(why))) < 0)
		check_say(c, CHECK_FAIL, "mpi.conf",
			  "%s; --mpi=pmixev steps are refused until it is "
			  "fixed",
			  why);
	else if (n == 0)
		check_say(c, CHECK_OK, "mpi.conf",
			  "%s: no PMIxev option, the defaults", path);
	else
		check_say(c, CHECK_OK, "mpi.conf",
			  "%s: %d PMIxev option(s), valid", path, n);
}

void check_slurm(struct check *c)
{
	read_site(c);
	mpi_plugin(c);
	slurm_release(c);
	spank_line(c);
	mpi_conf(c);
}
