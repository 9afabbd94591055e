/*
 * ownerhelper/freezer.c - the step's freezer cgroup on a cgroup v1 host
 * (see freezer.h).
 */
#include "config.h"

#include "ownerhelper/freezer.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PROC_TEXT_MAX (256 * 1024) /* of /proc/self/{cgroup,mountinfo} */

/* Whether the comma-separated `list` (`n` bytes) names `word`. */
static bool names(const char *list, size_t n, const char *word)
{
	size_t w = strlen(word);

	for (const char *p = list, *end = list + n; p < end;) {
		const char *c = memchr(p, ',', (size_t)(end - p));
		size_t len = (size_t)((c ? c : end) - p);

		if (len == w && !memcmp(p, word, w))
			return true;
		p += len + 1;
	}
	return false;
}

/* The next line of `*text` (without its newline) and its length. */
static const char *next_line(const char **text, size_t *len)
{
	const char *l = *text, *nl;

	if (!*l)
		return NULL;
	nl = strchr(l, '\n');
	*len = nl ? (size_t)(nl - l) : strlen(l);
	*text = nl ? nl + 1 : l + *len;
	return l;
}

/* Field `i` (0-based, space-separated) of the line `l`, `n` bytes. */
static const char *field(const char *l, size_t n, unsigned i, size_t *len)
{
	const char *end = l + n, *p = l;

	for (;;) {
		const char *sp = memchr(p, ' ', (size_t)(end - p));

		*len = (size_t)((sp ? sp : end) - p);
		if (!i--)
			return p;
		if (!sp)
			return NULL;
		p = sp + 1;
	}
}

/* "H:freezer,...:PATH" in /proc/self/cgroup: PATH into `path`. */
static int own_path(const char *cgroup, char *path, size_t len)
{
	const char *l;
	size_t n;

	while ((l = next_line(&cgroup, &n))) {
		const char *c1 = memchr(l, ':', n), *c2;

		if (!c1 ||
		    !(c2 = memchr(c1 + 1, ':', n - (size_t)(c1 + 1 - l))))
			continue;
		if (!names(c1 + 1, (size_t)(c2 - c1 - 1), "freezer"))
			continue;
		n -= (size_t)(c2 + 1 - l);
		if (n == 0 || n >= len || c2[1] != '/')
			return -1;
		memcpy(path, c2 + 1, n);
		path[n] = '\0';
		return 0;
	}
	return -1;
}

/* The v1 freezer's mount in /proc/self/mountinfo ("ID PARENT DEV ROOT
 * MOUNTPOINT OPTS [TAGS] - cgroup SOURCE SUPEROPTS"): ROOT and MOUNTPOINT
 * (escapes refused). */
static int freezer_mount(const char *mounts, char *root, char *mnt, size_t len)
{
	const char *l;
	size_t n;

	while ((l = next_line(&mounts, &n))) {
		const char *dash = memmem(l, n, " - cgroup ", 10), *f;
		size_t rest, flen, rlen, mlen;

		if (!dash || memchr(l, '\\', n))
			continue;
		rest = n - (size_t)(dash + 10 - l);
		if (!(f = field(dash + 10, rest, 1, &flen)) ||
		    !names(f, flen, "freezer"))
			continue;
		if (!(f = field(l, n, 3, &rlen)) || rlen >= len)
			return -1;
		memcpy(root, f, rlen);
		root[rlen] = '\0';
		if (!(f = field(l, n, 4, &mlen)) || mlen >= len)
			return -1;
		memcpy(mnt, f, mlen);
		mnt[mlen] = '\0';
		return 0;
	}
	return -1;
}

int freezer_own_dir(const char *cgroup, const char *mounts, char *dir,
		    size_t len)
{
	char path[4096], root[4096], mnt[4096];
	const char *rel = path;
	size_t rlen;

	if (own_path(cgroup, path, sizeof(path)) < 0 ||
	    freezer_mount(mounts, root, mnt, sizeof(root)) < 0)
		return -1;
	rlen = strlen(root);
	/* A mount of a part of the hierarchy: the path below its root. */
	if (strcmp(root, "/") != 0) {
		if (strncmp(path, root, rlen) != 0 ||
		    (path[rlen] != '/' && path[rlen] != '\0'))
			return -1;
		rel = path + rlen;
	}
	if ((size_t)snprintf(dir, len, "%s%s", mnt,
			     strcmp(rel, "/") ? rel : "") >= len)
		return -1;
	return 0;
}

/* `file`'s text (at most PROC_TEXT_MAX - 1 bytes) into a new string. */
static char *read_text(const char *file)
{
	char *buf = malloc(PROC_TEXT_MAX);
	size_t got = 0;
	ssize_t n;
	int fd;

	if (!buf || (fd = open(file, O_RDONLY | O_CLOEXEC)) < 0) {
		free(buf);
		return NULL;
	}
	while (got < PROC_TEXT_MAX - 1 &&
	       (n = read(fd, buf + got, PROC_TEXT_MAX - 1 - got)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	buf[got] = '\0';
	return buf;
}

/* The step's directory under the job's `job_dir`: "step_S", or the one
 * "step_S+C" of a heterogeneous step's component. */
static int step_dir(const char *job_dir, uint32_t step_id, char *out,
		    size_t len)
{
	char name[32], plus[32];
	struct dirent *e;
	struct stat st;
	DIR *d;
	int found = 0;

	snprintf(name, sizeof(name), "step_%u", step_id);
	snprintf(plus, sizeof(plus), "step_%u+", step_id);
	if ((size_t)snprintf(out, len, "%s/%s", job_dir, name) >= len)
		return -1;
	if (stat(out, &st) == 0 && S_ISDIR(st.st_mode))
		return 0;
	if (!(d = opendir(job_dir)))
		return -1;
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, plus, strlen(plus)) &&
		    (size_t)snprintf(out, len, "%s/%s", job_dir, e->d_name) <
			    len)
			found++;
	closedir(d);
	return found == 1 ? 0 : -1;
}

int freezer_open(uint32_t job_id, uint32_t step_id, char *path, size_t len)
{
	char *cgroup = read_text("/proc/self/cgroup");
	char *mounts = read_text("/proc/self/mountinfo");
	char dir[4096], job[32], procs[4200];
	const char *last;
	int fd = -1;

	snprintf(job, sizeof(job), "/job_%u", job_id);
	if (!cgroup || !mounts ||
	    freezer_own_dir(cgroup, mounts, dir, sizeof(dir)) < 0) {
		snprintf(path, len, "no cgroup v1 freezer here");
		goto out;
	}
	last = strrchr(dir, '/');
	if (!last || strcmp(last, job) != 0) {
		snprintf(path, len,
			 "slurmstepd's freezer cgroup %s is not its job's "
			 "(the step is not tracked by proctrack/cgroup on v1)",
			 dir);
		goto out;
	}
	fd = -2;
	if (step_dir(dir, step_id, path, len) < 0) {
		snprintf(path, len, "no step_%u cgroup under %s", step_id, dir);
		goto out;
	}
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", path);
	if ((fd = open(procs, O_WRONLY | O_CLOEXEC | O_NOFOLLOW)) < 0) {
		snprintf(path, len, "cannot open %s: %s", procs,
			 strerror(errno));
		fd = -2;
	}
out:
	free(cgroup);
	free(mounts);
	return fd;
}
