/*
 * pmixev_log_slurm.c - pmixev's log lines into Slurm's log (the sink of
 * pmixev_log.h in slurmstepd, srun and the owner helper).
 */
#include "config.h"

#include "pmixev_log.h"

#include <slurm/spank.h>

void pmixev_log_sink(enum pmixev_log_level level, const char *component,
		     const char *context, const char *msg)
{
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
