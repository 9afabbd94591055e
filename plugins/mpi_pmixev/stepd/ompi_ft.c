/*
 * stepd/ompi_ft.c - Open MPI's fault tolerance under srun (see ompi_ft.h).
 */
#include "config.h"

#include "stepd/ompi_ft.h"

#include <signal.h>
#include <stdio.h>

#include "pmixev_log.h"
#include "pmixev_ompi_ft.h"
#include "slurm_compat.h"

/*
 * A job that turned Open MPI's fault tolerance on gets the settings it
 * needs under srun (pmixev_ompi_ft.h) where it did not choose its own, and
 * its tasks start with SIGPIPE ignored: Open MPI's TCP transport writes to
 * a crashed node's peers without MSG_NOSIGNAL (Linux has no SO_NOSIGPIPE),
 * so a survivor could die of SIGPIPE instead of seeing EPIPE, a failure
 * ULFM handles. Said by the node's first task (each task runs this in its
 * own child, before exec: an ignored signal stays ignored).
 */
void ompi_ft_task(const mpi_plugin_task_info_t *task, char ***env)
{
	struct pmixev_setting set[4];
	size_t n;
	char said[256] = "";
	size_t off = 0;

	if (!pmixev_ompi_ft_on(*env))
		return;
	signal(SIGPIPE, SIG_IGN);
	n = pmixev_ompi_ft_defaults(*env, set, sizeof(set) / sizeof(set[0]));
	for (size_t i = 0; i < n; i++) {
		slurm_env_array_overwrite(env, set[i].name, set[i].value);
		if (off < sizeof(said))
			off += (size_t)snprintf(said + off, sizeof(said) - off,
						"%s%s=%s", i ? " " : "",
						set[i].name, set[i].value);
	}
	if (task->ltaskid == 0)
		PMIXEV_INFO("Open MPI fault tolerance is on "
			    "(OMPI_MCA_mpi_ft_enable): the tasks ignore "
			    "SIGPIPE%s%s%s",
			    n ? " and get " : "", said,
			    n ? ", which the job did not set" : "");
}
