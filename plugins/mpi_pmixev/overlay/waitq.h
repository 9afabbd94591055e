/*
 * overlay/waitq.h - a door's unauthenticated connections, oldest first,
 * with the eviction policy of a full door: a new connection beyond the
 * quota of its source address closes that address's oldest one; beyond
 * the door's total, the oldest of all. A flood of idle connections thus
 * never shuts out a genuine late peer: it ages out the flood instead.
 * Pure data (admit.c owns the connections); no thread of its own.
 */
#ifndef PMIXEV_OVERLAY_WAITQ_H_
#define PMIXEV_OVERLAY_WAITQ_H_

#include <stddef.h>

struct waitq;
struct waitq_entry;

/* At most `per_addr` entries from one address, `total` in all (>= 1). */
struct waitq *waitq_create(unsigned per_addr, unsigned total);

/*
 * The entry a new connection from `host` displaces (its item), or NULL
 * when there is room. The caller removes it (waitq_remove) before
 * waitq_push.
 */
void *waitq_victim(const struct waitq *q, const char *host);

/* Append `item` from `host` as the newest. NULL on out of memory. */
struct waitq_entry *waitq_push(struct waitq *q, void *item, const char *host);

/* Take `e` out (e.g. authenticated, closed); frees `e`. */
void waitq_remove(struct waitq *q, struct waitq_entry *e);

/* The oldest entry's item, or NULL when empty. */
void *waitq_oldest(const struct waitq *q);

size_t waitq_count(const struct waitq *q);

/* Call `fn` for each item, oldest first; `fn` may not change `q`. */
void waitq_each(const struct waitq *q, void (*fn)(void *item, void *arg),
		void *arg);

/* Free the entries (not their items). NULL-safe. */
void waitq_destroy(struct waitq *q);

#endif /* PMIXEV_OVERLAY_WAITQ_H_ */
