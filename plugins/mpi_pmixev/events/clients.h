/*
 * events/clients.h - root's half of what the local processes claim (the
 * pmix side's is pmixside/clients_pmix.h): connected, finalized (kept per
 * rank by events.c to classify its exit) and PMIx_Abort (logged,
 * remembered, forwarded to srun, which ends the step).
 *
 * A task's exit is classified only once every claim the pmix side sent
 * before it is read: root sends SYNC and classifies the exits waiting
 * on it when the echo comes (the pmix side sends its claims before the
 * library answers the client, and the echo after them). A kill by a
 * signal is classified at once (the claims do not change it), unless an
 * earlier exit still waits: exits are told in order. If the pmix side
 * is gone, waiting exits are classified at once. Agent thread only.
 */
#ifndef PMIXEV_EVENTS_CLIENTS_H_
#define PMIXEV_EVENTS_CLIENTS_H_

#include <stdint.h>

#include "base/step.h"

struct clients;

/* Serving the step's channel; NULL when out of memory. */
struct clients *clients_create(struct step *s);

/* Local rank `rank` exited with wait `status`: classify it in order. */
void clients_task_exit(struct clients *c, uint32_t rank, int status);

/* The pmix side is gone, or the step leaves: classify the exits waiting
 * on it now. NULL-safe. */
void clients_pmix_gone(struct clients *c);

/* Free, dropping exits still waiting. NULL-safe. */
void clients_destroy(struct clients *c);

#endif /* PMIXEV_EVENTS_CLIENTS_H_ */
