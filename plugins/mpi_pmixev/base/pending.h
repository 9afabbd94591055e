/*
 * base/pending.h - requests that wait on a peer until a deadline.
 *
 * A pending request has an id (unique in its set, from 1), the node it
 * waits on, and a libevent timer. It fails when the timer fires
 * (PMIXEV_ERR_TIMEOUT) or when pending_lost reports the node it waits on
 * (PMIXEV_ERR_UNREACH); otherwise its owner ends it when the answer comes.
 * The fence, direct modex and publish/lookup engines keep their requests
 * (and the directory its held PMIX_WAIT lookups) in sets of these, and so
 * do the requests asked of every node: task signals, checkpoints and
 * their cancels, process tables.
 * The set knows nothing of what a request is: `req` is the owner's.
 * Agent thread only (the set's timers run on the agent's event base).
 */
#ifndef PMIXEV_BASE_PENDING_H_
#define PMIXEV_BASE_PENDING_H_

#include <stdbool.h>
#include <stdint.h>

#include <event2/event.h>

#include "pmixev_result.h"

/* Waits on no single node (see pending_add), or: no node was lost. */
#define PENDING_NO_NODE UINT32_MAX

struct pending_set;
struct pending;

/*
 * Request `req` failed: `why` is PMIXEV_ERR_TIMEOUT (its deadline passed;
 * `lost` is PENDING_NO_NODE) or PMIXEV_ERR_UNREACH (node `lost`, which it
 * waits on, is gone). `req` is still in its set: the callback must end it
 * (pending_end), and no other request - but for one that waits on several
 * nodes, which on PMIXEV_ERR_UNREACH may go on waiting for the others: it
 * stays in the set, with its deadline, and its `waits` must say no for
 * `lost` from then on.
 */
typedef void (*pending_fail_fn)(void *req, enum pmixev_result why,
				uint32_t lost);

/* Does `req` wait on `node`? */
typedef bool (*pending_waits_fn)(void *req, uint32_t node);

/*
 * An empty set whose timers run on `base`. A request waits on the node it
 * was added with, unless `waits` (may be NULL) says otherwise. NULL when
 * out of memory.
 */
struct pending_set *pending_set_create(struct event_base *base,
				       pending_fail_fn fail,
				       pending_waits_fn waits);

/*
 * Drop every request still in the set, without `fail`, calling `release`
 * (may be NULL) on each; then free the set. NULL-safe.
 */
void pending_set_destroy(struct pending_set *s, void (*release)(void *req));

/*
 * Add `req`, waiting on `node` (PENDING_NO_NODE when the set's `waits`
 * decides), to fail after `timeout_sec` seconds. The handle, or NULL when
 * out of memory (nothing added).
 */
struct pending *pending_add(struct pending_set *s, void *req, uint32_t node,
			    unsigned timeout_sec);

/* pending_add, to fail after `timeout_ms` milliseconds. */
struct pending *pending_add_ms(struct pending_set *s, void *req, uint32_t node,
			       uint64_t timeout_ms);

uint64_t pending_id(const struct pending *p);

/* The request is over: remove it (no callback) and free `p`. NULL-safe. */
void pending_end(struct pending *p);

/* The request with `id` that waits on `node`, or NULL. */
void *pending_get(const struct pending_set *s, uint64_t id, uint32_t node);

/* The most recently added request that `match` accepts, or NULL. */
void *pending_find(const struct pending_set *s,
		   bool (*match)(void *req, const void *key), const void *key);

/*
 * Call `fn` on each request, the most recent first; `fn` may end the
 * request it is given, and no other.
 */
void pending_each(struct pending_set *s, void (*fn)(void *req, void *ctx),
		  void *ctx);

/* Node `node` is gone: fail every request that waits on it. */
void pending_lost(struct pending_set *s, uint32_t node);

#endif /* PMIXEV_BASE_PENDING_H_ */
