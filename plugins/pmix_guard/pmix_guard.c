/*
 * pmix_guard.c - the guard in front of the PMIx library's
 * PMIx_Query_info_nb (see pmix_guard.h).
 */
#include "config.h"

#include "pmix_guard.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

/* An attribute query on its way: the caller's callback and data. */
struct carried {
	pmix_info_cbfunc_t cbfunc;
	void *cbdata;
	struct carried *next;
};

static pmixev_query_nb_fn library_query_nb; /* set before it is global */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct carried *oldest, **newest = &oldest; /* in the library's order */
static unsigned long ncarried, nmended;

void pmixev_guard_arm(pmixev_query_nb_fn library_fn)
{
	library_query_nb = library_fn;
}

static bool asks_attributes(const pmix_query_t q[], size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(q[i].keys[0], PMIX_QUERY_ATTRIBUTE_SUPPORT))
			return true;
	return false;
}

/* The entry for `cbdata` if it is one (a library that passes the
 * caller's data back), else, unless `exact`, the oldest (one that passes
 * its own: it answers attribute queries in the order it was given them);
 * unlinked. */
static struct carried *take(void *cbdata, bool exact, bool *mended)
{
	struct carried **p = &oldest, *c;

	pthread_mutex_lock(&lock);
	while (*p && *p != cbdata)
		p = &(*p)->next;
	*mended = !*p && !exact;
	if (!*p && !exact)
		p = &oldest;
	if ((c = *p)) {
		*p = c->next;
		if (!*p)
			newest = p;
		nmended += *mended;
	}
	pthread_mutex_unlock(&lock);
	return c;
}

static void on_answer(pmix_status_t status, pmix_info_t *info, size_t ninfo,
		      void *cbdata, pmix_release_cbfunc_t release_fn,
		      void *release_cbdata)
{
	bool mended;
	struct carried *c = take(cbdata, false, &mended);

	if (!c) { /* an answer nobody waits for */
		if (release_fn)
			release_fn(release_cbdata);
		return;
	}
	if (c->cbfunc)
		c->cbfunc(status, info, ninfo, c->cbdata, release_fn,
			  release_cbdata);
	else if (release_fn)
		release_fn(release_cbdata);
	free(c);
}

pmix_status_t PMIx_Query_info_nb(pmix_query_t queries[], size_t nqueries,
				 pmix_info_cbfunc_t cbfunc, void *cbdata)
{
	struct carried *c;
	pmix_status_t rc;

	if (!library_query_nb)
		return PMIX_ERR_NOT_SUPPORTED;
	if (!queries || !nqueries)
		return PMIX_ERR_BAD_PARAM;
	for (size_t i = 0; i < nqueries; i++)
		if (!queries[i].keys || !queries[i].keys[0])
			return PMIX_ERR_BAD_PARAM;
	if (!asks_attributes(queries, nqueries))
		return library_query_nb(queries, nqueries, cbfunc, cbdata);
	if (!(c = calloc(1, sizeof(*c))))
		return PMIX_ERR_NOMEM;
	c->cbfunc = cbfunc;
	c->cbdata = cbdata;
	pthread_mutex_lock(&lock);
	*newest = c;
	newest = &c->next;
	ncarried++;
	pthread_mutex_unlock(&lock);
	rc = library_query_nb(queries, nqueries, on_answer, c);
	if (rc != PMIX_SUCCESS) {
		bool mended;

		free(take(c, true, &mended));
	}
	return rc;
}

void pmixev_guard_counts(unsigned long *carried, unsigned long *mended)
{
	pthread_mutex_lock(&lock);
	*carried = ncarried;
	*mended = nmended;
	pthread_mutex_unlock(&lock);
}
