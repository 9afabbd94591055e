/*
 * jobmgmt/ckpt.h - PMIX_JOB_CTRL_CHECKPOINT of the own step's processes
 * (jobmgmt/jobctl.h): the request reaches the target ranks on every node,
 * and is complete when each has said so.
 *
 * The requester's node tells every node with targets (overlay CKPT_REQ);
 * each one gives its targets the request, by event (PMIX_JCTRL_CHECKPOINT
 * from its stepd, the checkpoint id as PMIX_JOB_CTRL_CHECKPOINT) or by a
 * signal (jobmgmt/tasksig.h: only its own child processes), and watches for
 * their PMIX_JCTRL_CHECKPOINT_COMPLETE (any range: PMIX_RANGE_RM keeps it
 * from the other processes; carrying PMIX_JOB_CTRL_CHECKPOINT, it must
 * name the same id). Each rank's completion goes to the requester's node
 * (CKPT_DONE), which answers once: PMIX_SUCCESS when every target rank
 * completed, PMIX_ERR_TIMEOUT when the time ran out first, PMIX_ERR_UNREACH
 * as soon as a node with target ranks yet to complete is lost (or could
 * not be asked; base/pending.h), PMIX_ERR_JOB_CANCELED when a later
 * request with PMIX_JOB_CTRL_CANCEL, made on any node, named its
 * PMIX_JOB_CTRL_ID first. The pmix side watches for the completions
 * (pmixside/ckpt_pmix.h) and sends them as CKPT_COMPLETE frames, checked
 * by their validating unpack (a local rank). Agent thread; no PMIx here
 * but its constants.
 */
#ifndef PMIXEV_PMIX_CKPT_H_
#define PMIXEV_PMIX_CKPT_H_

#include <stdint.h>

#include <pmix_common.h>

#define CKPT_ID_MAX 64 /* checkpoint and request ids, NUL included */
#define CKPT_MAX    16 /* requests in progress per node */
#define CKPT_ALL    UINT32_MAX

struct step;
struct ckpt;

struct ckpt_req {
	char id[CKPT_ID_MAX];	  /* PMIX_JOB_CTRL_CHECKPOINT, may be "" */
	char ctl_id[CKPT_ID_MAX]; /* PMIX_JOB_CTRL_ID, may be "" */
	uint32_t rank;		  /* a rank of the own step, or CKPT_ALL */
	int signo;		  /* 0: by event */
	unsigned timeout_sec;
};

/* How it ended: `st`, with `done` of `total` ranks complete. */
typedef void (*ckpt_fn)(void *arg, pmix_status_t st, unsigned done,
			unsigned total);

/* Serves CKPT_COMPLETE frames on the step's channel. NULL: out of
 * memory (or too many node-loss subscribers, logged). */
struct ckpt *ckpt_create(struct step *s);
void ckpt_destroy(struct ckpt *k);

/* Start `req`; `fn` is called once (maybe at once). */
void ckpt_start(struct ckpt *k, const struct ckpt_req *req, ckpt_fn fn,
		void *arg);

/* End the requests of this node whose PMIX_JOB_CTRL_ID is `ctl_id` with
 * PMIX_ERR_JOB_CANCELED (jobmgmt/ckpt_cancel.h asks every node). How many
 * there were. */
unsigned ckpt_cancel_local(struct ckpt *k, const char *ctl_id);

#endif /* PMIXEV_PMIX_CKPT_H_ */
