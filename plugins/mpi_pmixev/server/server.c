/*
 * server/server.c - the step's PMIx server inside slurmstepd: root's run
 * directories for it, and the library's life (pmixside/pmixlib.h).
 */
#include "config.h"

#include "server/server.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "slurm_compat.h"

#include "gate/gate.h"
#include "pmixev_bridge.h"
#include "pmixev_fsafe.h"
#include "pmixev_log.h"
#include "pmixside/pmixlib.h"

struct server {
	const struct layout *lay;
	struct pmixlib *lib;
	int rundir;	   /* PMIXEV_RUN_DIR, or -1 */
	char priv[136];	   /* root's "CLUSTER.J.S.NODE.srv", 0700 ... */
	char srvdir[640];  /* ... and in it PMIx's server tmpdir "pmix" and
			      root's tools' TMPDIR "tools" (a copy of the
			      rendezvous, which only root writes) */
	char user[128];	   /* the job owner's "CLUSTER.J.S.NODE", 0700: */
	char userdir[640]; /* tools' TMPDIR (a copy of the rendezvous) */
	char tmpdir[700];  /* PMIX_TMPDIR: userdir/tmp */
	char nsdir[700];   /* PMIX_NSDIR: userdir/ns */
	bool dirs_made;
};

/* Remove `name` from the run directory (user content included), never
 * following a link. */
static int remove_dir(struct server *srv, const char *name)
{
	if (pmixev_fsafe_remove_tree(srv->rundir, name) == 0)
		return 0;
	PMIXEV_ERROR("cannot remove %s/%s: %m", PMIXEV_RUN_DIR, name);
	return -1;
}

/* A fresh directory `name` in `parent`, with fresh `subs` in it. */
static int fresh_dir(int parent, const char *name, const char *const *subs)
{
	int fd = pmixev_fsafe_mkdir_new(parent, name, 0700), sub;

	if (fd < 0)
		return -1;
	for (; subs && *subs; subs++) {
		if ((sub = pmixev_fsafe_mkdir_new(fd, *subs, 0700)) < 0) {
			close(fd);
			return -1;
		}
		close(sub);
	}
	close(fd);
	return 0;
}

/*
 * Root's directory for the PMIx server (its rendezvous files, and a copy
 * for root's tools) and the job owner's (PMIX_TMPDIR, PMIX_NSDIR, and a
 * copy of the rendezvous for the owner's tools), both new in the run
 * directory, which only root writes:
 * no user can plant anything before or while root works in them. The
 * owner gets theirs once it is complete (server_give_dirs).
 */
static int make_dirs(struct server *srv)
{
	static const char *const priv_subs[] = {"pmix", "tools", NULL},
				 *const user_subs[] = {"tmp", "ns", NULL};
	const struct layout *lay = srv->lay;
	struct stat st;

	/* Clusters whose nodes share a host (and its /run) reuse job ids. */
	if (snprintf(srv->user, sizeof(srv->user), "%s.%s.%s",
		     slurm_conf.cluster_name ? slurm_conf.cluster_name : "",
		     lay->step.id, lay->step.node) >= (int)sizeof(srv->user)) {
		PMIXEV_ERROR("the cluster and node names are too long for a "
			     "directory name");
		return -1;
	}
	snprintf(srv->priv, sizeof(srv->priv), "%s.srv", srv->user);
	snprintf(srv->srvdir, sizeof(srv->srvdir), "%s/%s/pmix", PMIXEV_RUN_DIR,
		 srv->priv);
	snprintf(srv->userdir, sizeof(srv->userdir), "%s/%s", PMIXEV_RUN_DIR,
		 srv->user);
	snprintf(srv->tmpdir, sizeof(srv->tmpdir), "%s/tmp", srv->userdir);
	snprintf(srv->nsdir, sizeof(srv->nsdir), "%s/ns", srv->userdir);
	srv->rundir = pmixev_fsafe_root_dir(PMIXEV_RUN_DIR, PMIXEV_RUN_MODE);
	if (srv->rundir < 0) {
		PMIXEV_ERROR("%s must be a directory of root that only root "
			     "can write: %m",
			     PMIXEV_RUN_DIR);
		return -1;
	}
	/* One step runs once per node: these were left by a killed stepd,
	 * and their rendezvous files would mislead PMIx tools. */
	if (fstatat(srv->rundir, srv->user, &st, AT_SYMLINK_NOFOLLOW) == 0 ||
	    fstatat(srv->rundir, srv->priv, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		PMIXEV_INFO(
			"removing %s/%s and %s/%s, left by an earlier stepd "
			"of this step",
			PMIXEV_RUN_DIR, srv->user, PMIXEV_RUN_DIR, srv->priv);
		if (remove_dir(srv, srv->user) < 0 ||
		    remove_dir(srv, srv->priv) < 0)
			return -1;
	}
	srv->dirs_made = true;
	if (fresh_dir(srv->rundir, srv->priv, priv_subs) < 0 ||
	    fresh_dir(srv->rundir, srv->user, user_subs) < 0) {
		PMIXEV_ERROR("cannot create %s/%s or %s/%s: %m", PMIXEV_RUN_DIR,
			     srv->priv, PMIXEV_RUN_DIR, srv->user);
		return -1;
	}
	return 0;
}

/*
 * The rendezvous for root's tools (in root's "tools", which the job's user
 * cannot write, so it cannot steer them) and for the owner's; then the
 * owner's directory is handed over.
 */
static int give_dirs(struct server *srv, uint16_t ports[2])
{
	const struct layout *lay = srv->lay;
	int userfd = -1, toolsfd = -1, rc = -1;
	char tools[sizeof(srv->priv) + 8];

	snprintf(tools, sizeof(tools), "%s/tools", srv->priv);
	toolsfd = openat(srv->rundir, tools,
			 O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	userfd = openat(srv->rundir, srv->user,
			O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (toolsfd < 0 || userfd < 0 ||
	    pmixlib_copy_rendezvous(srv->srvdir, toolsfd, 0, 0, ports) < 0 ||
	    pmixlib_copy_rendezvous(srv->srvdir, userfd, lay->uid, lay->gid,
				    ports) < 0)
		goto out;
	if (pmixev_fsafe_give(userfd, "tmp", lay->uid, lay->gid, 0700) < 0 ||
	    pmixev_fsafe_give(userfd, "ns", lay->uid, lay->gid, 0700) < 0 ||
	    pmixev_fsafe_give(srv->rundir, srv->user, lay->uid, lay->gid,
			      0700) < 0)
		goto out;
	rc = 0;
out:
	if (rc < 0)
		PMIXEV_ERROR(
			"cannot make the tools' rendezvous in %s/%s or hand "
			"%s to the job owner: %m",
			PMIXEV_RUN_DIR, tools, srv->userdir);
	if (toolsfd >= 0)
		close(toolsfd);
	if (userfd >= 0)
		close(userfd);
	return rc;
}

struct server *server_create(struct step *s, uint32_t bind_type,
			     const char *bind_list)
{
	struct server *srv = calloc(1, sizeof(*srv));
	struct pmixlib_cfg cfg = {.lay = &s->lay,
				  .gate = s->gate,
				  .event_cache =
					  pmixev_conf_event_slots(&s->conf),
				  .bind_type = bind_type,
				  .bind_list = bind_list,
				  .confine = true};
	uint16_t ports[2];

	if (!srv)
		return NULL;
	srv->lay = &s->lay;
	srv->rundir = -1;
	step_serve(s);
	if (make_dirs(srv) < 0)
		goto fail;
	cfg.server_dir = srv->srvdir;
	cfg.tmpdir = srv->tmpdir;
	cfg.nsdir = srv->nsdir;
	if (!(srv->lib = pmixlib_start(&cfg, ports)) ||
	    give_dirs(srv, ports) < 0)
		goto fail;
	s->pmix_uri = pmixlib_uri(srv->lib);
	return srv;
fail:
	server_destroy(srv);
	return NULL;
}

void server_env_apply(char *const *vars, char ***env)
{
	for (char *const *e = vars; e && *e; e++) {
		char *eq = strchr(*e, '='), name[256];
		size_t n = eq ? (size_t)(eq - *e) : 0;

		if (!n || n >= sizeof(name))
			continue;
		memcpy(name, *e, n);
		name[n] = '\0';
		slurm_env_array_overwrite(env, name, eq + 1);
	}
}

int server_task_env(const struct server *srv, uint32_t rank, char ***env)
{
	const struct layout *lay = srv->lay;

	for (uint32_t i = 0; i < layout_nlocal(lay); i++) {
		if (lay->map.ranks[lay->nodeid][i] != rank)
			continue;
		server_env_apply(pmixlib_task_env(srv->lib, i), env);
		return 0;
	}
	return -1;
}

void server_destroy(struct server *srv)
{
	if (!srv)
		return;
	/* What the library releases here it releases as the job owner (its
	 * cleanups), or not at all. */
	pmixlib_stop(srv->lib);
	step_serve(NULL);
	if (srv->dirs_made) {
		remove_dir(srv, srv->user);
		remove_dir(srv, srv->priv);
	}
	if (srv->rundir >= 0)
		close(srv->rundir);
	free(srv);
}
