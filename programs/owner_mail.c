/*
 * The owner helper's mail command run (owner_mail.h).
 */
#include "config.h"

#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "owner_mail.h"
#include "owner_run.h"

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

	mail_argv(m, argv);
	owner_run(argv, m->text, MAIL_WAIT_MS, r);
}
