/*
 * pmixev_peeruid.h - the uid the kernel says owns the other end of an
 * accepted local connection.
 *
 * OpenPMIx believes the uid a connecting client claims. For a TCP loopback
 * connection the peer's socket is a row of /proc/net/tcp (or tcp6) of the
 * same network namespace, with local_address = the peer's address:port,
 * rem_address = ours, and the uid that created it (its fsuid at socket()).
 * For an AF_UNIX socket SO_PEERCRED says the same.
 *
 * Reading /proc/net/tcp costs in proportion to the node's sockets (another
 * user can open thousands); the kernel's sock_diag (pmixev_sockdiag.h)
 * answers about the one socket asked for. The file is the fallback for a
 * kernel without it.
 *
 * Rows without an inode are never taken: TIME_WAIT and FIN_WAIT2 remnants
 * show uid 0, and a closed (orphaned) socket has no owner any more.
 */
#ifndef PMIXEV_PEERUID_H_
#define PMIXEV_PEERUID_H_

#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>

/*
 * Find, in the text [text, text + len) of /proc/net/tcp or tcp6 (header
 * line first), the row other than LISTEN whose local_address is `local`
 * and rem_address is `remote` (sockaddr_in or sockaddr_in6; an IPv4
 * address matches its IPv4-mapped IPv6 form). An incomplete last line is
 * ignored. Returns 0 and sets *uid, 1 if no row matches, -1 with errno
 * EINVAL on malformed text or EAFNOSUPPORT on another address family.
 */
int pmixev_peeruid_parse(const char *text, size_t len,
			 const struct sockaddr *local,
			 const struct sockaddr *remote, uid_t *uid);

struct pmixev_sockdiag;

/*
 * The uid owning the peer of the connected socket `fd`: SO_PEERCRED for
 * AF_UNIX; for TCP, sock_diag through `sd` (made in fd's network
 * namespace), or if sd is NULL the rows of /proc/net/tcp and tcp6 read
 * through `tcp_fd` and `tcp6_fd` (each opened read-only in fd's network
 * namespace, read from its start; -1: no such file, as tcp6 without
 * IPv6). A file of /proc/net keeps showing the namespace it was opened in,
 * wherever its reader is now. Returns 0 and sets *uid, or -1 with errno:
 * ENOENT (no such socket: the peer is gone or not in that network
 * namespace), EAFNOSUPPORT (neither AF_UNIX nor TCP), or a system error
 * (from sock_diag: the kernel's answer).
 */
int pmixev_peeruid_of_fd(int fd, struct pmixev_sockdiag *sd, int tcp_fd,
			 int tcp6_fd, uid_t *uid);

#endif /* PMIXEV_PEERUID_H_ */
