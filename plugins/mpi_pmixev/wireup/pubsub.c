/*
 * wireup/pubsub.c - the publish, lookup and unpublish upcalls: convert
 * between PMIx values and the directory's packed entries (pubsub_dir.c).
 *
 * PMIx progress thread: pubsub_upcall_publish, pubsub_upcall_lookup and
 * pubsub_upcall_unpublish copy their arguments (packing published values)
 * and post them to the agent. Agent thread: pubsub_agent hands the
 * request to the directory, and pubsub_answer_agent answers through the
 * upcall's PMIx callback (unpacking looked-up values).
 */
#include "config.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "pmixev_log.h"
#include "base/agent.h"
#include "base/step.h"
#include "pmixbase/directives.h"
#include "wireup/pubsub.h"
#include "wireup/pubsub_dir.h"
#include "pmixbase/status.h"
#include "pmixbase/wire.h"

struct ps_call {
	enum pubsub_op op;
	uint32_t rank;
	bool wait;
	unsigned timeout;
	struct pubsub_entry *e;
	size_t n;
	pmix_op_cbfunc_t op_cb;
	pmix_lookup_cbfunc_t lookup_cb;
	void *cbdata;
};

static void call_free(struct ps_call *c)
{
	for (size_t i = 0; c->e && i < c->n; i++)
		free(c->e[i].value);
	free(c->e);
	free(c);
}

/* --- agent thread --------------------------------------------------------- */

/* The directory answered (or the request failed). */
static void pubsub_answer_agent(enum pmixev_result result,
				const struct pubsub_entry *e, size_t n,
				void *arg)
{
	const struct step *s = step_served();
	struct ps_call *c = arg;
	pmix_pdata_t *pd = NULL;

	if (c->op != PUBSUB_LOOKUP) {
		status_answer_op(c->op_cb, c->cbdata, result);
		call_free(c);
		return;
	}
	if (result == PMIXEV_OK && n) {
		PMIX_PDATA_CREATE(pd, n);
		for (size_t i = 0; pd && i < n; i++) {
			PMIX_LOAD_PROCID(&pd[i].proc, s->lay.nspace, e[i].rank);
			PMIX_LOAD_KEY(pd[i].key, e[i].key);
			if (wire_unpack_value(e[i].value, e[i].nvalue,
					      &pd[i].value) != PMIX_SUCCESS)
				result = PMIXEV_ERR_BAD_DATA;
		}
		if (!pd)
			result = PMIXEV_ERR_NOMEM;
	}
	c->lookup_cb(status_to_pmix(result), result == PMIXEV_OK ? pd : NULL,
		     result == PMIXEV_OK ? n : 0, c->cbdata);
	if (pd)
		PMIX_PDATA_FREE(pd, n);
	call_free(c);
}

static void pubsub_agent(void *arg)
{
	struct ps_call *c = arg;

	pubsub_request(step_served()->pubsub, c->op, c->rank, c->wait,
		       c->timeout, c->e, c->n, pubsub_answer_agent, c);
}

/* --- PMIx progress thread ------------------------------------------------- */

/* Post `c` to the agent; owns c. */
static pmix_status_t post_upcall(struct ps_call *c)
{
	if (agent_post(step_served()->agent, pubsub_agent, c) == 0)
		return status_to_pmix(PMIXEV_OK);
	call_free(c);
	return status_to_pmix(PMIXEV_ERR_UNREACH);
}

static struct ps_call *call_new(enum pubsub_op op, const pmix_proc_t *proc,
				const pmix_info_t info[], size_t ninfo,
				size_t nentries)
{
	struct ps_call *c = calloc(1, sizeof(*c));
	struct directives dir;

	if (!c || !(c->e = calloc(nentries ? nentries : 1, sizeof(*c->e)))) {
		free(c);
		return NULL;
	}
	c->op = op;
	c->rank = proc->rank;
	directives_read(info, ninfo, &dir);
	c->wait = dir.wait;
	c->timeout = dir.timeout_sec;
	return c;
}

pmix_status_t pubsub_upcall_publish(const pmix_proc_t *proc,
				    const pmix_info_t info[], size_t ninfo,
				    pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	struct ps_call *c = call_new(PUBSUB_PUBLISH, proc, info, ninfo, ninfo);
	pmix_status_t rc;

	if (!c)
		return status_to_pmix(PMIXEV_ERR_NOMEM);
	for (size_t i = 0; i < ninfo; i++) {
		struct pubsub_entry *e = &c->e[c->n];
		pmix_byte_object_t bo;

		if (directives_is_directive(info[i].key))
			continue;
		PMIX_LOAD_KEY(e->key, info[i].key);
		rc = wire_pack_value(&info[i].value, &bo);
		if (rc != PMIX_SUCCESS) {
			call_free(c);
			return rc; /* PMIx's own status */
		}
		e->value = (uint8_t *)bo.bytes;
		e->nvalue = bo.size;
		c->n++;
	}
	c->op_cb = cbfunc;
	c->cbdata = cbdata;
	return post_upcall(c);
}

static enum pmixev_result keyed(enum pubsub_op op, const pmix_proc_t *proc,
				char **keys, const pmix_info_t info[],
				size_t ninfo, struct ps_call **out)
{
	size_t n = 0;
	struct ps_call *c;

	while (keys && keys[n])
		n++;
	if (!n)
		return PMIXEV_ERR_BAD_REQUEST;
	if (!(c = call_new(op, proc, info, ninfo, n)))
		return PMIXEV_ERR_NOMEM;
	for (size_t i = 0; i < n; i++)
		PMIX_LOAD_KEY(c->e[i].key, keys[i]);
	c->n = n;
	*out = c;
	return PMIXEV_OK;
}

pmix_status_t pubsub_upcall_lookup(const pmix_proc_t *proc, char **keys,
				   const pmix_info_t info[], size_t ninfo,
				   pmix_lookup_cbfunc_t cbfunc, void *cbdata)
{
	struct ps_call *c = NULL;
	enum pmixev_result rc =
		keyed(PUBSUB_LOOKUP, proc, keys, info, ninfo, &c);

	if (rc != PMIXEV_OK)
		return status_to_pmix(rc);
	c->lookup_cb = cbfunc;
	c->cbdata = cbdata;
	return post_upcall(c);
}

pmix_status_t pubsub_upcall_unpublish(const pmix_proc_t *proc, char **keys,
				      const pmix_info_t info[], size_t ninfo,
				      pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	struct ps_call *c = NULL;
	enum pmixev_result rc =
		keyed(PUBSUB_UNPUBLISH, proc, keys, info, ninfo, &c);

	if (rc != PMIXEV_OK)
		return status_to_pmix(rc);
	c->op_cb = cbfunc;
	c->cbdata = cbdata;
	return post_upcall(c);
}
