/*
 * pmixside/pmixd.h - the life of the step's PMIx server process
 * (pmixev-pmixd, running as the job owner in a network of its own that
 * root made; doc/pmix-server-as-owner.md §3e): START from root on the
 * channel, the library started for it with the gate in front, READY back
 * with each local task's PMIx environment, then serving until root sends
 * FINI or the channel closes, and PMIx_server_finalize.
 */
#ifndef PMIXEV_PMIXSIDE_PMIXD_H_
#define PMIXEV_PMIXSIDE_PMIXD_H_

#include "gate/gate.h"
#include "gate/gate_doors.h"

/* The descriptors root hands over (programs/pmixev-pmixd.c). */
struct pmixd_fds {
	int chan;		      /* the channel to root */
	struct pmix_gate_doors doors; /* made in the host's network */
};

/*
 * Serve one step. The process's exit status: 0 when the step ended (FINI,
 * or root gone), 1 when it could not start (logged, and said in READY
 * when root can still hear it).
 */
int pmixd_run(const struct pmixd_fds *fds);

#endif /* PMIXEV_PMIXSIDE_PMIXD_H_ */
