/* pmixev_hello.c - a PMIx client's or tool's first message, judged. */
#include "config.h"

#include "pmixev_hello.h"

#include <arpa/inet.h>
#include <string.h>

/* A cursor over the body, as OpenPMIx's PMIX_PTL_GET_* macros walk it. */
struct cur {
	const uint8_t *p;
	size_t left;
};

/* A NUL-terminated string inside what is left; NULL if none. */
static const char *get_str(struct cur *c)
{
	const uint8_t *nul = memchr(c->p, '\0', c->left);
	const char *s = (const char *)c->p;

	if (!nul)
		return NULL;
	c->left -= (size_t)(nul - c->p) + 1;
	c->p = nul + 1;
	return s;
}

static int get_u32(struct cur *c, uint32_t *v)
{
	uint32_t n;

	if (c->left < 4)
		return -1;
	memcpy(&n, c->p, 4);
	*v = ntohl(n);
	c->p += 4;
	c->left -= 4;
	return 0;
}

static int get_u8(struct cur *c, uint8_t *v)
{
	if (c->left < 1)
		return -1;
	*v = *c->p++;
	c->left--;
	return 0;
}

/* "MAJOR.MINOR.RELEASE..." with numbers below 256 (OpenPMIx keeps them
 * in bytes and steps over the dots unchecked, past the string's end). */
static int version(const char *s, unsigned *major, unsigned *minor)
{
	unsigned part[3];

	for (int i = 0; i < 3; i++) {
		size_t n = 0;

		part[i] = 0;
		while (n < 3 && s[n] >= '0' && s[n] <= '9')
			part[i] = part[i] * 10 + (unsigned)(s[n++] - '0');
		if (n == 0 || part[i] > 255 || (i < 2 && s[n] != '.'))
			return -1;
		if (i < 2)
			s += n + 1;
	}
	*major = part[0];
	*minor = part[1];
	return 0;
}

/* Whether the comma-separated `list` has the `n` bytes at `want` as an
 * element. */
static bool has_element(const char *list, const char *want, size_t n)
{
	for (const char *p = list; p;
	     p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (strncmp(p, want, n) == 0 && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

/* Whether an element of comma list `list` is one of comma list `set`
 * (OpenPMIx's server takes the best of the client's it runs). */
static bool shares_element(const char *list, const char *set)
{
	for (const char *p = list; p;
	     p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
		size_t n = strcspn(p, ",");

		if (n && has_element(set, p, n))
			return true;
	}
	return false;
}

long pmixev_hello_body_len(const uint8_t hdr[PMIXEV_HELLO_HDR])
{
	uint32_t n;

	memcpy(&n, hdr + 8, 4);
	return n > PMIXEV_HELLO_MAX ? -1 : (long)n;
}

/* The fields after the peer type that the type has. */
static int get_ids_and_proc(struct cur *c, struct pmixev_hello *h,
			    const char **why)
{
	const char *ns;
	bool ids = h->type != PMIXEV_HELLO_CLIENT,
	     proc = h->type == PMIXEV_HELLO_CLIENT || h->type == 4 ||
		    h->type == 5 || h->type >= 7;

	if (h->type > PMIXEV_HELLO_LAST_TYPE) {
		*why = "an unknown peer type";
		return -1;
	}
	if (ids && (get_u32(c, &h->uid) < 0 || get_u32(c, &h->gid) < 0)) {
		*why = "a tool's uid and gid cut short";
		return -1;
	}
	h->has_ids = ids;
	if (!proc)
		return 0;
	if (!(ns = get_str(c)) || get_u32(c, &h->rank) < 0) {
		*why = "a namespace and rank cut short";
		return -1;
	}
	if (strlen(ns) >= sizeof(h->nspace)) {
		*why = "a namespace name too long";
		return -1;
	}
	strcpy(h->nspace, ns);
	h->has_proc = true;
	return 0;
}

int pmixev_hello_parse(const uint8_t *body, size_t len, struct pmixev_hello *h,
		       const char **why)
{
	struct cur c = {body, len};
	const char *psec, *ver, *bfrops, *gds;
	uint32_t credlen;
	uint8_t type;

	memset(h, 0, sizeof(*h));
	if (!(psec = get_str(&c)) || get_u32(&c, &credlen) < 0) {
		*why = "a security module and credential length cut short";
		return -1;
	}
	if (strcmp(psec, "native") != 0) {
		*why = "a security module other than \"native\"";
		return -1;
	}
	if (credlen != 8 || c.left < 8) {
		*why = "a credential that is not a uid and a gid";
		return -1;
	}
	memcpy(&h->cred_uid, c.p, 4);
	memcpy(&h->cred_gid, c.p + 4, 4);
	c.p += 8;
	c.left -= 8;
	if (get_u8(&c, &type) < 0) {
		*why = "no peer type";
		return -1;
	}
	h->type = type;
	if (get_ids_and_proc(&c, h, why) < 0)
		return -1;
	if (!(ver = get_str(&c)) || version(ver, &h->major, &h->minor) < 0) {
		*why = "a malformed PMIx version";
		return -1;
	}
	if (h->major < 2 || (h->major == 2 && h->minor == 0)) {
		*why = "a PMIx version older than 2.1";
		return -1;
	}
	if (!(bfrops = get_str(&c)) || strlen(bfrops) >= sizeof(h->bfrops) ||
	    get_u8(&c, &type) < 0 || !(gds = get_str(&c))) {
		*why = "module names cut short";
		return -1;
	}
	strcpy(h->bfrops, bfrops);
	if (type != 1 && type != 2) {
		*why = "an unknown buffer type";
		return -1;
	}
	if (strlen(gds) >= sizeof(h->gds)) {
		*why = "a data-store list too long";
		return -1;
	}
	strcpy(h->gds, gds);
	return 0;
}

bool pmixev_hello_bfrops_ok(const char *name, unsigned server_major)
{
	static const char *const base[] = {"v21", "v3", "v4", "v41"};

	for (size_t i = 0; i < sizeof(base) / sizeof(base[0]); i++)
		if (strcmp(name, base[i]) == 0)
			return true;
	return (server_major >= 6 && strcmp(name, "v51") == 0) ||
	       (server_major >= 7 && strcmp(name, "v61") == 0);
}

int pmixev_hello_check(const struct pmixev_hello *h, unsigned server_major,
		       const char *stores, uid_t job_uid, gid_t job_gid,
		       uid_t peer_uid, const char **why)
{
	if (peer_uid != job_uid && peer_uid != 0) {
		*why = "its process runs as another user";
		return -1;
	}
	if (peer_uid != 0 && h->cred_uid != peer_uid) {
		*why = "its credential names another uid than its process's";
		return -1;
	}
	if (h->type == PMIXEV_HELLO_CLIENT &&
	    (h->cred_uid != job_uid || h->cred_gid != job_gid)) {
		*why = "a client's credential is not the job's uid and gid";
		return -1;
	}
	if (h->has_ids && (h->uid != h->cred_uid || h->gid != h->cred_gid)) {
		*why = "a tool claims other ids than its credential's";
		return -1;
	}
	if (!pmixev_hello_bfrops_ok(h->bfrops, server_major)) {
		*why = "a buffer-operations module the server lacks";
		return -1;
	}
	if (!shares_element(h->gds, stores)) {
		*why = "no data-store module the server runs";
		return -1;
	}
	return 0;
}
