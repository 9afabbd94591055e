/*
 * overlay/nodeaddr.c - a step's node addresses from Slurm's own table of
 * nodes (slurm_conf_get_addr: what slurmd and srun dial to reach a node).
 */
#include "config.h"

#include "overlay/nodeaddr.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slurm_compat.h"

#include "pmixev_proto.h"

struct addrs *nodeaddr_resolve(char *const *names, uint32_t n, char *err,
			       size_t errlen)
{
	struct addrs *a = addrs_create(n);

	if (!a) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	for (uint32_t i = 0; i < n; i++) {
		slurm_addr_t sa;

		memset(&sa, 0, sizeof(sa));
		if (slurm_conf_get_addr(names[i], &sa, 0) != SLURM_SUCCESS) {
			snprintf(err, errlen,
				 "node %s has no address in slurm.conf",
				 names[i]);
			goto fail;
		}
		if (addrs_add(a, i, (const struct sockaddr *)&sa) < 0) {
			snprintf(err, errlen, "node %s's address: %s", names[i],
				 errno == EINVAL ? "not IPv4 or IPv6"
						 : strerror(errno));
			goto fail;
		}
	}
	return a;
fail:
	addrs_destroy(a);
	return NULL;
}

struct addrs *nodeaddr_resolve_list(const char *list, char *err, size_t errlen)
{
	struct addrs *a = NULL;
	char **names = NULL;
	uint32_t n = 0;

	if (!list || pmixev_slurm_expand_nodelist(list, PMIXEV_MAX_NODES,
						  &names, &n) < 0) {
		snprintf(err, errlen, "invalid node list '%.64s'",
			 list ? list : "");
		return NULL;
	}
	a = nodeaddr_resolve(names, n, err, errlen);
	for (uint32_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return a;
}
