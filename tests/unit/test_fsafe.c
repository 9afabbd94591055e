/*
 * Unit tests for common/pmixev_fsafe.c: trees are removed without ever
 * following a symlink (not even one swapped in during the removal), and
 * directories and files are made or given away only if they are ours.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pmixev_fsafe.h"

#define NOBODY 65534

/* Who files are given to: nobody when root, else ourselves. */
static uid_t to_uid;
static gid_t to_gid;

/* call returns -1 with errno e. */
#define FAILS(call, e)                                                         \
	do {                                                                   \
		int rc_ = (call), err_ = errno;                                \
		assert_int_equal(rc_, -1);                                     \
		assert_int_equal(err_, (e));                                   \
	} while (0)

/* A fresh directory per test. */
struct tmp {
	char path[64];
	int fd;
};

static int make_tmp(void **state)
{
	static struct tmp t;

	strcpy(t.path, "/tmp/test_fsafe.XXXXXX");
	if (!mkdtemp(t.path) ||
	    (t.fd = open(t.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -1;
	*state = &t;
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int type,
		  struct FTW *ftw)
{
	return remove(path) < 0 ? -1 : 0;
}

static int free_tmp(void **state)
{
	struct tmp *t = *state;
	int rc = nftw(t->path, rm_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);

	close(t->fd);
	return rc;
}

static void put(int dfd, const char *name, const char *text)
{
	int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
			0644);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void mkdir_in(int dfd, const char *name)
{
	assert_int_equal(mkdirat(dfd, name, 0755), 0);
}

static int open_in(int dfd, const char *name)
{
	int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	assert_true(fd >= 0);
	return fd;
}

static bool exists(int dfd, const char *name)
{
	struct stat st;

	return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

static struct stat stat_of(int dfd, const char *name)
{
	struct stat st;

	assert_int_equal(fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW), 0);
	return st;
}

static void assert_text(int dfd, const char *name, const char *text)
{
	char buf[256];
	int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	assert_true(fd >= 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	assert_true(n >= 0);
	buf[n] = '\0';
	assert_string_equal(buf, text);
}

static void link_in(const char *target, int dfd, const char *name)
{
	assert_int_equal(symlinkat(target, dfd, name), 0);
}

/* Make (or check) the directory dfd/name: files f0..f9 and sub/f10. */
static void fill(int dfd, const char *name, bool check)
{
	char f[16];
	int fd;

	if (!check)
		mkdir_in(dfd, name);
	fd = open_in(dfd, name);
	if (!check)
		mkdir_in(fd, "sub");
	for (int i = 0; i <= 10; i++) {
		snprintf(f, sizeof(f), "%sf%d", i < 10 ? "" : "sub/", i);
		if (check)
			assert_text(fd, f, f);
		else
			put(fd, f, f);
	}
	close(fd);
}

/* tmp/victim (files and a subdirectory) and tmp/vfile: link targets. */
static void make_victims(struct tmp *t)
{
	fill(t->fd, "victim", false);
	put(t->fd, "vfile", "vfile");
}

static void assert_victims(struct tmp *t)
{
	fill(t->fd, "victim", true);
	assert_text(t->fd, "vfile", "vfile");
}

/* The absolute path of tmp/name, until the next call. */
static const char *path_of(struct tmp *t, const char *name)
{
	static char buf[128];

	snprintf(buf, sizeof(buf), "%s/%s", t->path, name);
	return buf;
}

/* dfd/name (dfd itself for "") has this owner ((gid_t)-1: any group) and
 * these permissions (and type, if mode has one). */
static void assert_owned(int dfd, const char *name, uid_t uid, gid_t gid,
			 mode_t mode)
{
	int flags = AT_SYMLINK_NOFOLLOW | (*name ? 0 : AT_EMPTY_PATH);
	struct stat st;

	assert_int_equal(fstatat(dfd, name, &st, flags), 0);
	assert_int_equal(st.st_uid, uid);
	if (gid != (gid_t)-1)
		assert_int_equal(st.st_gid, gid);
	assert_int_equal(st.st_mode & ((mode & S_IFMT) | 07777), mode);
}

static void test_remove_nested(void **state)
{
	struct tmp *t = *state;

	fill(t->fd, "top", false);
	fill(t->fd, "top/sub/a", false);
	mkdir_in(t->fd, "top/empty");
	assert_int_equal(mkfifoat(t->fd, "top/sub/a/fifo", 0600), 0);
	assert_int_equal(pmixev_fsafe_remove_tree(t->fd, "top"), 0);
	assert_false(exists(t->fd, "top"));
	/* A name that is not there is gone already; a file is just one. */
	assert_int_equal(pmixev_fsafe_remove_tree(t->fd, "top"), 0);
	put(t->fd, "file", "x");
	assert_int_equal(pmixev_fsafe_remove_tree(t->fd, "file"), 0);
	assert_false(exists(t->fd, "file"));
	const char *bad[] = {"", ".", "..", "a/b", "/top"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		FAILS(pmixev_fsafe_remove_tree(t->fd, bad[i]), EINVAL);
}

static void test_remove_links_inside(void **state)
{
	struct tmp *t = *state;

	make_victims(t);
	fill(t->fd, "top", false);
	link_in(path_of(t, "victim"), t->fd, "top/to_dir");
	link_in(path_of(t, "vfile"), t->fd, "top/to_file");
	link_in("../../victim", t->fd, "top/sub/rel");
	link_in("/nonexistent", t->fd, "top/dangling");
	assert_int_equal(pmixev_fsafe_remove_tree(t->fd, "top"), 0);
	assert_false(exists(t->fd, "top"));
	assert_victims(t);
}

static void test_remove_link_top(void **state)
{
	struct tmp *t = *state;

	make_victims(t);
	link_in(path_of(t, "victim"), t->fd, "top");
	assert_int_equal(pmixev_fsafe_remove_tree(t->fd, "top"), 0);
	assert_false(exists(t->fd, "top"));
	assert_victims(t);
}

/* n directories "d" one in the other below tmp. */
static void nest(struct tmp *t, int n)
{
	int fd = dup(t->fd), sub;

	for (int i = 0; i < n; i++) {
		mkdir_in(fd, "d");
		sub = open_in(fd, "d");
		close(fd);
		fd = sub;
	}
	put(fd, "leaf", "leaf");
	close(fd);
}

static void test_remove_depth_bomb(void **state)
{
	struct tmp *t = *state;

	nest(t, PMIXEV_FSAFE_MAX_DEPTH);
	assert_int_equal(pmixev_fsafe_remove_tree(t->fd, "d"), 0);
	assert_false(exists(t->fd, "d"));
	nest(t, 200);
	FAILS(pmixev_fsafe_remove_tree(t->fd, "d"), ENAMETOOLONG);
	assert_true(exists(t->fd, "d")); /* free_tmp removes it */
}

static void test_remove_budget(void **state)
{
	struct tmp *t = *state;
	char name[16];
	int rc = -1;

	mkdir_in(t->fd, "top");
	for (int i = 0; i < PMIXEV_FSAFE_MAX_ENTRIES * 3 / 2; i++) {
		snprintf(name, sizeof(name), "top/%d", i);
		put(t->fd, name, "");
	}
	FAILS(pmixev_fsafe_remove_tree(t->fd, "top"), E2BIG);
	/* Each call removes what its budget allows. */
	for (int i = 0; i < 3 && rc; i++)
		rc = pmixev_fsafe_remove_tree(t->fd, "top");
	assert_int_equal(rc, 0);
	assert_false(exists(t->fd, "top"));
}

/* In a mount namespace of its own: 0, 77 (cannot mount) or a failure.
 * No cmocka assertions here: this is a forked child. */
static int mount_child(struct tmp *t)
{
	char m[128], b[128];

	if (unshare(CLONE_NEWNS) < 0 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return 77;
	/* An fd opened before unshare() does not see the new mounts. */
	close(t->fd);
	if ((t->fd = open(t->path, O_RDONLY | O_DIRECTORY)) < 0)
		return 1;
	if (mkdirat(t->fd, "top", 0755) || mkdirat(t->fd, "top/m", 0755) ||
	    mkdirat(t->fd, "top/b", 0755))
		return 1;
	snprintf(m, sizeof(m), "%s/top/m", t->path);
	snprintf(b, sizeof(b), "%s/top/b", t->path);
	if (mount("none", m, "tmpfs", 0, NULL) < 0 ||
	    mount(path_of(t, "victim"), b, NULL, MS_BIND, NULL) < 0)
		return 77;
	if (mknodat(t->fd, "top/m/keep", S_IFREG | 0600, 0) ||
	    mknodat(t->fd, "top/plain", S_IFREG | 0600, 0))
		return 1;
	/* Neither a tmpfs nor a bind mount of the same file system is
	 * entered; the rest goes. */
	if (pmixev_fsafe_remove_tree(t->fd, "top") != -1 || errno != EXDEV)
		return 2;
	if (!exists(t->fd, "top/m/keep") || exists(t->fd, "top/plain"))
		return 3;
	if (umount(m) < 0 || umount(b) < 0 ||
	    pmixev_fsafe_remove_tree(t->fd, "top") < 0)
		return 4;
	return 0;
}

static void test_remove_mount_points(void **state)
{
	struct tmp *t = *state;
	int status;
	pid_t pid;

	if (geteuid() != 0)
		skip();
	make_victims(t);
	assert_true((pid = fork()) >= 0);
	if (!pid)
		_exit(mount_child(t));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77)
		skip();
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_victims(t);
}

#define PAIRS 8 /* directories "a<i>" and symlinks "l<i>" to the victim */

struct swapper {
	int dfd; /* top/x, where the pairs are */
	atomic_bool stop;
	atomic_ulong swaps;
};

/* Swap each directory with its symlink, as fast as rename can: mostly by
 * RENAME_EXCHANGE, now and then by three plain renames. */
static void *swap_loop(void *arg)
{
	struct swapper *s = arg;
	char a[8], l[8];

	for (unsigned n = 0; !atomic_load(&s->stop); n++) {
		snprintf(a, sizeof(a), "a%u", n % PAIRS);
		snprintf(l, sizeof(l), "l%u", n % PAIRS);
		if (n % 16 != 15) {
			if (!renameat2(s->dfd, a, s->dfd, l, RENAME_EXCHANGE))
				atomic_fetch_add(&s->swaps, 1);
		} else if (!renameat(s->dfd, a, s->dfd, "tmp")) {
			if (!renameat(s->dfd, l, s->dfd, a) &&
			    !renameat(s->dfd, "tmp", s->dfd, l))
				atomic_fetch_add(&s->swaps, 1);
			renameat(s->dfd, "tmp", s->dfd, a); /* if not done */
		}
	}
	return NULL;
}

/* top/x with PAIRS directories of files and symlinks to the victim. */
static int make_pairs(struct tmp *t)
{
	char name[16];
	int xfd;

	mkdir_in(t->fd, "top");
	mkdir_in(t->fd, "top/x");
	xfd = open_in(t->fd, "top/x");
	for (int p = 0; p < PAIRS; p++) {
		snprintf(name, sizeof(name), "a%d", p);
		fill(xfd, name, false);
		snprintf(name, sizeof(name), "l%d", p);
		link_in(path_of(t, "victim"), xfd, name);
	}
	return xfd;
}

static void test_remove_race(void **state)
{
	struct tmp *t = *state;
	struct swapper s;
	pthread_t th;

	make_victims(t);
	for (int iter = 0; iter < 50; iter++) {
		s.dfd = make_pairs(t);
		atomic_init(&s.stop, false);
		atomic_init(&s.swaps, 0);
		assert_int_equal(pthread_create(&th, NULL, swap_loop, &s), 0);
		while (atomic_load(&s.swaps) < 10)
			sched_yield();
		/* May fail while names change under it: never follows. */
		(void)pmixev_fsafe_remove_tree(t->fd, "top");
		atomic_store(&s.stop, true);
		assert_int_equal(pthread_join(th, NULL), 0);
		close(s.dfd);
		assert_int_equal(pmixev_fsafe_remove_tree(t->fd, "top"), 0);
		assert_false(exists(t->fd, "top"));
		assert_victims(t);
	}
}

static void test_root_dir(void **state)
{
	struct tmp *t = *state;
	int fd = pmixev_fsafe_root_dir(path_of(t, "run"), 0711);

	assert_true(fd >= 0);
	assert_owned(fd, "", geteuid(), -1, S_IFDIR | 0711);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	close(fd);
	/* An existing one of ours gets the mode; so do extra slashes. */
	assert_int_equal(fchmodat(t->fd, "run", 0755, 0), 0);
	assert_true((fd = pmixev_fsafe_root_dir(path_of(t, "/run/"), 0711)) >=
		    0);
	close(fd);
	assert_int_equal(stat_of(t->fd, "run").st_mode & 07777, 0711);
	const char *bad[] = {"run", "/", "", "/tmp/../tmp/x", "/tmp/./x"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		FAILS(pmixev_fsafe_root_dir(bad[i], 0711), EINVAL);
	FAILS(pmixev_fsafe_root_dir(path_of(t, "run"), 0777), EINVAL);
}

static void test_root_dir_refuses(void **state)
{
	struct tmp *t = *state;
	int fd;

	mkdir_in(t->fd, "real");
	assert_int_equal(fchmodat(t->fd, "real", 0777, 0), 0);
	link_in("real", t->fd, "link");
	FAILS(pmixev_fsafe_root_dir(path_of(t, "link"), 0711), ELOOP);
	FAILS(pmixev_fsafe_root_dir(path_of(t, "link/x"), 0711), ELOOP);
	assert_false(exists(t->fd, "real/x"));
	assert_int_equal(stat_of(t->fd, "real").st_mode & 07777, 0777);
	put(t->fd, "file", "");
	FAILS(pmixev_fsafe_root_dir(path_of(t, "file"), 0711), ENOTDIR);
	/* A parent others may rename in: not without the sticky bit. */
	FAILS(pmixev_fsafe_root_dir(path_of(t, "real/x"), 0711), EPERM);
	assert_false(exists(t->fd, "real/x"));
	assert_int_equal(fchmodat(t->fd, "real", 01777, 0), 0);
	fd = pmixev_fsafe_root_dir(path_of(t, "real/x"), 0711);
	assert_true(fd >= 0);
	close(fd);
}

/* As root: someone else's directory, or one in someone else's. */
static void test_root_dir_not_ours(void **state)
{
	struct tmp *t = *state;

	if (geteuid() != 0)
		skip();
	mkdir_in(t->fd, "theirs");
	assert_int_equal(fchmodat(t->fd, "theirs", 0777, 0), 0);
	assert_int_equal(fchownat(t->fd, "theirs", NOBODY, NOBODY, 0), 0);
	FAILS(pmixev_fsafe_root_dir(path_of(t, "theirs"), 0711), EPERM);
	assert_owned(t->fd, "theirs", NOBODY, NOBODY, 0777);
	assert_int_equal(fchmodat(t->fd, "theirs", 0755, 0), 0);
	FAILS(pmixev_fsafe_root_dir(path_of(t, "theirs/x"), 0711), EPERM);
	assert_false(exists(t->fd, "theirs/x"));
}

static void test_mkdir_new(void **state)
{
	struct tmp *t = *state;
	mode_t old = umask(022);
	int fd;

	fd = pmixev_fsafe_mkdir_new(t->fd, "new", 0770);
	umask(old);
	assert_true(fd >= 0);
	assert_owned(fd, "", geteuid(), -1, S_IFDIR | 0770);
	close(fd);
	FAILS(pmixev_fsafe_mkdir_new(t->fd, "new", 0700), EEXIST);
	assert_int_equal(stat_of(t->fd, "new").st_mode & 07777, 0770);
	/* A symlink there, to a directory or to nothing, is not followed. */
	make_victims(t);
	assert_int_equal(fchmodat(t->fd, "victim", 0755, 0), 0);
	link_in("victim", t->fd, "link");
	FAILS(pmixev_fsafe_mkdir_new(t->fd, "link", 0700), EEXIST);
	assert_int_equal(stat_of(t->fd, "victim").st_mode & 07777, 0755);
	link_in("nowhere", t->fd, "dangling");
	FAILS(pmixev_fsafe_mkdir_new(t->fd, "dangling", 0700), EEXIST);
	assert_false(exists(t->fd, "nowhere"));
	FAILS(pmixev_fsafe_mkdir_new(t->fd, "a/b", 0700), EINVAL);
	FAILS(pmixev_fsafe_mkdir_new(t->fd, "x", 010700), EINVAL);
}

static int copy(int sfd, const char *src, int dfd, const char *dst, mode_t m)
{
	return pmixev_fsafe_copy_new(sfd, src, dfd, dst, to_uid, to_gid, m);
}

static void test_give(void **state)
{
	struct tmp *t = *state;

	put(t->fd, "file", "x");
	mkdir_in(t->fd, "dir");
	assert_int_equal(pmixev_fsafe_give(t->fd, "file", to_uid, to_gid, 0640),
			 0);
	assert_owned(t->fd, "file", to_uid, to_gid, 0640);
	assert_int_equal(pmixev_fsafe_give(t->fd, "dir", to_uid, to_gid, 0750),
			 0);
	assert_owned(t->fd, "dir", to_uid, to_gid, 0750);
	/* A symlink: the link is not followed, its target not changed. */
	put(t->fd, "target", "t");
	assert_int_equal(fchmodat(t->fd, "target", 0600, 0), 0);
	link_in("target", t->fd, "link");
	FAILS(pmixev_fsafe_give(t->fd, "link", to_uid, to_gid, 0666), ELOOP);
	assert_int_equal(stat_of(t->fd, "target").st_mode & 07777, 0600);
	/* A hard link to a file elsewhere, a fifo (never opened). */
	assert_int_equal(linkat(t->fd, "target", t->fd, "hard", 0), 0);
	FAILS(pmixev_fsafe_give(t->fd, "hard", to_uid, to_gid, 0666), EPERM);
	assert_int_equal(mkfifoat(t->fd, "fifo", 0600), 0);
	FAILS(pmixev_fsafe_give(t->fd, "fifo", to_uid, to_gid, 0666), EPERM);
	FAILS(pmixev_fsafe_give(t->fd, "none", to_uid, to_gid, 0600), ENOENT);
}

/* As root: a file of someone else's is not ours to give. */
static void test_give_not_ours(void **state)
{
	struct tmp *t = *state;

	if (geteuid() != 0)
		skip();
	put(t->fd, "file", "x");
	assert_int_equal(fchmodat(t->fd, "file", 0600, 0), 0);
	assert_int_equal(fchownat(t->fd, "file", NOBODY, NOBODY, 0), 0);
	FAILS(pmixev_fsafe_give(t->fd, "file", 0, 0, 0666), EPERM);
	assert_owned(t->fd, "file", NOBODY, NOBODY, 0600);
}

static void test_copy_new(void **state)
{
	struct tmp *t = *state;
	int fd;

	put(t->fd, "src", "content\n");
	mkdir_in(t->fd, "dst");
	int dfd = open_in(t->fd, "dst");
	assert_int_equal(copy(t->fd, "src", dfd, "a", 0640), 0);
	assert_text(dfd, "a", "content\n");
	assert_owned(dfd, "a", to_uid, to_gid, 0640);
	/* dst exists: as a file, as a dangling symlink. */
	put(t->fd, "src2", "other");
	FAILS(copy(t->fd, "src2", dfd, "a", 0640), EEXIST);
	assert_text(dfd, "a", "content\n");
	link_in("../made", dfd, "ln");
	FAILS(copy(t->fd, "src", dfd, "ln", 0640), EEXIST);
	assert_false(exists(t->fd, "made"));
	/* src is a symlink, a directory, too big; exactly the most is ok. */
	link_in("src", t->fd, "srclink");
	FAILS(copy(t->fd, "srclink", dfd, "b", 0640), ELOOP);
	FAILS(copy(t->fd, "dst", dfd, "b", 0640), EINVAL);
	fd = openat(t->fd, "big", O_WRONLY | O_CREAT | O_EXCL, 0600);
	assert_int_equal(ftruncate(fd, PMIXEV_FSAFE_MAX_COPY + 1), 0);
	FAILS(copy(t->fd, "big", dfd, "b", 0640), EFBIG);
	assert_false(exists(dfd, "b"));
	assert_int_equal(ftruncate(fd, PMIXEV_FSAFE_MAX_COPY), 0);
	close(fd);
	assert_int_equal(copy(t->fd, "big", dfd, "b", 0600), 0);
	assert_int_equal(stat_of(dfd, "b").st_size, PMIXEV_FSAFE_MAX_COPY);
	close(dfd);
}

#define T(f) cmocka_unit_test_setup_teardown(f, make_tmp, free_tmp)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_remove_nested),	  T(test_remove_links_inside),
		T(test_remove_link_top),  T(test_remove_depth_bomb),
		T(test_remove_budget),	  T(test_remove_mount_points),
		T(test_remove_race),	  T(test_root_dir),
		T(test_root_dir_refuses), T(test_root_dir_not_ours),
		T(test_mkdir_new),	  T(test_give),
		T(test_give_not_ours),	  T(test_copy_new),
	};

	to_uid = geteuid() ? geteuid() : NOBODY;
	to_gid = geteuid() ? getegid() : NOBODY;
	return cmocka_run_group_tests_name("fsafe", tests, NULL, NULL);
}
