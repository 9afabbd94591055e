/*
 * pmix/module.h - pmixev's PMIx server module: the functions libpmix calls on
 * its progress thread. Each one only copies its arguments and posts them to
 * the agent thread, which does the work and answers through PMIx's
 * callback; none blocks.
 */
#ifndef PMIXEV_PMIX_MODULE_H_
#define PMIXEV_PMIX_MODULE_H_

#include <pmix_server.h>

#include "base/agent.h"
#include "pmix/dmodex.h"
#include "pmix/inject.h"
#include "pmix/events.h"
#include "pmix/fence.h"
#include "base/layout.h"
#include "pmix/notify.h"
#include "overlay/overlay.h"
#include "pmix/gate.h"
#include "pmix/pubsub_dir.h"

struct upcall_deps {
	struct agent *agent;
	struct overlay *ov;
	struct fence *fence;
	struct dmodex *dmodex;
	struct pubsub *pubsub;
	struct events *events;
	struct notify *notify;
	struct inject *inject;
	struct pmix_gate *gate;
	const struct layout *lay;
};

/*
 * Bind the step's components (before PMIx_server_init), or unbind with
 * NULL (after PMIx_server_finalize).
 */
void upcalls_bind(const struct upcall_deps *deps);

extern pmix_server_module_t upcalls_module;

/* For the module's other files: the bound components. */
const struct upcall_deps *upcalls_deps(void);

/* pmix/pubsub.c */
pmix_status_t upcall_publish(const pmix_proc_t *proc, const pmix_info_t info[],
			     size_t ninfo, pmix_op_cbfunc_t cbfunc,
			     void *cbdata);
pmix_status_t upcall_lookup(const pmix_proc_t *proc, char **keys,
			    const pmix_info_t info[], size_t ninfo,
			    pmix_lookup_cbfunc_t cbfunc, void *cbdata);
pmix_status_t upcall_unpublish(const pmix_proc_t *proc, char **keys,
			       const pmix_info_t info[], size_t ninfo,
			       pmix_op_cbfunc_t cbfunc, void *cbdata);

#endif /* PMIXEV_PMIX_MODULE_H_ */
