/*
 * pmixbase/directives.c - the directives of a client's infos (PMIX_TIMEOUT,
 * PMIX_COLLECT_DATA, PMIX_WAIT, PMIX_RANGE, PMIX_PERSISTENCE). Pure code,
 * called on the PMIx progress thread by the upcalls that copy their
 * arguments.
 */
#include "config.h"

#include "pmixbase/directives.h"

#include <string.h>

/* A one-byte enumeration's value: its own type or a plain uint8. */
static uint8_t read_u8(const pmix_value_t *v, pmix_data_type_t type)
{
	if (v->type == type)
		return type == PMIX_DATA_RANGE ? v->data.range
					       : v->data.persist;
	return v->type == PMIX_UINT8 ? v->data.uint8 : UINT8_MAX;
}

void directives_read(const pmix_info_t info[], size_t ninfo,
		     struct directives *d)
{
	bool have_collect = false, have_range = false, have_persist = false;

	memset(d, 0, sizeof(*d));
	d->range = PMIX_RANGE_UNDEF;
	d->persist = PMIX_PERSIST_INDEF;
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
		} else if (PMIX_CHECK_KEY(in, PMIX_RANGE)) {
			if (!have_range)
				d->range = read_u8(&in->value, PMIX_DATA_RANGE);
			have_range = true;
		} else if (PMIX_CHECK_KEY(in, PMIX_PERSISTENCE)) {
			if (!have_persist)
				d->persist = read_u8(&in->value, PMIX_PERSIST);
			have_persist = true;
		}
	}
}

bool directives_is_directive(const char *key)
{
	return strncmp(key, "pmix.", 5) == 0;
}
