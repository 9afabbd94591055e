/*
 * upcalls.h - pmixev's PMIx server module: the functions libpmix calls on
 * its progress thread. Each one only copies its arguments and posts them to
 * the agent thread, which does the work and answers through PMIx's
 * callback; none blocks.
 */
#ifndef PMIXEV_UPCALLS_H_
#define PMIXEV_UPCALLS_H_

#include <pmix_server.h>

#include "agent.h"
#include "dmodex.h"
#include "fence.h"
#include "layout.h"
#include "overlay.h"

struct upcall_deps {
	struct agent *agent;
	struct overlay *ov;
	struct fence *fence;
	struct dmodex *dmodex;
	const struct layout *lay;
};

/*
 * Bind the step's components (before PMIx_server_init), or unbind with
 * NULL (after PMIx_server_finalize).
 */
void upcalls_bind(const struct upcall_deps *deps);

extern pmix_server_module_t upcalls_module;

#endif /* PMIXEV_UPCALLS_H_ */
