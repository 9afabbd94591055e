/*
 * pmix/logsink.h - the node's syslog daemon, for PMIx_Log: one line sent
 * to its socket (the site's PMIxevLogSyslog) as glibc's syslog(3) would,
 * datagram or, if the socket is a stream one, stream; never blocking.
 * Without openlog(), so slurmstepd's own syslog settings stay as they are.
 */
#ifndef PMIXEV_PMIX_LOGSINK_H_
#define PMIXEV_PMIX_LOGSINK_H_

/* `text` (one clean line) at `level` (0..7), facility user, tag
 * "pmixev[PID]": 0, or an errno value. */
int logsink_syslog(const char *path, int level, const char *text);

#endif /* PMIXEV_PMIX_LOGSINK_H_ */
