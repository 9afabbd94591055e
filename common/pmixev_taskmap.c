/*
 * pmixev_taskmap.c - strict parser and formatter for SLURM_PMIXEV_TASKMAP.
 *
 * The parser takes untrusted text: numbers are plain decimal (no sign, no
 * space, no leading zero), ranges "a-b" need a < b, ranks rise within a
 * group, and every rank 0..ntasks-1 must appear exactly once. Memory is
 * bounded by ntasks (capped) and nnodes (which must equal the number of
 * groups, so it is bounded by the text length). All per-node rank lists
 * share one block of ntasks entries: ranks[0] owns it.
 */
#include "config.h"

#include "pmixev_taskmap.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TASKS  (1u << 24)
#define UNASSIGNED UINT32_MAX

struct parser {
	const char *text;
	size_t pos;
	struct pmixev_taskmap *map;
	char *err;
	size_t errlen;
};

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Parse one rank at p->pos: digits only, no leading zero, below ntasks. */
static int parse_rank(struct parser *p, uint32_t *rank)
{
	const char *s = p->text + p->pos;
	uint64_t v = 0;
	size_t i = 0;

	if (!is_digit(s[0]) || (s[0] == '0' && is_digit(s[1]))) {
		snprintf(p->err, p->errlen, "bad number at offset %zu", p->pos);
		return -1;
	}
	for (; is_digit(s[i]); i++) {
		v = v * 10 + (uint64_t)(s[i] - '0');
		if (v > UINT32_MAX) {
			snprintf(p->err, p->errlen,
				 "number too large at offset %zu", p->pos);
			return -1;
		}
	}
	if (v >= p->map->ntasks) {
		snprintf(p->err, p->errlen,
			 "rank %" PRIu64 " >= ntasks %" PRIu32, v,
			 p->map->ntasks);
		return -1;
	}
	p->pos += i;
	*rank = (uint32_t)v;
	return 0;
}

/*
 * Parse one item ("a" or "a-b") of group `node` whose previous item ended
 * at rank *last (UNASSIGNED before the first item), and record its ranks.
 */
static int parse_item(struct parser *p, uint32_t node, uint32_t *last)
{
	struct pmixev_taskmap *m = p->map;
	size_t start = p->pos;
	uint32_t a, b;

	if (parse_rank(p, &a) < 0)
		return -1;
	b = a;
	if (p->text[p->pos] == '-') {
		p->pos++;
		if (parse_rank(p, &b) < 0)
			return -1;
		if (b <= a) {
			snprintf(p->err, p->errlen,
				 "bad range %" PRIu32 "-%" PRIu32
				 " at offset %zu",
				 a, b, start);
			return -1;
		}
	}
	if (*last != UNASSIGNED && a <= *last && m->node_of[a] == UNASSIGNED) {
		snprintf(p->err, p->errlen,
			 "rank %" PRIu32 " out of order at offset %zu", a,
			 start);
		return -1;
	}
	for (uint64_t r = a; r <= b; r++) {
		if (m->node_of[r] != UNASSIGNED) {
			snprintf(p->err, p->errlen,
				 "rank %" PRIu64 " appears twice", r);
			return -1;
		}
		m->node_of[r] = node;
		m->local_of[r] = m->count[node]++;
	}
	*last = b;
	return 0;
}

/* Parse a non-empty group: items separated by ','. */
static int parse_list(struct parser *p, uint32_t node)
{
	uint32_t last = UNASSIGNED;

	for (;;) {
		if (parse_item(p, node, &last) < 0)
			return -1;
		if (p->text[p->pos] != ',')
			return 0;
		p->pos++;
	}
}

/* Parse the whole text into p->map's node_of, local_of and count. */
static int parse_groups(struct parser *p)
{
	for (uint32_t node = 0;; node++) {
		char c = p->text[p->pos];

		if (c != ';' && c != '\0' && parse_list(p, node) < 0)
			return -1;
		c = p->text[p->pos];
		if (c == '\0')
			return 0;
		if (c != ';') {
			snprintf(p->err, p->errlen,
				 "unexpected character at offset %zu", p->pos);
			return -1;
		}
		p->pos++;
	}
}

static void fill_ranks(struct pmixev_taskmap *m)
{
	uint32_t *next = m->ranks[0];

	for (uint32_t n = 0; n < m->nnodes; n++) {
		m->ranks[n] = next;
		next += m->count[n];
	}
	for (uint32_t r = 0; r < m->ntasks; r++)
		m->ranks[m->node_of[r]][m->local_of[r]] = r;
}

static int check_args(const char *text, uint32_t nnodes, uint32_t ntasks,
		      char *err, size_t errlen)
{
	size_t groups = 1;

	if (!text) {
		snprintf(err, errlen, "no task map");
		return -1;
	}
	if (nnodes == 0 || ntasks == 0) {
		snprintf(err, errlen, "step has no %s",
			 nnodes == 0 ? "nodes" : "tasks");
		return -1;
	}
	if (ntasks > MAX_TASKS) {
		snprintf(err, errlen,
			 "%" PRIu32 " tasks exceed the limit of %u", ntasks,
			 MAX_TASKS);
		return -1;
	}
	for (const char *s = text; (s = strchr(s, ';')); s++)
		groups++;
	if (groups != nnodes) {
		snprintf(err, errlen,
			 "expected %" PRIu32 " node groups, found %zu", nnodes,
			 groups);
		return -1;
	}
	return 0;
}

int pmixev_taskmap_parse(struct pmixev_taskmap *map, const char *text,
			 uint32_t nnodes, uint32_t ntasks, char *err,
			 size_t errlen)
{
	struct pmixev_taskmap m = {.nnodes = nnodes, .ntasks = ntasks};
	struct parser p = {
		.text = text, .map = &m, .err = err, .errlen = errlen};

	if (check_args(text, nnodes, ntasks, err, errlen) < 0)
		return -1;
	m.node_of = malloc(ntasks * sizeof(*m.node_of));
	m.local_of = malloc(ntasks * sizeof(*m.local_of));
	m.count = calloc(nnodes, sizeof(*m.count));
	m.ranks = calloc(nnodes, sizeof(*m.ranks));
	if (m.ranks)
		m.ranks[0] = malloc(ntasks * sizeof(**m.ranks));
	if (!m.node_of || !m.local_of || !m.count || !m.ranks || !m.ranks[0]) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	memset(m.node_of, 0xff, ntasks * sizeof(*m.node_of));
	if (parse_groups(&p) < 0)
		goto fail;
	for (uint32_t r = 0; r < ntasks; r++) {
		if (m.node_of[r] == UNASSIGNED) {
			snprintf(err, errlen, "rank %" PRIu32 " is missing", r);
			goto fail;
		}
	}
	fill_ranks(&m);
	*map = m;
	return 0;
fail:
	pmixev_taskmap_free(&m);
	return -1;
}

/*
 * Write the text form into out (when not NULL) and return its length.
 * Consecutive ranks collapse into "a-b".
 */
static uint64_t emit(char *out, uint32_t nnodes, const uint16_t *count,
		     uint32_t *const *ranks)
{
	uint64_t len = 0;
	char num[32];

	for (uint32_t n = 0; n < nnodes; n++) {
		const uint32_t *r = ranks[n];

		if (n > 0) {
			if (out)
				out[len] = ';';
			len++;
		}
		for (uint32_t i = 0; i < count[n];) {
			uint32_t j = i;
			int k;

			while (j + 1u < count[n] &&
			       (uint64_t)r[j] + 1 == r[j + 1])
				j++;
			k = snprintf(num, sizeof(num), "%s%" PRIu32,
				     i ? "," : "", r[i]);
			if (j > i)
				k += snprintf(num + k, sizeof(num) - (size_t)k,
					      "-%" PRIu32, r[j]);
			if (out)
				memcpy(out + len, num, (size_t)k);
			len += (uint64_t)k;
			i = j + 1;
		}
	}
	if (out)
		out[len] = '\0';
	return len;
}

char *pmixev_taskmap_format(uint32_t nnodes, const uint16_t *count,
			    uint32_t *const *ranks)
{
	uint64_t len;
	char *out;

	if (nnodes > 0 && (!count || !ranks))
		return NULL;
	len = emit(NULL, nnodes, count, ranks);
	if (len >= SIZE_MAX)
		return NULL;
	out = malloc((size_t)len + 1);
	if (out)
		emit(out, nnodes, count, ranks);
	return out;
}

/* The run of ranks from `r` on r's node: its length. */
static uint32_t run_at(const struct pmixev_taskmap *map, uint32_t r)
{
	uint32_t n = 1;

	while (r + n < map->ntasks && map->node_of[r + n] == map->node_of[r])
		n++;
	return n;
}

char *pmixev_taskmap_anl(const struct pmixev_taskmap *map)
{
	/* "(vector" ")" + per triple ",(" 3 numbers of <= 10 digits ",," ")":
	 * at most 35 bytes a triple, a triple at most a rank (size_t is 64-bit
	 * on every target Slurm builds for). */
	size_t cap, off;
	char *out;

	if (!map || !map->ntasks)
		return NULL;
	cap = 16 + (size_t)map->ntasks * 40;
	if (!(out = malloc(cap)))
		return NULL;
	off = (size_t)snprintf(out, cap, "(vector");
	for (uint32_t r = 0; r < map->ntasks;) {
		uint32_t node = map->node_of[r], per = run_at(map, r),
			 nodes = 1;

		r += per;
		/* The next run continues the triple: the next node, as many. */
		while (r < map->ntasks && map->node_of[r] == node + nodes &&
		       run_at(map, r) == per) {
			r += per;
			nodes++;
		}
		off += (size_t)snprintf(out + off, cap - off,
					",(%" PRIu32 ",%" PRIu32 ",%" PRIu32
					")",
					node, nodes, per);
	}
	snprintf(out + off, cap - off, ")");
	return out;
}

void pmixev_taskmap_free(struct pmixev_taskmap *map)
{
	if (!map)
		return;
	if (map->ranks)
		free(map->ranks[0]);
	free(map->ranks);
	free(map->count);
	free(map->local_of);
	free(map->node_of);
	memset(map, 0, sizeof(*map));
}
