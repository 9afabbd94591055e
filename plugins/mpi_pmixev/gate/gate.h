/*
 * gate/gate.h - the only way in to this step's PMIx server.
 *
 * OpenPMIx listens on loopback TCP, believes the uid a peer claims, and
 * offers the host no look at a connection before its handshake; worse,
 * versions 4.2 to 5.0.9 free a rank's record twice when a handshake fails
 * after the rank was found (pmixev_hello.h), so one bad hello - or a
 * client killed inside PMIx_Init - crashes or hangs slurmstepd at the
 * namespace's next connection.
 *
 * So the library listens in a network namespace of its own, which no
 * process of the node can reach, and the gate listens for it on the host's
 * loopback at the port the clients and tools are told. On its own thread
 * it takes each connection: the kernel's owner of the peer's socket (asked
 * of sock_diag about that one socket) must be the job owner or root, and the
 * peer's hello must be one the library is sure to accept (pmixev_hello_check);
 * only then does the gate open a connection to the library and hand it the
 * hello. Once the library has taken a client's hello, the client's socket
 * replaces the library's end of that connection (gate_handoff.h): its messages
 * never pass through the gate. A tool's connection is relayed, bytes both ways,
 * until either side closes; a tool that goes away before the library has
 * answered its hello leaves the gate to take the answer. Refusals are closed at
 * once, counted, and logged with the peer's address and reason, the first of a
 * spell at once and the others summed up (gate_tally.h).
 *
 * Without network namespaces (unshare refused) the library listens on the
 * host's loopback too: the gate still serves the step, and the log says
 * that other users can reach the library directly.
 *
 * Two ways to run: in slurmstepd (pmix_gate_create), where the gate's
 * thread alone leaves the host's network and the library is let in for
 * its PMIx_server_init; or in a process of the job owner's that root
 * started in a network of its own (pmix_gate_create_inside), with the
 * doors root made in the host's network (gate_doors.h) and no privilege.
 */
#ifndef PMIXEV_PMIX_GATE_H_
#define PMIXEV_PMIX_GATE_H_

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct pmix_gate;
struct pmix_gate_doors;

/*
 * In slurmstepd: listen at 127.0.0.1 (a free port) for the step of
 * job_uid:job_gid, make the library's private network, and start the
 * gate's thread. NULL on failure (logged).
 */
struct pmix_gate *pmix_gate_create(uid_t job_uid, gid_t job_gid);

/*
 * In a process already in the library's network (not the host's): serve
 * the step of job_uid:job_gid through `doors`, made in the host's network.
 * The gate takes copies of their descriptors: the caller still closes its
 * own, and reads none of them while the gate runs (the files' offsets are
 * shared). Never unshares, needs no privilege. NULL on failure (logged).
 */
struct pmix_gate *pmix_gate_create_inside(uid_t job_uid, gid_t job_gid,
					  const struct pmix_gate_doors *doors);

/* Run fn(arg) on the calling thread inside the library's network (where
 * PMIx_server_init must create its listener); returns what fn returns, or
 * -1 if the thread could not get in or back out (logged). A gate made by
 * pmix_gate_create_inside, or one whose thread could not leave the host's
 * network, just calls fn. */
int pmix_gate_run_inside(struct pmix_gate *g, int (*fn)(void *), void *arg);

/*
 * The library listens at `lib_port` in its network, its major version is
 * `server_major` and it runs the data-store modules `stores` (a comma
 * list that outlives the gate, e.g. a literal): from now on good hellos
 * go to it. 0, or -1 if the library's listener is not found.
 */
int pmix_gate_open(struct pmix_gate *g, uint16_t lib_port,
		   unsigned server_major, const char *stores);

/* Rank `rank` connected (PMIx thread, client_connected): hand its
 * connection to the library (gate_handoff.h). */
void pmix_gate_client_connected(struct pmix_gate *g, uint32_t rank);

/* The port clients and tools are to be given. */
uint16_t pmix_gate_port(const struct pmix_gate *g);

/* Stop the thread, close every connection, log what was refused. */
void pmix_gate_destroy(struct pmix_gate *g);

/* The port in an OpenPMIx server URI ("ns.rank;tcp4://127.0.0.1:PORT"),
 * or 0. */
uint16_t pmix_gate_uri_port(const char *uri);

/*
 * `text` (len bytes) with every "127.0.0.1:FROM" turned into
 * "127.0.0.1:TO" (arg: uint16_t[2] {FROM, TO}): the library's address in
 * a client's environment or a tool's rendezvous file, made the gate's.
 * A pmixev_fsafe_edit_fn. Malloc'd, or NULL.
 */
char *pmix_gate_repoint(const char *text, size_t len, size_t *out_len,
			void *arg);

#endif /* PMIXEV_PMIX_GATE_H_ */
