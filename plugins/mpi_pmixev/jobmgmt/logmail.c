/*
 * jobmgmt/logmail.c - an email item of PMIx_Log.
 */
#include "config.h"

#include "jobmgmt/logmail.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/step.h"
#include "pmixev_logline.h"

/* `src` into `dst` without spaces (addresses "a@b, c@d"); -1 if too long. */
static int squeeze(char *dst, size_t len, const char *src)
{
	size_t n = 0;

	for (; *src; src++) {
		if (*src == ' ')
			continue;
		if (n + 1 >= len)
			return -1;
		dst[n++] = *src;
	}
	dst[n] = '\0';
	return 0;
}

static const char *string_of(const pmix_info_t *in)
{
	return in->value.type == PMIX_STRING ? in->value.data.string : NULL;
}

struct pmixev_owner_mail *logmail_read(const pmix_value_t *v, const char *who,
				       pmix_status_t *st)
{
	const pmix_data_array_t *a = v->data.darray;
	const char *to = "", *subject = NULL, *text = NULL;
	struct pmixev_owner_mail *m;

	*st = PMIX_ERR_BAD_PARAM;
	if (v->type != PMIX_DATA_ARRAY || !a || a->type != PMIX_INFO ||
	    (a->size && !a->array))
		return NULL;
	for (size_t i = 0; i < a->size; i++) {
		const pmix_info_t *in = &((const pmix_info_t *)a->array)[i];

		if (PMIX_CHECK_KEY(in, PMIX_LOG_EMAIL_ADDR))
			to = string_of(in);
		else if (PMIX_CHECK_KEY(in, PMIX_LOG_EMAIL_SUBJECT))
			subject = string_of(in);
		else if (PMIX_CHECK_KEY(in, PMIX_LOG_EMAIL_MSG))
			text = string_of(in);
	}
	if (!to || !text || strlen(text) >= PMIXEV_OWNER_MAIL_TEXT)
		return NULL;
	if (!(m = calloc(1, sizeof(*m)))) {
		*st = PMIX_ERR_NOMEM;
		return NULL;
	}
	if (squeeze(m->to, sizeof(m->to), to) < 0) {
		free(m);
		return NULL;
	}
	if (subject)
		pmixev_logline_clean(m->subject, sizeof(m->subject), subject);
	else
		snprintf(m->subject, sizeof(m->subject), "Slurm step %s %s",
			 step_served()->lay.step.id, who);
	memcpy(m->text, text, strlen(text) + 1);
	m->cmd[0] = '/'; /* checked with a command; the site's comes later */
	if (!pmixev_owner_mail_ok(m)) {
		free(m);
		return NULL;
	}
	m->cmd[0] = '\0';
	*st = PMIX_SUCCESS;
	return m;
}
