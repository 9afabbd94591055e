/*
 * fuzz_hello.c - libFuzzer target for pmixev_hello_parse and _check.
 *
 * Input: a hello's body as a hostile or broken peer could send it. The
 * parser must never read past it, and what it accepts must satisfy the
 * checks' own preconditions (NUL-terminated names that fit).
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pmixev_hello.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy = malloc(size ? size : 1);
	struct pmixev_hello h;
	const char *why = NULL;

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	if (pmixev_hello_parse(copy, size, &h, &why) == 0) {
		if (strnlen(h.nspace, sizeof(h.nspace)) == sizeof(h.nspace) ||
		    strnlen(h.bfrops, sizeof(h.bfrops)) == sizeof(h.bfrops) ||
		    strnlen(h.gds, sizeof(h.gds)) == sizeof(h.gds))
			abort();
		(void)pmixev_hello_check(&h, 5, "ds21,hash", 1000, 100, 1000,
					 &why);
	} else if (!why) {
		abort();
	}
	free(copy);
	return 0;
}
