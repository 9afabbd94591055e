/*
 * pmixev_jobwatch.c - scheduler events from successive job states.
 */
#include "config.h"

#include "pmixev_jobwatch.h"

#include <stdio.h>
#include <string.h>

#include <slurm/slurm.h>

static const struct {
	const char *name;
	unsigned bits;
} groups[] = {
	{"preempt", PMIXEV_JOBEV_BIT(PMIXEV_JOBEV_PREEMPT)},
	{"time", PMIXEV_JOBEV_BIT(PMIXEV_JOBEV_TIME_WARNING) |
			 PMIXEV_JOBEV_BIT(PMIXEV_JOBEV_TIME_CHANGED)},
	{"suspend", PMIXEV_JOBEV_BIT(PMIXEV_JOBEV_SUSPENDED) |
			    PMIXEV_JOBEV_BIT(PMIXEV_JOBEV_RESUMED)},
	{"requeue", PMIXEV_JOBEV_BIT(PMIXEV_JOBEV_REQUEUED)},
	{"cancel", PMIXEV_JOBEV_BIT(PMIXEV_JOBEV_CANCELLED)},
	{"end", PMIXEV_JOBEV_BIT(PMIXEV_JOBEV_ENDED)},
	{"node", PMIXEV_JOBEV_BIT(PMIXEV_JOBEV_NODE_OFFLINE)},
};

int pmixev_jobev_parse(const char *list, unsigned *mask, char *err,
		       size_t errlen)
{
	unsigned m = 0;
	const char *p = list;

	if (!list || !*list)
		goto bad;
	if (!strcmp(list, "all") || !strcmp(list, "none")) {
		*mask = !strcmp(list, "all") ? PMIXEV_JOBEV_ALL : 0;
		return 0;
	}
	while (*p) {
		size_t len = strcspn(p, ",");
		size_t i;

		for (i = 0; i < sizeof(groups) / sizeof(groups[0]); i++)
			if (strlen(groups[i].name) == len &&
			    !strncmp(p, groups[i].name, len))
				break;
		if (i == sizeof(groups) / sizeof(groups[0]))
			goto bad;
		m |= groups[i].bits;
		p += len;
		if (*p == ',' && !*++p)
			goto bad;
	}
	*mask = m;
	return 0;
bad:
	snprintf(err, errlen,
		 "expected all, none, or a comma list of preempt, time, "
		 "suspend, requeue, cancel, end, node");
	return -1;
}

void pmixev_jobwatch_init(struct pmixev_jobwatch *w, int64_t lead)
{
	memset(w, 0, sizeof(*w));
	w->lead = lead;
}

const char *pmixev_preempt_after_name(uint32_t after)
{
	static const char *const names[] = {"", "cancel", "requeue", "suspend"};

	return after < sizeof(names) / sizeof(names[0]) ? names[after] : "";
}

/* What Slurm does at the end of a preemption's grace time. */
static uint32_t preempt_after(uint16_t mode)
{
	mode &= ~(PREEMPT_MODE_GANG | PREEMPT_MODE_WITHIN);
	if (mode & PREEMPT_MODE_CANCEL)
		return PMIXEV_PREEMPT_CANCEL;
	if (mode & PREEMPT_MODE_REQUEUE)
		return PMIXEV_PREEMPT_REQUEUE;
	if (mode & PREEMPT_MODE_SUSPEND)
		return PMIXEV_PREEMPT_SUSPEND;
	return PMIXEV_PREEMPT_UNKNOWN;
}

static struct pmixev_jobev *add(struct pmixev_jobev *out, size_t *n,
				enum pmixev_jobev_kind kind, int64_t value)
{
	struct pmixev_jobev *e = &out[(*n)++];

	*e = (struct pmixev_jobev){.kind = kind, .value = value};
	return e;
}

static int64_t left(const struct pmixev_job_state *s)
{
	int64_t l = s->end_time - s->now;

	return l > 0 ? l : 0;
}

/*
 * Did the end time really move? Slurm also moves it when a suspended job
 * resumes (by the time it was suspended), which leaves the time left as
 * it was: only a difference of more than a few seconds from the time
 * left at the last look (less what ran since) is a change.
 */
static bool moved(const struct pmixev_jobwatch *w,
		  const struct pmixev_job_state *s)
{
	int64_t expect = left(&w->last), d;

	int64_t slack = 2;

	if (!w->seen || s->end_time == w->last.end_time || s->end_time <= 0)
		return false;
	if ((w->last.state & JOB_STATE_BASE) != JOB_SUSPENDED)
		expect -= s->now - w->last.now;
	/* Suspended and resumed in between: up to all of it was a pause. */
	if (s->suspend_time != w->last.suspend_time)
		slack += s->now - w->last.now;
	d = left(s) - expect;
	return d > slack || d < -2;
}

static void time_events(struct pmixev_jobwatch *w,
			const struct pmixev_job_state *s,
			struct pmixev_jobev *out, size_t *n)
{
	bool near = w->lead > 0 && s->end_time > 0 && left(s) <= w->lead;
	uint32_t base = s->state & JOB_STATE_BASE;
	struct pmixev_jobev *e;

	/* A preemption alert says it; an ending job's end time is now. */
	if (s->preempt_time || base >= JOB_COMPLETE ||
	    (s->state & JOB_COMPLETING))
		return;
	if (moved(w, s)) {
		e = add(out, n, PMIXEV_JOBEV_TIME_CHANGED, left(s));
		snprintf(e->text, sizeof(e->text),
			 "the job's time limit changed: %lld s left "
			 "(%u min limit)",
			 (long long)left(s), s->time_limit);
		w->warned = near;
		return;
	}
	if (near && !w->warned) {
		e = add(out, n, PMIXEV_JOBEV_TIME_WARNING, left(s));
		snprintf(e->text, sizeof(e->text),
			 "the job reaches its time limit in %lld s",
			 (long long)left(s));
		w->warned = true;
	}
}

static void preempt_events(struct pmixev_jobwatch *w,
			   const struct pmixev_job_state *s,
			   struct pmixev_jobev *out, size_t *n)
{
	struct pmixev_jobev *e;

	if (!s->preempt_time) {
		w->preempt_told = false;
		return;
	}
	if (w->preempt_told)
		return;
	e = add(out, n, PMIXEV_JOBEV_PREEMPT, left(s));
	e->detail = preempt_after(s->preempt_mode);
	snprintf(e->text, sizeof(e->text),
		 "Slurm is preempting the job: %lld s of grace time left, "
		 "then it will %s it",
		 (long long)left(s),
		 e->detail == PMIXEV_PREEMPT_UNKNOWN
			 ? "stop"
			 : pmixev_preempt_after_name(e->detail));
	w->preempt_told = true;
}

static const char *ending(uint32_t base)
{
	switch (base) {
	case JOB_CANCELLED:
		return "was cancelled";
	case JOB_COMPLETE:
		return "completed";
	case JOB_TIMEOUT:
		return "reached its time limit";
	case JOB_PREEMPTED:
		return "was preempted";
	case JOB_NODE_FAIL:
		return "lost a node";
	case JOB_OOM:
		return "ran out of memory";
	case JOB_FAILED:
		return "failed";
	}
	return "ended";
}

static void state_events(struct pmixev_jobwatch *w,
			 const struct pmixev_job_state *s,
			 struct pmixev_jobev *out, size_t *n)
{
	uint32_t base = s->state & JOB_STATE_BASE;
	uint32_t was = w->last.state & JOB_STATE_BASE;
	bool requeue = (s->state & JOB_REQUEUE) ||
		       (w->seen && s->restarts > w->last.restarts);
	struct pmixev_jobev *e;

	if (w->seen && base == JOB_SUSPENDED && was != JOB_SUSPENDED) {
		e = add(out, n, PMIXEV_JOBEV_SUSPENDED, -1);
		snprintf(e->text, sizeof(e->text), "the job was suspended%s%s",
			 s->reason[0] ? ": " : "", s->reason);
	}
	if (w->seen && base == JOB_RUNNING && was == JOB_RUNNING &&
	    s->suspend_time != w->last.suspend_time) {
		/* Both happened between two looks. */
		e = add(out, n, PMIXEV_JOBEV_SUSPENDED, -1);
		snprintf(e->text, sizeof(e->text),
			 "the job was suspended (and resumed since)");
		was = JOB_SUSPENDED;
	}
	if (w->seen && base == JOB_RUNNING && was == JOB_SUSPENDED) {
		e = add(out, n, PMIXEV_JOBEV_RESUMED, -1);
		snprintf(e->text, sizeof(e->text), "the job was resumed");
	}
	if (requeue && !w->requeue_told) {
		e = add(out, n, PMIXEV_JOBEV_REQUEUED, -1);
		snprintf(e->text, sizeof(e->text),
			 "the job is being requeued%s%s",
			 s->reason[0] ? ": " : "", s->reason);
		w->requeue_told = true;
		return;
	}
	if (base == JOB_RUNNING)
		w->requeue_told = false;
	if (w->ended || base < JOB_COMPLETE || requeue)
		return;
	w->ended = true;
	e = add(out, n,
		base == JOB_CANCELLED ? PMIXEV_JOBEV_CANCELLED
				      : PMIXEV_JOBEV_ENDED,
		-1);
	snprintf(e->text, sizeof(e->text), "the job %s%s%s", ending(base),
		 s->reason[0] ? ": " : "", s->reason);
}

size_t pmixev_jobwatch_update(struct pmixev_jobwatch *w,
			      const struct pmixev_job_state *s,
			      struct pmixev_jobev out[PMIXEV_JOBEV_MAX])
{
	size_t n = 0;

	if (s->rc != 0)
		return 0;
	preempt_events(w, s, out, &n);
	time_events(w, s, out, &n);
	state_events(w, s, out, &n);
	w->last = *s;
	w->seen = true;
	return n;
}
