/*
 * programs/check_conf.h - what pmixev-check reads of a node's Slurm
 * configuration, as Slurm reads it: slurm.conf (and the files it
 * includes), plugstack.conf (and its includes), mpi.conf. Keys are
 * case-insensitive, '#' starts a comment, a value may be in double
 * quotes, a line ending in '\' goes on on the next. Pure code: no Slurm,
 * unit-tested in tests/unit/test_check_conf.c.
 */
#ifndef PMIXEV_CHECK_CONF_H_
#define PMIXEV_CHECK_CONF_H_

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#define CHECK_CONF_DEPTH 8 /* includes within includes */

/* The slurm.conf keys pmixev depends on; "" when not set. */
struct check_site {
	char conf[PATH_MAX];	  /* the slurm.conf read */
	char plugin_dir[4096];	  /* PluginDir: a colon-separated list */
	char plugstack[PATH_MAX]; /* PlugStackConfig */
	char authinfo[1024];	  /* AuthInfo */
	char authtype[64];	  /* AuthType */
	char mpi_default[64];	  /* MpiDefault */
};

/*
 * Read `path` (absolute) into `s`, the last value of a key winning, as in
 * Slurm. Returns 0, or -1 with the file and the cause in `why`.
 */
int check_conf_read(struct check_site *s, const char *path, char *why,
		    size_t len);

/* `name` in `dir`, or `name` itself when absolute, into `out`. */
void check_conf_beside(const char *dir, const char *name, char *out,
		       size_t len);

/* The line of plugstack.conf that loads a SPANK plugin. */
struct check_spank {
	char file[PATH_MAX]; /* plugstack.conf, or a file it includes */
	unsigned line;
	bool required;	     /* "required", else "optional" */
	char path[PATH_MAX]; /* as written */
};

/*
 * The line of plugstack.conf `path` (and of the files it includes) whose
 * plugin's file name is `name` ("spank_pmixev.so"): 1 with it in `out`, 0
 * when there is none, -1 when a file cannot be read (`why`).
 */
int check_plugstack_find(const char *path, const char *name,
			 struct check_spank *out, char *why, size_t len);

/*
 * The PMIxev* entries of mpi.conf `path`, validated as the mpi plugin
 * validates them. Returns how many there are (0 also when the file does
 * not exist), or -1 with "FILE:LINE: KEY=VALUE: reason" in `why`.
 */
int check_mpiconf(const char *path, char *why, size_t len);

#endif /* PMIXEV_CHECK_CONF_H_ */
