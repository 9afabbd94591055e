/*
 * stepd/gone.c - root's answer when this node's PMIx server process ends.
 */
#include "config.h"

#include "stepd/gone.h"

#include <stdio.h>
#include <unistd.h>

#include "base/agent.h"
#include "events/clients.h"
#include "jobmgmt/ptable.h"
#include "overlay/overlay.h"
#include "pmixd/chan.h"
#include "pmixd/proc.h"
#include "pmixev_log.h"
#include "pmixev_proto.h"
#include "wireup/dmodex.h"
#include "wireup/coll.h"

#define TASK_KILL_MS 250 /* tasks left without a PMIx server: killed */
#define SAID_WAIT_MS 100 /* the task-exit hook's wait for the line */

static void mark_said(evutil_socket_t fd, short what, void *arg)
{
	struct gone *g = arg;

	atomic_store(&g->said, true);
}

/*
 * The line to srun sits in its link's buffer until the loop writes it:
 * the loop's next round writes it (ready descriptors are served before
 * timers), then marks it said.
 */
static void mark_said_after_write(struct gone *g, struct step *s)
{
	const struct timeval next_round = {0, 1};

	if (event_base_once(agent_base(s->agent), -1, EV_TIMEOUT, mark_said, g,
			    &next_round) < 0)
		atomic_store(&g->said, true);
}

void gone_handle(struct gone *g, struct step *s, const char *why, bool early)
{
	char ended[256];
	char text[PMIXEV_MSG_TEXT_MAX];

	pmixd_proc_ended(s->pmixd, ended, sizeof(ended));
	if (!early) {
		PMIXEV_DEBUG(1,
			     "the PMIx server process ended with the "
			     "step's tasks here (%s)",
			     ended);
		atomic_store(&g->said, true);
	} else {
		snprintf(text, sizeof(text),
			 "the PMIx server process ended (%s; %s): this node's "
			 "tasks lose their PMIx server; those that still run "
			 "in %.2f s are killed",
			 why, ended, TASK_KILL_MS / 1000.0);
		PMIXEV_ERROR("%s; the step's collectives with a rank here fail "
			     "on every node, and so do the direct modex "
			     "requests of other nodes it was serving",
			     text);
		/* Early in the step, before Slurm relays its lines. */
		if (overlay_tell_srun(s->ov, text) < 0) {
			PMIXEV_DEBUG(1, "srun could not be told");
			atomic_store(&g->said, true);
		} else
			mark_said_after_write(g, s);
		ptable_kill_running(s->ptable, TASK_KILL_MS); /* said first */
	}
	coll_pmix_gone(s->coll, early);
	dmodex_pmix_gone(s->dmodex);
	clients_pmix_gone(s->clients);
}

void gone_wait_said(struct gone *g, struct step *s)
{
	for (int i = 0; i < SAID_WAIT_MS && !atomic_load(&g->said) &&
			chan_peer_gone(s->chan);
	     i++)
		usleep(1000);
}
