/*
 * pmixd/toolsdir.c - root's tools' rendezvous (see toolsdir.h).
 */
#include "config.h"

#include "pmixd/toolsdir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pmix_version.h>

#include "pmixev_fsafe.h"
#include "pmixev_log.h"

/* One rendezvous file, new, in root's directory `dir`. 0, or -1. */
static int write_one(int dir, const char *host, const char *suffix,
		     const struct layout *lay, uint16_t port, pid_t pid)
{
	char name[512];
	time_t now = time(NULL);
	int fd, rc;

	snprintf(name, sizeof(name), "pmix.%s.tool.%s", host, suffix);
	fd = openat(dir, name,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	/* The library's own layout (ptl_base_listener.c, 4.2 and 5.0). */
	rc = dprintf(fd, "%s.%u;tcp4://127.0.0.1:%u\n%d.%d.%d\n%lu\n%u:%u\n%s",
		     lay->srv_nspace, lay->nodeid, (unsigned)port,
		     (int)PMIX_VERSION_MAJOR, (int)PMIX_VERSION_MINOR,
		     (int)PMIX_VERSION_RELEASE, (unsigned long)pid,
		     (unsigned)lay->uid, (unsigned)lay->gid, ctime(&now));
	if (close(fd) < 0 || rc < 0)
		return -1;
	return 0;
}

int toolsdir_make(int rundir, const char *name, const struct layout *lay,
		  uint16_t port, pid_t pid, char *why, size_t len)
{
	char srv[160], host[256], spid[32], stepd[32];
	int top = -1, dir = -1, rc = -1;

	snprintf(srv, sizeof(srv), "%s.srv", name);
	snprintf(spid, sizeof(spid), "%lu", (unsigned long)pid);
	snprintf(stepd, sizeof(stepd), "%lu", (unsigned long)getpid());
	if (gethostname(host, sizeof(host)) < 0)
		snprintf(host, sizeof(host), "%s", lay->step.node);
	host[sizeof(host) - 1] = '\0';
	if ((top = pmixev_fsafe_mkdir_new(rundir, srv, 0755)) < 0 ||
	    (dir = pmixev_fsafe_mkdir_new(top, "tools", 0755)) < 0 ||
	    write_one(dir, host, spid, lay, port, pid) < 0 ||
	    write_one(dir, host, stepd, lay, port, pid) < 0 ||
	    write_one(dir, host, lay->srv_nspace, lay, port, pid) < 0)
		snprintf(why, len,
			 "cannot write root's tools' rendezvous in "
			 "%s/%s/tools: %s",
			 PMIXEV_RUN_DIR, srv, strerror(errno));
	else
		rc = 0;
	if (dir >= 0)
		close(dir);
	if (top >= 0)
		close(top);
	return rc;
}

void toolsdir_remove(int rundir, const char *name)
{
	char srv[160];
	struct stat st;

	snprintf(srv, sizeof(srv), "%s.srv", name);
	if (fstatat(rundir, srv, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    pmixev_fsafe_remove_tree(rundir, srv) < 0)
		PMIXEV_ERROR("cannot remove %s/%s: %m", PMIXEV_RUN_DIR, srv);
}
