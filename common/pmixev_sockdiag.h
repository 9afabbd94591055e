/*
 * pmixev_sockdiag.h - ask the kernel (NETLINK_SOCK_DIAG, inet_diag) about
 * one TCP socket, named by its 4-tuple: its state, owner uid and inode.
 *
 * One exact (non-dump) request per socket: the cost does not depend on how
 * many sockets the node has, unlike reading /proc/net/tcp. The netlink
 * socket belongs to the network namespace of the thread that creates it,
 * for its whole life: create it where the sockets to look up live.
 */
#ifndef PMIXEV_SOCKDIAG_H_
#define PMIXEV_SOCKDIAG_H_

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

struct pmixev_sockdiag;

/* What the kernel says about the socket. */
struct pmixev_sockdiag_answer {
	uint8_t state;	/* TCP state: 1 established ... 10 listen */
	uid_t uid;	/* the socket's owner */
	uint32_t inode; /* 0: no file any more (closed, TIME_WAIT) */
};

/* The largest request pmixev_sockdiag_request builds. */
#define PMIXEV_SOCKDIAG_REQ_MAX 128

/*
 * Build into buf (cap bytes) the request for the TCP socket whose local
 * end is `local` and remote end `remote` (both AF_INET, or both AF_INET6),
 * with sequence number `seq`. Returns its length, or -1 with errno
 * EAFNOSUPPORT or ENOBUFS.
 */
int pmixev_sockdiag_request(void *buf, size_t cap, uint32_t seq,
			    const struct sockaddr *local,
			    const struct sockaddr *remote);

/*
 * Read the kernel's answer [buf, buf + len) (one or more netlink
 * messages) to the request `seq` for local/remote. Returns 0 and fills
 * *ans; 1 if the kernel has no such socket; -1 with errno: ENOMSG (no
 * message for `seq` in buf), EINVAL (malformed, or an answer about
 * another socket), or the error the kernel answered.
 */
int pmixev_sockdiag_parse(const void *buf, size_t len, uint32_t seq,
			  const struct sockaddr *local,
			  const struct sockaddr *remote,
			  struct pmixev_sockdiag_answer *ans);

/* A netlink socket in the calling thread's network namespace, or NULL
 * with errno. */
struct pmixev_sockdiag *pmixev_sockdiag_create(void);

/*
 * Ask through `fd`, a NETLINK_SOCK_DIAG socket made elsewhere: it answers
 * about the network namespace it was made in, wherever the caller is now.
 * Takes fd (pmixev_sockdiag_destroy closes it), or returns NULL with errno
 * (ENOTSOCK, or EPROTOTYPE: a socket of another kind) and leaves fd open.
 */
struct pmixev_sockdiag *pmixev_sockdiag_from_fd(int fd);

/* Ask about the socket local/remote: pmixev_sockdiag_parse's answers
 * (never ENOMSG). Does not block. */
int pmixev_sockdiag_lookup(struct pmixev_sockdiag *sd,
			   const struct sockaddr *local,
			   const struct sockaddr *remote,
			   struct pmixev_sockdiag_answer *ans);

void pmixev_sockdiag_destroy(struct pmixev_sockdiag *sd);

#endif /* PMIXEV_SOCKDIAG_H_ */
