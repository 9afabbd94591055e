/*
 * list_formats.h - the list formats pmix_keys compares: Slurm's
 * tasks-per-node ("2(x3),1"), PMIx's local peers ("0,1,2" or "0-2"), and
 * numbers inside such lists. Header-only (static inline).
 */
#ifndef PMIXEV_LIST_FORMATS_H_
#define PMIXEV_LIST_FORMATS_H_

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Does S contain the decimal number NUM, not as part of a longer number? */
static inline bool has_number(const char *s, const char *num)
{
	size_t n = strlen(num);

	for (const char *p = strstr(s, num); p; p = strstr(p + 1, num)) {
		bool digit_before = p > s && p[-1] >= '0' && p[-1] <= '9';
		bool digit_after = p[n] >= '0' && p[n] <= '9';

		if (!digit_before && !digit_after)
			return true;
	}
	return false;
}

/*
 * Tasks on node NODEID according to SPEC, Slurm's tasks-per-node format
 * ("2(x3),1": three nodes with 2 tasks, then one with 1); -1 if invalid.
 */
static inline long tasks_on_node(const char *spec, long nodeid)
{
	const char *p = spec;
	long node = 0;

	while (p && *p) {
		char *end;
		long count = strtol(p, &end, 10), reps = 1;

		if (end == p || count < 0)
			return -1;
		if (!strncmp(end, "(x", 2)) {
			reps = strtol(end + 2, &end, 10);
			if (reps < 1 || *end != ')')
				return -1;
			end++;
		}
		if (nodeid < node + reps)
			return count;
		node += reps;
		if (*end == '\0')
			break;
		if (*end != ',')
			return -1;
		p = end + 1;
	}
	return -1;
}

/*
 * Parse a PMIX_LOCAL_PEERS list ("0,1,2"; ranges "0-2" are accepted too)
 * into IN[0..SIZE); the number of entries, or -1 if malformed, out of
 * range or duplicated.
 */
static inline long parse_peers(const char *s, bool *in, uint32_t size)
{
	long n = 0;

	memset(in, 0, size * sizeof(*in));
	while (*s) {
		char *end;
		unsigned long lo = strtoul(s, &end, 10), hi = lo;

		if (end == s)
			return -1;
		if (*end == '-') {
			const char *q = end + 1;

			hi = strtoul(q, &end, 10);
			if (end == q || hi < lo)
				return -1;
		}
		if (hi >= size)
			return -1;
		for (unsigned long r = lo; r <= hi; r++) {
			if (in[r])
				return -1;
			in[r] = true;
			n++;
		}
		if (*end == '\0')
			break;
		if (*end != ',')
			return -1;
		s = end + 1;
	}
	return n;
}

#endif /* PMIXEV_LIST_FORMATS_H_ */
