/*
 * Unit tests for the batching of plugins/mpi_pmixev/pmixd/chan.c, over a
 * real socketpair and libevent base: bounded frames (events) wait for the
 * end of the owner's loop pass and leave together, behind what was sent
 * before them; a chan_send writes them at once, in order; frames posted
 * from another thread (chan_post_any) are never written in place, kick
 * the owner once for the lot and arrive in order when it runs.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cmocka.h>

#include "pmixd/chan.h"

#define NSEQ	  5
#define FRAME_LEN (PMIXEV_PMIXD_HDR_LEN + 8) /* a SYNC_ECHO frame */

struct fixture {
	struct event_base *base;
	int fds[2];
	struct chan *root;  /* reads what the pmix side sends */
	struct chan *pside; /* the pmix side's end: sends */
	uint64_t seen[NSEQ + 1];
	int frames, kicks;
};

static int on_echo(void *ctx, struct pmixev_buf *body)
{
	struct fixture *f = ctx;
	uint64_t seq;

	if (pmixev_pmixd_seq_unpack(body, &seq) < 0 || f->frames > NSEQ)
		return -1;
	f->seen[f->frames++] = seq;
	return 0;
}

/* The kick: counted; the test runs chan_kick itself, as the agent would. */
static void count_kick(void *ctx)
{
	struct fixture *f = ctx;

	f->kicks++;
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	if (!f || !(f->base = event_base_new()) || chan_socketpair(f->fds) < 0)
		return -1;
	f->root = chan_create(f->base, f->fds[0], PMIXEV_PMIXD_FROM_OWNER, NULL,
			      NULL);
	f->pside = chan_create(f->base, f->fds[1], PMIXEV_PMIXD_FROM_ROOT, NULL,
			       NULL);
	if (!f->root || !f->pside)
		return -1;
	chan_on(f->root, PMIXEV_PMIXD_SYNC_ECHO, on_echo, f);
	chan_set_kick(f->pside, count_kick, f);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	chan_destroy(f->root);
	chan_destroy(f->pside);
	event_base_free(f->base);
	free(f);
	return 0;
}

static void echo_frame(struct pmixev_buf *b, uint64_t seq)
{
	pmixev_buf_init(b);
	chan_frame_begin(b);
	assert_int_equal(pmixev_pmixd_seq_pack(b, seq), 0);
}

/* Bytes written to root's end and not read yet. */
static int unread(struct fixture *f)
{
	int n = -1;

	assert_int_equal(ioctl(f->fds[0], FIONREAD, &n), 0);
	return n;
}

/* Run the loop until root has read `n` frames; they are 1..n in order. */
static void arrive_in_order(struct fixture *f, int n)
{
	for (int i = 0; i < 1000 && f->frames < n; i++)
		event_base_loop(f->base, EVLOOP_NONBLOCK);
	assert_int_equal(f->frames, n);
	for (int i = 0; i < n; i++)
		assert_int_equal(f->seen[i], (uint64_t)i + 1);
}

static void test_bounded_wait_for_the_pass(void **state)
{
	struct fixture *f = *state;
	struct pmixev_buf b;

	for (uint64_t seq = 1; seq <= 3; seq++) {
		echo_frame(&b, seq);
		assert_int_equal(
			chan_send_bounded(f->pside, PMIXEV_PMIXD_SYNC_ECHO, &b),
			0);
	}
	assert_int_equal(unread(f), 0);
	event_base_loop(f->base, EVLOOP_NONBLOCK);
	assert_int_equal(unread(f) + f->frames * FRAME_LEN, 3 * FRAME_LEN);
	arrive_in_order(f, 3);
}

static void test_send_flushes_bounded(void **state)
{
	struct fixture *f = *state;
	struct pmixev_buf b;

	echo_frame(&b, 1);
	assert_int_equal(
		chan_send_bounded(f->pside, PMIXEV_PMIXD_SYNC_ECHO, &b), 0);
	echo_frame(&b, 2);
	assert_int_equal(chan_send(f->pside, PMIXEV_PMIXD_SYNC_ECHO, &b), 0);
	assert_int_equal(unread(f), 2 * FRAME_LEN);
	arrive_in_order(f, 2);
}

static void *post_thread(void *arg)
{
	struct fixture *f = arg;
	struct pmixev_buf b;

	for (uint64_t seq = 1; seq <= NSEQ; seq++) {
		echo_frame(&b, seq);
		if (chan_post_any(f->pside, PMIXEV_PMIXD_SYNC_ECHO, &b) < 0)
			return arg;
	}
	return NULL;
}

static void test_post_any_kicks_once(void **state)
{
	struct fixture *f = *state;
	void *failed = f;
	pthread_t th;

	assert_int_equal(pthread_create(&th, NULL, post_thread, f), 0);
	assert_int_equal(pthread_join(th, &failed), 0);
	assert_null(failed);
	assert_int_equal(f->kicks, 1);
	assert_int_equal(unread(f), 0);
	chan_kick(f->pside);
	assert_int_equal(unread(f), NSEQ * FRAME_LEN);
	arrive_in_order(f, NSEQ);
	/* Written: the next post kicks again. */
	assert_int_equal(pthread_create(&th, NULL, post_thread, f), 0);
	assert_int_equal(pthread_join(th, &failed), 0);
	assert_int_equal(f->kicks, 2);
}

static void test_post_any_closed(void **state)
{
	struct fixture *f = *state;
	struct pmixev_buf b;

	chan_destroy(f->root);
	f->root = NULL;
	echo_frame(&b, 1);
	assert_int_equal(chan_send(f->pside, PMIXEV_PMIXD_SYNC_ECHO, &b), -1);
	for (int i = 0; i < 8; i++)
		event_base_loop(f->base, EVLOOP_NONBLOCK);
	assert_false(chan_is_open(f->pside));
	echo_frame(&b, 2);
	assert_int_equal(chan_post_any(f->pside, PMIXEV_PMIXD_SYNC_ECHO, &b),
			 -1);
	assert_int_equal(b.len, 0);
	assert_int_equal(f->kicks, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_bounded_wait_for_the_pass,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_send_flushes_bounded,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_post_any_kicks_once, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_post_any_closed, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
