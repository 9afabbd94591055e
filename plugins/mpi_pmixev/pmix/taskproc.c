/*
 * pmix/taskproc.c - a task's process: its output, signals.
 */
#include "config.h"

#include "pmix/taskproc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

/* Whether process `pid` is our child, from /proc/PID/stat. */
static int is_child(uint32_t pid)
{
	char path[64], buf[512], *close_paren;
	long ppid = -1;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/stat", (unsigned)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	/* "PID (COMM) STATE PPID ...": COMM may hold anything, even ")". */
	if (!(close_paren = strrchr(buf, ')')) ||
	    sscanf(close_paren + 1, " %*c %ld", &ppid) != 1)
		return 0;
	return ppid == (long)getpid();
}

/* A pidfd of `pid` if it is our child: >= 0, or -errno. The pidfd pins
 * the process: once it is known to be our child, what is done through
 * the pidfd is done to that process or to none (it exited). */
static int child_pidfd(uint32_t pid)
{
	int pidfd;

	if (!pid)
		return -ESRCH;
	if ((pidfd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0)) < 0)
		return -errno;
	if (is_child(pid))
		return pidfd;
	close(pidfd);
	return -ESRCH;
}

int taskproc_fd(uint32_t pid, int which)
{
	int pidfd, fd;

	if (which != 1 && which != 2)
		return -EINVAL;
	if ((pidfd = child_pidfd(pid)) < 0)
		return pidfd;
	if ((fd = (int)syscall(SYS_pidfd_getfd, pidfd, which, 0)) < 0)
		fd = -errno;
	close(pidfd);
	return fd;
}

int taskproc_signal(uint32_t pid, int signo)
{
	int pidfd, rc = 0;

	if ((pidfd = child_pidfd(pid)) < 0)
		return pidfd;
	if (syscall(SYS_pidfd_send_signal, pidfd, signo, NULL, 0) < 0)
		rc = -errno;
	close(pidfd);
	return rc;
}

static ssize_t write_kind(int fd, const char *p, size_t n)
{
	struct iovec io = {(void *)p, n};
	struct pollfd pfd = {.fd = fd, .events = POLLOUT};
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -1;
	if (S_ISFIFO(st.st_mode))
		return pwritev2(fd, &io, 1, -1, RWF_NOWAIT);
	if (S_ISSOCK(st.st_mode))
		return send(fd, p, n, MSG_DONTWAIT | MSG_NOSIGNAL);
	if (S_ISREG(st.st_mode))
		return write(fd, p, n);
	/* A terminal or another device: only when it takes data now. */
	if (poll(&pfd, 1, 0) < 0)
		return -1;
	if (!(pfd.revents & POLLOUT)) {
		errno = EAGAIN;
		return -1;
	}
	return write(fd, p, n < 4096 ? n : 4096);
}

ssize_t taskproc_write(int fd, const char *p, size_t n)
{
	static const struct timespec now = {0, 0};
	sigset_t pipe_sig, old;
	ssize_t w;

	/* A pipe nobody reads any more raises SIGPIPE: not for slurmstepd. */
	sigemptyset(&pipe_sig);
	sigaddset(&pipe_sig, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_sig, &old);
	w = write_kind(fd, p, n);
	if (w < 0)
		w = errno == EWOULDBLOCK ? -EAGAIN : -errno;
	if (w == -EPIPE)
		sigtimedwait(&pipe_sig, NULL, &now);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return w;
}
