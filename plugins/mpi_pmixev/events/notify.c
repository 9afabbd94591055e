/*
 * events/notify.c - relaying clients' events between nodes.
 */
#include "config.h"

#include "events/notify.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "base/agent.h"
#include "overlay/overlay.h"
#include "events/inject.h"
#include "pmixev_buf.h"
#include "pmixev_frame.h"
#include "pmixev_log.h"
#include "pmixev_proto.h"
#include "pmixbase/wire.h"

/* Most infos an event may carry across nodes. */
#define MAX_INFO 4096

struct notify {
	struct overlay *ov;
	struct agent *agent;
	const struct layout *lay;
	struct inject *inject;
	size_t max_bytes; /* PMIxevEventMax */
};

/* A relay on its way to the agent thread. */
struct relay {
	struct notify *n;
	pmix_proc_t source;
	size_t too_many; /* infos, when over MAX_INFO: count, do not relay */
	size_t too_big;	 /* bytes, when over max_bytes: likewise */
	struct pmixev_buf body; /* packed pmixev_notify_msg */
};

/* How a sender's events are counted: "rank@R" for the step's processes,
 * "NSPACE:R" for tools. */
static void source_name(const struct notify *n, const pmix_proc_t *p, char *buf,
			size_t len)
{
	if (PMIX_CHECK_NSPACE(p->nspace, n->lay->nspace))
		snprintf(buf, len, "rank@%u", p->rank);
	else
		snprintf(buf, len, "%s:%u", p->nspace, p->rank);
}

static void relay_agent(void *arg)
{
	struct relay *r = arg;
	char source[PMIX_MAX_NSLEN + 16];

	/* The local server cached it before handing it to us. */
	source_name(r->n, &r->source, source, sizeof(source));
	inject_cached(r->n->inject, source);
	if (r->too_many) {
		char why[96];

		snprintf(why, sizeof(why),
			 "it carries %zu infos, more than %d: not relayed "
			 "to the other nodes",
			 r->too_many, MAX_INFO);
		inject_undelivered(r->n->inject, source, why);
		free(r);
		return;
	}
	if (r->too_big) {
		char why[128];

		snprintf(why, sizeof(why),
			 "its infos take %zu bytes, more than "
			 "PMIxevEventMax=%zu KiB: not relayed to the other "
			 "nodes",
			 r->too_big, r->n->max_bytes >> 10);
		inject_undelivered(r->n->inject, source, why);
		free(r);
		return;
	}
	overlay_broadcast(r->n->ov, PMIXEV_MSG_NOTIFY, r->body.data,
			  r->body.len);
	pmixev_buf_release(&r->body);
	free(r);
}

/* `info` without the server's marker, as bytes; malloc'd. */
static pmix_status_t pack_info(const pmix_info_t info[], size_t ninfo,
			       pmix_byte_object_t *bo)
{
	pmix_info_t *keep = NULL;
	size_t n = 0;
	pmix_status_t rc;

	if (ninfo) {
		PMIX_INFO_CREATE(keep, ninfo);
		if (!keep)
			return PMIX_ERR_NOMEM;
	}
	for (size_t i = 0; i < ninfo; i++)
		if (!PMIX_CHECK_KEY(&info[i], NOTIFY_SERVER_MARK))
			PMIX_INFO_XFER(&keep[n++], &info[i]);
	rc = wire_pack_infos(keep, n, bo);
	if (keep)
		PMIX_INFO_FREE(keep, ninfo);
	return rc;
}

/*
 * Clients may register for any code, including the system codes the
 * library asks the host about (node down/offline, ...): pmixev delivers
 * all of them.
 */
pmix_status_t notify_upcall_register(pmix_status_t *codes, size_t ncodes,
				     const pmix_info_t info[], size_t ninfo,
				     pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	return PMIX_OPERATION_SUCCEEDED;
}

pmix_status_t notify_upcall_deregister(pmix_status_t *codes, size_t ncodes,
				       pmix_op_cbfunc_t cbfunc, void *cbdata)
{
	return PMIX_OPERATION_SUCCEEDED;
}

pmix_status_t notify_upcall_event(pmix_status_t code, const pmix_proc_t *source,
				  pmix_data_range_t range, pmix_info_t info[],
				  size_t ninfo, pmix_op_cbfunc_t cbfunc,
				  void *cbdata)
{
	struct notify *n = step_served()->notify;
	struct pmixev_notify_msg m = {
		.rank = source->rank, .code = code, .range = range};
	pmix_byte_object_t bo = {0};
	struct relay *r;

	/* notify_event must answer OPERATION_SUCCEEDED and never call back:
	 * the library mishandles anything else (shared notes). */
	if (range == PMIX_RANGE_LOCAL || range == PMIX_RANGE_PROC_LOCAL ||
	    range == PMIX_RANGE_RM)
		return PMIX_OPERATION_SUCCEEDED;
	/* The server hands up the stepds' own node events too (their source
	 * is the server): the stepds spread those themselves. */
	if (PMIX_CHECK_NSPACE(source->nspace, n->lay->srv_nspace))
		return PMIX_OPERATION_SUCCEEDED;
	if (ninfo > MAX_INFO && (r = calloc(1, sizeof(*r)))) {
		r->n = n;
		r->source = *source;
		r->too_many = ninfo;
		if (agent_post(n->agent, relay_agent, r) < 0)
			free(r);
		return PMIX_OPERATION_SUCCEEDED;
	}
	if (!(r = calloc(1, sizeof(*r))) ||
	    pack_info(info, ninfo, &bo) != PMIX_SUCCESS) {
		PMIXEV_ERROR("event %s from %s:%u not relayed: out of memory",
			     PMIx_Error_string(code), source->nspace,
			     source->rank);
		free(r);
		return PMIX_OPERATION_SUCCEEDED;
	}
	r->n = n;
	r->source = *source;
	if (bo.size > n->max_bytes) {
		r->too_big = bo.size;
		if (agent_post(n->agent, relay_agent, r) < 0)
			free(r);
		PMIX_BYTE_OBJECT_DESTRUCT(&bo);
		return PMIX_OPERATION_SUCCEEDED;
	}
	PMIX_LOAD_NSPACE(m.nspace, source->nspace);
	m.info = (const uint8_t *)bo.bytes;
	m.ninfo = bo.size;
	pmixev_buf_init(&r->body);
	if (pmixev_notify_pack(&r->body, &m) < 0 ||
	    agent_post(n->agent, relay_agent, r) < 0) {
		PMIXEV_ERROR("event %s from %s:%u not relayed",
			     PMIx_Error_string(code), source->nspace,
			     source->rank);
		pmixev_buf_release(&r->body);
		free(r);
	}
	PMIX_BYTE_OBJECT_DESTRUCT(&bo);
	return PMIX_OPERATION_SUCCEEDED;
}

static void on_notify(void *ctx, uint32_t src, const uint8_t *data, size_t len)
{
	struct notify *n = ctx;
	struct pmixev_notify_msg m;
	const struct layout *lay = n->lay;
	char name[PMIX_MAX_NSLEN + 16];
	struct pmixev_buf b;
	pmix_info_t *info = NULL;
	size_t ninfo = 0;
	pmix_proc_t source;

	pmixev_buf_reader(&b, data, len);
	if (pmixev_notify_unpack(&b, &m) < 0 ||
	    m.range > PMIX_RANGE_PROC_LOCAL ||
	    wire_unpack_infos(m.info, m.ninfo, MAX_INFO, &info, &ninfo) !=
		    PMIX_SUCCESS) {
		snprintf(name, sizeof(name), "stepd@%s",
			 src < lay->step.nnodes ? lay->nodes[src] : "?");
		inject_undelivered(n->inject, name,
				   "malformed client event frame");
		if (info)
			PMIX_INFO_FREE(info, ninfo);
		return;
	}
	PMIX_LOAD_PROCID(&source, m.nspace, m.rank);
	source_name(n, &source, name, sizeof(name));
	inject_event(n->inject, name, m.code, &source, m.range, info, ninfo,
		     ninfo);
}

struct notify *notify_create(struct step *s)
{
	struct notify *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->ov = s->ov;
	n->agent = s->agent;
	n->lay = &s->lay;
	n->inject = s->inject;
	n->max_bytes = (size_t)s->conf.event_kib << 10;
	overlay_on(s->ov, PMIXEV_MSG_NOTIFY, on_notify, n);
	return n;
}

void notify_destroy(struct notify *n)
{
	free(n);
}
