/*
 * pmixside/spawn_map.c - PMIx_Spawn's placement directives (see
 * spawn_map.h).
 */
#include "config.h"

#include "pmixside/spawn_map.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pmixev_pmixd_spawn.h"

/* Is s[0..n) the word `w` (any case)? */
static bool word_is(const char *s, size_t n, const char *w)
{
	return n == strlen(w) && !strncasecmp(s, w, n);
}

/* A mapping or ranking policy: the distribution Slurm gives, or -1. */
static int policy_dist(const char *s, size_t n)
{
	if (word_is(s, n, "slot") || word_is(s, n, "core") ||
	    word_is(s, n, "hwthread"))
		return PMIXEV_PMIXD_DIST_BLOCK;
	if (word_is(s, n, "node"))
		return PMIXEV_PMIXD_DIST_CYCLIC;
	return -1;
}

/* "N:node" and what follows it (*rest: a ':' or ',', or the end). */
static pmix_status_t read_ppr(const char *key, const char *s,
			      struct spawn_map *m, const char **rest, char *why,
			      size_t len)
{
	unsigned long n;
	char *end;
	size_t res;

	errno = 0;
	n = strtoul(s, &end, 10);
	if (*s < '1' || *s > '9' || errno || *end != ':' || n > UINT16_MAX) {
		snprintf(why, len, "bad %s: not N:node, N in 1..65535", key);
		return PMIX_ERR_BAD_PARAM;
	}
	res = strcspn(end + 1, ":,");
	if (!word_is(end + 1, res, "node")) {
		snprintf(why, len,
			 "%s: processes per %.*s: Slurm places them per node "
			 "only",
			 key, (int)res, end + 1);
		return PMIX_ERR_NOT_SUPPORTED;
	}
	m->ppn = (uint32_t)n;
	*rest = end + 1 + res;
	return PMIX_SUCCESS;
}

/* MAPBY's modifiers, each after a ':' or ','. */
static pmix_status_t read_mods(const char *key, const char *s,
			       struct spawn_map *m, char *why, size_t len)
{
	while (*s++) {
		size_t n = strcspn(s, ":,");

		if (word_is(s, n, "oversubscribe")) {
			m->overlap = true;
		} else if (!word_is(s, n, "nooversubscribe") &&
			   !word_is(s, n, "display") &&
			   !word_is(s, n, "displaydevel")) {
			snprintf(why, len,
				 "%s: modifier '%.*s' is not one Slurm can "
				 "give",
				 key, (int)n, s);
			return PMIX_ERR_NOT_SUPPORTED;
		}
		s += n;
	}
	return PMIX_SUCCESS;
}

pmix_status_t spawn_map_read(const char *key, const char *s, bool mapby,
			     struct spawn_map *m, char *why, size_t len)
{
	size_t n = strcspn(s, ":");
	const char *rest = s + n;
	pmix_status_t st;

	if (!mapby) {
		st = read_ppr(key, s, m, &rest, why, len);
		if (st == PMIX_SUCCESS && *rest) {
			snprintf(why, len, "bad %s: not N:node", key);
			st = PMIX_ERR_BAD_PARAM;
		}
		return st;
	}
	if (word_is(s, n, "ppr")) {
		if (!s[n]) {
			snprintf(why, len, "bad %s: not ppr:N:node", key);
			return PMIX_ERR_BAD_PARAM;
		}
		if ((st = read_ppr(key, s + n + 1, m, &rest, why, len)))
			return st;
	} else if (n && (m->dist = policy_dist(s, n)) < 0) {
		snprintf(why, len,
			 "%s: mapping by %.*s is not one Slurm can give", key,
			 (int)n, s);
		return PMIX_ERR_NOT_SUPPORTED;
	}
	return read_mods(key, rest, m, why, len);
}

int spawn_map_rankby(const char *s)
{
	return policy_dist(s, strlen(s));
}

int spawn_map_bindto(const char *s)
{
	static const struct {
		const char *word;
		enum pmixev_pmixd_spawn_bind bind;
	} binds[] = {
		{"none", PMIXEV_PMIXD_BIND_NONE},
		{"core", PMIXEV_PMIXD_BIND_CORES},
		{"hwthread", PMIXEV_PMIXD_BIND_THREADS},
		{"package", PMIXEV_PMIXD_BIND_SOCKETS},
		{"socket", PMIXEV_PMIXD_BIND_SOCKETS},
	};

	for (size_t i = 0; i < sizeof(binds) / sizeof(binds[0]); i++)
		if (word_is(s, strlen(s), binds[i].word))
			return binds[i].bind;
	return -1;
}
