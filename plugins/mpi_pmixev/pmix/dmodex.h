/*
 * pmix/dmodex.h - direct modex: fetch one remote rank's published data from
 * the stepd that hosts it, when a client asks for a key that no fence
 * distributed. Requests are routed over the overlay; the hosting stepd
 * asks its PMIx server (PMIx_server_dmodex_request) and routes the answer
 * back. Every request ends: with the data, an error, or PMIX_ERR_TIMEOUT.
 * Calls on the agent thread unless noted.
 */
#ifndef PMIXEV_PMIX_DMODEX_H_
#define PMIXEV_PMIX_DMODEX_H_

#include <stddef.h>
#include <stdint.h>

#include <event2/event.h>

#include "base/agent.h"
#include "base/layout.h"
#include "overlay/overlay.h"

struct dmodex;

/* Result: PMIx status and the rank's data (valid during the call). */
typedef void (*dmodex_done_fn)(int status, const uint8_t *data, size_t ndata,
			       void *arg);

struct dmodex *dmodex_create(struct overlay *ov, struct agent *agent,
			     const struct layout *lay, unsigned timeout_sec);

/* Ask for `rank`'s data; `done` runs exactly once. */
void dmodex_request(struct dmodex *d, uint32_t rank, unsigned timeout_sec,
		    dmodex_done_fn done, void *arg);

void dmodex_lost(struct dmodex *d, uint32_t node);

/* Free everything without calling any `done`. */
void dmodex_destroy(struct dmodex *d);

#endif /* PMIXEV_PMIX_DMODEX_H_ */
