/*
 * mpi_conf.c - mpi.conf hooks.
 *
 * Every key is declared to Slurm as a string: Slurm's own typed parsing
 * fatal()s the daemon on a malformed number, while pmixev must reject a bad
 * value without taking slurmctld or slurmd down.
 */
#include "config.h"

#include "mpi_conf.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmixev_log.h"

/*
 * Slurm's conf hooks carry no context pointer, so the plugin's view of
 * mpi.conf is file-static: one copy per process that loaded the plugin.
 */
static struct {
	struct pmixev_conf conf;	 /* validated values */
	char *raw[PMIXEV_CONF_NKEYS];	 /* as written in mpi.conf, or NULL */
	bool invalid[PMIXEV_CONF_NKEYS]; /* raw value was rejected */
	char error[512];		 /* first rejected entry, or "" */
	s_p_options_t table[PMIXEV_CONF_NKEYS + 1];
} state;

static s_p_options_t *option_table(void)
{
	for (size_t i = 0; i < PMIXEV_CONF_NKEYS; i++) {
		state.table[i].key = (char *)pmixev_conf_key(i);
		state.table[i].type = PMIXEV_S_P_STRING;
	}
	return state.table;
}

void mpi_conf_reset(void)
{
	for (size_t i = 0; i < PMIXEV_CONF_NKEYS; i++) {
		free(state.raw[i]);
		state.raw[i] = NULL;
		state.invalid[i] = false;
	}
	state.error[0] = '\0';
	pmixev_conf_defaults(&state.conf);
}

void mpi_conf_options(s_p_options_t **full_options, int *full_opt_cnt)
{
	slurm_transfer_s_p_options(full_options, option_table(), full_opt_cnt);
}

static void take_value(size_t idx, const char *path, const char *value)
{
	char why[256];

	state.raw[idx] = strdup(value);
	if (pmixev_conf_set(&state.conf, idx, value, why, sizeof(why)) == 0)
		return;
	state.invalid[idx] = true;
	if (!state.error[0])
		snprintf(state.error, sizeof(state.error), "%s: %s=%s: %s",
			 path, pmixev_conf_key(idx), value, why);
	PMIXEV_ERROR("%s: invalid value '%s' for %s: %s; steps using "
		     "--mpi=pmixev are refused until it is fixed",
		     path, value, pmixev_conf_key(idx), why);
}

void mpi_conf_set(s_p_hashtbl_t *tbl)
{
	char *path = NULL;

	mpi_conf_reset();
	if (!tbl)
		return;
	path = slurm_get_extra_conf_path("mpi.conf");
	for (size_t i = 0; i < PMIXEV_CONF_NKEYS; i++) {
		char *value = NULL;

		if (slurm_s_p_get_string(&value, pmixev_conf_key(i), tbl)) {
			take_value(i, path ? path : "mpi.conf", value);
			pmixev_xfree(value);
		}
	}
	pmixev_xfree(path);
}

s_p_hashtbl_t *mpi_conf_get(void)
{
	s_p_hashtbl_t *tbl = NULL;

	for (size_t i = 0; i < PMIXEV_CONF_NKEYS; i++) {
		if (!state.raw[i])
			continue;
		if (!tbl)
			tbl = slurm_s_p_hashtbl_create(option_table());
		slurm_s_p_parse_pair(tbl, pmixev_conf_key(i), state.raw[i]);
	}
	return tbl;
}

static config_key_pair_t *key_pair(const char *name, const char *value)
{
	config_key_pair_t *kp = pmixev_xmalloc(sizeof(*kp));

	kp->name = slurm_xstrdup(name);
	kp->value = slurm_xstrdup(value);
	return kp;
}

pmixev_slurm_list_t mpi_conf_get_printable(void)
{
	pmixev_slurm_list_t list =
		slurm_list_create(slurm_destroy_config_key_pair);

	for (size_t i = 0; i < PMIXEV_CONF_NKEYS; i++) {
		char value[256];

		if (state.invalid[i])
			snprintf(value, sizeof(value), "%s (invalid)",
				 state.raw[i]);
		else
			pmixev_conf_format(&state.conf, i, value,
					   sizeof(value));
		slurm_list_append(list, key_pair(pmixev_conf_key(i), value));
	}
	return list;
}

int mpi_conf_effective(struct pmixev_conf *conf, char *err, size_t errlen)
{
	if (state.error[0]) {
		snprintf(err, errlen, "%s", state.error);
		return -1;
	}
	*conf = state.conf;
	return 0;
}
