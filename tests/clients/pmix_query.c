/*
 * pmix_query - what PMIx_Query_info tells a rank about its step.
 *
 * usage: pmix_query [--nspace NS] [--bad-qualifiers] KEY...
 *
 * One query (PMIX_QUERY_REFRESH_CACHE, so the host answers on every
 * OpenPMIx) with the KEYs; a KEY may be a short name: namespaces, nsinfo,
 * spawn, debug, uri, numpsets, psetnames. --nspace NS qualifies it with
 * PMIX_NSPACE; --bad-qualifiers with PMIX_PROCID and PMIX_RANK together
 * (which the standard makes PMIX_ERR_BAD_PARAM).
 *
 * Prints "pmix_query: rank R on HOST: status STATUS" and one line per
 * answer, "pmix_query: rank R on HOST: KEY = VALUE" (a string in quotes, a
 * number, or for an array of info arrays "[k=v k=v] ..."). Exit status 0
 * unless PMIx_Init failed.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#define PROG "pmix_query"
#include "client_util.h"

static const struct {
	const char *word, *key;
} shorts[] = {
	{"namespaces", PMIX_QUERY_NAMESPACES},
	{"nsinfo", PMIX_QUERY_NAMESPACE_INFO},
	{"spawn", PMIX_QUERY_SPAWN_SUPPORT},
	{"debug", PMIX_QUERY_DEBUG_SUPPORT},
	{"uri", PMIX_SERVER_URI},
	{"numpsets", PMIX_QUERY_NUM_PSETS},
	{"psetnames", PMIX_QUERY_PSET_NAMES},
};

static const char *key_of(const char *word)
{
	for (size_t i = 0; i < sizeof(shorts) / sizeof(shorts[0]); i++)
		if (!strcmp(word, shorts[i].word))
			return shorts[i].key;
	return word;
}

/* A value as text into buf (size len). */
static void value_text(const pmix_value_t *v, char *buf, size_t len)
{
	const pmix_data_array_t *da;
	size_t off = 0;

	switch (v->type) {
	case PMIX_STRING:
		snprintf(buf, len, "'%s'",
			 v->data.string ? v->data.string : "");
		return;
	case PMIX_SIZE:
		snprintf(buf, len, "%zu", v->data.size);
		return;
	case PMIX_UINT32:
		snprintf(buf, len, "%" PRIu32, v->data.uint32);
		return;
	case PMIX_DATA_ARRAY:
		da = v->data.darray;
		off = (size_t)snprintf(buf, len, "[");
		for (size_t i = 0;
		     da && da->type == PMIX_INFO && i < da->size && off < len;
		     i++) {
			const pmix_info_t *in = &((pmix_info_t *)da->array)[i];
			char sub[512];

			value_text(&in->value, sub, sizeof(sub));
			off += (size_t)snprintf(buf + off, len - off, "%s%s=%s",
						i ? " " : "", in->key, sub);
		}
		if (off < len)
			snprintf(buf + off, len - off, "]");
		return;
	default:
		snprintf(buf, len, "(type %u)", (unsigned)v->type);
	}
}

int main(int argc, char **argv)
{
	const char *nspace = NULL;
	bool bad = false;
	pmix_info_t *res = NULL;
	pmix_query_t *q;
	size_t nres = 0, nq = 0;
	pmix_proc_t me;
	pmix_status_t rc;
	int i = 1;
	bool yes = true;

	for (; i < argc && !strncmp(argv[i], "--", 2); i++) {
		if (!strcmp(argv[i], "--nspace") && i + 1 < argc)
			nspace = argv[++i];
		else if (!strcmp(argv[i], "--bad-qualifiers"))
			bad = true;
		else
			break;
	}
	if (i >= argc) {
		fprintf(stderr, "usage: " PROG " [--nspace NS] "
				"[--bad-qualifiers] KEY...\n");
		return 2;
	}
	client_watchdog(PROG, 0);
	if ((rc = PMIx_Init(&me, NULL, 0)) != PMIX_SUCCESS) {
		printf(PROG ": PMIx_Init: %s\n", PMIx_Error_string(rc));
		return 1;
	}
	PMIX_QUERY_CREATE(q, 1);
	for (; i < argc; i++)
		PMIX_ARGV_APPEND(rc, q[0].keys, key_of(argv[i]));
	PMIX_INFO_CREATE(q[0].qualifiers, 4);
	PMIX_INFO_LOAD(&q[0].qualifiers[nq++], PMIX_QUERY_REFRESH_CACHE, &yes,
		       PMIX_BOOL);
	if (nspace)
		PMIX_INFO_LOAD(&q[0].qualifiers[nq++], PMIX_NSPACE, nspace,
			       PMIX_STRING);
	if (bad) {
		PMIX_INFO_LOAD(&q[0].qualifiers[nq++], PMIX_PROCID, &me,
			       PMIX_PROC);
		PMIX_INFO_LOAD(&q[0].qualifiers[nq++], PMIX_RANK, &me.rank,
			       PMIX_PROC_RANK);
	}
	q[0].nqual = nq;
	rc = PMIx_Query_info(q, 1, &res, &nres);
	printf(PROG ": rank %u on %s: status %s\n", me.rank, client_host(),
	       PMIx_Error_string(rc));
	for (size_t r = 0; r < nres; r++) {
		char text[2048];

		value_text(&res[r].value, text, sizeof(text));
		printf(PROG ": rank %u on %s: %s = %s\n", me.rank,
		       client_host(), res[r].key, text);
	}
	PMIX_INFO_FREE(res, nres);
	PMIX_QUERY_FREE(q, 1);
	PMIx_Finalize(NULL, 0);
	return 0;
}
