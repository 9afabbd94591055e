/*
 * jobmgmt/taskproc.c - a task's process: its output descriptors, signals.
 */
#include "config.h"

#include "jobmgmt/taskproc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
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
