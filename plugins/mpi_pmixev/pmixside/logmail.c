/*
 * pmixside/logmail.c - an email item of PMIx_Log (see logmail.h).
 */
#include "config.h"

#include "pmixside/logmail.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmixev_helper_msg.h"
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

pmix_status_t logmail_read(const pmix_value_t *v, const char *who,
			   const char *step_id, struct pmixev_pmixd_log_msg *x)
{
	const pmix_data_array_t *a = v->data.darray;
	const char *to = "", *subject = NULL, *text = NULL;
	/* Checked with a command; the site's comes at root. */
	struct pmixev_owner_mail m = {.cmd = "/"};

	if (v->type != PMIX_DATA_ARRAY || !a || a->type != PMIX_INFO ||
	    (a->size && !a->array))
		return PMIX_ERR_BAD_PARAM;
	for (size_t i = 0; i < a->size; i++) {
		const pmix_info_t *in = &((const pmix_info_t *)a->array)[i];

		if (PMIX_CHECK_KEY(in, PMIX_LOG_EMAIL_ADDR))
			to = string_of(in);
		else if (PMIX_CHECK_KEY(in, PMIX_LOG_EMAIL_SUBJECT))
			subject = string_of(in);
		else if (PMIX_CHECK_KEY(in, PMIX_LOG_EMAIL_MSG))
			text = string_of(in);
	}
	if (!to || !text || strlen(text) >= sizeof(m.text) ||
	    squeeze(m.to, sizeof(m.to), to) < 0)
		return PMIX_ERR_BAD_PARAM;
	if (subject)
		pmixev_logline_clean(m.subject, sizeof(m.subject), subject);
	else
		snprintf(m.subject, sizeof(m.subject), "Slurm step %s %s",
			 step_id, who);
	memcpy(m.text, text, strlen(text) + 1);
	if (!pmixev_owner_mail_ok(&m))
		return PMIX_ERR_BAD_PARAM;
	if (!(x->text = strdup(text)))
		return PMIX_ERR_NOMEM;
	memcpy(x->to, m.to, sizeof(x->to));
	memcpy(x->subject, m.subject, sizeof(x->subject));
	return PMIX_SUCCESS;
}
