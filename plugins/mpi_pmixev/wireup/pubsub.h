/*
 * wireup/pubsub.h - root's half of publish, lookup and unpublish (the
 * pmix side's is pmixside/pubsub_pmix.h): a PUBSUB frame, checked by its
 * validating unpack (a local rank, 1..PMIXEV_PMIXD_ENTRIES_MAX keys,
 * values at most PMIxevPublishMax, a range the directory serves), goes to
 * the step's directory
 * (pubsub_dir.h); its answer goes back as PUBSUB_DONE with the pmix
 * side's id. The values stay opaque: no PMIx here. Agent thread.
 */
#ifndef PMIXEV_WIREUP_PUBSUB_H_
#define PMIXEV_WIREUP_PUBSUB_H_

#include "base/step.h"

/* Serve PUBSUB frames on the step's channel. */
void pubsub_frames_listen(struct step *s);

#endif /* PMIXEV_WIREUP_PUBSUB_H_ */
