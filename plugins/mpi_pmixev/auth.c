/*
 * auth.c - munge credentials.
 */
#include "config.h"

#include "auth.h"

#include <munge.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct auth {
	munge_ctx_t ctx;
};

/* The value of socket= in a comma-separated AuthInfo, malloc'd, or NULL. */
static char *authinfo_socket(const char *authinfo)
{
	const char *p = authinfo;

	while (p && *p) {
		size_t n = strcspn(p, ",");

		if (n > 7 && strncmp(p, "socket=", 7) == 0)
			return strndup(p + 7, n - 7);
		p += n;
		if (*p == ',')
			p++;
	}
	return NULL;
}

struct auth *auth_create(const char *authinfo)
{
	struct auth *auth = calloc(1, sizeof(*auth));
	char *socket = authinfo_socket(authinfo);

	if (!auth || !(auth->ctx = munge_ctx_create()))
		goto fail;
	if (socket && munge_ctx_set(auth->ctx, MUNGE_OPT_SOCKET, socket) !=
			      EMUNGE_SUCCESS)
		goto fail;
	free(socket);
	return auth;
fail:
	free(socket);
	auth_destroy(auth);
	return NULL;
}

void auth_destroy(struct auth *auth)
{
	if (!auth)
		return;
	if (auth->ctx)
		munge_ctx_destroy(auth->ctx);
	free(auth);
}

int auth_encode(struct auth *auth, const void *payload, size_t len, char **cred,
		size_t *credlen, char *err, size_t errlen)
{
	munge_err_t rc;
	char *c = NULL;

	if (len > INT32_MAX) {
		snprintf(err, errlen, "payload too large");
		return -1;
	}
	rc = munge_encode(&c, auth->ctx, payload, (int)len);
	if (rc != EMUNGE_SUCCESS) {
		snprintf(err, errlen, "munge_encode: %s",
			 munge_ctx_strerror(auth->ctx)
				 ? munge_ctx_strerror(auth->ctx)
				 : munge_strerror(rc));
		free(c);
		return -1;
	}
	*cred = c;
	*credlen = strlen(c);
	return 0;
}

int auth_decode(struct auth *auth, const void *cred, size_t credlen,
		void **payload, size_t *len, uid_t *uid, char *err,
		size_t errlen)
{
	char *text = NULL;
	void *buf = NULL;
	int n = 0, rc = -1;
	gid_t gid;
	munge_err_t mrc;

	if (credlen == 0 || credlen > 65536 || memchr(cred, '\0', credlen)) {
		snprintf(err, errlen, "malformed credential");
		return -1;
	}
	if (!(text = strndup(cred, credlen))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	mrc = munge_decode(text, auth->ctx, &buf, &n, uid, &gid);
	if (mrc != EMUNGE_SUCCESS) {
		snprintf(err, errlen, "munge_decode: %s",
			 munge_ctx_strerror(auth->ctx)
				 ? munge_ctx_strerror(auth->ctx)
				 : munge_strerror(mrc));
		free(buf);
		goto out;
	}
	*payload = buf;
	*len = (size_t)n;
	rc = 0;
out:
	free(text);
	return rc;
}
