/*
 * pmixev_hello.h - the first message a PMIx client or tool sends to its
 * server (OpenPMIx's "connect-ack"), read and judged before the server
 * library ever sees it.
 *
 * Why: OpenPMIx 4.2 to 5.0.9 free a rank's record twice when a client's
 * handshake fails after the library found that rank (a credential that
 * does not match, a security, buffer or data-store module it does not
 * have, an answer it cannot send): the next connection of the namespace
 * then crashes or hangs slurmstepd. It also reads the credential without
 * a bound and the version string past its end. So pmixev's gate only
 * forwards a hello that the library is sure to accept.
 *
 * The wire format (identical in OpenPMIx 4.2, 5.0 and 7.0): a 16-byte
 * header (int32 index, uint32 tag, uint32 body length at offset 8, in the
 * sender's byte order, padding), then the body: the security module's
 * name, a uint32 credential length (network order) and the credential,
 * the peer type (uint8: 0 client, 1-9 tools, launchers, singletons), for
 * tools a claimed uid and gid, for most types a namespace and rank, the
 * library version ("MAJOR.MINOR.RELEASE"), the buffer-operations module's
 * name, the buffer type (uint8), the data-store module list, and an
 * optional blob (a tool's attributes).
 */
#ifndef PMIXEV_HELLO_H_
#define PMIXEV_HELLO_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PMIXEV_HELLO_HDR 16
/* Longest body taken (a client's is about 60 bytes, a tool's a few
 * hundred); OpenPMIx itself takes up to 128 KiB. With the gate's bound on
 * connections it caps what a job can make root hold for hellos. */
#define PMIXEV_HELLO_MAX (16 * 1024)

#define PMIXEV_HELLO_CLIENT    0 /* a process of a registered namespace */
#define PMIXEV_HELLO_LAST_TYPE 9 /* higher: schedulers, unknown */

struct pmixev_hello {
	uint8_t type;	   /* PMIXEV_HELLO_CLIENT or a tool's type */
	uint32_t cred_uid; /* what the "native" credential says */
	uint32_t cred_gid;
	bool has_ids; /* a tool's claimed uid and gid: */
	uint32_t uid, gid;
	bool has_proc; /* the namespace and rank it names: */
	char nspace[256];
	uint32_t rank;
	unsigned major, minor; /* of its PMIx library */
	char bfrops[16];       /* buffer-operations module */
	char gds[64];	       /* data-store modules, a comma list */
};

/* The body length a header announces; -1 if over PMIXEV_HELLO_MAX. */
long pmixev_hello_body_len(const uint8_t hdr[PMIXEV_HELLO_HDR]);

/*
 * Read the body [body, body + len) into *h. Returns 0, or -1 with *why
 * saying what is wrong (a static string): anything OpenPMIx would read
 * past its end or fail on, a security module other than "native", a
 * credential that is not the 8-byte uid and gid "native" sends over TCP,
 * an unknown peer type, a malformed version, a buffer type other than
 * 1 or 2, or a data-store list longer than pmixev takes (a client names
 * the one module it uses, OpenPMIx 4.2 to 7.0).
 */
int pmixev_hello_parse(const uint8_t *body, size_t len, struct pmixev_hello *h,
		       const char **why);

/*
 * Whether the server library of major version `server_major` takes the
 * buffer-operations module `name` (OpenPMIx 4 and 5: v21 v3 v4 v41; 6:
 * and v51; 7: and v61; older modules are refused).
 */
bool pmixev_hello_bfrops_ok(const char *name, unsigned server_major);

/*
 * Whether a parsed hello may go on to a server of `server_major` run for
 * a job of job_uid:job_gid, from a peer whose socket the kernel says
 * belongs to `peer_uid`: the peer is the job owner or root; its
 * credential names the peer's own uid; a client names the job's uid and
 * gid (the library refuses any other after finding the rank); a tool's
 * claimed ids equal its credential's; its data-store list names one of
 * `stores`, the modules the server runs (a comma list: "hash", or a
 * shared-memory one and "hash"). 0, or -1 with *why.
 */
int pmixev_hello_check(const struct pmixev_hello *h, unsigned server_major,
		       const char *stores, uid_t job_uid, gid_t job_gid,
		       uid_t peer_uid, const char **why);

#endif /* PMIXEV_HELLO_H_ */
