/*
 * pmixev_jobwatch.h - what changed in a job between two looks at it from
 * slurmctld: the scheduler events pmixev turns into PMIx events.
 *
 * Fed with each state the owner helper reads (common/pmixev_helper_msg.h), it
 * says what to announce:
 *   PREEMPT       preempt_time became set: value = grace seconds left,
 *                 detail = PMIXEV_PREEMPT_* (what Slurm will do then)
 *   TIME_WARNING  the end time is within the lead time: value = seconds
 *   TIME_CHANGED  the end time moved (not by a preemption): value = seconds
 *   SUSPENDED / RESUMED / REQUEUED / CANCELLED / ENDED
 * Each once per occurrence; the first look announces only what is already
 * under way (a preemption, a near end). Pure code, unit-tested.
 */
#ifndef PMIXEV_JOBWATCH_H_
#define PMIXEV_JOBWATCH_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmixev_helper_msg.h"

enum pmixev_jobev_kind {
	PMIXEV_JOBEV_PREEMPT,
	PMIXEV_JOBEV_TIME_WARNING,
	PMIXEV_JOBEV_TIME_CHANGED,
	PMIXEV_JOBEV_SUSPENDED,
	PMIXEV_JOBEV_RESUMED,
	PMIXEV_JOBEV_REQUEUED,
	PMIXEV_JOBEV_CANCELLED,
	PMIXEV_JOBEV_ENDED,
	/* Not from job states: a node of the job out of service (the
	 * watcher's node looks, pmixev_nodewatch.h); here for the mask. */
	PMIXEV_JOBEV_NODE_OFFLINE,
};

enum pmixev_preempt_after {
	PMIXEV_PREEMPT_UNKNOWN,
	PMIXEV_PREEMPT_CANCEL,
	PMIXEV_PREEMPT_REQUEUE,
	PMIXEV_PREEMPT_SUSPEND,
};

struct pmixev_jobev {
	enum pmixev_jobev_kind kind;
	int64_t value;	 /* seconds, where it applies; else -1 */
	uint32_t detail; /* PREEMPT: enum pmixev_preempt_after */
	char text[320];
};

#define PMIXEV_JOBEV_MAX 5 /* most events one look can give */

struct pmixev_jobwatch {
	int64_t lead; /* warn this many seconds before the end; 0: never */
	bool seen;
	struct pmixev_job_state last;
	bool warned, preempt_told, requeue_told, ended;
};

void pmixev_jobwatch_init(struct pmixev_jobwatch *w, int64_t lead);

/* The events state `s` (rc 0) gives; fills out[PMIXEV_JOBEV_MAX]. */
size_t pmixev_jobwatch_update(struct pmixev_jobwatch *w,
			      const struct pmixev_job_state *s,
			      struct pmixev_jobev out[PMIXEV_JOBEV_MAX]);

/* Bit of kind k in a mask of wanted events (PMIxevSchedEvents). */
#define PMIXEV_JOBEV_BIT(k) (1u << (k))
#define PMIXEV_JOBEV_ALL    0x1ffu

/*
 * Parse a user's list of scheduler events: "all", "none", or a comma list
 * of preempt, time, suspend (with resume), requeue, cancel, end, node.
 * 0 with
 * the mask, or -1 with the reason in `err`.
 */
int pmixev_jobev_parse(const char *list, unsigned *mask, char *err,
		       size_t errlen);

/* "cancel", "requeue", "suspend" or "". */
const char *pmixev_preempt_after_name(uint32_t after);

#endif /* PMIXEV_JOBWATCH_H_ */
