/*
 * ownerhelper/owner_prog.h - where a program of the job owner's is. In
 * this order: the path in its override variable in slurmstepd's
 * environment (PMIXEV_OWNER_HELPER for the helper); its file name beside
 * the loaded mpi_pmixev.so (a site that stages the plugins into its
 * PluginDir puts it there); its installed path (pmixev's libexec
 * directory, fixed by configure).
 */
#ifndef PMIXEV_OWNERHELPER_OWNER_PROG_H_
#define PMIXEV_OWNERHELPER_OWNER_PROG_H_

#include <stdbool.h>
#include <stddef.h>

/* A program run as the job owner, and how it is found. */
struct owner_prog {
	const char *role;      /* in log lines and reasons: "owner helper" */
	const char *name;      /* its file name beside the plugin */
	const char *env_var;   /* overrides its path in slurmstepd's
				* environment, or NULL */
	const char *installed; /* its installed path */
};

/*
 * Where `prog` is: the path to run into `path` (the override whether it
 * exists or not; else the first place it is at; else its installed path),
 * the places looked at ("A, B, C") into `looked`. Beside the plugin means
 * in `plugin_dir` (NULL: not looked at). True if the path is a file.
 */
bool owner_prog_find(const struct owner_prog *prog, const char *plugin_dir,
		     char *path, size_t path_len, char *looked,
		     size_t looked_len);

/* The directory of the loaded mpi_pmixev.so, into `dir`; false if
 * unknown. */
bool owner_prog_plugin_dir(char *dir, size_t len);
#endif /* PMIXEV_OWNERHELPER_OWNER_PROG_H_ */
