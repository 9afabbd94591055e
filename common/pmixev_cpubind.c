/*
 * pmixev_cpubind.c - per-task CPU sets from Slurm's --cpu-bind list.
 */
#include "config.h"

#include "pmixev_cpubind.h"

#include <ctype.h>
#include <string.h>

#include <slurm/slurm.h>

static void set_cpu(struct pmixev_cpus *c, unsigned cpu)
{
	c->bits[cpu / 64] |= UINT64_C(1) << (cpu % 64);
}

static int hex_digit(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	ch = (char)tolower((unsigned char)ch);
	return ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
}

/* One mask entry [p, p + len): hex, optional 0x, least significant last. */
static int parse_mask(const char *p, size_t len, struct pmixev_cpus *out)
{
	unsigned cpu = 0;

	if (len > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		p += 2;
		len -= 2;
	}
	if (!len)
		return -1;
	for (size_t i = len; i-- > 0; cpu += 4) {
		int d = hex_digit(p[i]);

		if (d < 0)
			return -1;
		for (int b = 0; b < 4; b++) {
			if (!(d & (1 << b)))
				continue;
			if (cpu + b >= PMIXEV_CPUBIND_MAX)
				return -1;
			set_cpu(out, cpu + (unsigned)b);
		}
	}
	return 0;
}

static int empty(const struct pmixev_cpus *c)
{
	for (size_t i = 0; i < PMIXEV_CPUBIND_WORDS; i++)
		if (c->bits[i])
			return 0;
	return 1;
}

/* A number: decimal, or hex with 0x. */
static int parse_num(const char *p, size_t len, unsigned long *v)
{
	int base = 10;

	*v = 0;
	if (len > 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		p += 2;
		len -= 2;
		base = 16;
	}
	if (!len || len > 8)
		return -1;
	for (size_t i = 0; i < len; i++) {
		int d = hex_digit(p[i]);

		if (d < 0 || d >= base)
			return -1;
		*v = *v * (unsigned long)base + (unsigned long)d;
	}
	return 0;
}

/* One map entry "ID" or "ID*COUNT": its id and how many tasks it takes. */
static int parse_map(const char *p, size_t len, unsigned long *cpu,
		     unsigned long *count)
{
	const char *star = memchr(p, '*', len);

	*count = 1;
	if (star &&
	    (parse_num(star + 1, len - (size_t)(star - p) - 1, count) < 0 ||
	     !*count))
		return -1;
	if (parse_num(p, star ? (size_t)(star - p) : len, cpu) < 0 ||
	    *cpu >= PMIXEV_CPUBIND_MAX)
		return -1;
	return 0;
}

/* Entries the list has (map entries count their repeats); 0: malformed. */
static unsigned long entries(const char *list, int map)
{
	unsigned long n = 0, cpu, count;
	struct pmixev_cpus scratch;

	for (const char *p = list;; p++) {
		size_t len = strcspn(p, ",");

		memset(&scratch, 0, sizeof(scratch));
		if (map ? parse_map(p, len, &cpu, &count) < 0
			: parse_mask(p, len, &scratch) < 0)
			return 0;
		n += map ? count : 1;
		p += len;
		if (!*p)
			return n;
	}
}

int pmixev_cpubind_task(uint32_t type, const char *list, uint32_t ltask,
			struct pmixev_cpus *out)
{
	int map = (type & CPU_BIND_MAP) != 0;
	unsigned long n, want, cpu, count;

	memset(out, 0, sizeof(*out));
	if ((type & CPU_BIND_NONE) || !(type & (CPU_BIND_MAP | CPU_BIND_MASK)))
		return 0;
	if (!list || !*list || !(n = entries(list, map)))
		return -1;
	want = ltask % n;
	for (const char *p = list;; p++) {
		size_t len = strcspn(p, ",");

		if (!map) {
			if (!want)
				return parse_mask(p, len, out) < 0 || empty(out)
					       ? -1
					       : 1;
			want--;
		} else {
			parse_map(p, len, &cpu, &count);
			if (want < count) {
				set_cpu(out, (unsigned)cpu);
				return 1;
			}
			want -= count;
		}
		p += len;
	}
}

int pmixev_cpubind_ranges(const char *list, struct pmixev_cpus *out)
{
	memset(out, 0, sizeof(*out));
	if (!*list)
		return 0;
	for (const char *p = list;; p++) {
		size_t len = strcspn(p, ","), dash;
		unsigned long lo, hi;

		dash = strcspn(p, "-,");
		/* Decimal: digits and at most one '-' between two numbers. */
		if (strspn(p, "0123456789-") < len ||
		    parse_num(p, dash, &lo) < 0)
			return -1;
		hi = lo;
		if (dash < len &&
		    parse_num(p + dash + 1, len - dash - 1, &hi) < 0)
			return -1;
		if (hi < lo || hi >= PMIXEV_CPUBIND_MAX)
			return -1;
		for (unsigned long c = lo; c <= hi; c++)
			set_cpu(out, (unsigned)c);
		p += len;
		if (!*p)
			return 1;
	}
}
