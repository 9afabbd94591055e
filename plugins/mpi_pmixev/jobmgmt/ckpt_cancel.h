/*
 * jobmgmt/ckpt_cancel.h - PMIX_JOB_CTRL_CANCEL across the step
 * (jobmgmt/jobctl.h): a request in progress - a checkpoint (jobmgmt/ckpt.h)
 * or an allocation request (jobmgmt/alloc.h) - is held by the node of the
 * rank that made it, so a cancel made anywhere asks every node
 * of the step (overlay CANCEL_REQ) to end its requests whose
 * PMIX_JOB_CTRL_ID it names, and counts their answers (CANCEL_RESP) into
 * one. Agent thread.
 */
#ifndef PMIXEV_PMIX_CKPT_CANCEL_H_
#define PMIXEV_PMIX_CKPT_CANCEL_H_

struct step;
struct ckpt_cancel;

struct ckpt_cancel *ckpt_cancel_create(struct step *s);
void ckpt_cancel_destroy(struct ckpt_cancel *cc);

/* How a cancel went: requests ended in the whole step, and nodes that
 * did not answer in time (or could not be asked). A node gone from the
 * tree before it was asked, or lost before it answered, holds no request
 * in progress: it counts as one that answered none. */
typedef void (*ckpt_cancel_fn)(void *arg, unsigned cancelled,
			       unsigned unanswered);

/* End every request of the step whose PMIX_JOB_CTRL_ID is `ctl_id`;
 * `fn` once every node answered or was lost (base/pending.h), or after
 * `timeout_sec` (0: 10 s). */
void ckpt_cancel_send(struct ckpt_cancel *cc, const char *ctl_id,
		      unsigned timeout_sec, ckpt_cancel_fn fn, void *arg);

#endif /* PMIXEV_PMIX_CKPT_CANCEL_H_ */
