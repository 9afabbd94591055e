/*
 * The owner helper's mail command run (owner_mail.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <slurm/slurm_errno.h>

#include "owner_mail.h"

#define MAIL_WAIT_MS 10000

/* "CMD -s SUBJECT ADDRESS..." (the owner's name without addresses) into
 * argv; `to` is cut into its addresses. */
static void mail_argv(struct pmixev_owner_mail *m, char **argv)
{
	static char self[64];
	struct passwd *pw = getpwuid(getuid());
	size_t n = 0;

	argv[n++] = m->cmd;
	argv[n++] = "-s";
	argv[n++] = m->subject;
	for (char *save = NULL, *a = strtok_r(m->to, ",", &save); a;
	     a = strtok_r(NULL, ",", &save))
		argv[n++] = a;
	if (n == 3) {
		snprintf(self, sizeof(self), "%s", pw ? pw->pw_name : "root");
		argv[n++] = self;
	}
	argv[n] = NULL;
}

/* Run the site's mail command as this process (the owner), the text on
 * its stdin; it has MAIL_WAIT_MS to finish. */
void owner_mail(struct pmixev_owner_mail *m, struct pmixev_control_result *r)
{
	char *argv[3 + PMIXEV_OWNER_MAIL_TO + 2];
	size_t len = strlen(m->text);
	int in[2], status = 0, waited;
	pid_t pid, done = 0;
	bool sent;

	mail_argv(m, argv);
	if (pipe2(in, O_CLOEXEC) < 0 || (pid = fork()) < 0) {
		r->rc = SLURM_ERROR;
		snprintf(r->reason, sizeof(r->reason),
			 "cannot start %.128s: %s", m->cmd, strerror(errno));
		return;
	}
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(in[0], 0);
		dup2(null, 1);
		dup2(null, 2);
		/* Not the stepd's socket: nothing but stdio goes along. */
		syscall(SYS_close_range, 3U, ~0U, 0U);
		execv(argv[0], argv);
		_exit(127);
	}
	close(in[0]);
	/* At most 1 KiB: the pipe takes it without a reader. */
	sent = write(in[1], m->text, len) == (ssize_t)len;
	close(in[1]);
	for (waited = 0; waited < MAIL_WAIT_MS && !done; waited += 10) {
		done = waitpid(pid, &status, WNOHANG);
		if (!done)
			usleep(10000);
	}
	if (!done) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	r->rc = sent && done && WIFEXITED(status) && !WEXITSTATUS(status)
			? 0
			: SLURM_ERROR;
	if (!done)
		snprintf(r->reason, sizeof(r->reason),
			 "%.128s did not finish in %d s", m->cmd,
			 MAIL_WAIT_MS / 1000);
	else if (!sent)
		snprintf(r->reason, sizeof(r->reason),
			 "%.128s did not take the text", m->cmd);
	else if (r->rc)
		snprintf(r->reason, sizeof(r->reason), "%.128s exited with %d",
			 m->cmd,
			 WIFEXITED(status) ? WEXITSTATUS(status)
					   : 128 + WTERMSIG(status));
}
