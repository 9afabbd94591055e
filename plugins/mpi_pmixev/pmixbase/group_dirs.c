/*
 * pmixbase/group_dirs.c - a group upcall's directives (see group_dirs.h).
 */
#include "config.h"

#include "pmixbase/group_dirs.h"

#include <string.h>

/* The flags: key, and where it goes in the directives. */
static const struct {
	const char *key;
	size_t off;
} flags[] = {
	{PMIX_GROUP_ASSIGN_CONTEXT_ID,
	 offsetof(struct group_dirs, assign_ctxid)},
	{PMIX_GROUP_NOTIFY_TERMINATION,
	 offsetof(struct group_dirs, notify_term)},
	{PMIX_GROUP_OPTIONAL, offsetof(struct group_dirs, optional)},
	{PMIX_GROUP_LEADER, offsetof(struct group_dirs, leader)},
	{PMIX_GROUP_LOCAL_ONLY, offsetof(struct group_dirs, local_only)},
};

/* Keys pmixev reads elsewhere or may leave aside, required or not. */
static const char *const known[] = {
	PMIX_TIMEOUT,		PMIX_GROUP_ENDPT_DATA,
	PMIX_GROUP_INFO,	PMIX_LOCAL_COLLECTIVE_STATUS,
	PMIX_SORTED_PROC_ARRAY, PMIX_GROUP_CONTEXT_ID,
	PMIX_PROC_DATA,
};

/* A positive whole number of seconds of `v`, or 0 (none); -1: not a
 * number. */
static long long seconds_of(const pmix_value_t *v)
{
	switch (v->type) {
	case PMIX_INT:
		return v->data.integer;
	case PMIX_INT32:
		return v->data.int32;
	case PMIX_UINT32:
		return v->data.uint32;
	case PMIX_UINT:
		return v->data.uint;
	case PMIX_SIZE:
		return v->data.size > GROUP_DIRS_TIMEOUT_MAX_SEC
			       ? GROUP_DIRS_TIMEOUT_MAX_SEC
			       : (long long)v->data.size;
	default:
		return -1;
	}
}

static bool is_known(const char *key)
{
	for (size_t k = 0; k < sizeof(known) / sizeof(known[0]); k++)
		if (!strcmp(key, known[k]))
			return true;
	return false;
}

/* One info into `d`: PMIX_SUCCESS, or why not. */
static pmix_status_t read_one(const pmix_info_t *in, struct group_dirs *d)
{
	const pmix_value_t *v = &in->value;
	long long sec;

	for (size_t f = 0; f < sizeof(flags) / sizeof(flags[0]); f++) {
		if (!PMIX_CHECK_KEY(in, flags[f].key))
			continue;
		if (v->type != PMIX_BOOL && v->type != PMIX_UNDEF)
			return PMIX_ERR_BAD_PARAM;
		*(bool *)((char *)d + flags[f].off) |= PMIX_INFO_TRUE(in);
		return PMIX_SUCCESS;
	}
	if (PMIX_CHECK_KEY(in, PMIX_TIMEOUT)) {
		if ((sec = seconds_of(v)) < 0)
			return PMIX_ERR_BAD_PARAM;
		if (sec > GROUP_DIRS_TIMEOUT_MAX_SEC)
			sec = GROUP_DIRS_TIMEOUT_MAX_SEC;
		if (sec > 0 && (!d->timeout_sec || sec < d->timeout_sec))
			d->timeout_sec = (unsigned)sec;
	} else if (PMIX_CHECK_KEY(in, PMIX_GROUP_ENDPT_DATA)) {
		if (v->type != PMIX_BYTE_OBJECT ||
		    (v->data.bo.size && !v->data.bo.bytes))
			return PMIX_ERR_BAD_PARAM;
		if (!d->endpt && v->data.bo.size) {
			d->endpt = (const uint8_t *)v->data.bo.bytes;
			d->nendpt = v->data.bo.size;
		}
	} else if (PMIX_CHECK_KEY(in, PMIX_LOCAL_COLLECTIVE_STATUS)) {
		if (v->type != PMIX_STATUS)
			return PMIX_ERR_BAD_PARAM;
		d->lost_local |= v->data.status == PMIX_ERR_PARTIAL_SUCCESS;
	} else if (PMIX_INFO_IS_REQUIRED(in) && !is_known(in->key)) {
		return PMIX_ERR_NOT_SUPPORTED;
	}
	return PMIX_SUCCESS;
}

pmix_status_t group_dirs_read(const pmix_info_t info[], size_t ninfo,
			      struct group_dirs *d, const char **why)
{
	pmix_status_t rc = PMIX_SUCCESS;

	memset(d, 0, sizeof(*d));
	*why = NULL;
	for (size_t i = 0; i < ninfo && rc == PMIX_SUCCESS; i++)
		if ((rc = read_one(&info[i], d)) != PMIX_SUCCESS)
			*why = info[i].key;
	return rc;
}
