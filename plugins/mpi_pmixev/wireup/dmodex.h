/*
 * wireup/dmodex.h - direct modex: fetch one remote rank's published data from
 * the stepd that hosts it, when a client asks for a key that no fence
 * distributed: root's half, on the agent thread. A local client's request
 * comes from the pmix side as a DMODEX frame (the upcall is in
 * pmixside/dmodex_pmix.c) and is routed over the overlay; the hosting
 * stepd asks its pmix side (DMODEX_SERVE, answered by DMODEX_SERVED) and
 * routes the answer back, which goes to the pmix side as DMODEX_DONE.
 * Every request ends: with the data, an error, or PMIX_ERR_TIMEOUT. The
 * data stays opaque here.
 */
#ifndef PMIXEV_PMIX_DMODEX_H_
#define PMIXEV_PMIX_DMODEX_H_

#include <stddef.h>
#include <stdint.h>

#include "base/step.h"

struct dmodex;

/* `timeout_sec`: how long a request waits unless its call says. */
/* For step `s` (default timeout PMIxevTimeout); follows its node loss;
 * takes the pmix side's frames on `s->chan`. Before the agent runs. */
struct dmodex *dmodex_create(struct step *s);

/* Free everything without answering any call. */
void dmodex_destroy(struct dmodex *d);

/*
 * The pmix side is gone (its channel closed): the peers' requests it was
 * serving fail with PMIXEV_ERR_NOT_FOUND now; later ones at once.
 */
void dmodex_pmix_gone(struct dmodex *d);

#endif /* PMIXEV_PMIX_DMODEX_H_ */
