/*
 * calloc_spy.h - what the code under test asks calloc for: the largest
 * request since calloc_max was last zeroed. The test links with
 * -Wl,--wrap=calloc, so the other objects' calls come here. Header-only:
 * each test is a single translation unit.
 */
#ifndef PMIXEV_CALLOC_SPY_H_
#define PMIXEV_CALLOC_SPY_H_

#include <stddef.h>
#include <stdint.h>

void *__real_calloc(size_t n, size_t size);
void *__wrap_calloc(size_t n, size_t size);

static size_t calloc_max; /* bytes */

void *__wrap_calloc(size_t n, size_t size)
{
	if (size && n <= SIZE_MAX / size && n * size > calloc_max)
		calloc_max = n * size;
	return __real_calloc(n, size);
}

#endif /* PMIXEV_CALLOC_SPY_H_ */
