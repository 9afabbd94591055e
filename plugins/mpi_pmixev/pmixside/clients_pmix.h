/*
 * pmixside/clients_pmix.h - the upcalls about the step's local processes:
 * a client connected (let in by the gate, gate/gate.h), finalized, or
 * called PMIx_Abort. Each is a claim root records for the rank's exit
 * (CLIENT_STATE, ABORT frames; root's half is events/clients.h), and an
 * abort goes on to srun, which ends the step. PMIx progress thread; none
 * blocks: the frames are sent from the upcall, before the library answers
 * the client, so they reach root before the client can exit. Root makes
 * sure of that order with SYNC, echoed here (the pmix side's agent).
 */
#ifndef PMIXEV_PMIXSIDE_CLIENTS_PMIX_H_
#define PMIXEV_PMIXSIDE_CLIENTS_PMIX_H_

#include <pmix_server.h>

#include "pmixside/side.h"

/* Answer ABORT_DONE and echo SYNC on `p`'s channel. Before it runs. */
void clients_pmix_listen(struct pmixside *p);

pmix_status_t clients_upcall_connected(const pmix_proc_t *proc,
				       void *server_object,
				       pmix_op_cbfunc_t cbfunc, void *cbdata);
pmix_status_t clients_upcall_finalized(const pmix_proc_t *proc,
				       void *server_object,
				       pmix_op_cbfunc_t cbfunc, void *cbdata);
pmix_status_t clients_upcall_abort(const pmix_proc_t *proc, void *server_object,
				   int status, const char msg[],
				   pmix_proc_t procs[], size_t nprocs,
				   pmix_op_cbfunc_t cbfunc, void *cbdata);

#endif /* PMIXEV_PMIXSIDE_CLIENTS_PMIX_H_ */
