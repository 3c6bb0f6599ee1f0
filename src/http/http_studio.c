/*-------------------------------------------------------------------------
 *
 * http_studio.c
 *		The design studio's page, served at /studio on the endpoint's port
 *		by the workers' I/O threads: its files, its headers, and the
 *		per-page token that the page's calls carry under trust.
 *
 * The page is a few static files installed with the extension
 * (share/extension/stdesign_studio/): each worker reads them into memory
 * once, before its I/O thread starts, and the I/O thread answers GET
 * /studio and /studio/<file> from that copy without a transaction (nothing
 * in them comes from the database: the page reads everything through the
 * endpoint's operations, as the caller's role).
 *
 * Who may have the page, and what its calls need:
 *
 *	- trust: only a loopback socket serves it (as it serves every trusted
 *	  request), and only to a Host header that names a loopback host, so
 *	  that a web site whose name is made to resolve to 127.0.0.1 (DNS
 *	  rebinding) is not served the page nor its token.  The page carries a
 *	  token, the HMAC of a random nonce under a secret drawn when the server
 *	  starts (shared by the workers: they fork from the postmaster after it
 *	  is drawn); the studio's operations (StDesign_Studio.*) and every call
 *	  that carries the token are refused without a valid one
 *	  (http_protocol.c).  Another site cannot read the page (the same-origin
 *	  policy), so it cannot have a token; a page token is no longer valid
 *	  after a restart.
 *	- sigv4: served to anyone (it holds no secret); the page asks for an
 *	  access key and signs every call in the browser, so it can do what the
 *	  key's role may, and no more.
 *
 * Every answer carries a Content-Security-Policy allowing only the
 * endpoint's own scripts, styles and calls (no inline script), nosniff,
 * no framing, no referrer; the page itself is never cached (its token).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <dirent.h>
#include <pthread.h>
#include <string.h>
#include <sys/random.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "miscadmin.h"
#include "storage/fd.h"

#include "http_server.h"

/* The most files, and the largest file, the page may have. */
#define STUDIO_MAX_FILES	32
#define STUDIO_MAX_FILE		(1024 * 1024)

#define STUDIO_NONCE_BYTES	16
#define STUDIO_TOKEN_LEN	(2 * STUDIO_NONCE_BYTES + 1 + 2 * 32)

typedef struct StudioFile
{
	char		name[64];
	const char *type;
	char	   *data;			/* malloc'd: the I/O thread reads it */
	size_t		len;
} StudioFile;

static StudioFile studio_files[STUDIO_MAX_FILES];
static int	studio_nfiles = 0;

/* Drawn in the postmaster (http_studio_preload), inherited by the workers. */
static unsigned char studio_secret[32];
static bool studio_secret_set = false;

/* The I/O thread's copy of stdesign.http_auth (http_studio_config). */
static pthread_mutex_t studio_config_lock = PTHREAD_MUTEX_INITIALIZER;
static int	studio_auth = HTTP_AUTH_TRUST;

/* The headers of every answer: the policy, and the page never cached. */
#define STUDIO_HEADERS(cache) \
	"Content-Security-Policy: default-src 'none'; script-src 'self'; style-src 'self'; " \
	"img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; " \
	"frame-ancestors 'none'\r\n" \
	"X-Content-Type-Options: nosniff\r\n" \
	"X-Frame-Options: DENY\r\n" \
	"Referrer-Policy: no-referrer\r\n" \
	"Cross-Origin-Opener-Policy: same-origin\r\n" \
	"Cross-Origin-Resource-Policy: same-origin\r\n" \
	"Cache-Control: " cache "\r\n"

void
http_studio_preload(void)
{
	size_t		got = 0;

	while (got < sizeof(studio_secret))
	{
		ssize_t		n = getrandom(studio_secret + got, sizeof(studio_secret) - got, 0);

		if (n < 0)
		{
			if (errno == EINTR)
				continue;
			/* no page token can be valid: the studio's calls are refused */
			ereport(LOG, (errmsg("stdesign: no random bytes for the studio's page tokens: %m")));
			return;
		}
		got += (size_t) n;
	}
	studio_secret_set = true;
}

void
http_studio_config(void)
{
	pthread_mutex_lock(&studio_config_lock);
	studio_auth = http_auth;
	pthread_mutex_unlock(&studio_config_lock);
}

static const char *
content_type(const char *name)
{
	const char *dot = strrchr(name, '.');

	if (dot == NULL)
		return NULL;
	if (strcmp(dot, ".html") == 0)
		return "text/html; charset=utf-8";
	if (strcmp(dot, ".js") == 0)
		return "text/javascript; charset=utf-8";
	if (strcmp(dot, ".css") == 0)
		return "text/css; charset=utf-8";
	if (strcmp(dot, ".svg") == 0)
		return "image/svg+xml";
	if (strcmp(dot, ".png") == 0)
		return "image/png";
	return NULL;
}

/* A file name the page may have: [a-z0-9_-]+ and one known extension. */
static bool
file_name_ok(const char *name)
{
	size_t		len = strlen(name);

	if (len == 0 || len >= sizeof(studio_files[0].name) || name[0] == '.')
		return false;
	for (const char *p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_' || *p == '-' || *p == '.'))
			return false;
	return content_type(name) != NULL;
}

void
http_studio_load(void)
{
	char		share[MAXPGPATH];
	char		dir[MAXPGPATH];
	DIR		   *d;
	struct dirent *de;

	get_share_path(my_exec_path, share);
	snprintf(dir, sizeof(dir), "%s/extension/stdesign_studio", share);
	d = AllocateDir(dir);
	if (d == NULL)
	{
		ereport(LOG, (errmsg("stdesign: the studio's page is not installed (%s): /studio answers 404", dir)));
		return;
	}
	while ((de = ReadDir(d, dir)) != NULL && studio_nfiles < STUDIO_MAX_FILES)
	{
		char		path[MAXPGPATH];
		FILE	   *f;
		StudioFile *sf = &studio_files[studio_nfiles];
		char	   *buf;
		size_t		n;

		if (!file_name_ok(de->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		f = AllocateFile(path, PG_BINARY_R);
		if (f == NULL)
			continue;
		buf = malloc(STUDIO_MAX_FILE + 1);
		if (buf == NULL)
		{
			FreeFile(f);
			break;
		}
		n = fread(buf, 1, STUDIO_MAX_FILE + 1, f);
		FreeFile(f);
		if (n > STUDIO_MAX_FILE)
		{
			ereport(LOG, (errmsg("stdesign: studio file \"%s\" is over %d bytes: not served", path, STUDIO_MAX_FILE)));
			free(buf);
			continue;
		}
		strlcpy(sf->name, de->d_name, sizeof(sf->name));
		sf->type = content_type(de->d_name);
		sf->data = buf;
		sf->len = n;
		studio_nfiles++;
	}
	FreeDir(d);
}

/* ---------- tokens ---------- */

static void
hex(const unsigned char *in, int n, char *out)
{
	static const char digits[] = "0123456789abcdef";

	for (int i = 0; i < n; i++)
	{
		out[2 * i] = digits[in[i] >> 4];
		out[2 * i + 1] = digits[in[i] & 15];
	}
	out[2 * n] = '\0';
}

static bool
token_mac(const char *nonce_hex, char *out)
{
	unsigned char mac[EVP_MAX_MD_SIZE];
	unsigned int mac_len = 0;

	if (HMAC(EVP_sha256(), studio_secret, sizeof(studio_secret),
			 (const unsigned char *) nonce_hex, 2 * STUDIO_NONCE_BYTES, mac, &mac_len) == NULL ||
		mac_len != 32)
		return false;
	hex(mac, 32, out);
	return true;
}

/* A new token, "<nonce>.<mac>" in hex, into out (STUDIO_TOKEN_LEN + 1). */
static bool
token_new(char *out)
{
	unsigned char nonce[STUDIO_NONCE_BYTES];

	if (!studio_secret_set ||
		getrandom(nonce, sizeof(nonce), 0) != (ssize_t) sizeof(nonce))
		return false;
	hex(nonce, STUDIO_NONCE_BYTES, out);
	out[2 * STUDIO_NONCE_BYTES] = '.';
	return token_mac(out, out + 2 * STUDIO_NONCE_BYTES + 1);
}

bool
http_studio_token_ok(const char *token)
{
	char		mac[2 * 32 + 1];

	if (token == NULL || !studio_secret_set || strlen(token) != STUDIO_TOKEN_LEN ||
		token[2 * STUDIO_NONCE_BYTES] != '.')
		return false;
	for (int i = 0; i < 2 * STUDIO_NONCE_BYTES; i++)
		if (!((token[i] >= '0' && token[i] <= '9') || (token[i] >= 'a' && token[i] <= 'f')))
			return false;
	if (!token_mac(token, mac))
		return false;
	return CRYPTO_memcmp(mac, token + 2 * STUDIO_NONCE_BYTES + 1, sizeof(mac) - 1) == 0;
}

/* ---------- serving ---------- */

/*
 * Does host (a Host header) name a loopback host: localhost, 127.0.0.1 or
 * [::1], with or without a port?
 */
bool
http_studio_loopback_host(const char *host)
{
	static const char *const names[] = {"localhost", "127.0.0.1", "[::1]"};

	if (host == NULL)
		return false;
	for (int i = 0; i < (int) lengthof(names); i++)
	{
		size_t		len = strlen(names[i]);

		if (pg_strncasecmp(host, names[i], len) == 0 &&
			(host[len] == '\0' ||
			 (host[len] == ':' && host[len + 1] != '\0' &&
			  strspn(host + len + 1, "0123456789") == strlen(host + len + 1))))
			return true;
	}
	return false;
}

static bool
send_page(HttpPage *page, int status, const char *type,
		  const char *data, size_t len, bool copy, bool no_store)
{
	page->status = status;
	page->type = type;
	page->len = len;
	page->must_free = copy;
	page->headers = no_store ? STUDIO_HEADERS("no-store") : STUDIO_HEADERS("no-cache");
	if (copy)
	{
		char	   *d = malloc(Max(len, 1));

		if (d == NULL)
		{
			page->status = 0;
			return false;
		}
		memcpy(d, data, len);
		page->data = d;
	}
	else
		page->data = data;
	return true;
}

static bool
send_plain(HttpPage *page, int status, const char *text)
{
	return send_page(page, status, "text/plain; charset=utf-8", text, strlen(text), true, true);
}

/*
 * index.html with its two markers filled: @STUDIO_AUTH@ (trust or sigv4)
 * and @STUDIO_TOKEN@ (the page's token under trust, else empty).
 */
static bool
send_index(HttpPage *page, const StudioFile *f, int auth)
{
	char		token[STUDIO_TOKEN_LEN + 1] = "";
	const char *auth_name = auth == HTTP_AUTH_SIGV4 ? "sigv4" : "trust";
	size_t		cap = f->len + 256;
	char	   *out;
	size_t		o = 0;

	if (auth == HTTP_AUTH_TRUST && !token_new(token))
		return send_plain(page, 503, "No page token could be made (see the server log).\n");
	out = malloc(cap);
	if (out == NULL)
		return false;
	for (size_t i = 0; i < f->len;)
	{
		const char *with = NULL;
		size_t		skip = 0;

		if (f->data[i] == '@' && f->len - i >= 13 && memcmp(f->data + i, "@STUDIO_AUTH@", 13) == 0)
			with = auth_name, skip = 13;
		else if (f->data[i] == '@' && f->len - i >= 14 && memcmp(f->data + i, "@STUDIO_TOKEN@", 14) == 0)
			with = token, skip = 14;
		if (with)
		{
			size_t		wl = strlen(with);

			if (o + wl + (f->len - i) >= cap)
				break;
			memcpy(out + o, with, wl);
			o += wl;
			i += skip;
		}
		else if (o < cap)
			out[o++] = f->data[i++];
		else
			break;
	}
	/* the page takes the buffer */
	send_page(page, 200, f->type, out, o, false, true);
	page->must_free = true;
	return true;
}

/*
 * The answer to a GET of the studio's page or one of its files (*page; its
 * status 0 when out of memory); false: not the studio's path.
 */
bool
http_studio_serve(const char *url, const char *host, bool loopback, HttpPage *page)
{
	const char *name;
	int			auth;

	memset(page, 0, sizeof(*page));
	if (strncmp(url, "/studio", 7) != 0 || (url[7] != '\0' && url[7] != '/'))
		return false;
	pthread_mutex_lock(&studio_config_lock);
	auth = studio_auth;
	pthread_mutex_unlock(&studio_config_lock);
	http_stats_io_request(NULL, true);
	if (auth == HTTP_AUTH_TRUST && (!loopback || !http_studio_loopback_host(host)))
	{
		send_plain(page, 403,
				   "stdesign.http_auth = trust serves the studio on loopback addresses only, "
				   "to a Host of localhost, 127.0.0.1 or [::1].\n");
		return true;
	}
	name = url[7] == '\0' || url[8] == '\0' ? "index.html" : url + 8;
	for (int i = 0; i < studio_nfiles; i++)
	{
		const StudioFile *f = &studio_files[i];

		if (strcmp(f->name, name) != 0)
			continue;
		if (strcmp(name, "index.html") == 0)
			send_index(page, f, auth);
		else
			send_page(page, 200, f->type, f->data, f->len, false, false);
		return true;
	}
	send_plain(page, 404, "Not found.\n");
	return true;
}
