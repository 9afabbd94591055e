/*
 * pmixev_log.c - Slurm logging with pmixev's context prefix.
 */
#include "config.h"

#include "pmixev_log.h"

#include <stdarg.h>
#include <stdio.h>

#include <slurm/spank.h>

/* Per-plugin context: set once in the plugin's process, read by all lines. */
static const char *component = "pmixev";
static char context[128];
static unsigned debug_level;

void pmixev_log_init(const char *name)
{
	component = name;
	context[0] = '\0';
}

void pmixev_log_set_step(const char *step_id, const char *node)
{
	snprintf(context, sizeof(context), "step %s on %s: ", step_id, node);
}

void pmixev_log_set_debug(unsigned level)
{
	debug_level = level;
}

__attribute__((format(printf, 2, 0))) static void
emit(enum pmixev_log_level level, const char *fmt, va_list ap)
{
	char msg[1024];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	switch (level) {
	case PMIXEV_LOG_ERROR:
		slurm_error("%s: %s%s", component, context, msg);
		break;
	case PMIXEV_LOG_INFO:
		slurm_info("%s: %s%s", component, context, msg);
		break;
	case PMIXEV_LOG_VERBOSE:
		slurm_verbose("%s: %s%s", component, context, msg);
		break;
	case PMIXEV_LOG_DEBUG:
		slurm_debug("%s: %s%s", component, context, msg);
		break;
	}
}

void pmixev_log(enum pmixev_log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(level, fmt, ap);
	va_end(ap);
}

void pmixev_log_debug(unsigned dbg, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(dbg <= debug_level ? PMIXEV_LOG_INFO : PMIXEV_LOG_DEBUG, fmt, ap);
	va_end(ap);
}
