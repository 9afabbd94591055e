/*
 * pmixev-check - will pmixev work on this node, and if not, why: one line
 * per check, `ok|FAIL|warn  WHAT: WHY`, for an admin or a node health
 * check script (programs/check.h lists the checks).
 *
 * usage: pmixev-check [--conf FILE] [--user NAME]
 *
 * The slurm.conf read is --conf, else $SLURM_CONF, else
 * /etc/slurm/slurm.conf, as Slurm's own commands choose. Run by root, it
 * makes every check, running pmixev's programs as the ordinary user NAME
 * (default nobody) as slurmstepd runs them as a job's owner; run by
 * anyone else, it says which checks need root.
 *
 * Exit status: 0 when nothing failed (warnings allowed), 1 when a check
 * failed, 2 on a usage error.
 */
#include "config.h"

#include <getopt.h>
#include <pwd.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "pmixev_log.h"

#define PROG	     "pmixev-check"
#define DEFAULT_CONF "/etc/slurm/slurm.conf"
#define DEFAULT_USER "nobody"

/* The sink of pmixev_log.h: the plugin code used here (owner_proc.c)
 * says its errors on stderr. */
void pmixev_log_sink(enum pmixev_log_level level, const char *component,
		     const char *context, const char *msg)
{
	if (level == PMIXEV_LOG_ERROR)
		fprintf(stderr, PROG ": %s\n", msg);
}

void check_say(struct check *c, enum check_verdict v, const char *what,
	       const char *fmt, ...)
{
	static const char *const words[] = {[CHECK_OK] = "ok",
					    [CHECK_WARN] = "warn",
					    [CHECK_FAIL] = "FAIL"};
	char why[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	for (char *p = why; *p; p++)
		if ((unsigned char)*p < ' ')
			*p = ' ';
	printf("%-4s  %s: %s\n", words[v], what, why);
	fflush(stdout);
	c->fails += v == CHECK_FAIL;
}

static int usage(FILE *to, int rc)
{
	fprintf(to,
		"usage: " PROG " [--conf FILE] [--user NAME]\n"
		"  --conf FILE  the node's slurm.conf (default: $SLURM_CONF, "
		"else " DEFAULT_CONF ")\n"
		"  --user NAME  as root: the ordinary user pmixev's programs "
		"run as (default " DEFAULT_USER ")\n"
		"Says whether pmixev works on this node, one line per check "
		"(ok, FAIL, warn).\n"
		"Exit status: 0 nothing failed, 1 a check failed, 2 usage "
		"error.\n");
	return rc;
}

/* The user pmixev's programs run as: `name` as root, else ourselves. */
static int set_user(struct check *c, const char *name)
{
	struct passwd *pw = c->root ? getpwnam(name) : getpwuid(getuid());

	if (!pw) {
		fprintf(stderr, PROG ": no user %s%s\n",
			c->root ? name : "of our uid",
			c->root ? ": name an ordinary one with --user" : "");
		return -1;
	}
	if (c->root && pw->pw_uid == 0) {
		fprintf(stderr,
			PROG ": --user %s is root: name an ordinary user\n",
			name);
		return -1;
	}
	c->uid = pw->pw_uid;
	c->gid = pw->pw_gid;
	snprintf(c->user, sizeof(c->user), "%s", pw->pw_name);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"conf", required_argument, NULL, 'c'},
		{"user", required_argument, NULL, 'u'},
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	static struct check c;
	const char *conf = NULL, *user = NULL, *env = getenv("SLURM_CONF");
	int o;

	pmixev_log_init(PROG);
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'c':
			conf = optarg;
			break;
		case 'u':
			user = optarg;
			break;
		case 'h':
			return usage(stdout, 0);
		case 'V':
			printf(PROG " (pmixev " PACKAGE_VERSION ")\n");
			return 0;
		default:
			return usage(stderr, 2);
		}
	}
	if (optind < argc)
		return usage(stderr, 2);
	c.root = geteuid() == 0;
	if (user && !c.root) {
		fprintf(stderr, PROG ": --user needs root (only root can run "
				     "programs as another user)\n");
		return 2;
	}
	if (set_user(&c, user ? user : DEFAULT_USER) < 0)
		return 2;
	snprintf(c.conf_from, sizeof(c.conf_from), "%s",
		 conf	       ? "--conf"
		 : env && *env ? "SLURM_CONF"
			       : "Slurm's default");
	snprintf(c.site.conf, sizeof(c.site.conf), "%s",
		 conf	       ? conf
		 : env && *env ? env
			       : DEFAULT_CONF);
	if (c.site.conf[0] != '/') {
		fprintf(stderr, PROG ": %s is not an absolute path\n",
			c.site.conf);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	check_slurm(&c);
	check_helpers(&c);
	check_node(&c);
	return c.fails ? 1 : 0;
}
