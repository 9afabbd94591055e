/*
 * Unit tests for plugins/mpi_pmixev/pmixd/chan.c and pmixside/calls.c:
 * the pmixd channel over a real socketpair and libevent base. Frames
 * arriving a byte at a time, several in one read, a frame larger than the
 * socket buffer; a bad header, an oversize length, a type of the wrong
 * side or without a handler, a malformed body, EOF: each closes the
 * channel once with a reason. And the calls waiting on root: answered by
 * id, failed when root closes the channel on a malformed frame, refused
 * once it is closed, and an answer for an unknown id closes it. Sends from
 * another thread: a frame larger than the socket buffer is finished by the
 * owner after the kick, and a write error that thread meets closes the
 * channel on the owner's thread. A peer that does not read gets no more
 * bounded frames than the queue bound allows; the channel stays.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "pmixd/chan.h"
#include "pmixd_fixture.h"
#include "pmixev_pmixd_coll.h"
#include "pmixside/calls.h"

/* What one end saw. */
struct seen {
	int frames;
	struct pmixev_pmixd_fence last; /* ranks freed at once */
	size_t last_ndata;
	int bad_data; /* data bytes not as sent */
	int closed;
	const char *why;
	struct calls *calls; /* failed on close, when set */
	size_t failed;
};

struct fixture {
	struct event_base *base;
	int fds[2];
	struct chan *root; /* reads what the pmix side sends */
	struct seen rs;
};

static int on_fence(void *ctx, struct pmixev_buf *body)
{
	struct seen *s = ctx;
	struct pmixev_pmixd_fence m;

	if (pmixev_pmixd_fence_unpack(body, &fx, &m) < 0)
		return -1;
	s->frames++;
	s->last = m;
	s->last_ndata = m.ndata;
	for (size_t i = 0; i < m.ndata; i++)
		if (m.data[i] != (uint8_t)(i * 7))
			s->bad_data++;
	s->last.data = NULL;
	pmixev_pmixd_fence_release(&m);
	s->last.ranks = NULL;
	return 0;
}

static void on_close(void *ctx, const char *why)
{
	struct seen *s = ctx;

	s->closed++;
	s->why = why;
	if (s->calls)
		s->failed += calls_fail_all(s->calls, PMIXEV_ERR_UNREACH);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f || !(f->base = event_base_new()) || chan_socketpair(f->fds) < 0)
		return -1;
	f->root = chan_create(f->base, f->fds[0], PMIXEV_PMIXD_FROM_OWNER,
			      on_close, &f->rs);
	if (!f->root)
		return -1;
	chan_on(f->root, PMIXEV_PMIXD_FENCE, on_fence, &f->rs);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	chan_destroy(f->root);
	if (f->fds[1] >= 0)
		close(f->fds[1]);
	event_base_free(f->base);
	free(f);
	return 0;
}

static void spin(struct fixture *f)
{
	for (int i = 0; i < 8; i++)
		event_base_loop(f->base, EVLOOP_NONBLOCK);
}

/* A FENCE frame (header and body) with `ndata` bytes of data. */
static void fence_frame(struct pmixev_buf *b, uint64_t id, size_t ndata)
{
	uint32_t ranks[] = {1, 5};
	uint8_t *data = malloc(ndata ? ndata : 1);
	struct pmixev_pmixd_fence m = {.id = id,
				       .kind = PMIXEV_COLL_FENCE,
				       .nranks = 2,
				       .ranks = ranks,
				       .collect = true,
				       .timeout_sec = 30,
				       .data = data,
				       .ndata = ndata};

	assert_non_null(data);
	for (size_t i = 0; i < ndata; i++)
		data[i] = (uint8_t)(i * 7);
	pmixev_buf_init(b);
	chan_frame_begin(b);
	assert_int_equal(pmixev_pmixd_fence_pack(b, &m), 0);
	pmixev_pmixd_hdr_encode(PMIXEV_PMIXD_FENCE,
				(uint32_t)(b->len - PMIXEV_PMIXD_HDR_LEN),
				b->data);
	free(data);
}

/* The kick: counted; the test runs chan_kick itself, as the agent would. */
static void count_kick(void *ctx)
{
	(*(int *)ctx)++;
}

static void put(int fd, const void *p, size_t n)
{
	assert_int_equal(write(fd, p, n), (ssize_t)n);
}

static void test_byte_at_a_time(void **state)
{
	struct fixture *f = *state;
	struct pmixev_buf b;

	fence_frame(&b, 42, 100);
	for (size_t i = 0; i < b.len; i++) {
		assert_int_equal(f->rs.frames, 0);
		put(f->fds[1], b.data + i, 1);
		spin(f);
	}
	assert_int_equal(f->rs.frames, 1);
	assert_int_equal(f->rs.last.id, 42);
	assert_int_equal(f->rs.last.nranks, 2);
	assert_int_equal(f->rs.last_ndata, 100);
	assert_int_equal(f->rs.bad_data, 0);
	assert_int_equal(f->rs.closed, 0);
	pmixev_buf_release(&b);
}

static void test_frames_in_one_read(void **state)
{
	struct fixture *f = *state;
	struct pmixev_buf a, b;

	fence_frame(&a, 1, 0);
	fence_frame(&b, 2, 10);
	pmixev_buf_put_raw(&a, b.data, b.len);
	pmixev_buf_put_raw(&a, b.data, 5); /* and a partial third */
	put(f->fds[1], a.data, a.len);
	spin(f);
	assert_int_equal(f->rs.frames, 2);
	assert_int_equal(f->rs.last.id, 2);
	put(f->fds[1], b.data + 5, b.len - 5);
	spin(f);
	assert_int_equal(f->rs.frames, 3);
	assert_int_equal(f->rs.closed, 0);
	pmixev_buf_release(&a);
	pmixev_buf_release(&b);
}

/* 8 MiB through both ends: queued by the sender, read in pieces. */
static void test_large_frame(void **state)
{
	struct fixture *f = *state;
	struct seen ps = {0};
	struct chan *pmix = chan_create(f->base, f->fds[1],
					PMIXEV_PMIXD_FROM_ROOT, on_close, &ps);
	struct pmixev_buf b;

	f->fds[1] = -1;
	assert_non_null(pmix);
	fence_frame(&b, 7, 8u << 20);
	/* chan_send fills the header itself. */
	assert_int_equal(chan_send(pmix, PMIXEV_PMIXD_FENCE, &b), 0);
	assert_int_equal(b.len, 0);
	for (int i = 0; i < 10000 && !f->rs.frames; i++)
		event_base_loop(f->base, EVLOOP_ONCE);
	assert_int_equal(f->rs.frames, 1);
	assert_int_equal(f->rs.last_ndata, 8u << 20);
	assert_int_equal(f->rs.bad_data, 0);
	assert_int_equal(f->rs.closed + ps.closed, 0);
	chan_destroy(pmix);
}

/* A peer that does not read: bounded frames wait within the bound, the
 * one beyond it is refused (ENOBUFS) and the channel stays; what the peer
 * asked for (chan_send) still goes, and everything arrives in order. */
static void test_queue_bound(void **state)
{
	struct fixture *f = *state;
	struct seen ps = {0};
	struct chan *pmix = chan_create(f->base, f->fds[1],
					PMIXEV_PMIXD_FROM_ROOT, on_close, &ps);
	struct pmixev_buf b;

	f->fds[1] = -1;
	assert_non_null(pmix);
	chan_set_max_queued(pmix, 4u << 20);
	for (uint64_t id = 1; id <= 3; id++) {
		fence_frame(&b, id, 1u << 20);
		assert_int_equal(
			chan_send_bounded(pmix, PMIXEV_PMIXD_FENCE, &b), 0);
	}
	fence_frame(&b, 4, 2u << 20);
	errno = 0;
	assert_int_equal(chan_send_bounded(pmix, PMIXEV_PMIXD_FENCE, &b), -1);
	assert_int_equal(errno, ENOBUFS);
	assert_int_equal(b.len, 0);
	assert_true(chan_is_open(pmix));
	fence_frame(&b, 5, 2u << 20);
	assert_int_equal(chan_send(pmix, PMIXEV_PMIXD_FENCE, &b), 0);
	for (int i = 0; i < 10000 && f->rs.frames < 4; i++)
		event_base_loop(f->base, EVLOOP_ONCE);
	assert_int_equal(f->rs.frames, 4);
	assert_int_equal(f->rs.last.id, 5);
	assert_int_equal(f->rs.bad_data, 0);
	assert_int_equal(ps.closed + f->rs.closed, 0);
	chan_destroy(pmix);
}

struct sender {
	struct chan *l;
	size_t ndata;
	int rc;
};

static void *send_thread(void *arg)
{
	struct sender *t = arg;
	struct pmixev_buf b;

	fence_frame(&b, 9, t->ndata);
	t->rc = chan_send_any(t->l, PMIXEV_PMIXD_FENCE, &b);
	return NULL;
}

/* Another thread sends more than the socket takes: the owner, kicked,
 * writes the rest; the frame arrives whole. */
static void test_send_any_large(void **state)
{
	struct fixture *f = *state;
	struct seen ps = {0};
	struct chan *pmix = chan_create(f->base, f->fds[1],
					PMIXEV_PMIXD_FROM_ROOT, on_close, &ps);
	struct sender t = {.l = pmix, .ndata = 8u << 20, .rc = -5};
	pthread_t th;
	int kicks = 0;

	f->fds[1] = -1;
	assert_non_null(pmix);
	chan_set_kick(pmix, count_kick, &kicks);
	assert_int_equal(pthread_create(&th, NULL, send_thread, &t), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(t.rc, 0);
	assert_int_equal(kicks, 1);
	chan_kick(pmix);
	for (int i = 0; i < 10000 && !f->rs.frames; i++)
		event_base_loop(f->base, EVLOOP_ONCE);
	assert_int_equal(f->rs.frames, 1);
	assert_int_equal(f->rs.last_ndata, 8u << 20);
	assert_int_equal(f->rs.bad_data, 0);
	assert_int_equal(f->rs.closed + ps.closed, 0);
	chan_destroy(pmix);
}

/* The peer is gone when another thread writes: the send fails, the
 * owner is kicked and closes with the cause, once. */
static void test_send_any_error(void **state)
{
	struct fixture *f = *state;
	struct seen ps = {0};
	struct chan *pmix = chan_create(f->base, f->fds[1],
					PMIXEV_PMIXD_FROM_ROOT, on_close, &ps);
	struct sender t = {.l = pmix, .ndata = 16, .rc = -5};
	pthread_t th;
	int kicks = 0;

	f->fds[1] = -1;
	assert_non_null(pmix);
	chan_set_kick(pmix, count_kick, &kicks);
	chan_destroy(f->root);
	f->root = NULL;
	assert_int_equal(pthread_create(&th, NULL, send_thread, &t), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(t.rc, -1);
	assert_int_equal(kicks, 1);
	assert_false(chan_is_open(pmix));
	assert_int_equal(ps.closed, 0); /* only the owner closes */
	chan_kick(pmix);
	assert_int_equal(ps.closed, 1);
	assert_non_null(strstr(ps.why, "pipe"));
	chan_kick(pmix);
	assert_int_equal(ps.closed, 1);
	chan_destroy(pmix);
}

/* The peer is gone when the owner writes: the send fails and the channel
 * is no longer open, but the close callback runs from the loop, not
 * under the sender (it may end what the sender is in the middle of). */
static void test_send_error_closes_later(void **state)
{
	struct fixture *f = *state;
	struct pmixev_buf b;

	close(f->fds[1]);
	f->fds[1] = -1;
	pmixev_buf_init(&b);
	chan_frame_begin(&b);
	assert_int_equal(chan_send(f->root, PMIXEV_PMIXD_FENCE_DONE, &b), -1);
	assert_false(chan_is_open(f->root));
	assert_int_equal(f->rs.closed, 0);
	spin(f);
	assert_int_equal(f->rs.closed, 1);
	assert_non_null(f->rs.why);
}

/* `raw` (a header, maybe a body) closes the root end. */
static void closes_on(struct fixture *f, const void *raw, size_t n)
{
	struct pmixev_buf b;
	char c;

	put(f->fds[1], raw, n);
	spin(f);
	assert_int_equal(f->rs.closed, 1);
	assert_non_null(f->rs.why);
	assert_false(chan_is_open(f->root));
	/* The pmix side sees EOF, and sends fail. */
	assert_int_equal(read(f->fds[1], &c, 1), 0);
	pmixev_buf_init(&b);
	chan_frame_begin(&b);
	assert_int_equal(chan_send(f->root, PMIXEV_PMIXD_FENCE_DONE, &b), -1);
	assert_int_equal(b.len, 0);
	spin(f);
	assert_int_equal(f->rs.closed, 1); /* once */
}

static void test_oversize(void **state)
{
	struct fixture *f = *state;
	uint8_t h[PMIXEV_PMIXD_HDR_LEN];

	pmixev_pmixd_hdr_encode(PMIXEV_PMIXD_FENCE, PMIXEV_PMIXD_FRAME_MAX + 1,
				h);
	closes_on(f, h, sizeof(h));
	assert_string_equal(f->rs.why, "payload too long");
	assert_int_equal(f->rs.frames, 0);
}

static void test_bad_magic(void **state)
{
	struct fixture *f = *state;
	uint8_t h[PMIXEV_PMIXD_HDR_LEN];

	pmixev_pmixd_hdr_encode(PMIXEV_PMIXD_FENCE, 0, h);
	h[0] ^= 0xff;
	closes_on(f, h, sizeof(h));
	assert_string_equal(f->rs.why, "bad magic");
}

static void test_wrong_side(void **state)
{
	struct fixture *f = *state;
	uint8_t h[PMIXEV_PMIXD_HDR_LEN];

	pmixev_pmixd_hdr_encode(PMIXEV_PMIXD_FENCE_DONE, 0, h);
	closes_on(f, h, sizeof(h));
	assert_string_equal(f->rs.why, "message type of the other side");
}

static void test_no_handler(void **state)
{
	struct fixture *f = *state;
	uint8_t h[PMIXEV_PMIXD_HDR_LEN];

	pmixev_pmixd_hdr_encode(PMIXEV_PMIXD_PUBSUB, 0, h);
	closes_on(f, h, sizeof(h));
	assert_string_equal(f->rs.why,
			    "a message type this side does not serve");
}

/* A rank beyond the step: the validating unpack refuses the body. */
static void test_malformed_body(void **state)
{
	struct fixture *f = *state;
	struct pmixev_buf b;

	fence_frame(&b, 3, 4);
	/* ranks[1] (5) at header + id 8 + kind 1 + all 1 + nranks 4 + 4 */
	b.data[PMIXEV_PMIXD_HDR_LEN + 18 + 3] = 99;
	closes_on(f, b.data, b.len);
	assert_string_equal(f->rs.why, "a malformed FENCE message");
	assert_int_equal(f->rs.frames, 0);
	pmixev_buf_release(&b);
}

static void test_eof(void **state)
{
	struct fixture *f = *state;

	close(f->fds[1]);
	f->fds[1] = -1;
	spin(f);
	assert_int_equal(f->rs.closed, 1);
	assert_string_equal(f->rs.why, "closed by the peer");
}

/* A caller's request: its answer recorded. */
struct req {
	struct call call;
	int *answers;
	enum pmixev_result *result;
	size_t *ndata;
};

static void req_answer(struct call *c, enum pmixev_result result,
		       const uint8_t *data, size_t ndata)
{
	struct req *r = (struct req *)c;

	(*r->answers)++;
	*r->result = result;
	*r->ndata = ndata;
	free(r);
}

struct answers {
	int n;
	enum pmixev_result result;
	size_t ndata;
};

static int send_call(struct calls *cs, struct answers *a)
{
	struct req *r = calloc(1, sizeof(*r));
	struct pmixev_buf b;

	assert_non_null(r);
	r->call.id = calls_new_id(cs);
	r->call.done_type = PMIXEV_PMIXD_FENCE_DONE;
	r->call.answer = req_answer;
	r->answers = &a->n;
	r->result = &a->result;
	r->ndata = &a->ndata;
	fence_frame(&b, r->call.id, 0);
	if (calls_send(cs, &r->call, PMIXEV_PMIXD_FENCE, &b) < 0) {
		free(r);
		assert_int_equal(b.len, 0);
		return -1;
	}
	assert_int_equal(b.len, 0);
	return 0;
}

static void test_calls(void **state)
{
	struct fixture *f = *state;
	struct seen ps = {0};
	struct chan *pmix = chan_create(f->base, f->fds[1],
					PMIXEV_PMIXD_FROM_ROOT, on_close, &ps);
	struct answers a1 = {0}, a2 = {0}, a3 = {0};
	struct pmixev_pmixd_data done = {.result = PMIXEV_OK,
					 .data = (const uint8_t *)"xyz",
					 .ndata = 3};
	uint8_t h[PMIXEV_PMIXD_HDR_LEN];
	int fd = f->fds[1], kicks = 0;

	f->fds[1] = -1;
	assert_non_null(pmix);
	ps.calls = calls_create(pmix);
	assert_non_null(ps.calls);
	chan_set_kick(pmix, count_kick, &kicks);
	assert_int_equal(send_call(ps.calls, &a1), 0);
	assert_int_equal(send_call(ps.calls, &a2), 0);
	spin(f);
	assert_int_equal(f->rs.frames, 2);
	/* Root answers the first (ids from 1). */
	done.id = 1;
	assert_int_equal(
		chan_send_data(f->root, PMIXEV_PMIXD_FENCE_DONE, &done), 0);
	spin(f);
	assert_int_equal(a1.n, 1);
	assert_int_equal(a1.result, PMIXEV_OK);
	assert_int_equal(a1.ndata, 3);
	assert_int_equal(a2.n, 0);
	/* A malformed frame from the pmix side: root closes the channel,
	 * the pmix side sees EOF and the waiting call fails. */
	pmixev_pmixd_hdr_encode(PMIXEV_PMIXD_FENCE, 0, h);
	h[4] = 99; /* version */
	put(fd, h, sizeof(h));
	spin(f);
	assert_int_equal(f->rs.closed, 1);
	assert_string_equal(f->rs.why, "unsupported version");
	assert_int_equal(ps.closed, 1);
	assert_int_equal(ps.failed, 1);
	assert_int_equal(a2.n, 1);
	assert_int_equal(a2.result, PMIXEV_ERR_UNREACH);
	/* Later calls are refused at once, not kept nor answered. */
	assert_int_equal(send_call(ps.calls, &a3), -1);
	assert_int_equal(a3.n, 0);
	assert_int_equal(kicks, 0);
	calls_destroy(ps.calls);
	chan_destroy(pmix);
}

/* Root names an id it was never given: the pmix side closes. */
static void test_unknown_id(void **state)
{
	struct fixture *f = *state;
	struct seen ps = {0};
	struct chan *pmix = chan_create(f->base, f->fds[1],
					PMIXEV_PMIXD_FROM_ROOT, on_close, &ps);
	struct answers a = {0};
	struct pmixev_pmixd_data done = {.id = 77, .result = PMIXEV_OK};
	int kicks = 0;

	f->fds[1] = -1;
	assert_non_null(pmix);
	ps.calls = calls_create(pmix);
	chan_set_kick(pmix, count_kick, &kicks);
	assert_int_equal(send_call(ps.calls, &a), 0);
	spin(f);
	assert_int_equal(
		chan_send_data(f->root, PMIXEV_PMIXD_DMODEX_DONE, &done), 0);
	spin(f);
	assert_int_equal(ps.closed, 1);
	assert_string_equal(ps.why, "a malformed DMODEX_DONE message");
	assert_int_equal(a.n, 1);
	assert_int_equal(a.result, PMIXEV_ERR_UNREACH);
	assert_int_equal(f->rs.closed, 1); /* root saw EOF */
	calls_destroy(ps.calls);
	chan_destroy(pmix);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_byte_at_a_time, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_frames_in_one_read, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_large_frame, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_oversize, setup, teardown),
		cmocka_unit_test_setup_teardown(test_queue_bound, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_bad_magic, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_wrong_side, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_no_handler, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_malformed_body, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_eof, setup, teardown),
		cmocka_unit_test_setup_teardown(test_send_any_large, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_send_any_error, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_send_error_closes_later,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_calls, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_id, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, fx_setup, fx_teardown);
}
