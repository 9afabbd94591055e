/*
 * The owner helper's mail: the site's mail command (PMIxevLogMailCommand)
 * run as the helper's process, the job owner, for a PMIx_Log email.
 */
#ifndef PMIXEV_OWNER_MAIL_H_
#define PMIXEV_OWNER_MAIL_H_

#include "pmixev_helper_msg.h"

/* Run "CMD -s SUBJECT ADDRESS..." (the owner's name when `m` names no
 * address) with the text on its stdin; its result, with the reason when
 * it failed, into `r`. `m->to` is cut into its addresses. */
void owner_mail(struct pmixev_owner_mail *m, struct pmixev_control_result *r);

#endif /* PMIXEV_OWNER_MAIL_H_ */
