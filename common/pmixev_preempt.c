/*
 * pmixev_preempt.c - the preemptible mark in a job comment.
 */
#include "config.h"

#include "pmixev_preempt.h"

#include <stdio.h>
#include <string.h>

#define SPACES " \t\n"

bool pmixev_preempt_marked(const char *comment)
{
	size_t len = strlen(PMIXEV_PREEMPT_WORD);

	for (const char *p = comment ? comment : ""; *p;) {
		size_t n;

		p += strspn(p, SPACES);
		n = strcspn(p, SPACES);
		if (n == len && !strncmp(p, PMIXEV_PREEMPT_WORD, len))
			return true;
		p += n;
	}
	return false;
}

int pmixev_preempt_mark(const char *comment, bool on, char *out, size_t len)
{
	size_t word = strlen(PMIXEV_PREEMPT_WORD), off = 0;
	const char *p = comment ? comment : "";

	if (!len)
		return -1;
	out[0] = '\0';
	/* Every word but the mark, separated by what was before it. */
	while (*p) {
		size_t gap = strspn(p, SPACES), n = strcspn(p + gap, SPACES);

		if (!n)
			break;
		if (!(n == word && !strncmp(p + gap, PMIXEV_PREEMPT_WORD, n))) {
			if (!off)
				p += gap, gap = 0;
			if (off + gap + n >= len)
				return -1;
			memcpy(out + off, p, gap + n);
			off += gap + n;
			out[off] = '\0';
		}
		p += gap + n;
	}
	if (on && snprintf(out + off, len - off, "%s%s", off ? " " : "",
			   PMIXEV_PREEMPT_WORD) >= (int)(len - off))
		return -1;
	return 0;
}
