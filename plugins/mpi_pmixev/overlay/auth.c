/*
 * overlay/auth.c - munge credentials, and the signer that makes slurmstepd's
 * (a child process). Credentials are made and checked on the agent thread;
 * auth_create and auth_destroy run before it starts and after it ended.
 */
#include "config.h"

#include "overlay/auth.h"

#include <errno.h>
#include <fcntl.h>
#include <munge.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "pmixev_sigign.h"

#define SIGNER_FD	   3
#define SIGNER_PAYLOAD_MAX 2048	 /* an identity or address table */
#define SIGNER_REPLY_MAX   16384 /* status byte + credential text */
#define SIGNER_WAIT_MS	   5000	 /* munged answers in milliseconds */

struct auth {
	munge_ctx_t ctx;
	int signer_fd;	  /* our end of the signer's socket, or -1 */
	pid_t signer_pid; /* 0: credentials are made in this process */
	uint32_t seq;	  /* of the last request to the signer */
	bool gone;	  /* the signer went away */
};

/* The value of socket= in a comma-separated AuthInfo, malloc'd, or NULL. */
static char *authinfo_socket(const char *authinfo)
{
	const char *p = authinfo;

	while (p && *p) {
		size_t n = strcspn(p, ",");

		if (n > 7 && strncmp(p, "socket=", 7) == 0)
			return strndup(p + 7, n - 7);
		p += n;
		if (*p == ',')
			p++;
	}
	return NULL;
}

static int encode_here(munge_ctx_t ctx, const void *payload, size_t len,
		       char **cred, char *err, size_t errlen)
{
	munge_err_t rc;
	char *c = NULL;

	rc = munge_encode(&c, ctx, payload, (int)len);
	if (rc != EMUNGE_SUCCESS) {
		snprintf(err, errlen, "munge_encode: %s",
			 munge_ctx_strerror(ctx) ? munge_ctx_strerror(ctx)
						 : munge_strerror(rc));
		free(c);
		return -1;
	}
	*cred = c;
	return 0;
}

/*
 * The signer: a child forked while slurmstepd is root, which stays root
 * and only turns payloads into credentials. slurmstepd changes its
 * effective uid to the job owner's around task launch (for every thread),
 * and munged takes the uid of whoever asks: a credential made by the
 * stepd itself could carry the job owner's uid, which a user's own
 * program can also get. Runs with no other descriptor open; ends at EOF.
 */
static void signer_main(int fd, munge_ctx_t ctx)
{
	static uint8_t in[4 + SIGNER_PAYLOAD_MAX], out[SIGNER_REPLY_MAX];
	sigset_t none;
	int null;

	pmixev_ignore_step_signals();
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	prctl(PR_SET_NAME, "pmixev-signer");
	if (fd != SIGNER_FD && dup2(fd, SIGNER_FD) < 0)
		_exit(1);
	close_range(SIGNER_FD + 1, ~0U, 0);
	if ((null = open("/dev/null", O_RDWR)) >= 0)
		for (int i = 0; i < 3; i++)
			if (i != null)
				dup2(null, i);
	if (null > SIGNER_FD)
		close(null);
	for (;;) {
		/* A request: sequence number (4 bytes) and payload. The
		 * answer: the same number, a status byte, the credential
		 * or the error text. */
		ssize_t n = recv(SIGNER_FD, in, sizeof(in), 0);
		char *cred = NULL, *text = (char *)out + 5;
		size_t len, room = sizeof(out) - 5;

		if (n <= 0)
			_exit(0);
		if (n < 4)
			continue;
		memcpy(out, in, 4);
		if (encode_here(ctx, in + 4, (size_t)n - 4, &cred, text,
				room) == 0 &&
		    (len = strlen(cred)) < room) {
			out[4] = 0;
			memcpy(text, cred, len);
		} else {
			out[4] = 1;
			len = strlen(text);
		}
		free(cred);
		if (send(SIGNER_FD, out, len + 5, MSG_NOSIGNAL) < 0)
			_exit(0);
	}
}

static int start_signer(struct auth *auth)
{
	int sv[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	if (pid == 0) {
		close(sv[0]);
		signer_main(sv[1], auth->ctx);
	}
	close(sv[1]);
	auth->signer_fd = sv[0];
	auth->signer_pid = pid;
	return 0;
}

struct auth *auth_create(const char *authinfo, bool signer)
{
	struct auth *auth = calloc(1, sizeof(*auth));
	char *socket = authinfo_socket(authinfo);

	if (!auth)
		goto fail;
	auth->signer_fd = -1;
	if (!(auth->ctx = munge_ctx_create()))
		goto fail;
	if (socket && munge_ctx_set(auth->ctx, MUNGE_OPT_SOCKET, socket) !=
			      EMUNGE_SUCCESS)
		goto fail;
	if (signer && (geteuid() != 0 || start_signer(auth) < 0))
		goto fail;
	free(socket);
	return auth;
fail:
	free(socket);
	auth_destroy(auth);
	return NULL;
}

/* Reap the signer: it exits at EOF; never wait on it for long. */
static void stop_signer(struct auth *auth)
{
	struct timespec tick = {0, 10 * 1000 * 1000};

	close(auth->signer_fd);
	for (int i = 0; i < 100; i++) {
		pid_t r = waitpid(auth->signer_pid, NULL, WNOHANG);

		if (r != 0) /* reaped, or reaped by slurmstepd (ECHILD) */
			return;
		nanosleep(&tick, NULL);
	}
	kill(auth->signer_pid, SIGKILL);
	waitpid(auth->signer_pid, NULL, WNOHANG);
}

void auth_destroy(struct auth *auth)
{
	if (!auth)
		return;
	if (auth->signer_pid > 0)
		stop_signer(auth);
	if (auth->ctx)
		munge_ctx_destroy(auth->ctx);
	free(auth);
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The signer's answer to request `seq` (older answers are skipped): its
 * length, or -1 with the reason in `err`. */
static ssize_t signer_answer(struct auth *auth, uint32_t seq, char *in,
			     size_t size, char *err, size_t errlen)
{
	int64_t deadline = now_ms() + SIGNER_WAIT_MS;

	for (;;) {
		struct pollfd pfd = {.fd = auth->signer_fd, .events = POLLIN};
		int64_t left = deadline - now_ms();
		ssize_t n;
		int rc;

		if (left <= 0) {
			snprintf(err, errlen,
				 "the credential signer did not answer in "
				 "%d ms",
				 SIGNER_WAIT_MS);
			return -1;
		}
		rc = poll(&pfd, 1, (int)left);
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc <= 0)
			continue;
		n = recv(auth->signer_fd, in, size, MSG_DONTWAIT);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 5) {
			auth->gone = true;
			snprintf(err, errlen, "the credential signer is gone");
			return -1;
		}
		if (memcmp(in, &seq, 4) == 0)
			return n;
	}
}

static int encode_by_signer(struct auth *auth, const void *payload, size_t len,
			    char **cred, char *err, size_t errlen)
{
	static char buf[4 + SIGNER_PAYLOAD_MAX], in[SIGNER_REPLY_MAX + 1];
	uint32_t seq = ++auth->seq;
	ssize_t n;

	if (len > SIGNER_PAYLOAD_MAX) {
		snprintf(err, errlen, "payload of %zu bytes is too large", len);
		return -1;
	}
	memcpy(buf, &seq, 4);
	memcpy(buf + 4, payload, len);
	if (send(auth->signer_fd, buf, len + 4, MSG_NOSIGNAL) < 0) {
		auth->gone = true;
		snprintf(err, errlen, "the credential signer is gone: %s",
			 strerror(errno));
		return -1;
	}
	if ((n = signer_answer(auth, seq, in, SIGNER_REPLY_MAX, err, errlen)) <
	    0)
		return -1;
	in[n] = '\0';
	if (in[4] != 0) {
		snprintf(err, errlen, "%s", in + 5);
		return -1;
	}
	if (!(*cred = strdup(in + 5))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

int auth_encode(struct auth *auth, const void *payload, size_t len, char **cred,
		size_t *credlen, char *err, size_t errlen)
{
	int rc;

	if (len > INT32_MAX) {
		snprintf(err, errlen, "payload too large");
		return -1;
	}
	if (auth->signer_pid > 0)
		rc = encode_by_signer(auth, payload, len, cred, err, errlen);
	else
		rc = encode_here(auth->ctx, payload, len, cred, err, errlen);
	if (rc == 0)
		*credlen = strlen(*cred);
	return rc;
}

int auth_decode(struct auth *auth, const void *cred, size_t credlen,
		void **payload, size_t *len, uid_t *uid, char *err,
		size_t errlen)
{
	char *text = NULL;
	void *buf = NULL;
	int n = 0, rc = -1;
	gid_t gid;
	munge_err_t mrc;

	if (credlen == 0 || credlen > 65536 || memchr(cred, '\0', credlen)) {
		snprintf(err, errlen, "malformed credential");
		return -1;
	}
	if (!(text = strndup(cred, credlen))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	mrc = munge_decode(text, auth->ctx, &buf, &n, uid, &gid);
	if (mrc != EMUNGE_SUCCESS) {
		snprintf(err, errlen, "munge_decode: %s",
			 munge_ctx_strerror(auth->ctx)
				 ? munge_ctx_strerror(auth->ctx)
				 : munge_strerror(mrc));
		free(buf);
		goto out;
	}
	*payload = buf;
	*len = (size_t)n;
	rc = 0;
out:
	free(text);
	return rc;
}

bool auth_signer_gone(const struct auth *auth)
{
	return auth->gone;
}
