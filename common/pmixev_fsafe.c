/* pmixev_fsafe.c - symlink-proof directory and file operations for root. */
#include "config.h"

#include "pmixev_fsafe.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DIR_FLAGS  (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
#define PATH_FLAGS (O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
#define FILE_FLAGS (O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
#define NEW_FLAGS  (O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC)
#define RETRIES	   8 /* tries at a name that keeps changing under us */

/* Where a directory is: its device and, if the kernel says, its mount. */
struct where {
	dev_t dev;
	uint64_t mnt;
};

/* The state of one pmixev_fsafe_remove_tree. */
struct rm {
	struct where top; /* never leave it */
	unsigned long entries;
	int err; /* the first error */
};

static bool valid_name(const char *name)
{
	if (!name || !*name || strchr(name, '/') || !strcmp(name, ".") ||
	    !strcmp(name, "..") || strlen(name) > NAME_MAX) {
		errno = EINVAL;
		return false;
	}
	return true;
}

static bool valid_mode(mode_t mode)
{
	if (mode & ~(mode_t)07777) {
		errno = EINVAL;
		return false;
	}
	return true;
}

static void close_keep_errno(int fd)
{
	int err = errno;

	close(fd);
	errno = err;
}

/* openat(dfd, name, flags) of a directory; a symlink is ELOOP, not the
 * ENOTDIR that O_DIRECTORY | O_NOFOLLOW gives. */
static int open_dir(int dfd, const char *name, int flags)
{
	struct stat st;
	int fd, err;

	if ((fd = openat(dfd, name, flags)) >= 0 || errno != ENOTDIR)
		return fd;
	err = ENOTDIR;
	if (!fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) &&
	    S_ISLNK(st.st_mode))
		err = ELOOP;
	errno = err;
	return -1;
}

static int where_of(int fd, struct where *w)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -1;
	w->dev = st.st_dev;
	w->mnt = 0;
#ifdef STATX_MNT_ID
	/* A bind mount of the same file system has the same st_dev. */
	struct statx sx;

	if (!statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &sx) &&
	    (sx.stx_mask & STATX_MNT_ID))
		w->mnt = sx.stx_mnt_id;
#endif
	return 0;
}

/* A directory on the way to ours: root's or ours, and nobody else may
 * rename in it (write access without the sticky bit). */
static int check_parent(int fd)
{
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -1;
	if ((st.st_uid != 0 && st.st_uid != geteuid()) ||
	    ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

/* A file we may give away: a directory or a regular file with one link
 * (no hard link to a file elsewhere), ours. */
static int check_ours(const struct stat *st)
{
	if (S_ISLNK(st->st_mode)) {
		errno = ELOOP;
		return -1;
	}
	if (!(S_ISDIR(st->st_mode) ||
	      (S_ISREG(st->st_mode) && st->st_nlink == 1)) ||
	    st->st_uid != geteuid()) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

/* Open the directory `name` in dfd, check it is ours, give it `mode`. */
static int take_dir(int dfd, const char *name, mode_t mode)
{
	struct stat st;
	int fd;

	if ((fd = open_dir(dfd, name, DIR_FLAGS)) < 0)
		return -1;
	if (fstat(fd, &st) < 0)
		goto fail;
	if (st.st_uid != geteuid()) {
		errno = EPERM;
		goto fail;
	}
	if (fchmod(fd, mode) < 0)
		goto fail;
	return fd;
fail:
	close_keep_errno(fd);
	return -1;
}

int pmixev_fsafe_root_dir(const char *path, mode_t mode)
{
	char buf[PATH_MAX], *name, *next, *save;
	int dfd, fd, rc = -1;

	if (!path || path[0] != '/' || strlen(path) >= sizeof(buf) ||
	    !valid_mode(mode) || (mode & (S_IWGRP | S_IWOTH))) {
		errno = EINVAL;
		return -1;
	}
	strcpy(buf, path);
	if ((dfd = open("/", PATH_FLAGS)) < 0)
		return -1;
	for (name = strtok_r(buf, "/", &save); name; name = next) {
		next = strtok_r(NULL, "/", &save);
		if (!valid_name(name) || check_parent(dfd) < 0)
			goto out;
		if (!next)
			break;
		if ((fd = open_dir(dfd, name, PATH_FLAGS)) < 0)
			goto out;
		close(dfd);
		dfd = fd;
	}
	if (!name) { /* "/" itself */
		errno = EINVAL;
		goto out;
	}
	if (mkdirat(dfd, name, 0700) < 0 && errno != EEXIST)
		goto out;
	rc = take_dir(dfd, name, mode);
out:
	close_keep_errno(dfd);
	return rc;
}

int pmixev_fsafe_mkdir_new(int parentfd, const char *name, mode_t mode)
{
	if (!valid_name(name) || !valid_mode(mode))
		return -1;
	if (mkdirat(parentfd, name, 0700) < 0)
		return -1;
	return take_dir(parentfd, name, mode);
}

/* Note the first error of a removal; returns -1. */
static int rm_fail(struct rm *rm)
{
	if (!rm->err)
		rm->err = errno ? errno : EIO;
	return -1;
}

static int rm_entry(int dfd, const char *name, struct rm *rm, int depth);

/* Remove everything in the directory fd (closed here), depth levels down.
 * A failed entry does not stop the others, unless the budget is spent. */
static int rm_children(int fd, struct rm *rm, int depth)
{
	struct dirent *e;
	int rc = 0;
	DIR *d;

	if (!(d = fdopendir(fd))) {
		rm_fail(rm);
		close(fd);
		return -1;
	}
	while (rm->entries <= PMIXEV_FSAFE_MAX_ENTRIES) {
		errno = 0;
		if (!(e = readdir(d))) {
			if (errno)
				rc = rm_fail(rm);
			break;
		}
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (rm_entry(dirfd(d), e->d_name, rm, depth) < 0)
			rc = -1;
	}
	closedir(d);
	return rc;
}

/*
 * Remove `name` in dfd. Only O_NOFOLLOW | O_DIRECTORY opens a directory,
 * so a symlink is unlinked, never entered. A name that turns into another
 * type between the calls (or a directory that fills again) is tried anew.
 */
static int rm_entry(int dfd, const char *name, struct rm *rm, int depth)
{
	struct where w;
	int fd;

	for (int i = 0; i < RETRIES; i++) {
		if (++rm->entries > PMIXEV_FSAFE_MAX_ENTRIES) {
			errno = E2BIG;
			return rm_fail(rm);
		}
		if ((fd = openat(dfd, name, DIR_FLAGS)) < 0) {
			if (errno == ENOENT)
				return 0;
			if (errno != ENOTDIR && errno != ELOOP)
				return rm_fail(rm);
			if (!unlinkat(dfd, name, 0) || errno == ENOENT)
				return 0;
			if (errno != EISDIR)
				return rm_fail(rm);
			continue; /* a directory by now */
		}
		if (where_of(fd, &w) < 0) {
			rm_fail(rm);
			close(fd);
			return -1;
		}
		if (w.dev != rm->top.dev || w.mnt != rm->top.mnt ||
		    depth >= PMIXEV_FSAFE_MAX_DEPTH) {
			errno = depth >= PMIXEV_FSAFE_MAX_DEPTH ? ENAMETOOLONG
								: EXDEV;
			rm_fail(rm);
			close(fd);
			return -1;
		}
		if (rm_children(fd, rm, depth + 1) < 0)
			return -1;
		if (!unlinkat(dfd, name, AT_REMOVEDIR) || errno == ENOENT)
			return 0;
		if (errno != ENOTDIR && errno != ENOTEMPTY && errno != EEXIST)
			return rm_fail(rm);
	}
	return rm_fail(rm); /* errno: the last try's */
}

int pmixev_fsafe_remove_tree(int parentfd, const char *name)
{
	struct rm rm = {.entries = 0};

	if (!valid_name(name) || where_of(parentfd, &rm.top) < 0)
		return -1;
	if (rm_entry(parentfd, name, &rm, 0) < 0) {
		errno = rm.err;
		return -1;
	}
	return 0;
}

int pmixev_fsafe_give(int parentfd, const char *name, uid_t uid, gid_t gid,
		      mode_t mode)
{
	struct stat st;
	int fd, rc = -1;

	if (!valid_name(name) || !valid_mode(mode))
		return -1;
	/* Look first: a device or a fifo is not even opened. */
	if (fstatat(parentfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    check_ours(&st) < 0)
		return -1;
	if ((fd = openat(parentfd, name, FILE_FLAGS)) < 0)
		return -1;
	if (fstat(fd, &st) < 0 || check_ours(&st) < 0)
		goto out;
	if (fchown(fd, uid, gid) < 0 || fchmod(fd, mode) < 0)
		goto out;
	rc = 0;
out:
	close_keep_errno(fd);
	return rc;
}

static int write_all(int fd, const char *buf, size_t len)
{
	ssize_t n;

	while (len) {
		if ((n = write(fd, buf, len)) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Unlink dst in dfd if it still is the file fd. */
static void drop_new(int dfd, const char *dst, int fd)
{
	struct stat a, b;
	int err = errno;

	if (!fstat(fd, &a) && !fstatat(dfd, dst, &b, AT_SYMLINK_NOFOLLOW) &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		unlinkat(dfd, dst, 0);
	errno = err;
}

int pmixev_fsafe_copy_new(int srcdirfd, const char *src, int dstdirfd,
			  const char *dst, uid_t uid, gid_t gid, mode_t mode)
{
	return pmixev_fsafe_copy_new_edited(srcdirfd, src, dstdirfd, dst, uid,
					    gid, mode, NULL, NULL);
}

int pmixev_fsafe_copy_new_edited(int srcdirfd, const char *src, int dstdirfd,
				 const char *dst, uid_t uid, gid_t gid,
				 mode_t mode, pmixev_fsafe_edit_fn edit,
				 void *arg)
{
	char *buf = NULL, *out = NULL;
	struct stat st;
	size_t len = 0;
	ssize_t n;
	int ifd, ofd = -1, rc = -1;

	if (!valid_name(src) || !valid_name(dst) || !valid_mode(mode))
		return -1;
	if ((ifd = openat(srcdirfd, src, FILE_FLAGS)) < 0)
		return -1;
	if (fstat(ifd, &st) < 0)
		goto out;
	if (!S_ISREG(st.st_mode)) {
		errno = EINVAL;
		goto out;
	}
	if (!(buf = malloc(PMIXEV_FSAFE_MAX_COPY + 1)))
		goto out;
	/* Read it all before creating dst: a file too big leaves nothing. */
	while ((n = read(ifd, buf + len, PMIXEV_FSAFE_MAX_COPY + 1 - len))) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto out;
		if ((len += (size_t)n) > PMIXEV_FSAFE_MAX_COPY) {
			errno = EFBIG;
			goto out;
		}
	}
	buf[len] = '\0';
	if (edit && !(out = edit(buf, len, &len, arg)))
		goto out;
	if ((ofd = openat(dstdirfd, dst, NEW_FLAGS, 0600)) < 0)
		goto out;
	if (write_all(ofd, out ? out : buf, len) < 0 ||
	    fchown(ofd, uid, gid) < 0 || fchmod(ofd, mode) < 0) {
		drop_new(dstdirfd, dst, ofd);
		goto out;
	}
	rc = 0;
out:
	free(buf);
	free(out);
	if (ofd >= 0)
		close_keep_errno(ofd);
	close_keep_errno(ifd);
	return rc;
}
