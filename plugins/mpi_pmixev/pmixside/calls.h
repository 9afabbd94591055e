/*
 * pmixside/calls.h - the pmix side's requests that wait for root's answer
 * by id. FENCE and DMODEX, answered by FENCE_DONE and DMODEX_DONE, are
 * answered here; others' answers are handled by their owners, which take
 * their call with calls_take.
 *
 * Ids are made and calls sent on any thread (the PMIx progress thread
 * sends its own); answers run on the thread that owns the channel (the
 * pmix side's agent). Every call sent ends exactly once through its
 * `answer`: with root's answer, or PMIXEV_ERR_UNREACH when the channel
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
	uint8_t done_type; /* the frame type root answers with */
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
 * Any thread (the channel's kick set): send the frame of `type` in `frame`
 * (taken) and keep `c` (its id in the frame) until root answers. 0, or -1
 * when it cannot be sent: `c` is then not kept nor answered, the caller
 * still owns it.
 */
int calls_send(struct calls *cs, struct call *c, uint8_t type,
	       struct pmixev_buf *frame);

/* A request's codec: pack `msg` after the frame header in `b`. 0 or -1. */
typedef int (*call_pack_fn)(struct pmixev_buf *b, const void *msg);

/*
 * Any thread: a request whose answer is a frame of c->done_type (c's
 * answer set): `c` gets a fresh id, written to *id (the field of `msg`
 * that names it) before `pack` packs `msg` as a frame of `type`, which is
 * sent (calls_send). PMIXEV_OK; else PMIXEV_ERR_NOMEM or
 * PMIXEV_ERR_UNREACH, the reason in `why`, and `c` freed.
 */
enum pmixev_result calls_request(struct calls *cs, struct call *c, uint64_t *id,
				 uint8_t type, call_pack_fn pack,
				 const void *msg, char *why, size_t whylen);

/*
 * Owner's thread: take the waiting call `id` that root answers with a
 * frame of `done_type` (for a handler of an answer of its own shape). The
 * call, or NULL when there is none: the answer is then malformed.
 */
struct call *calls_take(struct calls *cs, uint64_t id, uint8_t done_type);

/* The channel closed: answer every waiting call with `result`. How many. */
size_t calls_fail_all(struct calls *cs, enum pmixev_result result);

#endif /* PMIXEV_PMIXSIDE_CALLS_H_ */
