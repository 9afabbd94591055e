/*
 * overlay/cred.h - handshake frames that carry a munge credential, made
 * and checked the same way by srun's rendezvous and by the stepds.
 *
 * A credential's payload is a packed pmixev_ident (hellos, welcome) or
 * srun's address table; munge vouches for the signer's uid. The rules a
 * credential is held to (doc/admin-guide.md, "Security model"): it must be
 * root's or one other uid's (SlurmdUser for stepds, the job owner for srun's
 * table), and an identity must name this job, this step and the receiver.
 * Blocking calls to munged (auth.h): on the agent thread (in srun, the
 * one the rendezvous starts).
 */
#ifndef PMIXEV_OVERLAY_CRED_H_
#define PMIXEV_OVERLAY_CRED_H_

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "overlay/auth.h"
#include "overlay/conn.h"
#include "pmixev_proto.h"

/* What a credential-carrying identity must be to be accepted. */
struct cred_rule {
	uid_t uid; /* who may sign besides root */
	uint32_t job_id;
	uint32_t step_id;
	uint32_t to; /* the receiver it names: a node id or PMIXEV_NODE_SRUN */
};

/*
 * Send a frame of `type` whose body is a credential over `len` bytes at
 * `payload`. 0, or -1 with the reason in `err`.
 */
int cred_send(struct auth *auth, struct conn *c, uint8_t type, uint32_t src,
	      uint32_t dst, const void *payload, size_t len, char *err,
	      size_t errlen);

/*
 * The credential over the identity `id` (malloc'd, *len bytes), to send
 * later with cred_send_made: a hello signed while the signer still runs.
 * 0, or -1 with the reason in `err`.
 */
int cred_make_ident(struct auth *auth, const struct pmixev_ident *id,
		    char **cred, size_t *len, char *err, size_t errlen);

/* Send a frame of `type` carrying the credential `cred` made before. */
int cred_send_made(struct conn *c, uint8_t type, uint32_t src, uint32_t dst,
		   const char *cred, size_t len);

/* The same over the identity `id`, from id->from to id->to. */
int cred_send_ident(struct auth *auth, struct conn *c, uint8_t type,
		    const struct pmixev_ident *id, char *err, size_t errlen);

/*
 * Open a credential-carrying body: 0 with the payload (malloc'd, *plen
 * bytes) when munge vouches for it and the signer is root or `uid`; else
 * -1 with the reason in `why`.
 */
int cred_open(struct auth *auth, const uint8_t *data, size_t len, uid_t uid,
	      void **payload, size_t *plen, char *why, size_t whylen);

/* Open an identity and hold it to `rule`: 0 and *id, or -1 and `why`. */
int cred_check_ident(struct auth *auth, const uint8_t *data, size_t len,
		     const struct cred_rule *rule, struct pmixev_ident *id,
		     char *why, size_t whylen);

#endif /* PMIXEV_OVERLAY_CRED_H_ */
