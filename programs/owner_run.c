/*
 * The owner helper's run of a site command (owner_run.h).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <slurm/slurm_errno.h>

#include "owner_run.h"

#define TICK_US 10000

/* Start argv[0]: stdin from `in`, stdout and stderr into `out`. */
static pid_t start(char *const argv[], int in, int out)
{
	pid_t pid = fork();

	if (pid == 0) {
		dup2(in, 0);
		dup2(out, 1);
		dup2(out, 2);
		/* Not the stepd's socket: nothing but stdio goes along. */
		syscall(SYS_close_range, 3U, ~0U, 0U);
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

/* Read what came into `line` (its first line, once complete). */
static void take_output(int fd, char *line, size_t len, size_t *have)
{
	char buf[512];
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		for (ssize_t i = 0; i < n && *have < len - 1; i++) {
			if (buf[i] == '\n')
				*have = len - 1; /* the first line is whole */
			else if (buf[i] >= ' ' && buf[i] != 0x7f)
				line[(*have)++] = buf[i];
		}
}

void owner_run(char *const argv[], const char *text, unsigned wait_ms,
	       struct pmixev_control_result *r)
{
	int in[2] = {-1, -1}, out[2] = {-1, -1}, status = 0;
	char line[160] = "";
	size_t have = 0, len = strlen(text);
	pid_t pid = -1, done = 0;
	bool sent;

	r->rc = SLURM_ERROR;
	if (pipe2(in, O_CLOEXEC) < 0 ||
	    pipe2(out, O_CLOEXEC | O_NONBLOCK) < 0 ||
	    (pid = start(argv, in[0], out[1])) < 0) {
		snprintf(r->reason, sizeof(r->reason),
			 "cannot start %.128s: %s", argv[0], strerror(errno));
		goto out;
	}
	close(in[0]);
	close(out[1]);
	in[0] = out[1] = -1;
	sent = write(in[1], text, len) == (ssize_t)len;
	close(in[1]);
	in[1] = -1;
	for (unsigned waited = 0; waited < wait_ms * 1000u && !done;
	     waited += TICK_US) {
		take_output(out[0], line, sizeof(line), &have);
		if (!(done = waitpid(pid, &status, WNOHANG)))
			usleep(TICK_US);
	}
	if (!done) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	take_output(out[0], line, sizeof(line), &have);
	line[have < sizeof(line) ? have : sizeof(line) - 1] = '\0';
	if (!done)
		snprintf(r->reason, sizeof(r->reason),
			 "%.128s did not finish in %u s", argv[0],
			 wait_ms / 1000);
	else if (!sent)
		snprintf(r->reason, sizeof(r->reason),
			 "%.128s did not take its input", argv[0]);
	else if (!WIFEXITED(status) || WEXITSTATUS(status))
		snprintf(r->reason, sizeof(r->reason),
			 "%.96s exited with %d%s%s", argv[0],
			 WIFEXITED(status) ? WEXITSTATUS(status)
					   : 128 + WTERMSIG(status),
			 line[0] ? ": " : "", line);
	else
		r->rc = 0;
out:
	for (int i = 0; i < 2; i++) {
		if (in[i] >= 0)
			close(in[i]);
		if (out[i] >= 0)
			close(out[i]);
	}
}
