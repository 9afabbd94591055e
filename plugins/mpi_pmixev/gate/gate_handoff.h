/*
 * gate/gate_handoff.h - a client's connection handed from the gate to the
 * PMIx server library, so that the client's messages no longer pass
 * through the gate.
 *
 * The gate has sent the client's checked hello on its own connection to
 * the library and stopped reading both sockets. When the library reports
 * the rank connected (client_connected, PMIx thread: the library has read
 * the hello and not yet watched its end of the connection), the hand-off
 * finds the library's end, passes on what the library already answered
 * (OpenPMIx 4.2 and 5.0 answer before that upcall, 6 and later after),
 * and puts the client's socket in its place (dup2): from then on the
 * library reads and writes the client directly, and the gate's connection
 * to it is closed. If the library's end cannot be told apart with
 * certainty, the connection is relayed instead (gate_conns_resume).
 */
#ifndef PMIXEV_PMIX_GATE_HANDOFF_H_
#define PMIXEV_PMIX_GATE_HANDOFF_H_

#include <stdint.h>

#include "gate/gate_conn.h"

/* Rank `rank`'s handshake is done (PMIx thread, inside client_connected). */
void gate_handoff_client(struct gate_conns *cs, uint32_t rank);

#endif /* PMIXEV_PMIX_GATE_HANDOFF_H_ */
