/*
 * ownerhelper/owner_env.c - a program's environment, with what a sanitizer
 * runtime needs in a sanitizer build.
 */
#include "config.h"

#include "ownerhelper/owner_env.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PRELOAD "LD_PRELOAD="

static const char *const passed[] = {"ASAN_OPTIONS", "UBSAN_OPTIONS"};

/* "LD_PRELOAD=" the ASan runtime this process runs with, then what
 * `spec` (an LD_PRELOAD= entry, or NULL) preloads. False when there is no
 * runtime loaded or it does not fit. */
static bool runtime_first(char *out, size_t len, const char *spec)
{
	void *sym = dlsym(RTLD_DEFAULT, "__asan_init");
	Dl_info dl = {0};
	int n;

	if (!sym || !dladdr(sym, &dl) || !dl.dli_fname)
		return false;
	n = snprintf(out, len, PRELOAD "%s%s%s", dl.dli_fname, spec ? ":" : "",
		     spec ? spec + strlen(PRELOAD) : "");
	return n > 0 && (size_t)n < len;
}

const char *const *owner_env_make(struct owner_env *e, const char *const *envp)
{
	const char *spec_preload = NULL;
	size_t n = 0;

	if (!PMIXEV_SANITIZERS)
		return envp;
	for (size_t i = 0; envp[i]; i++) {
		if (i == OWNER_ENV_VARS)
			return NULL;
		if (strncmp(envp[i], PRELOAD, strlen(PRELOAD)) == 0)
			spec_preload = envp[i];
		else
			e->vars[n++] = envp[i];
	}
	if (runtime_first(e->preload, sizeof(e->preload), spec_preload))
		e->vars[n++] = e->preload;
	else if (spec_preload)
		e->vars[n++] = spec_preload;
	for (size_t i = 0; i < sizeof(passed) / sizeof(*passed); i++) {
		const char *v = getenv(passed[i]);
		int w;

		if (!v)
			continue;
		w = snprintf(e->options[i], sizeof(e->options[i]), "%s=%s",
			     passed[i], v);
		if (w < 0 || (size_t)w >= sizeof(e->options[i]))
			return NULL;
		e->vars[n++] = e->options[i];
	}
	e->vars[n] = NULL;
	return e->vars;
}
