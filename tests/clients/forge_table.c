/*
 * forge_table.so - what the job's user can do to srun, which runs as them:
 * preloaded into srun (LD_PRELOAD), it rewrites the address table srun is
 * about to sign with munge, so that node 1's entry points at
 * $PMIXEV_FORGE_HOST (a host that is not node 1). Anything else srun
 * signs passes unchanged. Used by tests/integration/34-overlay-admission.t.
 */
#define _GNU_SOURCE
#include "config.h"

#include <dlfcn.h>
#include <munge.h>
#include <stdio.h>
#include <stdlib.h>

#include "pmixev_buf.h"
#include "pmixev_proto.h"

typedef munge_err_t (*encode_fn)(char **, munge_ctx_t, const void *, int);

/* libmunge's own: srun loads it with plugins (RTLD_LOCAL), after us. */
static encode_fn real_encode(void)
{
	static encode_fn fn;
	void *lib;

	if (!fn && !(fn = (encode_fn)dlsym(RTLD_NEXT, "munge_encode")) &&
	    (lib = dlopen("libmunge.so.2", RTLD_NOW | RTLD_LOCAL)))
		fn = (encode_fn)dlsym(lib, "munge_encode");
	return fn;
}

munge_err_t munge_encode(char **cred, munge_ctx_t ctx, const void *buf, int len)
{
	encode_fn real = real_encode();
	const char *host = getenv("PMIXEV_FORGE_HOST");
	struct pmixev_table t = {0};
	struct pmixev_buf in, out;
	munge_err_t rc;

	if (!real)
		return EMUNGE_SNAFU;
	if (!host || !buf || len <= 0)
		return real(cred, ctx, buf, len);
	pmixev_buf_reader(&in, buf, (size_t)len);
	if (pmixev_table_unpack(&in, &t) < 0 || t.nnodes < 2) {
		free(t.nodes);
		return real(cred, ctx, buf, len);
	}
	snprintf(t.nodes[1].host, sizeof(t.nodes[1].host), "%s", host);
	fprintf(stderr, "forge_table: node 1 is now at %s:%u\n", host,
		t.nodes[1].port);
	pmixev_buf_init(&out);
	if (pmixev_table_pack(&out, &t) == 0)
		rc = real(cred, ctx, out.data, (int)out.len);
	else
		rc = EMUNGE_NO_MEMORY;
	pmixev_buf_release(&out);
	free(t.nodes);
	return rc;
}
