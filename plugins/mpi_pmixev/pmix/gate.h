/*
 * pmix/gate.h - who may talk to this step's PMIx server.
 *
 * OpenPMIx listens on loopback TCP and believes the uid a connecting
 * client or tool claims; it offers the host no look at a connection
 * before its handshake. The gate looks at every connection to the
 * server's port: the kernel's owner of the peer's socket (pmixev_peeruid)
 * must be the job owner or root, else the connection is shut down, so the
 * library sees a peer that went away. It looks when a client or tool
 * connects (PMIx thread, before the library answers) and once a second
 * from the agent thread (a connection that sends nothing would otherwise
 * hold OpenPMIx's blocking handshake). It also turns Nagle off on the
 * server's connections (OpenPMIx 4.2 leaves it on: an event right after
 * another small message would wait for a delayed ACK).
 */
#ifndef PMIXEV_PMIX_GATE_H_
#define PMIXEV_PMIX_GATE_H_

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/agent.h"

struct pmix_gate;

/* For the server of `job_uid`'s step; it shuts nothing out until it
 * knows the server's port. */
struct pmix_gate *pmix_gate_create(struct agent *agent, uid_t job_uid);
/* The server listens at loopback port `port` (once it is up). */
void pmix_gate_set_port(struct pmix_gate *g, uint16_t port);
/* Start the agent thread's sweeps (agent thread). 0 or -1. */
int pmix_gate_start(struct pmix_gate *g);
void pmix_gate_destroy(struct pmix_gate *g);

/*
 * Look at every connection to the server now: Nagle off, and shut out
 * those of other users. Any thread. Returns how many were shut out.
 */
unsigned pmix_gate_sweep(struct pmix_gate *g);

/* Whether the server's port is known (else nothing can be told apart). */
bool pmix_gate_ready(struct pmix_gate *g);

/* The port in an OpenPMIx server URI ("ns.rank;tcp4://127.0.0.1:PORT"),
 * or 0. */
uint16_t pmix_gate_uri_port(const char *uri);

#endif /* PMIXEV_PMIX_GATE_H_ */
