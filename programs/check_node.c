/*
 * programs/check_node.c - the node's services pmixev uses: munged, through
 * the socket slurm.conf names (a credential made and checked with the
 * overlay's own code, overlay/auth.c, by a signer that stays root as in
 * slurmstepd), and pmixev's run directory as slurmstepd wants it (see
 * check.h).
 */
#include "config.h"

#include "check.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "overlay/auth.h"
#include "pmixev_bridge.h"

#define PAYLOAD "pmixev-check"

/* The socket AuthInfo names (socket=PATH), for the message. */
static void munge_socket(const char *authinfo, char *out, size_t len)
{
	const char *p = authinfo;

	snprintf(out, len, "munge's default socket");
	while (p && *p) {
		size_t n = strcspn(p, ",");

		if (n > 7 && strncmp(p, "socket=", 7) == 0) {
			snprintf(out, len, "%.*s (AuthInfo)", (int)(n - 7),
				 p + 7);
			return;
		}
		p += n + (p[n] == ',');
	}
}

/* A credential made and checked: 0, or -1 with why. */
static int round_trip(struct auth *a, char *why, size_t len)
{
	size_t clen = 0, plen = 0;
	void *payload = NULL;
	char *cred = NULL;
	uid_t uid = (uid_t)-1;
	int rc = -1;

	if (auth_encode(a, PAYLOAD, sizeof(PAYLOAD), &cred, &clen, why, len) <
		    0 ||
	    auth_decode(a, cred, clen, &payload, &plen, &uid, why, len) < 0)
		goto out;
	if (plen != sizeof(PAYLOAD) || memcmp(payload, PAYLOAD, plen))
		snprintf(why, len, "the payload came back changed");
	else if (uid != geteuid())
		snprintf(why, len, "the credential names uid %u, not ours (%u)",
			 (unsigned)uid, (unsigned)geteuid());
	else
		rc = 0;
out:
	free(cred);
	free(payload);
	return rc;
}

static void munge(struct check *c)
{
	struct auth *a = auth_create(c->site.authinfo, c->root);
	char sock[PATH_MAX], why[512], note[128] = "";

	munge_socket(c->site.authinfo, sock, sizeof(sock));
	if (c->site.authtype[0] && strcasecmp(c->site.authtype, "auth/munge"))
		snprintf(note, sizeof(note),
			 " (AuthType=%s: pmixev's stepds still use munge)",
			 c->site.authtype);
	if (!a)
		snprintf(why, sizeof(why), "cannot set up munge");
	if (!a || round_trip(a, why, sizeof(why)) < 0)
		check_say(c, CHECK_FAIL, "munge",
			  "%s, through %s: the stepds of a step cannot vouch "
			  "for each other%s",
			  why, sock, note);
	else
		check_say(c, CHECK_OK, "munge",
			  "a credential made%s and checked through %s%s",
			  c->root ? " by a signer that stays root" : "", sock,
			  note);
	auth_destroy(a);
}

/*
 * The folders above the run directory, as slurmstepd walks them
 * (pmixev_fsafe_root_dir): each root's, none that others may rename in.
 * 0, or -1 with why.
 */
static int parents_ok(char *why, size_t len)
{
	char path[sizeof(PMIXEV_RUN_DIR)] = "", *slash = path;
	struct stat st;

	snprintf(path, sizeof(path), "%s", PMIXEV_RUN_DIR);
	while ((slash = strchr(slash + 1, '/'))) {
		*slash = '\0';
		if (lstat(path, &st) < 0 || !S_ISDIR(st.st_mode) ||
		    st.st_uid != 0 ||
		    ((st.st_mode & (S_IWGRP | S_IWOTH)) &&
		     !(st.st_mode & S_ISVTX))) {
			snprintf(why, len,
				 "%s is not a folder of root's that only root "
				 "may write",
				 path);
			return -1;
		}
		*slash = '/';
	}
	return 0;
}

/* What is in it: steps' sockets and directories (root only). */
static void entries(const struct check *c, char *out, size_t len)
{
	unsigned socks = 0, dirs = 0;
	struct dirent *e;
	DIR *d;

	if (!c->root) {
		snprintf(out, len, "its entries are root's to list");
		return;
	}
	if (!(d = opendir(PMIXEV_RUN_DIR))) {
		snprintf(out, len, "cannot list it: %s", strerror(errno));
		return;
	}
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);

		if (e->d_name[0] == '.')
			continue;
		if (n > 5 && !strcmp(e->d_name + n - 5, ".sock"))
			socks++;
		else if (e->d_type == DT_DIR)
			dirs++;
	}
	closedir(d);
	snprintf(out, len,
		 "%u step socket(s) for pmixev-notify, %u directory(ies) of "
		 "PMIx servers",
		 socks, dirs);
}

static void run_dir(struct check *c)
{
	const char *what = PMIXEV_RUN_DIR;
	struct statvfs vfs;
	char why[256], list[128];
	struct stat st;

	if (parents_ok(why, sizeof(why)) < 0) {
		check_say(c, CHECK_FAIL, what,
			  "%s: slurmstepd refuses to use it", why);
		return;
	}
	if (lstat(PMIXEV_RUN_DIR, &st) < 0) {
		if (errno != ENOENT)
			check_say(c, CHECK_FAIL, what, "cannot look at it: %s",
				  strerror(errno));
		else if (statvfs("/run", &vfs) == 0 && (vfs.f_flag & ST_RDONLY))
			check_say(c, CHECK_FAIL, what,
				  "absent, and /run is read-only: slurmstepd "
				  "cannot make it");
		else
			check_say(c, CHECK_OK, what,
				  "absent: slurmstepd makes it (root's, mode "
				  "%04o) at the first --mpi=pmixev step",
				  PMIXEV_RUN_MODE);
		return;
	}
	if (S_ISLNK(st.st_mode) || !S_ISDIR(st.st_mode))
		check_say(c, CHECK_FAIL, what,
			  "%s, not a folder: slurmstepd refuses it, and "
			  "--mpi=pmixev steps fail",
			  S_ISLNK(st.st_mode) ? "a symbolic link" : "a file");
	else if (st.st_uid != 0)
		check_say(c, CHECK_FAIL, what,
			  "owned by uid %u, not root: slurmstepd refuses it, "
			  "and --mpi=pmixev steps fail",
			  (unsigned)st.st_uid);
	else {
		entries(c, list, sizeof(list));
		check_say(c, CHECK_OK, what, "root's, mode %04o%s; %s",
			  (unsigned)(st.st_mode & 07777),
			  (st.st_mode & 07777) == PMIXEV_RUN_MODE
				  ? ""
				  : " (slurmstepd sets its mode at the next "
				    "step)",
			  list);
	}
}

void check_node(struct check *c)
{
	munge(c);
	run_dir(c);
}
