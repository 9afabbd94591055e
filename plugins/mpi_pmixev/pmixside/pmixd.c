/*
 * pmixside/pmixd.c - the PMIx server process's life (see pmixd.h). Its
 * main thread reads START and writes READY itself, blocking, before any
 * other thread runs on the channel; then the pmix side's agent owns the
 * channel and the main thread waits for the end.
 */
#include "config.h"

#include "pmixside/pmixd.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pmix.h>

#include "base/step.h"
#include "pmixd/chan.h"
#include "pmixev_fsafe.h"
#include "pmixev_log.h"
#include "pmixev_pmixd_start.h"
#include "pmixside/ckpt_pmix.h"
#include "pmixside/listen.h"
#include "pmixside/monitor_pmix.h"
#include "pmixside/side.h"
#include "pmixside/pmixlib.h"

#define START_WAIT_MS 30000 /* root sends START right after the exec */

/* Root's START, whole. 0, or -1 with the reason in `why`. */
static int read_start(int fd, struct pmixev_pmixd_start *m, char *why,
		      size_t len)
{
	const char *bad = NULL;
	struct pmixev_buf r;
	uint8_t type = 0, *body = NULL;
	uint32_t n = 0;
	int rc = -1;

	if (chan_read_frame(fd, PMIXEV_PMIXD_FROM_ROOT, START_WAIT_MS, &type,
			    &body, &n, &bad) < 0) {
		snprintf(why, len, "no START from root: %s",
			 bad ? bad : strerror(errno));
		return -1;
	}
	pmixev_buf_reader(&r, body, n);
	if (type != PMIXEV_PMIXD_START)
		snprintf(why, len, "root's first frame is %s, not START",
			 pmixev_pmixd_type_name(type));
	else if (pmixev_pmixd_start_unpack(&r, m) < 0)
		snprintf(why, len, "START is malformed");
	else
		rc = 0;
	free(body);
	return rc;
}

/* Tell root how the start went, with each local task's environment. */
static int send_ready(int fd, const struct layout *lay,
		      const struct pmixlib *lib, uint16_t gate_port)
{
	uint32_t nlocal = layout_nlocal(lay);
	struct pmixev_pmixd_ready m = {.status = lib ? PMIXEV_OK
						     : PMIXEV_ERR_FAILED,
				       .gate_port = gate_port,
				       .lib_major = PMIX_VERSION_MAJOR};
	struct pmixev_buf b;
	int rc;

	if (lib && nlocal && !(m.env = calloc(nlocal, sizeof(*m.env))))
		m.status = PMIXEV_ERR_NOMEM;
	for (uint32_t i = 0; m.env && i < nlocal; i++, m.nenv++) {
		char *const *vars = pmixlib_task_env(lib, i);

		m.env[i].rank = lay->map.ranks[lay->nodeid][i];
		while (vars && vars[m.env[i].count])
			m.env[i].count++;
		m.env[i].vars = (char **)vars;
	}
	pmixev_buf_init(&b);
	chan_frame_begin(&b);
	rc = pmixev_pmixd_ready_pack(&b, &m);
	if (rc == 0) {
		rc = chan_write_frame(fd, PMIXEV_PMIXD_READY, &b,
				      START_WAIT_MS);
	} else {
		PMIXEV_ERROR("pmixd: the tasks' PMIx environment does not fit "
			     "READY's bounds (%u ranks)",
			     nlocal);
	}
	pmixev_buf_release(&b);
	free(m.env);
	return rc;
}

/* The step's settings the pmix side uses, from START. */
static void conf_from_start(struct pmixev_conf *c,
			    const struct pmixev_pmixd_start *m)
{
	memset(c, 0, sizeof(*c));
	c->debug = m->debug;
	c->timeout_sec = m->timeout_sec;
	c->event_cache = m->event_cache;
	c->event_cache_mib = m->event_cache_mib;
	c->event_kib = m->event_kib;
	c->publish_mib = m->publish_mib;
	c->log_rate = m->log_rate;
	c->gds = m->gds;
	c->spawn = m->spawn;
}

/*
 * The owner's tools find the server through the gate: a copy of the
 * rendezvous files in the tasks' directory, which they use as TMPDIR, and
 * one more under slurmstepd's pid (`pevent --pid` of the stepd finds it).
 */
static int tools_rendezvous(const struct pmixev_pmixd_start *m,
			    uint16_t ports[2])
{
	int dir = open(m->task_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc;
	char host[256], mine[320], stepd[320];

	if (dir < 0)
		return -1;
	rc = pmixlib_copy_rendezvous(m->server_dir, dir, m->uid, m->gid, ports);
	if (rc == 0 && gethostname(host, sizeof(host)) == 0) {
		host[sizeof(host) - 1] = '\0';
		snprintf(mine, sizeof(mine), "pmix.%s.tool.%ld", host,
			 (long)getpid());
		snprintf(stepd, sizeof(stepd), "pmix.%s.tool.%ld", host,
			 (long)getppid());
		rc = pmixev_fsafe_copy_new(dir, mine, dir, stepd, m->uid,
					   m->gid, 0600);
	}
	close(dir);
	return rc;
}

/* Serve the step of `m` until it ends. 0, or -1 (logged). */
static int serve(const struct pmixd_fds *fds,
		 const struct pmixev_pmixd_start *m)
{
	struct step s = {0};
	struct pmixlib *lib = NULL;
	struct pmixlib_cfg cfg = {0};
	char tmpdir[PMIXEV_PMIXD_PATH_MAX + 8],
		nsdir[PMIXEV_PMIXD_PATH_MAX + 8], err[256];
	uint16_t ports[2] = {0, 0};
	int rc = -1;

	conf_from_start(&s.conf, m);
	pmixev_log_set_debug(s.conf.debug, s.conf.log_rate);
	if (layout_from_start(&s.lay, m, err, sizeof(err)) < 0) {
		PMIXEV_ERROR("pmixd: the step's layout: %s", err);
		send_ready(fds->chan, &s.lay, NULL, 0);
		return -1;
	}
	snprintf(tmpdir, sizeof(tmpdir), "%s/tmp", m->task_dir);
	snprintf(nsdir, sizeof(nsdir), "%s/ns", m->task_dir);
	cfg = (struct pmixlib_cfg){.lay = &s.lay,
				   .server_dir = m->server_dir,
				   .tmpdir = tmpdir,
				   .nsdir = nsdir,
				   .event_cache =
					   pmixev_conf_event_slots(&s.conf),
				   .gds = s.conf.gds,
				   .bind_type = m->bind_type,
				   .bind_list = m->bind_list,
				   .step_cores = s.lay.step_cores};
	if (!(s.pside = pmixside_create(&s.lay, &s.conf, dup(fds->chan))) ||
	    !(s.gate = pmix_gate_create_inside(s.lay.uid, s.lay.gid,
					       &fds->doors))) {
		PMIXEV_ERROR("pmixd: cannot create its agent or its gate");
		goto out;
	}
	pmixside_listen_all(s.pside);
	cfg.gate = s.gate;
	step_serve(&s);
	if ((lib = pmixlib_start(&cfg, ports))) {
		s.pmix_uri = pmixlib_uri(lib);
		monitor_pmix_watch();
		ckpt_pmix_watch(s.pside);
		if (tools_rendezvous(m, ports) < 0)
			PMIXEV_ERROR("pmixd: cannot make the tools' rendezvous "
				     "in %s: %m; tools cannot connect",
				     m->task_dir);
	}
	if (send_ready(fds->chan, &s.lay, lib, ports[1]) < 0 || !lib) {
		PMIXEV_ERROR("pmixd: the PMIx server did not start, or root "
			     "did not hear it");
		goto out;
	}
	if (pmixside_start(s.pside) < 0) {
		PMIXEV_ERROR("pmixd: cannot start its agent: %m");
		goto out;
	}
	pmixside_wait_end(s.pside);
	rc = 0;
out:
	pmixside_stop(s.pside);
	pmixlib_stop(lib);
	step_serve(NULL);
	pmix_gate_destroy(s.gate);
	pmixside_destroy(s.pside);
	layout_free(&s.lay);
	return rc;
}

int pmixd_run(const struct pmixd_fds *fds)
{
	struct pmixev_pmixd_start m;
	char why[256];
	int rc;

	if (read_start(fds->chan, &m, why, sizeof(why)) < 0) {
		PMIXEV_ERROR("pmixd: %s", why);
		return 1;
	}
	pmixev_log_set_step(m.step.id, m.step.node);
	rc = serve(fds, &m);
	pmixev_pmixd_start_release(&m);
	pmixev_log_flush();
	return rc < 0 ? 1 : 0;
}
