/*
 * stepd/site.h - environment events from the site: the root-only door through
 * which `pmixev-notify` (run by a node health check: ECC errors, thermal
 * excursions, ...) hands an event to the pmixev steps on its node.
 *
 * Each stepd listens on a Unix socket PMIXEV_SITE_DIR/NODE.JOB.STEP.sock
 * (directory 0700 root, socket 0600) and accepts only peers whose
 * credentials say uid 0. A request is one line "CODE TEXT"; the answer is
 * "ok" or "error: REASON". The event goes to every process of the step
 * as a node event about this node (events/events.h), non-default, cached by
 * PMIx for clients that register later.
 */
#ifndef PMIXEV_STEPD_SITE_H_
#define PMIXEV_STEPD_SITE_H_

#include "base/step.h"
#include "pmixev_bridge.h"

struct site;

/* Listen; on the agent thread. NULL on failure (logged). */
struct site *site_create(struct step *s);

/* Stop listening and remove the socket. */
void site_destroy(struct site *s);

#endif /* PMIXEV_STEPD_SITE_H_ */
