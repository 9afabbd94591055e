/*
 * pmixside/listen.h - every part of the pmix side that serves frames from
 * root registers its handlers here, in one place for both homes of the
 * pmix side (slurmstepd's thread, the PMIx server process).
 */
#ifndef PMIXEV_PMIXSIDE_LISTEN_H_
#define PMIXEV_PMIXSIDE_LISTEN_H_

#include "pmixside/side.h"

/* Before its agent runs. */
void pmixside_listen_all(struct pmixside *p);

#endif /* PMIXEV_PMIXSIDE_LISTEN_H_ */
