/*
 * pmixev_owner_write.h - the messages of the owner helper's writer: a
 * task's PMIx_Log line for its stdout or stderr, written by the helper
 * (the job owner's uid, gid and groups) into the task's own descriptor,
 * never by root.
 *
 * Over their own SOCK_SEQPACKET channel (fd 4 of pmixev-owner), apart
 * from the slurmctld requests (whose calls may block for long): one
 * request per message, the descriptor to write into attached
 * (SCM_RIGHTS); one answer per request, with the request's id. The
 * helper gives a write at most `timeout_ms` (a partial write is a
 * failure, ETIMEDOUT); the stepd waits a little longer, then answers
 * the caller itself. Pure code, unit-tested in
 * tests/unit/test_owner_write.c; the answer, which root reads, is fuzzed
 * (tests/fuzz/fuzz_frame.c).
 */
#ifndef PMIXEV_OWNER_WRITE_H_
#define PMIXEV_OWNER_WRITE_H_

#include <stddef.h>
#include <stdint.h>

#include "pmixev_buf.h"

#define PMIXEV_OWNER_WRITE_TEXT	   (70 * 1024) /* bytes of one write */
#define PMIXEV_OWNER_WRITE_MSG_MAX (PMIXEV_OWNER_WRITE_TEXT + 64)
#define PMIXEV_OWNER_WRITE_MS_MAX  60000

struct pmixev_owner_write {
	uint32_t id;
	uint32_t timeout_ms; /* 1..PMIXEV_OWNER_WRITE_MS_MAX */
	const uint8_t *data; /* unpacked: points into the buffer read */
	size_t len;	     /* 1..PMIXEV_OWNER_WRITE_TEXT */
};

struct pmixev_owner_written {
	uint32_t id;
	int32_t err;   /* 0, or the errno of the write (ETIMEDOUT: not in
			  time) */
	uint32_t done; /* bytes written, <= the request's len */
};

int pmixev_owner_write_pack(struct pmixev_buf *b,
			    const struct pmixev_owner_write *m);
int pmixev_owner_write_unpack(struct pmixev_buf *b,
			      struct pmixev_owner_write *m);
int pmixev_owner_written_pack(struct pmixev_buf *b,
			      const struct pmixev_owner_written *m);
int pmixev_owner_written_unpack(struct pmixev_buf *b,
				struct pmixev_owner_written *m);

#endif /* PMIXEV_OWNER_WRITE_H_ */
