/*
 * pmixev_fsafe.h - file-system operations for root in places a user may
 * write: never through a symlink, never trusting a path name.
 *
 * Everything works relative to open directory fds (openat, mkdirat,
 * unlinkat, fstat, fchown, fchmod) with O_NOFOLLOW and AT_SYMLINK_NOFOLLOW,
 * so that a name swapped for a symlink between two calls is seen as the
 * link itself and never followed. Names are single components: no '/',
 * not "." or ".." (else EINVAL). Returned fds are O_CLOEXEC.
 */
#ifndef PMIXEV_FSAFE_H_
#define PMIXEV_FSAFE_H_

#include <sys/types.h>

/* The bounds of pmixev_fsafe_remove_tree and pmixev_fsafe_copy_new. */
#define PMIXEV_FSAFE_MAX_DEPTH 64
#ifndef PMIXEV_FSAFE_MAX_ENTRIES /* the unit test uses fewer */
#define PMIXEV_FSAFE_MAX_ENTRIES 100000
#endif
#define PMIXEV_FSAFE_MAX_COPY (64 * 1024)

/*
 * Make sure the absolute `path` is a directory owned by geteuid() with the
 * permissions `mode` (no group or other write, else EINVAL), creating its
 * last component if missing. The path is walked from "/" one component at
 * a time; each parent must be a real directory (a symlink: ELOOP) owned by
 * root or geteuid() and, if group or other writable, sticky (else EPERM).
 * An existing last component that is a symlink (ELOOP), not a directory
 * (ENOTDIR) or owned by another user (EPERM) is refused untouched. Returns
 * an fd of the directory, or -1 with errno.
 */
int pmixev_fsafe_root_dir(const char *path, mode_t mode);

/*
 * Create the directory `name` in `parentfd` (EEXIST if the name exists,
 * even as a dangling symlink), check that what is now there is a directory
 * owned by geteuid() (else EPERM) and give it `mode`. Returns its fd, or -1
 * with errno.
 */
int pmixev_fsafe_mkdir_new(int parentfd, const char *name, mode_t mode);

/*
 * Remove `name` in `parentfd` and all below it: a symlink is removed, its
 * target never touched; directories are entered by fd only, never across a
 * mount point. Nothing deeper than PMIXEV_FSAFE_MAX_DEPTH levels
 * (ENAMETOOLONG) and at most PMIXEV_FSAFE_MAX_ENTRIES names (E2BIG) are
 * handled; a mount point inside is left in place (EXDEV). Best effort: on
 * an error the rest is still removed where possible. Returns 0 once the
 * name is gone (also if it never existed), or -1 with the first errno.
 */
int pmixev_fsafe_remove_tree(int parentfd, const char *name);

/*
 * Give `name` in `parentfd` to uid:gid with permissions `mode` (-1 for uid
 * or gid: unchanged). It must be a directory or a regular file with a
 * single link, owned by geteuid() (else EPERM; a symlink: ELOOP). Returns
 * 0, or -1 with errno.
 */
int pmixev_fsafe_give(int parentfd, const char *name, uid_t uid, gid_t gid,
		      mode_t mode);

/*
 * Copy the regular file `src` in `srcdirfd` (a symlink: ELOOP, another type
 * EINVAL, more than PMIXEV_FSAFE_MAX_COPY bytes EFBIG) into the new file
 * `dst` in `dstdirfd` (EEXIST if the name exists), then give that to
 * uid:gid with permissions `mode`. Returns 0, or -1 with errno and no new
 * file left behind.
 */
int pmixev_fsafe_copy_new(int srcdirfd, const char *src, int dstdirfd,
			  const char *dst, uid_t uid, gid_t gid, mode_t mode);

/*
 * An edit of a copied file's text: `text` (len bytes and a NUL) in, a
 * malloc'd new text and its length (*out_len) out, or NULL with errno.
 */
typedef char *(*pmixev_fsafe_edit_fn)(const char *text, size_t len,
				      size_t *out_len, void *arg);

/* pmixev_fsafe_copy_new, the copy's text being edit(the source's text). */
int pmixev_fsafe_copy_new_edited(int srcdirfd, const char *src, int dstdirfd,
				 const char *dst, uid_t uid, gid_t gid,
				 mode_t mode, pmixev_fsafe_edit_fn edit,
				 void *arg);

#endif /* PMIXEV_FSAFE_H_ */
