/*
 * pmixbase/directives.c - the directives of a client's infos (PMIX_TIMEOUT,
 * PMIX_COLLECT_DATA, PMIX_WAIT). Pure code, called on the PMIx progress
 * thread by the upcalls that copy their arguments.
 */
#include "config.h"

#include "pmixbase/directives.h"

#include <string.h>

void directives_read(const pmix_info_t info[], size_t ninfo,
		     struct directives *d)
{
	bool have_collect = false;

	memset(d, 0, sizeof(*d));
	for (size_t i = 0; i < ninfo; i++) {
		const pmix_info_t *in = &info[i];

		if (PMIX_CHECK_KEY(in, PMIX_TIMEOUT)) {
			if (!d->timeout_sec && in->value.type == PMIX_INT &&
			    in->value.data.integer > 0)
				d->timeout_sec =
					(unsigned)in->value.data.integer;
		} else if (PMIX_CHECK_KEY(in, PMIX_COLLECT_DATA)) {
			if (!have_collect)
				d->collect = PMIX_INFO_TRUE(in);
			have_collect = true;
		} else if (PMIX_CHECK_KEY(in, PMIX_WAIT)) {
			d->wait = true;
		}
	}
}

bool directives_is_directive(const char *key)
{
	return strncmp(key, "pmix.", 5) == 0;
}
