/*
 * pmixev_multiprog.c - application numbers from a multi-prog configuration.
 */
#include "config.h"

#include "pmixev_multiprog.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmixev_taskmap.h"

#define NO_APP UINT32_MAX

/* Mark the ranks of list `s` (up to `end`) not yet taken with `app`. */
static int take_ranks(const char *s, const char *end, uint32_t ntasks,
		      uint32_t *app_of, uint32_t app, int *named, char *err,
		      size_t errlen)
{
	if (end - s == 1 && *s == '*') {
		for (uint32_t r = 0; r < ntasks; r++)
			if (app_of[r] == NO_APP) {
				app_of[r] = app;
				*named = 1;
			}
		return 0;
	}
	while (s < end) {
		unsigned long a, b;
		char *p;

		if (!isdigit((unsigned char)*s))
			goto bad;
		errno = 0;
		a = b = strtoul(s, &p, 10);
		if (p < end && *p == '-') {
			if (!isdigit((unsigned char)p[1]))
				goto bad;
			b = strtoul(p + 1, &p, 10);
		}
		if (errno || p > end || b < a || (p < end && *p != ','))
			goto bad;
		if (b >= ntasks) {
			snprintf(err, errlen, "rank %lu is not below %u", b,
				 ntasks);
			return -1;
		}
		for (unsigned long r = a; r <= b; r++)
			if (app_of[r] == NO_APP) {
				app_of[r] = app;
				*named = 1;
			}
		s = p < end ? p + 1 : p;
	}
	return 0;
bad:
	snprintf(err, errlen, "malformed rank list '%.*s'", (int)(end - s), s);
	return -1;
}

char *pmixev_multiprog_appmap(const char *text, uint32_t ntasks,
			      uint32_t *napps, char *err, size_t errlen)
{
	uint32_t *app_of = NULL, **ranks = NULL, app = 0;
	uint16_t *count = NULL;
	char *map = NULL;
	const char *line = text;

	/* Application sizes travel as uint16, like Slurm's tasks per node. */
	if (!ntasks || ntasks > UINT16_MAX) {
		snprintf(err, errlen, "steps of %u tasks are not supported",
			 ntasks);
		return NULL;
	}
	if (!(app_of = malloc(ntasks * sizeof(*app_of)))) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	for (uint32_t r = 0; r < ntasks; r++)
		app_of[r] = NO_APP;
	while (line && *line) {
		const char *eol = strchr(line, '\n'), *s = line, *e;
		int named = 0;

		if (!eol)
			eol = line + strlen(line);
		while (s < eol && isspace((unsigned char)*s))
			s++;
		for (e = s; e < eol && !isspace((unsigned char)*e); e++)
			;
		if (s < e && *s != '#') {
			if (take_ranks(s, e, ntasks, app_of, app, &named, err,
				       errlen) < 0)
				goto out;
			app += named;
		}
		line = *eol ? eol + 1 : eol;
	}
	for (uint32_t r = 0; r < ntasks; r++)
		if (app_of[r] == NO_APP) {
			snprintf(err, errlen, "no line names rank %u", r);
			goto out;
		}
	if (!(count = calloc(app, sizeof(*count))) ||
	    !(ranks = calloc(app, sizeof(*ranks))))
		goto nomem;
	for (uint32_t a = 0; a < app; a++)
		if (!(ranks[a] = malloc(ntasks * sizeof(**ranks))))
			goto nomem;
	for (uint32_t r = 0; r < ntasks; r++)
		ranks[app_of[r]][count[app_of[r]]++] = r;
	if (!(map = pmixev_taskmap_format(app, count, ranks)))
		goto nomem;
	*napps = app;
	goto out;
nomem:
	snprintf(err, errlen, "out of memory");
out:
	for (uint32_t a = 0; ranks && a < app; a++)
		free(ranks[a]);
	free(ranks);
	free(count);
	free(app_of);
	return map;
}
