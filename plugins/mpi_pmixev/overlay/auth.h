/*
 * overlay/auth.h - munge credentials for overlay handshakes.
 *
 * A handshake message carries a munge credential whose payload is the
 * sender's packed identity; munge vouches for the sender's uid and the
 * payload's integrity and refuses replays. Uses the munged socket Slurm
 * itself uses (AuthInfo=socket=... in slurm.conf, else munge's default).
 * Blocking calls to munged: use on the agent thread only.
 */
#ifndef PMIXEV_OVERLAY_AUTH_H_
#define PMIXEV_OVERLAY_AUTH_H_

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct auth;

/*
 * `authinfo` is slurm.conf's AuthInfo (may be NULL). With `signer` (in
 * slurmstepd, as root) credentials are made by a child process that stays
 * root, so they always carry uid 0 whatever uid slurmstepd switches to.
 * NULL on failure (signer: also when not root).
 */
struct auth *auth_create(const char *authinfo, bool signer);
void auth_destroy(struct auth *auth);

/*
 * A credential for `len` bytes at `payload`: malloc'd text in *cred,
 * length in *credlen. Returns 0, or -1 with the reason in `err`.
 */
int auth_encode(struct auth *auth, const void *payload, size_t len, char **cred,
		size_t *credlen, char *err, size_t errlen);

/*
 * Check a credential: 0 with the payload (malloc'd, *len bytes) and the
 * sender's uid, or -1 with munge's reason in `err` (invalid, expired,
 * replayed, ...).
 */
int auth_decode(struct auth *auth, const void *cred, size_t credlen,
		void **payload, size_t *len, uid_t *uid, char *err,
		size_t errlen);

/*
 * The signer went away: Slurm kills it with the step's processes when the
 * step ends (a short step may end before its stepds' handshakes).
 */
bool auth_signer_gone(const struct auth *auth);

#endif /* PMIXEV_OVERLAY_AUTH_H_ */
