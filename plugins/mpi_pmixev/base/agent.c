/*
 * base/agent.c - the agent thread and its work channel (a mutex-protected FIFO
 * plus an eventfd that wakes the loop).
 */
#include "config.h"

#include "base/agent.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

struct work {
	agent_fn_t fn;
	void *arg;
	struct work *next;
};

struct agent {
	struct event_base *base;
	struct event *wake_ev;
	int wake_fd;
	pthread_t thread;
	bool started;
	pthread_mutex_t lock; /* protects head, tail, stopping */
	struct work *head, *tail;
	bool stopping;
	bool look_last; /* one more round over the descriptors at the stop */
};

/* Only EAGAIN (counter full) can fail, and then a wake-up is pending. */
static void wake(struct agent *a)
{
	uint64_t one = 1;
	ssize_t n = write(a->wake_fd, &one, sizeof(one));

	(void)n;
}

static struct work *take_all(struct agent *a, bool *stop)
{
	struct work *w;

	pthread_mutex_lock(&a->lock);
	w = a->head;
	a->head = a->tail = NULL;
	*stop = a->stopping;
	pthread_mutex_unlock(&a->lock);
	return w;
}

static void on_wake(evutil_socket_t fd, short what, void *arg)
{
	struct agent *a = arg;
	uint64_t n;
	struct work *w, *next;
	bool stop;

	if (read(fd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		return;
	for (w = take_all(a, &stop); w; w = next) {
		next = w->next;
		w->fn(w->arg);
		free(w);
	}
	if (!stop)
		return;
	if (a->look_last) {
		/* A timer, not an immediate exit: the loop first polls once
		 * more and serves what is ready. */
		const struct timeval next_round = {0, 1};

		if (event_base_loopexit(a->base, &next_round) == 0)
			return;
	}
	event_base_loopbreak(a->base);
}

static void *agent_main(void *arg)
{
	struct agent *a = arg;

	event_base_loop(a->base, EVLOOP_NO_EXIT_ON_EMPTY);
	return NULL;
}

struct agent *agent_create(void)
{
	struct agent *a = calloc(1, sizeof(*a));

	if (!a)
		return NULL;
	a->wake_fd = -1;
	pthread_mutex_init(&a->lock, NULL);
	if (!(a->base = event_base_new()))
		goto fail;
	a->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (a->wake_fd < 0)
		goto fail;
	a->wake_ev = event_new(a->base, a->wake_fd, EV_READ | EV_PERSIST,
			       on_wake, a);
	if (!a->wake_ev || event_add(a->wake_ev, NULL) < 0)
		goto fail;
	return a;
fail:
	agent_destroy(a);
	errno = ENOMEM;
	return NULL;
}

int agent_start(struct agent *a)
{
	int rc = pthread_create(&a->thread, NULL, agent_main, a);

	if (rc) {
		errno = rc;
		return -1;
	}
	a->started = true;
	return 0;
}

int agent_post(struct agent *a, agent_fn_t fn, void *arg)
{
	struct work *w = malloc(sizeof(*w));
	bool was_empty = false;
	int rc = -1;

	if (!w)
		return -1;
	w->fn = fn;
	w->arg = arg;
	w->next = NULL;
	pthread_mutex_lock(&a->lock);
	if (!a->stopping) {
		was_empty = !a->head;
		if (a->tail)
			a->tail->next = w;
		else
			a->head = w;
		a->tail = w;
		w = NULL;
		rc = 0;
	}
	pthread_mutex_unlock(&a->lock);
	free(w);
	/* The loop takes the whole queue once woken: one wake-up per batch
	 * (a busy agent gets no system call per posted item). */
	if (was_empty)
		wake(a);
	return rc;
}

int agent_is_self(const struct agent *a)
{
	return a->started && pthread_equal(pthread_self(), a->thread);
}

struct event_base *agent_base(struct agent *a)
{
	return a->base;
}

static void halt(struct agent *a, bool look_last)
{
	struct work *w, *next;
	bool stop;

	pthread_mutex_lock(&a->lock);
	a->stopping = true;
	a->look_last = look_last;
	pthread_mutex_unlock(&a->lock);
	if (a->started) {
		wake(a);
		pthread_join(a->thread, NULL);
		a->started = false;
	}
	/* Work queued between the last wake-up and the stop. */
	for (w = take_all(a, &stop); w; w = next) {
		next = w->next;
		w->fn(w->arg);
		free(w);
	}
}

void agent_stop(struct agent *a)
{
	halt(a, false);
}

void agent_stop_after_look(struct agent *a)
{
	halt(a, true);
}

void agent_destroy(struct agent *a)
{
	if (!a)
		return;
	agent_stop(a);
	if (a->wake_ev)
		event_free(a->wake_ev);
	if (a->wake_fd >= 0)
		close(a->wake_fd);
	if (a->base)
		event_base_free(a->base);
	pthread_mutex_destroy(&a->lock);
	free(a);
}
