/*
 * pmixbase/confine.h - the PMIx library's file operations done with the job
 * owner's filesystem identity.
 *
 * OpenPMIx carries out a client's cleanup directives (PMIX_REGISTER_CLEANUP,
 * _DIR, PMIX_CLEANUP_RECURSIVE) itself, in the server process, when the
 * client or its namespace goes away - once a host offers job control -
 * and its owner check is racy (4.2) or absent (5.0). So the threads on which
 * the library does that work run with the owner's fsuid, fsgid and no
 * other groups (Linux keeps these per thread; leaving fsuid 0 also drops
 * the capabilities that override file permissions): the kernel then lets
 * them delete exactly what the job's user could. The library's progress
 * thread is confined for good the first time pmixev runs on it (an
 * upcall, the namespace's registration); PMIx_server_finalize, which
 * releases what is left on the calling thread, runs confined too.
 */
#ifndef PMIXEV_PMIX_CONFINE_H_
#define PMIXEV_PMIX_CONFINE_H_

#include <stdbool.h>
#include <sys/types.h>

/* The calling thread (the PMIx progress thread) takes the owner's file
 * identity for good, if not done yet. false (logged once): it could not,
 * and must not serve a client. */
bool confine_pmix_thread(uid_t uid, gid_t gid);

/* The calling thread takes the owner's file identity until
 * confine_leave(). 0, or -1 (logged; nothing changed). */
int confine_enter(uid_t uid, gid_t gid);
void confine_leave(void);

#endif /* PMIXEV_PMIX_CONFINE_H_ */
