/*
 * programs/check_conf.c - a node's Slurm configuration as Slurm reads it
 * (see check_conf.h).
 */
#include "config.h"

#include "check_conf.h"

#include <ctype.h>
#include <errno.h>
#include <glob.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pmixev_conf.h"

/* One line of a file, without its comment; 0 on, 1 stop, -1 failed. */
typedef int line_fn(void *ctx, const char *file, unsigned line, char *text,
		    char *why, size_t len);

static int read_conf(const char *path, line_fn *fn, void *ctx, int depth,
		     char *why, size_t len);

/* Cut the comment: '#' up to the end, "\#" being a '#' of the text. */
static void cut_comment(char *s)
{
	char *w = s;

	for (char *r = s; *r; r++) {
		if (r[0] == '\\' && r[1] == '#') {
			*w++ = '#';
			r++;
		} else if (*r == '#') {
			break;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
}

/* The next word of *s (double quotes keep blanks; they are removed),
 * NUL-terminated in place, or NULL at the end. */
static char *next_word(char **s)
{
	char *p = *s, *w, *out;
	bool quoted = false;

	p += strspn(p, " \t\r\n");
	if (!*p)
		return NULL;
	w = out = p;
	for (; *p && (quoted || !isspace((unsigned char)*p)); p++) {
		if (*p == '"')
			quoted = !quoted;
		else
			*out++ = *p;
	}
	*s = *p ? p + 1 : p;
	*out = '\0';
	return w;
}

void check_conf_beside(const char *dir, const char *name, char *out, size_t len)
{
	if (name[0] == '/')
		snprintf(out, len, "%s", name);
	else
		snprintf(out, len, "%s/%s", dir, name);
}

/* "include PATTERN" in `file`: each file it names, relative to `file`'s
 * folder; a pattern without wildcards must name a file. */
static int include(const char *file, const char *pattern, line_fn *fn,
		   void *ctx, int depth, char *why, size_t len)
{
	char dir[PATH_MAX], full[PATH_MAX];
	glob_t g = {0};
	int rc = 0;

	if (depth >= CHECK_CONF_DEPTH) {
		snprintf(why, len, "%s: includes nested deeper than %d", file,
			 CHECK_CONF_DEPTH);
		return -1;
	}
	snprintf(dir, sizeof(dir), "%s", file);
	check_conf_beside(dirname(dir), pattern, full, sizeof(full));
	switch (glob(full, 0, NULL, &g)) {
	case 0:
		break;
	case GLOB_NOMATCH:
		if (!strpbrk(full, "*?["))
			return read_conf(full, fn, ctx, depth + 1, why, len);
		return 0;
	default:
		snprintf(why, len, "%s: cannot expand include %s", file, full);
		return -1;
	}
	for (size_t i = 0; i < g.gl_pathc && rc == 0; i++)
		rc = read_conf(g.gl_pathv[i], fn, ctx, depth + 1, why, len);
	globfree(&g);
	return rc;
}

static int read_conf(const char *path, line_fn *fn, void *ctx, int depth,
		     char *why, size_t len)
{
	char *line = NULL, *text = NULL;
	size_t cap = 0, tlen = 0;
	unsigned no = 0, first = 0;
	FILE *f = fopen(path, "re");
	int rc = 0;

	if (!f) {
		snprintf(why, len, "cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	while (rc == 0 && getline(&line, &cap, f) >= 0) {
		size_t n = strcspn(line, "\r\n");
		bool more = n && line[n - 1] == '\\';
		char *grown, *rest, *word;

		no++;
		line[n - more] = '\0';
		if (!(grown = realloc(text, tlen + n + 1))) {
			snprintf(why, len, "%s: out of memory", path);
			rc = -1;
			break;
		}
		text = grown;
		if (!tlen)
			first = no;
		memcpy(text + tlen, line, n - more + 1);
		tlen += n - more;
		if (more)
			continue;
		tlen = 0;
		cut_comment(text);
		rest = text + strspn(text, " \t");
		if (strncasecmp(rest, "include", 7) == 0 &&
		    (rest[7] == ' ' || rest[7] == '\t')) {
			rest += 8;
			word = next_word(&rest);
			rc = word ? include(path, word, fn, ctx, depth, why,
					    len)
				  : 0;
		} else if (*rest) {
			rc = fn(ctx, path, first, rest, why, len);
		}
	}
	free(line);
	free(text);
	fclose(f);
	return rc;
}

/* slurm.conf: "Key=Value" words, several to a line. */
static int site_line(void *ctx, const char *file, unsigned line, char *text,
		     char *why, size_t len)
{
	static const struct {
		const char *key;
		size_t off, size;
	} keys[] = {
#define KEY(k, m)                                                              \
	{k, offsetof(struct check_site, m), sizeof(((struct check_site *)0)->m)}
		KEY("PluginDir", plugin_dir),
		KEY("PlugStackConfig", plugstack),
		KEY("AuthInfo", authinfo),
		KEY("AuthType", authtype),
		KEY("MpiDefault", mpi_default),
#undef KEY
	};
	char *word;

	while ((word = next_word(&text))) {
		char *eq = strchr(word, '=');

		if (!eq)
			continue;
		*eq = '\0';
		for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (strcasecmp(word, keys[i].key) == 0)
				snprintf((char *)ctx + keys[i].off,
					 keys[i].size, "%s", eq + 1);
	}
	return 0;
}

int check_conf_read(struct check_site *s, const char *path, char *why,
		    size_t len)
{
	char conf[PATH_MAX];

	snprintf(conf, sizeof(conf), "%s", path);
	memset(s, 0, sizeof(*s));
	snprintf(s->conf, sizeof(s->conf), "%s", conf);
	return read_conf(conf, site_line, s, 0, why, len);
}

struct spank_find {
	const char *name;
	struct check_spank *out;
};

/* plugstack.conf: "required|optional PATH [ARGS]". */
static int spank_line(void *ctx, const char *file, unsigned line, char *text,
		      char *why, size_t len)
{
	struct spank_find *sf = ctx;
	char *kind = next_word(&text), *path = next_word(&text);
	const char *base;

	if (!kind || !path ||
	    (strcmp(kind, "required") && strcmp(kind, "optional")))
		return 0;
	base = strrchr(path, '/');
	if (strcmp(base ? base + 1 : path, sf->name))
		return 0;
	snprintf(sf->out->file, sizeof(sf->out->file), "%s", file);
	sf->out->line = line;
	sf->out->required = kind[0] == 'r';
	snprintf(sf->out->path, sizeof(sf->out->path), "%s", path);
	return 1;
}

int check_plugstack_find(const char *path, const char *name,
			 struct check_spank *out, char *why, size_t len)
{
	struct spank_find sf = {.name = name, .out = out};

	return read_conf(path, spank_line, &sf, 0, why, len);
}

struct mpi_check {
	struct pmixev_conf conf;
	int n;
};

/* mpi.conf: "Key=Value"; pmixev's are those beginning with PMIxev. */
static int mpi_line(void *ctx, const char *file, unsigned line, char *text,
		    char *why, size_t len)
{
	struct mpi_check *mc = ctx;
	char *word, reason[256];

	while ((word = next_word(&text))) {
		char *eq = strchr(word, '=');
		size_t i;

		if (!eq || strncasecmp(word, "PMIxev", 6))
			continue;
		*eq = '\0';
		for (i = 0; i < PMIXEV_CONF_NKEYS; i++)
			if (strcasecmp(word, pmixev_conf_key(i)) == 0)
				break;
		if (i == PMIXEV_CONF_NKEYS) {
			snprintf(why, len,
				 "%s:%u: %s: not an option of pmixev "
				 "(pmixev-mpi.conf(5); doc/admin-guide.md, "
				 "mpi.conf options)",
				 file, line, word);
			return -1;
		}
		if (pmixev_conf_set(&mc->conf, i, eq + 1, reason,
				    sizeof(reason)) < 0) {
			snprintf(why, len, "%s:%u: %s=%s: %s", file, line,
				 pmixev_conf_key(i), eq + 1, reason);
			return -1;
		}
		mc->n++;
	}
	return 0;
}

int check_mpiconf(const char *path, char *why, size_t len)
{
	struct mpi_check mc = {0};
	char reason[256];
	FILE *f = fopen(path, "re");

	if (!f && errno == ENOENT)
		return 0;
	if (f)
		fclose(f);
	pmixev_conf_defaults(&mc.conf);
	if (read_conf(path, mpi_line, &mc, 0, why, len) < 0)
		return -1;
	/* With no job setting of its own, a step takes the site's policy. */
	if (pmixev_conf_monitor_check(&mc.conf, reason, sizeof(reason)) < 0) {
		snprintf(why, len, "%s: %s", path, reason);
		return -1;
	}
	return mc.n;
}
