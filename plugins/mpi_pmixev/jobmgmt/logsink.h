/*
 * jobmgmt/logsink.h - the node's syslog daemon, for PMIx_Log: lines sent to
 * its socket (the site's PMIxevLogSyslog) as glibc's syslog(3) would,
 * datagram or, if the socket is a stream one, stream; never blocking.
 * Without openlog(), so slurmstepd's own syslog settings stay as they are.
 *
 * The socket is connected when the sink is made, in slurmstepd's prefork,
 * as root: slurmstepd later sets its effective uid to the job owner's
 * around the tasks' launch, which reaches every thread, and a line sent
 * then would be refused by a socket only root may write to. A connection
 * the daemon dropped (it restarted) is made once more at the next line.
 */
#ifndef PMIXEV_PMIX_LOGSINK_H_
#define PMIXEV_PMIX_LOGSINK_H_

struct logsink;

/* The sink for the socket at `path`, connected now if the daemon is
 * there, else at its first line. NULL if out of memory. */
struct logsink *logsink_create(const char *path);

/* `text` (one clean line) at `level` (0..7), facility user, tag
 * "pmixev[PID]": 0, or an errno value. One thread at a time. */
int logsink_syslog(struct logsink *ls, int level, const char *text);

void logsink_destroy(struct logsink *ls);

#endif /* PMIXEV_PMIX_LOGSINK_H_ */
