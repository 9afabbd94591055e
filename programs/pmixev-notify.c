/*
 * pmixev-notify - hand a site event (ECC errors, a thermal excursion, any
 * PMIx code and text) to the pmixev steps running on this node, for a
 * node health check. Root only.
 *
 * usage: pmixev-notify [--node NAME] [--job JOBID] CODE TEXT...
 *
 * Every process of each step gets the event (non-default, cached by PMIx
 * for late registrants), as a node event about NAME (default: this host's
 * short name, which must be its Slurm NodeName). Exit 0 when at least one
 * step took it, 2 when no pmixev step runs here, 1 on errors.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "pmixev_bridge.h"

static int usage(void)
{
	fprintf(stderr, "usage: pmixev-notify [--node NAME] [--job JOBID] "
			"CODE TEXT...\n");
	return 1;
}

/*
 * Send the request to one stepd; 0 on "ok", 1 when the socket was left by
 * a stepd that no longer runs (removed), else -1 (reported).
 */
static int send_to(const char *path, const char *step, const char *req)
{
	struct sockaddr_un sun = {.sun_family = AF_UNIX};
	char answer[256] = "";
	ssize_t n = 0;
	int fd, rc = -1;

	if (strlen(path) >= sizeof(sun.sun_path))
		return -1;
	strcpy(sun.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		if (errno == ECONNREFUSED) {
			printf("pmixev-notify: step %s: not running (stale "
			       "socket removed)\n",
			       step);
			unlink(path);
			rc = 1;
		} else {
			fprintf(stderr, "pmixev-notify: step %s: %s\n", step,
				strerror(errno));
		}
	} else if (fd < 0 ||
		   write(fd, req, strlen(req)) != (ssize_t)strlen(req) ||
		   (n = read(fd, answer, sizeof(answer) - 1)) <= 0) {
		fprintf(stderr, "pmixev-notify: step %s: %s\n", step,
			n == 0 ? "no answer" : strerror(errno));
	} else {
		answer[n] = '\0';
		answer[strcspn(answer, "\n")] = '\0';
		if (strcmp(answer, "ok") == 0) {
			printf("pmixev-notify: step %s: ok\n", step);
			rc = 0;
		} else {
			fprintf(stderr, "pmixev-notify: step %s: %s\n", step,
				answer);
		}
	}
	if (fd >= 0)
		close(fd);
	return rc;
}

int main(int argc, char **argv)
{
	const char *node = NULL, *job = NULL;
	char host[256], req[1100], path[512], *end;
	int i = 1, sent = 0, failed = 0;
	struct dirent *e;
	size_t off;
	DIR *d;

	/* Options are long ones: CODE may be negative ("-232"). */
	for (; i + 1 < argc && !strncmp(argv[i], "--", 2); i += 2) {
		if (!strcmp(argv[i], "--node"))
			node = argv[i + 1];
		else if (!strcmp(argv[i], "--job"))
			job = argv[i + 1];
		else
			return usage();
	}
	if (argc - i < 2)
		return usage();
	if (geteuid() != 0) {
		fprintf(stderr, "pmixev-notify: only root may send site events "
				"(run it from the node health check)\n");
		return 1;
	}
	errno = 0;
	(void)strtol(argv[i], &end, 10);
	if (errno || end == argv[i] || *end) {
		fprintf(stderr,
			"pmixev-notify: CODE must be an integer, not "
			"'%s'\n",
			argv[i]);
		return 1;
	}
	off = (size_t)snprintf(req, sizeof(req), "%s", argv[i]);
	for (int a = i + 1; a < argc && off < sizeof(req); a++)
		off += (size_t)snprintf(req + off, sizeof(req) - off, " %s",
					argv[a]);
	if (off + 2 > sizeof(req)) {
		fprintf(stderr, "pmixev-notify: TEXT is too long\n");
		return 1;
	}
	strcat(req, "\n");
	if (!node) {
		if (gethostname(host, sizeof(host)) < 0)
			return 1;
		host[sizeof(host) - 1] = '\0';
		host[strcspn(host, ".")] = '\0';
		node = host;
	}
	if (!(d = opendir(PMIXEV_SITE_DIR))) {
		fprintf(stderr, "pmixev-notify: no pmixev step runs here\n");
		return 2;
	}
	while ((e = readdir(d))) {
		size_t nl = strlen(node), el = strlen(e->d_name);
		char step[128];

		/* NODE.JOB.STEP.sock */
		if (el <= nl + 6 || strncmp(e->d_name, node, nl) ||
		    e->d_name[nl] != '.' || strcmp(e->d_name + el - 5, ".sock"))
			continue;
		snprintf(step, sizeof(step), "%.*s", (int)(el - nl - 6),
			 e->d_name + nl + 1);
		if (job && (strncmp(step, job, strlen(job)) ||
			    step[strlen(job)] != '.'))
			continue;
		snprintf(path, sizeof(path), "%s/%s", PMIXEV_SITE_DIR,
			 e->d_name);
		switch (send_to(path, step, req)) {
		case 0:
			sent++;
			break;
		case -1:
			failed++;
			break;
		}
	}
	closedir(d);
	if (!sent && !failed) {
		fprintf(stderr,
			"pmixev-notify: no pmixev step of %s runs on "
			"%s\n",
			job ? job : "any job", node);
		return 2;
	}
	return failed ? 1 : 0;
}
