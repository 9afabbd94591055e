/*
 * pmixbase/infos.c - infos handed to the library (see infos.h).
 */
#include "config.h"

#include "pmixbase/infos.h"

#include <stdlib.h>

struct infos *infos_create(size_t nalloc)
{
	pmix_info_t *info;

	PMIX_INFO_CREATE(info, nalloc ? nalloc : 1);
	if (!info)
		return NULL;
	return infos_take(info, nalloc ? nalloc : 1, 0);
}

struct infos *infos_take(pmix_info_t *info, size_t nalloc, size_t n)
{
	struct infos *s = malloc(sizeof(*s));

	if (!s) {
		PMIX_INFO_FREE(info, nalloc);
		return NULL;
	}
	*s = (struct infos){.info = info, .n = n, .nalloc = nalloc};
	return s;
}

void infos_release(void *cbdata)
{
	struct infos *s = cbdata;

	if (!s)
		return;
	PMIX_INFO_FREE(s->info, s->nalloc);
	free(s);
}

void infos_done(pmix_status_t status, void *cbdata)
{
	(void)status;
	infos_release(cbdata);
}
