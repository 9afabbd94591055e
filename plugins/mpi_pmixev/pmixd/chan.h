/*
 * pmixd/chan.h - one end of the channel between root's agent and the pmix
 * side (doc/pmix-server-as-owner.md §3b): a stream socket cut into the
 * frames of pmixev_pmixd_msg.h, on the event base of the thread that owns
 * this end: it alone reads and closes; other threads may send (chan_send_any,
 * chan_post_any).
 *
 * Each end accepts only the frame types its peer sends, at most
 * PMIXEV_PMIXD_FRAME_MAX bytes each, and hands each whole frame's body to
 * the handler of its type. A bad header, a type without a handler, a
 * handler refusing a body (malformed), EOF or a socket error close the
 * channel for good: the socket is closed (so the peer sees EOF) and the
 * close callback runs once with the reason; sends fail from then on. The
 * channel itself stays allocated until chan_destroy, so its users may keep
 * their pointer. Nothing here logs: the owner does, with the reason.
 */
#ifndef PMIXEV_PMIXD_CHAN_H_
#define PMIXEV_PMIXD_CHAN_H_

#include <stdbool.h>
#include <stdint.h>

#include <event2/event.h>

#include "pmixev_buf.h"
#include "pmixev_pmixd_coll.h"
#include "pmixev_pmixd_msg.h"

struct chan;

/*
 * A frame's body (a reader, valid during the call only). 0, or -1 when it
 * is malformed: the channel then closes.
 */
typedef int (*chan_frame_fn)(void *ctx, struct pmixev_buf *body);

/* The channel closed (`why`: a static or short-lived text, for the log). */
typedef void (*chan_close_fn)(void *ctx, const char *why);

/*
 * Another thread left work for the owner's: run chan_kick on the owner's
 * thread (post it there; never call it in place).
 */
typedef void (*chan_kick_fn)(void *ctx);

/*
 * Make a connected pair of stream sockets for the two ends (non-blocking,
 * close-on-exec: slurmstepd forks the tasks while they are open). 0, or
 * -1 with errno set.
 */
int chan_socketpair(int fds[2]);

/*
 * The end on socket `fd` (owned from now on, also on failure), reading
 * frames `peer` sends. NULL when out of memory.
 */
struct chan *chan_create(struct event_base *base, int fd,
			 enum pmixev_pmixd_side peer, chan_close_fn on_close,
			 void *ctx);

/*
 * Bound the bytes waiting to be written to `bytes` (0: no bound) for
 * chan_send_bounded: a peer that does not read must not make this side
 * hold memory without limit for what it did not ask (events).
 */
void chan_set_max_queued(struct chan *l, size_t bytes);

/* Hand frames of `type` to `fn`. Before the base runs. */
void chan_on(struct chan *l, uint8_t type, chan_frame_fn fn, void *ctx);

/* Any thread: closed, or the peer has closed its end (its process
 * ended) though the owner has not read that yet. */
bool chan_peer_gone(struct chan *l);

/*
 * Start a frame in the empty writer `b`: room for its header, which
 * chan_send fills in. Pack the body after it (any thread).
 */
void chan_frame_begin(struct pmixev_buf *b);

/*
 * Send the frame of `type` built in `b` (chan_frame_begin, then the
 * body); its bytes are taken, not copied, and `b` is left empty either
 * way. 0, or -1 when the channel is closed, the body is too large or out of
 * memory. A socket error closes the channel from the event loop, after
 * the caller returned (chan_is_open is false at once).
 */
int chan_send(struct chan *l, uint8_t type, struct pmixev_buf *b);

/*
 * chan_send for a frame the peer did not ask for (an event): -1 with
 * errno ENOBUFS, the channel left open, when more than
 * chan_set_max_queued's bytes would wait to be written (one frame always
 * goes). It is written when the owner's current loop pass ends (or with
 * the next chan_send), together with the others queued until then: one
 * write for a burst. Everything sent before it is written first.
 */
int chan_send_bounded(struct chan *l, uint8_t type, struct pmixev_buf *b);

/*
 * chan_send from a thread other than the owner's (chan_set_kick first).
 * What the socket does not take at once, and a socket error, are left to
 * the owner's thread through the kick: the close then happens there.
 */
int chan_send_any(struct chan *l, uint8_t type, struct pmixev_buf *b);

/*
 * chan_send_any for a frame nobody waits on (an event), never written in
 * place: the owner's thread, kicked once for all the frames posted until
 * it runs, writes them in one go. Frames sent before it go first.
 */
int chan_post_any(struct chan *l, uint8_t type, struct pmixev_buf *b);

/* Ask `kick` for the owner's thread when chan_send_any or chan_post_any
 * leaves work. */
void chan_set_kick(struct chan *l, chan_kick_fn kick, void *ctx);

/* Owner's thread: write what other threads queued, or close. */
void chan_kick(struct chan *l);

/*
 * Pack and send an answer with data (FENCE_DONE, DMODEX_DONE,
 * DMODEX_SERVED: pmixev_pmixd_coll.h), as chan_send.
 */
int chan_send_data(struct chan *l, uint8_t type,
		   const struct pmixev_pmixd_data *m);

/*
 * Before either end's thread runs the channel (START and READY): write the
 * frame of `type` in `b` (chan_frame_begin, then the body) to socket `fd`,
 * waiting at most `ms` for room each time. 0, or -1 with errno.
 */
int chan_write_frame(int fd, uint8_t type, struct pmixev_buf *b, int ms);

/*
 * Likewise read one whole frame sent by `peer` from `fd` within `ms` for
 * each part: its type and its body (malloc'd into *body, *len bytes). 0,
 * or -1 with errno (EPROTO: a bad header, with the reason in *why).
 */
int chan_read_frame(int fd, enum pmixev_pmixd_side peer, int ms, uint8_t *type,
		    uint8_t **body, uint32_t *len, const char **why);

/* Open, and no write error is pending (any thread). */
bool chan_is_open(struct chan *l);

/* Close without the close callback and free. NULL-safe. */
void chan_destroy(struct chan *l);

#endif /* PMIXEV_PMIXD_CHAN_H_ */
