/*
 * programs/check.h - the parts of pmixev-check (programs/pmixev-check.c):
 * one node's answer to "will pmixev work here, and if not, why". Each
 * check says one line, `ok|FAIL|warn  WHAT: WHY`; a FAIL means steps
 * using --mpi=pmixev fail on this node, a warn that something could not
 * be checked (as an ordinary user) or works with less than it should.
 */
#ifndef PMIXEV_CHECK_H_
#define PMIXEV_CHECK_H_

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "check_conf.h"

enum check_verdict { CHECK_OK, CHECK_WARN, CHECK_FAIL };

struct check {
	char conf_from[32];	/* where the slurm.conf path came from */
	struct check_site site; /* its keys (check_conf.h) */
	bool root;		/* run by root: every check can be made */
	uid_t uid;		/* the ordinary user the helpers run as */
	gid_t gid;
	char user[64];
	char mpi_plugin[PATH_MAX]; /* mpi_pmixev.so in PluginDir, or "" */
	char plugin_dir[PATH_MAX]; /* its folder, or "" */
	uint32_t mpi_version;	   /* its plugin_version, or 0 */
	uint32_t slurm_version;	   /* the node's Slurm release, or 0 */
	unsigned fails;
};

/* Say one line (its WHY from `fmt`, made one line). */
void check_say(struct check *c, enum check_verdict v, const char *what,
	       const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/*
 * Run argv[0] (a path) with `envp` as ourselves, its stdout and stderr
 * into `out` (at most len - 1 bytes kept), for at most `ms`: its wait
 * status, or -1 with why in `out` (not started, or too slow: killed).
 */
int check_capture(const char *const *argv, const char *const *envp, int ms,
		  char *out, size_t len);

/* slurm.conf, the mpi plugin, the Slurm release, plugstack.conf,
 * mpi.conf (check_slurm.c). */
void check_slurm(struct check *c);

/* The network namespace, pmixev's programs as the user, the PMIx query
 * guard, the OpenPMIx library (check_helpers.c). Needs check_slurm's
 * plugin folder. */
void check_helpers(struct check *c);

/* munge through Slurm's socket, pmixev's run directory (check_node.c). */
void check_node(struct check *c);

#endif /* PMIXEV_CHECK_H_ */
