/*
 * pmixside/calls.h - the pmix side's requests that wait for root's answer
 * (FENCE and DMODEX, answered by FENCE_DONE and DMODEX_DONE), by id.
 *
 * Ids are made on any thread (the PMIx progress thread packs them into
 * its frames); the rest runs on the thread that owns the channel (the pmix
 * side's agent). Every call sent ends exactly once through its `answer`:
 * with root's answer, or PMIXEV_ERR_UNREACH when the channel is closed or
 * closes before root answered. Root names only ids it was given: an
 * answer for any other is malformed and closes the channel.
 * No PMIx here: the caller's answer speaks to the library.
 */
#ifndef PMIXEV_PMIXSIDE_CALLS_H_
#define PMIXEV_PMIXSIDE_CALLS_H_

#include <stddef.h>
#include <stdint.h>

#include "pmixd/chan.h"
#include "pmixev_buf.h"
#include "pmixev_result.h"

struct call;

/* Root's answer to `c` (data valid during the call); frees `c`. */
typedef void (*call_answer_fn)(struct call *c, enum pmixev_result result,
			       const uint8_t *data, size_t ndata);

/*
 * The head of a caller's request, its first member: the caller's object
 * is malloc'd and holds nothing else to free once sent (calls_destroy
 * frees the calls never answered with free()).
 */
struct call {
	uint64_t id;
	call_answer_fn answer;
	struct call *prev, *next;
};

struct calls;

/* The calls answered on `l` (FENCE_DONE, DMODEX_DONE). NULL: no memory. */
struct calls *calls_create(struct chan *l);

/* Free the calls not answered, without answering. NULL-safe. */
void calls_destroy(struct calls *cs);

/* A fresh id, for a request's frame (any thread). */
uint64_t calls_new_id(struct calls *cs);

/*
 * Send the frame of `type` in `frame` (taken) and keep `c` (its id in the
 * frame) until root answers; answered at once with PMIXEV_ERR_UNREACH
 * when it cannot be sent.
 */
void calls_send(struct calls *cs, struct call *c, uint8_t type,
		struct pmixev_buf *frame);

/* The channel closed: answer every waiting call with `result`. How many. */
size_t calls_fail_all(struct calls *cs, enum pmixev_result result);

#endif /* PMIXEV_PMIXSIDE_CALLS_H_ */
