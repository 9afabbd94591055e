/*
 * owner_write.h - the owner helper's writer: a thread of pmixev-owner
 * that writes a task's PMIx_Log lines into the descriptor the stepd hands
 * it (common/pmixev_owner_write.h), with the owner's identity and a
 * deadline, on a channel of its own, so that a slurmctld call of the main
 * thread never holds a line back (and a stuck write never holds back a
 * slurmctld call).
 */
#ifndef OWNER_WRITE_H_
#define OWNER_WRITE_H_

/* Serve channel `fd` from a thread of its own (which takes SIGALRM, and
 * no other signal; the calling thread never does): 0, or -1 with errno. */
int owner_write_start(int fd);

#endif /* OWNER_WRITE_H_ */
