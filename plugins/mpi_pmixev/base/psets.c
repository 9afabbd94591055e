/*
 * base/psets.c - the step's process sets (see psets.h).
 */
#include "config.h"

#include "base/psets.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void psets_name(uint32_t app, char name[PSETS_NAME_MAX])
{
	snprintf(name, PSETS_NAME_MAX, PSETS_PREFIX "%" PRIu32, app);
}

char *psets_names(const struct layout *lay)
{
	uint32_t n = psets_count(lay);
	size_t cap = (size_t)n * PSETS_NAME_MAX + 1, off = 0;
	char *out = malloc(cap), name[PSETS_NAME_MAX];

	if (!out)
		return NULL;
	out[0] = '\0';
	for (uint32_t a = 0; a < n; a++) {
		psets_name(a, name);
		off += (size_t)snprintf(out + off, cap - off, "%s%s",
					a ? "," : "", name);
	}
	return out;
}

int psets_app_of(const struct layout *lay, const char *name, uint32_t *app)
{
	const size_t plen = sizeof(PSETS_PREFIX) - 1;
	const char *num;
	uint64_t v = 0;

	if (!name || strncmp(name, PSETS_PREFIX, plen))
		return -1;
	num = name + plen;
	if (!*num || (num[0] == '0' && num[1]) || strlen(num) > 10)
		return -1;
	for (const char *c = num; *c; c++) {
		if (*c < '0' || *c > '9')
			return -1;
		v = v * 10 + (uint64_t)(*c - '0');
	}
	if (v >= psets_count(lay))
		return -1;
	*app = (uint32_t)v;
	return 0;
}
