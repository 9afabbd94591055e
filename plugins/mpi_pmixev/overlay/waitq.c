/*
 * overlay/waitq.c - a door's waiting connections in a doubly linked list,
 * oldest at the head; victims found by a walk (a door holds at most a few
 * dozen beyond one per node).
 */
#include "config.h"

#include "overlay/waitq.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct waitq_entry {
	void *item;
	char host[INET6_ADDRSTRLEN];
	struct waitq_entry *prev, *next;
};

struct waitq {
	unsigned per_addr, total;
	size_t n;
	struct waitq_entry *head, *tail;
};

struct waitq *waitq_create(unsigned per_addr, unsigned total)
{
	struct waitq *q = calloc(1, sizeof(*q));

	if (!q)
		return NULL;
	q->per_addr = per_addr ? per_addr : 1;
	q->total = total ? total : 1;
	return q;
}

void *waitq_victim(const struct waitq *q, const char *host)
{
	const struct waitq_entry *oldest_here = NULL;
	unsigned here = 0;

	for (const struct waitq_entry *e = q->head; e; e = e->next) {
		if (strcmp(e->host, host) != 0)
			continue;
		if (!oldest_here)
			oldest_here = e;
		here++;
	}
	if (here >= q->per_addr)
		return oldest_here->item;
	if (q->n >= q->total)
		return q->head->item;
	return NULL;
}

struct waitq_entry *waitq_push(struct waitq *q, void *item, const char *host)
{
	struct waitq_entry *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->item = item;
	snprintf(e->host, sizeof(e->host), "%s", host);
	e->prev = q->tail;
	if (q->tail)
		q->tail->next = e;
	else
		q->head = e;
	q->tail = e;
	q->n++;
	return e;
}

void waitq_remove(struct waitq *q, struct waitq_entry *e)
{
	if (e->prev)
		e->prev->next = e->next;
	else
		q->head = e->next;
	if (e->next)
		e->next->prev = e->prev;
	else
		q->tail = e->prev;
	q->n--;
	free(e);
}

void *waitq_oldest(const struct waitq *q)
{
	return q->head ? q->head->item : NULL;
}

size_t waitq_count(const struct waitq *q)
{
	return q->n;
}

void waitq_each(const struct waitq *q, void (*fn)(void *item, void *arg),
		void *arg)
{
	for (const struct waitq_entry *e = q->head; e; e = e->next)
		fn(e->item, arg);
}

void waitq_destroy(struct waitq *q)
{
	if (!q)
		return;
	while (q->head)
		waitq_remove(q, q->head);
	free(q);
}
