/*
 * overlay/cred.c - credential-carrying handshake frames, made and checked
 * for srun's rendezvous and for the stepds; on the agent thread (in srun,
 * the one the rendezvous starts).
 */
#include "config.h"

#include "overlay/cred.h"

#include <stdio.h>
#include <stdlib.h>

#include "pmixev_buf.h"

int cred_send(struct auth *auth, struct conn *c, uint8_t type, uint32_t src,
	      uint32_t dst, const void *payload, size_t len, char *err,
	      size_t errlen)
{
	struct pmixev_buf msg;
	char *cred = NULL;
	size_t credlen = 0;
	int rc = -1;

	pmixev_buf_init(&msg);
	if (auth_encode(auth, payload, len, &cred, &credlen, err, errlen) < 0)
		goto out;
	if (pmixev_cred_pack(&msg, cred, credlen) < 0 ||
	    conn_send(c, type, src, dst, msg.data, msg.len) < 0) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	rc = 0;
out:
	free(cred);
	pmixev_buf_release(&msg);
	return rc;
}

int cred_send_ident(struct auth *auth, struct conn *c, uint8_t type,
		    const struct pmixev_ident *id, char *err, size_t errlen)
{
	struct pmixev_buf body;
	int rc = -1;

	pmixev_buf_init(&body);
	if (pmixev_ident_pack(&body, id) < 0)
		snprintf(err, errlen, "out of memory");
	else
		rc = cred_send(auth, c, type, id->from, id->to, body.data,
			       body.len, err, errlen);
	pmixev_buf_release(&body);
	return rc;
}

int cred_make_ident(struct auth *auth, const struct pmixev_ident *id,
		    char **cred, size_t *len, char *err, size_t errlen)
{
	struct pmixev_buf body;
	int rc = -1;

	pmixev_buf_init(&body);
	if (pmixev_ident_pack(&body, id) < 0)
		snprintf(err, errlen, "out of memory");
	else
		rc = auth_encode(auth, body.data, body.len, cred, len, err,
				 errlen);
	pmixev_buf_release(&body);
	return rc;
}

int cred_send_made(struct conn *c, uint8_t type, uint32_t src, uint32_t dst,
		   const char *cred, size_t len)
{
	struct pmixev_buf msg;
	int rc = -1;

	pmixev_buf_init(&msg);
	if (pmixev_cred_pack(&msg, cred, len) == 0)
		rc = conn_send(c, type, src, dst, msg.data, msg.len);
	pmixev_buf_release(&msg);
	return rc;
}

int cred_open(struct auth *auth, const uint8_t *data, size_t len, uid_t uid,
	      void **payload, size_t *plen, char *why, size_t whylen)
{
	struct pmixev_buf b;
	const uint8_t *cred;
	size_t credlen;
	uid_t signer;

	*payload = NULL;
	pmixev_buf_reader(&b, data, len);
	if (pmixev_cred_unpack(&b, &cred, &credlen) < 0) {
		snprintf(why, whylen, "malformed handshake");
		return -1;
	}
	if (auth_decode(auth, cred, credlen, payload, plen, &signer, why,
			whylen) < 0)
		return -1;
	if (signer == 0 || signer == uid)
		return 0;
	snprintf(why, whylen, "credential of uid %u", (unsigned)signer);
	free(*payload);
	*payload = NULL;
	return -1;
}

int cred_check_ident(struct auth *auth, const uint8_t *data, size_t len,
		     const struct cred_rule *rule, struct pmixev_ident *id,
		     char *why, size_t whylen)
{
	struct pmixev_buf b;
	void *payload = NULL;
	size_t plen = 0;
	int rc = -1;

	if (cred_open(auth, data, len, rule->uid, &payload, &plen, why,
		      whylen) < 0)
		return -1;
	pmixev_buf_reader(&b, payload, plen);
	if (pmixev_ident_unpack(&b, id) < 0)
		snprintf(why, whylen, "malformed identity");
	else if (id->job_id != rule->job_id || id->step_id != rule->step_id)
		snprintf(why, whylen, "it belongs to step %u.%u", id->job_id,
			 id->step_id);
	else if (id->to != rule->to && id->to == PMIXEV_NODE_SRUN)
		snprintf(why, whylen, "credential is for srun");
	else if (id->to != rule->to)
		snprintf(why, whylen, "credential is for node %u", id->to);
	else
		rc = 0;
	free(payload);
	return rc;
}
