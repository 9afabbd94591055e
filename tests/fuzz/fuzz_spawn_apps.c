/*
 * fuzz_spawn_apps.c - libFuzzer target for what a child step reads from
 * its environment (common/pmixev_spawn_cmd.c, pmixev_base64.c): the
 * values of SLURM_PMIXEV_SPAWN_APPS, _PARENT and _ID.
 *
 * The input, made a C string at its first NUL, is decoded as each value.
 * Invariants: what decodes encodes back to the same text (base64, the
 * apps, the parent and the id are canonical), decoded apps keep
 * SPAWN's bounds, and raw base64 decoding of the whole input agrees
 * with its re-encoding.
 */
#include "config.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pmixev_base64.h"
#include "pmixev_spawn_cmd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_apps(const char *value)
{
	struct pmixev_pmixd_spawn_app *apps = NULL;
	uint64_t procs = 0;
	uint32_t napps = 0;
	char *again;

	if (pmixev_spawn_apps_decode(value, &apps, &napps) < 0) {
		if (apps || napps)
			abort();
		return;
	}
	if (!napps || napps > PMIXEV_PMIXD_SPAWN_APPS)
		abort();
	for (uint32_t i = 0; i < napps; i++)
		procs += apps[i].maxprocs;
	if (!procs || procs > PMIXEV_PMIXD_SPAWN_PROCS)
		abort();
	again = pmixev_spawn_apps_encode(apps, napps);
	if (!again || strcmp(again, value) != 0)
		abort();
	free(again);
	pmixev_pmixd_spawn_apps_free(apps, napps);
}

static void fuzz_parent_id(const char *value)
{
	char ns[PMIXEV_NSPACE_MAX], buf[PMIXEV_NSPACE_MAX + 16];
	char id[PMIXEV_SPAWN_ID_LEN];
	uint32_t rank = 0;
	uint64_t v = 0;

	if (pmixev_spawn_parent_parse(value, ns, &rank) == 0 &&
	    (pmixev_spawn_parent_format(buf, sizeof(buf), ns, rank) < 0 ||
	     strcmp(buf, value) != 0))
		abort();
	if (pmixev_spawn_id_parse(value, &v) == 0 &&
	    (!v || pmixev_spawn_id_format(id, v) < 0 || strcmp(id, value)))
		abort();
}

static void fuzz_base64(const char *value, size_t len)
{
	uint8_t *raw = malloc(len / 4 * 3 + 1);
	char *text;
	size_t n = 0;

	if (!raw)
		abort();
	if (pmixev_base64_decode(value, len, raw, &n) == 0) {
		if (pmixev_base64_len(n) != len)
			abort();
		text = malloc(len + 1);
		if (!text)
			abort();
		pmixev_base64_encode(raw, n, text);
		if (memcmp(text, value, len + 1) != 0)
			abort();
		free(text);
	}
	free(raw);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *value = malloc(size + 1);

	if (!value)
		abort();
	memcpy(value, data, size);
	value[size] = '\0';
	fuzz_apps(value);
	fuzz_parent_id(value);
	fuzz_base64(value, strlen(value));
	free(value);
	return 0;
}
