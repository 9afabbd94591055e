/*
 * pmixbase/confine.c - per-thread filesystem identity (raw system calls: the
 * C library's setgroups would change every thread of slurmstepd).
 */
#include "config.h"

#include "pmixbase/confine.h"

#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pmixev_log.h"

#define GROUPS_MAX 1024

/* confine_enter's caller's groups (slurmstepd's thread, at the end). */
static gid_t saved_groups[GROUPS_MAX];
static int nsaved = -1;

/* This thread's fsuid/fsgid now (the calls change nothing with -1). */
static uid_t fsuid_now(void)
{
	return (uid_t)syscall(SYS_setfsuid, (uid_t)-1);
}

static gid_t fsgid_now(void)
{
	return (gid_t)syscall(SYS_setfsgid, (gid_t)-1);
}

static int take(uid_t uid, gid_t gid)
{
	if (syscall(SYS_setgroups, (size_t)1, &gid) < 0)
		return -1;
	syscall(SYS_setfsgid, gid);
	syscall(SYS_setfsuid, uid);
	if (fsuid_now() != uid || fsgid_now() != gid) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

static void give_back(void)
{
	syscall(SYS_setfsuid, (uid_t)0);
	syscall(SYS_setfsgid, (gid_t)0);
	if (nsaved >= 0)
		syscall(SYS_setgroups, (size_t)nsaved, saved_groups);
	nsaved = -1;
}

bool confine_pmix_thread(uid_t uid, gid_t gid)
{
	static bool said;

	/* The thread's own credentials say whether it was done. */
	if (fsuid_now() == uid && fsgid_now() == gid)
		return true;
	if (take(uid, gid) == 0)
		return true;
	if (!said)
		PMIXEV_ERROR("cannot give the PMIx library's thread the job "
			     "owner's file identity (uid %u gid %u): %s; its "
			     "clients are refused",
			     (unsigned)uid, (unsigned)gid, strerror(errno));
	said = true;
	return false;
}

int confine_enter(uid_t uid, gid_t gid)
{
	int n = getgroups(GROUPS_MAX, saved_groups);

	if (n < 0 || take(uid, gid) < 0) {
		PMIXEV_ERROR(
			"cannot take the job owner's file identity (uid %u "
			"gid %u): %s",
			(unsigned)uid, (unsigned)gid, strerror(errno));
		nsaved = n;
		give_back();
		return -1;
	}
	nsaved = n;
	return 0;
}

void confine_leave(void)
{
	give_back();
}
