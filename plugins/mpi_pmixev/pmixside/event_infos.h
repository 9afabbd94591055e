/*
 * pmixside/event_infos.h - what an event root injects carries to the
 * clients: the pmix_info_t array, the source process and the range of a
 * PMIx_Notify_event, built from an INJECT frame (events of Slurm, the
 * site and the scheduler; checkpoint requests). Documented per event in
 * doc/app-guide.md "Events".
 */
#ifndef PMIXEV_PMIXSIDE_EVENT_INFOS_H_
#define PMIXEV_PMIXSIDE_EVENT_INFOS_H_

#include <stddef.h>

#include <pmix_common.h>

#include <stdbool.h>

#include "base/layout.h"
#include "pmixev_pmixd_msg.h"

#define EVENT_INFOS_MAX 12 /* the most infos an injected event carries */

/* The event of `m` (kind EVENT, CKPT or CHILD), ready for
 * PMIx_Notify_event. */
struct event_infos {
	char counted_as[PMIXEV_NODENAME_MAX + 32]; /* "stepd@n2" */
	pmix_status_t code;
	pmix_proc_t source;
	pmix_data_range_t range;
	pmix_info_t *info; /* EVENT_INFOS_MAX allocated */
	size_t ninfo;
	bool uncached; /* PMIX_EVENT_DO_NOT_CACHE: only for those registered */
};

/*
 * Build `out` for `m`, checked against `lay` (origin, rank, node). 0, or
 * -1 with a static reason in *why (`out->counted_as` is set when the
 * origin is known, and nothing is left to free).
 */
int event_infos_build(const struct layout *lay,
		      const struct pmixev_pmixd_inject *m,
		      struct event_infos *out, const char **why);

/*
 * INJECT CHILD `m` for the `nto` ranks `to` of this step (the spawner and
 * the ranks connected to m->child), one event whose custom range names
 * them all; m->to_rank is not read. Same conventions.
 */
int event_infos_build_child(const struct layout *lay,
			    const struct pmixev_pmixd_inject *m,
			    const uint32_t *to, size_t nto,
			    struct event_infos *out, const char **why);

#endif /* PMIXEV_PMIXSIDE_EVENT_INFOS_H_ */
