/*
 * overlay/addrs.h - the addresses of a step's nodes, as Slurm knows them
 * (base/nodeaddr.c fills them): who may knock at a door (admit.h), and
 * which address srun's table may give each node (handshake.c). Pure data:
 * no thread of its own, read-only once filled.
 *
 * IPv4 addresses and IPv4-mapped IPv6 ones compare equal.
 */
#ifndef PMIXEV_OVERLAY_ADDRS_H_
#define PMIXEV_OVERLAY_ADDRS_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

struct addrs;

/* Room for `nnodes` nodes, none with an address yet. NULL (errno). */
struct addrs *addrs_create(uint32_t nnodes);

/* Node `node` has address `sa` (AF_INET or AF_INET6). 0, or -1 (errno:
 * EINVAL for a bad node or family, ENOMEM). */
int addrs_add(struct addrs *a, uint32_t node, const struct sockaddr *sa);

/* Same, from numeric text ("10.0.0.1", "fe80::1"). */
int addrs_add_text(struct addrs *a, uint32_t node, const char *host);

/* Whether `sa` is an address of any node. */
bool addrs_any_has(const struct addrs *a, const struct sockaddr *sa);

/* Whether numeric `host` is an address of node `node`. */
bool addrs_node_has_text(const struct addrs *a, uint32_t node,
			 const char *host);

/* Node `node`'s addresses as text for log lines ("10.0.0.1 fe80::1",
 * "none"), truncated to `len`. Returns `buf`. */
const char *addrs_node_text(const struct addrs *a, uint32_t node, char *buf,
			    size_t len);

/* NULL-safe; preserves errno. */
void addrs_destroy(struct addrs *a);

#endif /* PMIXEV_OVERLAY_ADDRS_H_ */
