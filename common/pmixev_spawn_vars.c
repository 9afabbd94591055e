/*
 * pmixev_spawn_vars.c - the spawn variables a child step reads:
 * SLURM_PMIXEV_SPAWN_APPS, _LAYOUT, _PARENT and _ID (see
 * pmixev_spawn_cmd.h).
 */
#include "config.h"

#include "pmixev_base64.h"
#include "pmixev_spawn_cmd.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *pmixev_spawn_apps_encode(const struct pmixev_pmixd_spawn_app *apps,
			       uint32_t napps)
{
	struct pmixev_buf w;
	char *text = NULL;

	pmixev_buf_init(&w);
	if (pmixev_pmixd_spawn_apps_pack(&w, apps, napps) < 0) {
		if (errno != EINVAL)
			errno = ENOMEM;
		goto out;
	}
	if (pmixev_base64_len(w.len) > PMIXEV_SPAWN_APPS_MAX) {
		errno = E2BIG;
		goto out;
	}
	text = malloc(pmixev_base64_len(w.len) + 1);
	if (!text) {
		errno = ENOMEM;
		goto out;
	}
	pmixev_base64_encode(w.data, w.len, text);
out:
	pmixev_buf_release(&w);
	return text;
}

int pmixev_spawn_apps_decode(const char *value,
			     struct pmixev_pmixd_spawn_app **apps,
			     uint32_t *napps)
{
	size_t len = strnlen(value, PMIXEV_SPAWN_APPS_MAX + 1), n = 0;
	struct pmixev_buf r;
	uint8_t *raw;
	int rc = -1;

	*apps = NULL;
	*napps = 0;
	if (!len || len > PMIXEV_SPAWN_APPS_MAX)
		return -1;
	raw = malloc(len / 4 * 3 + 1);
	if (!raw)
		return -1;
	if (pmixev_base64_decode(value, len, raw, &n) == 0) {
		pmixev_buf_reader(&r, raw, n);
		rc = pmixev_pmixd_spawn_apps_unpack(&r, apps, napps);
	}
	free(raw);
	return rc;
}

/* A canonical decimal (no sign, no leading zero) ending at `end`. */
static int parse_dec(const char *s, const char *end, uint64_t max, uint64_t *v)
{
	uint64_t n = 0;

	if (s == end || (s[0] == '0' && end - s > 1))
		return -1;
	for (const char *p = s; p < end; p++) {
		unsigned d = (unsigned)(*p - '0');

		if (*p < '0' || *p > '9' || n > (max - d) / 10)
			return -1;
		n = n * 10 + d;
	}
	*v = n;
	return 0;
}

int pmixev_spawn_parent_format(char *buf, size_t len, const char *nspace,
			       uint32_t rank)
{
	int n;

	if (!nspace || !pmixev_pmixd_family_nspace(nspace) ||
	    rank >= PMIXEV_SPAWN_RANK_MAX) {
		errno = EINVAL;
		return -1;
	}
	n = snprintf(buf, len, "%s,%" PRIu32, nspace, rank);
	if (n < 0 || (size_t)n >= len) {
		errno = ENOSPC;
		return -1;
	}
	return 0;
}

int pmixev_spawn_parent_parse(const char *value, char nspace[PMIXEV_NSPACE_MAX],
			      uint32_t *rank)
{
	const char *comma = strrchr(value, ',');
	char ns[PMIXEV_NSPACE_MAX];
	uint64_t r = 0;
	size_t n;

	if (!comma)
		return -1;
	n = (size_t)(comma - value);
	if (n >= sizeof(ns) ||
	    parse_dec(comma + 1, comma + 1 + strlen(comma + 1),
		      PMIXEV_SPAWN_RANK_MAX - 1, &r) < 0)
		return -1;
	memcpy(ns, value, n);
	ns[n] = '\0';
	if (!pmixev_pmixd_family_nspace(ns))
		return -1;
	memcpy(nspace, ns, n + 1);
	*rank = (uint32_t)r;
	return 0;
}

int pmixev_spawn_id_format(char buf[PMIXEV_SPAWN_ID_LEN], uint64_t id)
{
	if (!id) {
		errno = EINVAL;
		return -1;
	}
	snprintf(buf, PMIXEV_SPAWN_ID_LEN, "%" PRIu64, id);
	return 0;
}

int pmixev_spawn_id_parse(const char *value, uint64_t *id)
{
	uint64_t v = 0;

	if (parse_dec(value, value + strnlen(value, PMIXEV_SPAWN_ID_LEN),
		      UINT64_MAX, &v) < 0 ||
	    !v)
		return -1;
	*id = v;
	return 0;
}

char *pmixev_spawn_layout_encode(const uint8_t *data, size_t n)
{
	char *text;

	if (!n || pmixev_base64_len(n) > PMIXEV_SPAWN_APPS_MAX) {
		errno = E2BIG;
		return NULL;
	}
	if (!(text = malloc(pmixev_base64_len(n) + 1))) {
		errno = ENOMEM;
		return NULL;
	}
	pmixev_base64_encode(data, n, text);
	return text;
}

int pmixev_spawn_layout_decode(const char *value, uint8_t **data, size_t *n)
{
	size_t len = strnlen(value, PMIXEV_SPAWN_APPS_MAX + 1);
	uint8_t *raw;

	*data = NULL;
	*n = 0;
	if (!len || len > PMIXEV_SPAWN_APPS_MAX ||
	    !(raw = malloc(len / 4 * 3 + 1)))
		return -1;
	if (pmixev_base64_decode(value, len, raw, n) < 0 || !*n) {
		free(raw);
		*n = 0;
		return -1;
	}
	*data = raw;
	return 0;
}
