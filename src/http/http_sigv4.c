/*-------------------------------------------------------------------------
 *
 * http_sigv4.c
 *		AWS Signature Version 4, as the SDKs sign DynamoDB requests.
 *
 * The server rebuilds the canonical request from exactly the headers the
 * client says it signed, the string to sign from the credential scope, and
 * the signature from the access key's secret, then compares in constant
 * time.  The checks and their messages follow the order DynamoDB applies
 * (documented in AWS's "Create a signed AWS API request" and observed by
 * dynalite): incomplete header, date format, expiry (15 minutes either
 * way), Host and every x-amz-* header signed, algorithm, credential scope,
 * key, signature, session token.
 *
 * The signature may also come in the query string (a presigned request:
 * X-Amz-Algorithm, X-Amz-Credential, X-Amz-Date, X-Amz-SignedHeaders,
 * X-Amz-Signature and optionally X-Amz-Expires, as AWS's "Authentication
 * methods" describe it); its canonical query string is every argument but
 * X-Amz-Signature.  The payload hash is always the SHA-256 of the body as
 * received.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <time.h>

/* SHA256_Init and co.: deprecated by OpenSSL 3 for EVP, but far cheaper */
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>

#include "access/xact.h"
#include "datatype/timestamp.h"
#include "lib/stringinfo.h"
#include "utils/datetime.h"
#include "utils/memutils.h"

#include "http_server.h"

#define SIGV4_ALGORITHM "AWS4-HMAC-SHA256"
#define SHA_LEN		32			/* SHA-256's digest */
#define SHA_BLOCK	64			/* and block, in bytes */
#define SKEW_SECONDS (15 * 60)
#define NS_SERVICE "com.amazon.coral.service#"

/* The parts of the Authorization header (NULL: absent). */
typedef struct SigV4Auth
{
	const char *algorithm;
	char	   *credential;
	char	   *signed_headers;
	char	   *signature;
} SigV4Auth;

/*
 * Refusals, and the building of their messages, are kept out of the way
 * (cold, not inlined): the code a valid signature runs through is then
 * compact, which matters because between two requests the operation's own
 * work evicts it from the CPU's caches, and cache misses are most of what
 * a signature costs.
 */
static pg_noinline pg_attribute_cold bool
fail(HttpAuthError *err, const char *type, char *message)
{
	err->type = type;
	err->message = message;
	return false;
}

/*
 * ASCII lower case, and names equal but for case: header names are ASCII
 * (RFC 9110), and these run inline on every signed request, where calls
 * into other code cost cache misses more than the work.
 */
static inline char
ascii_lower(char c)
{
	return (c >= 'A' && c <= 'Z') ? c + ('a' - 'A') : c;
}

/* Is the NUL-terminated a equal to the len bytes of lower-case b? */
static inline bool
name_equal(const char *a, const char *b, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (ascii_lower(a[i]) != b[i])
			return false;
	return a[len] == '\0';
}

/* The value of the header name (given in lower case), or NULL. */
static const char *
find_in(const HttpHeader *list, int n, const char *name)
{
	size_t		len = strlen(name);

	for (int i = 0; i < n; i++)
		if (name_equal(list[i].name, name, len))
			return list[i].value;
	return NULL;
}

static const char *
find_header(const SigV4Request *req, const char *name)
{
	return find_in(req->headers, req->nheaders, name);
}

/* Query arguments are case-sensitive (X-Amz-Date, not x-amz-date). */
static const char *
find_query(const SigV4Request *req, const char *name)
{
	for (int i = 0; i < req->nquery; i++)
		if (strcmp(req->query[i].name, name) == 0)
			return req->query[i].value;
	return NULL;
}

bool
http_sigv4_presigned(const SigV4Request *req)
{
	return find_query(req, "X-Amz-Algorithm") != NULL;
}

/*
 * Split "ALG Credential=..., SignedHeaders=..., Signature=..." into *a: the
 * parts point into one copy of the header, cut at runs of ' ' and ','.
 */
static void
split_authorization(const char *header, SigV4Auth *a)
{
	char	   *p = pstrdup(header);

	a->algorithm = NULL;
	for (;;)
	{
		char	   *tok;
		char	   *eq = NULL;

		while (*p == ' ' || *p == ',')
			p++;
		if (*p == '\0')
			break;
		tok = p;
		for (; *p != '\0' && *p != ' ' && *p != ','; p++)
			if (*p == '=' && eq == NULL)
				eq = p;
		if (*p != '\0')
			*p++ = '\0';
		if (a->algorithm == NULL)
		{
			a->algorithm = tok;
			continue;
		}
		if (eq == NULL)
			continue;
		*eq = '\0';
		if (strcmp(tok, "Credential") == 0)
			a->credential = eq + 1;
		else if (strcmp(tok, "SignedHeaders") == 0)
			a->signed_headers = eq + 1;
		else if (strcmp(tok, "Signature") == 0)
			a->signature = eq + 1;
	}
	if (a->algorithm == NULL)
		a->algorithm = "";
}

/* Two digits at s. */
#define DIGITS2(s) (((s)[0] - '0') * 10 + ((s)[1] - '0'))

/*
 * "20130609T095204Z" -> seconds since the epoch, or -1.  Days past a
 * month's end and a leap second roll over into what follows, as timegm()
 * would have it.
 */
static int64
parse_amz_date(const char *s)
{
	int			year;
	int			mon;
	int			mday;
	int			hour;
	int			min;
	int			sec;

	if (strlen(s) != 16 || s[8] != 'T' || s[15] != 'Z')
		return -1;
	for (int i = 0; i < 15; i++)
		if (i != 8 && (s[i] < '0' || s[i] > '9'))
			return -1;
	year = DIGITS2(s) * 100 + DIGITS2(s + 2);
	mon = DIGITS2(s + 4);
	mday = DIGITS2(s + 6);
	hour = DIGITS2(s + 9);
	min = DIGITS2(s + 11);
	sec = DIGITS2(s + 13);
	if (mon < 1 || mon > 12 || mday < 1 || mday > 31 || hour > 23 || min > 59 || sec > 60)
		return -1;
	return ((int64) (date2j(year, mon, mday) - UNIX_EPOCH_JDATE) * SECS_PER_DAY) +
		hour * SECS_PER_HOUR + min * SECS_PER_MINUTE + sec;
}

static char *
format_amz_date(int64 t)
{
	time_t		tt = (time_t) t;
	struct tm	tm;
	char		buf[32];

	gmtime_r(&tt, &tm);
	strftime(buf, sizeof(buf), "%Y%m%dT%H%M%SZ", &tm);
	return pstrdup(buf);
}

/* A header that must be signed and is not. */
static pg_noinline pg_attribute_cold bool
unsigned_header(const char *name, HttpAuthError *err)
{
	return fail(err, NS_SERVICE "InvalidSignatureException",
				psprintf("'%s' must be a 'SignedHeader' in the AWS Authorization.", name));
}

/* Is name one of the ';'-separated signed headers, both in any case? */
static bool
header_signed(const char *signed_headers, const char *name)
{
	size_t		n = strlen(name);
	const char *p = signed_headers;

	for (;;)
	{
		size_t		len = 0;

		while (p[len] != '\0' && p[len] != ';')
			len++;
		if (len == n)
		{
			size_t		i = 0;

			while (i < n && ascii_lower(p[i]) == ascii_lower(name[i]))
				i++;
			if (i == n)
				return true;
		}
		if (p[len] == '\0')
			return false;
		p += len + 1;
	}
}

/*
 * Is every x-amz-* header of the request among the signed headers?  The
 * operation itself travels in one (X-Amz-Target): a signature that left it
 * out would let anyone who saw a signed GetItem replay its body as a
 * DeleteItem.  AWS requires the same ("Create a signed AWS API request",
 * IAM User Guide: the canonical headers must include host and every x-amz-*
 * header the request carries), and every SDK signs them (botocore and the
 * JavaScript SDKs sign every header but a few such as User-Agent; x-amzn-*
 * is another prefix).  A presigned request is held to the same for its
 * headers (its query arguments are all signed).  The refusal is the one
 * AWS gives for a required header left out of SignedHeaders, naming the
 * header as sent.
 */
static bool
amz_headers_signed(const SigV4Request *req, const char *signed_headers, HttpAuthError *err)
{
	for (int i = 0; i < req->nheaders; i++)
	{
		const char *name = req->headers[i].name;

		if (ascii_lower(name[0]) == 'x' && pg_strncasecmp(name, "x-amz-", 6) == 0 &&
			!header_signed(signed_headers, name))
			return unsigned_header(name, err);
	}
	return true;
}

/* The message of an incomplete Authorization header. */
static pg_noinline pg_attribute_cold bool
incomplete_authorization(SigV4Request *req, SigV4Auth *a, HttpAuthError *err)
{
	StringInfoData msg;

	initStringInfo(&msg);
	if (a->credential == NULL)
		appendStringInfoString(&msg, "Authorization header requires 'Credential' parameter. ");
	if (a->signature == NULL)
		appendStringInfoString(&msg, "Authorization header requires 'Signature' parameter. ");
	if (a->signed_headers == NULL)
		appendStringInfoString(&msg, "Authorization header requires 'SignedHeaders' parameter. ");
	if (req->amz_date == NULL && find_header(req, "date") == NULL)
		appendStringInfoString(&msg, "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. ");
	appendStringInfo(&msg, "Authorization=%s", req->authorization);
	return fail(err, NS_SERVICE "IncompleteSignatureException", msg.data);
}

/* A presigned request's parts, from its query string. */
static pg_noinline bool
gather_presigned(SigV4Request *req, SigV4Auth *a, HttpAuthError *err)
{
	static const char *const params[] = {
		"X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-Signature", "X-Amz-SignedHeaders", "X-Amz-Date"
	};
	StringInfoData msg;

	initStringInfo(&msg);
	for (int i = 0; i < (int) lengthof(params); i++)
	{
		const char *v = find_query(req, params[i]);

		if (v == NULL || v[0] == '\0')
			appendStringInfo(&msg, "AWS query-string parameters must include '%s'. ", params[i]);
	}
	if (msg.len > 0)
		appendStringInfoString(&msg, "Re-examine the query-string parameters.");
	a->algorithm = pstrdup(find_query(req, "X-Amz-Algorithm") ? find_query(req, "X-Amz-Algorithm") : "");
	a->credential = (char *) find_query(req, "X-Amz-Credential");
	a->signature = (char *) find_query(req, "X-Amz-Signature");
	a->signed_headers = (char *) find_query(req, "X-Amz-SignedHeaders");
	req->amz_date = find_query(req, "X-Amz-Date");
	req->security_token = find_query(req, "X-Amz-Security-Token");
	if (msg.len > 0)
		return fail(err, NS_SERVICE "IncompleteSignatureException", msg.data);
	return true;
}

/*
 * The signature's parts from the Authorization header, or from the query
 * string of a presigned request: false with *err set when some are missing.
 */
static bool
gather(SigV4Request *req, SigV4Auth *a, HttpAuthError *err)
{
	if (unlikely(req->presigned))
		return gather_presigned(req, a, err);
	split_authorization(req->authorization, a);
	req->amz_date = find_header(req, "x-amz-date");
	req->security_token = find_header(req, "x-amz-security-token");
	if (likely(a->credential != NULL && a->signature != NULL && a->signed_headers != NULL &&
			   (req->amz_date != NULL || find_header(req, "date") != NULL)))
		return true;
	return incomplete_authorization(req, a, err);
}

/*
 * How long the signature is valid after its date: 15 minutes, or a
 * presigned request's X-Amz-Expires (1 s to 7 days, as AWS allows);
 * -1 with *err set when X-Amz-Expires is not such a number.
 */
static pg_noinline int64
lifetime(const SigV4Request *req, HttpAuthError *err)
{
	const char *e = req->presigned ? find_query(req, "X-Amz-Expires") : NULL;
	int64		v = 0;

	if (e == NULL)
		return SKEW_SECONDS;
	for (const char *p = e; *p; p++)
	{
		if (*p < '0' || *p > '9' || v > 604800)
		{
			v = -1;
			break;
		}
		v = v * 10 + (*p - '0');
	}
	if (e[0] == '\0' || v < 1 || v > 604800)
	{
		fail(err, NS_SERVICE "IncompleteSignatureException",
			 psprintf("X-Amz-Expires must be a whole number of seconds from 1 to 604800, not '%s'. Re-examine the query-string parameters.", e));
		return -1;
	}
	return v;
}

/* The date, within its lifetime: false with *err set otherwise. */
/* Why a date out of its lifetime is refused. */
static pg_noinline pg_attribute_cold bool
date_error(const SigV4Request *req, int64 t, int64 now, int64 life, HttpAuthError *err)
{
	if (t < now - life)
	{
		if (life == SKEW_SECONDS)
			return fail(err, NS_SERVICE "InvalidSignatureException",
						psprintf("Signature expired: %s is now earlier than %s (%s - 15 min.)",
								 req->amz_date, format_amz_date(now - life), format_amz_date(now)));
		return fail(err, NS_SERVICE "InvalidSignatureException",
					psprintf("Signature expired: %s is now earlier than %s (%s - " INT64_FORMAT " sec.)",
							 req->amz_date, format_amz_date(now - life), format_amz_date(now), life));
	}
	return fail(err, NS_SERVICE "InvalidSignatureException",
				psprintf("Signature not yet current: %s is still later than %s (%s + 15 min.)",
						 req->amz_date, format_amz_date(now + SKEW_SECONDS), format_amz_date(now)));
}

static bool
check_date(const SigV4Request *req, HttpAuthError *err)
{
	/* the request's start, already read (the clock is a call away) */
	int64		now = (int64) (GetCurrentStatementStartTimestamp() / USECS_PER_SEC +
							   (POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY);
	int64		t;
	int64		life = SKEW_SECONDS;

	if (unlikely(req->amz_date == NULL || (t = parse_amz_date(req->amz_date)) < 0))
		return fail(err, NS_SERVICE "IncompleteSignatureException",
					psprintf("Date must be in ISO-8601 'basic format'. Got '%s'. See http://en.wikipedia.org/wiki/ISO_8601",
							 req->amz_date ? req->amz_date : find_header(req, "date")));
	if (unlikely(req->presigned) && (life = lifetime(req, err)) < 0)
		return false;
	if (unlikely(t < now - life || t > now + SKEW_SECONDS))
		return date_error(req, t, now, life, err);
	return true;
}

static bool
region_ok(const char *region)
{
	return region[0] != '\0' &&
		(http_region == NULL || http_region[0] == '\0' || strcmp(region, http_region) == 0);
}

/*
 * The scope's service: dynamodb, or streams.dynamodb, which DynamoDB
 * Streams' endpoint (streams.dynamodb.<region>.amazonaws.com) takes too;
 * the SDKs sign its calls with dynamodb (the model's signingName).
 */
static bool
service_ok(const char *service)
{
	return strcmp(service, "dynamodb") == 0 || strcmp(service, "streams.dynamodb") == 0;
}

/* What is wrong with a scope's date, region, service and terminator. */
static pg_noinline pg_attribute_cold bool
scope_error(SigV4Request *req, char **parts, HttpAuthError *err)
{
	StringInfoData msg;

	initStringInfo(&msg);
	if (!region_ok(parts[2]))
		appendStringInfo(&msg, "Credential should be scoped to a valid region, not '%s'. ", parts[2]);
	if (!service_ok(parts[3]))
		appendStringInfoString(&msg, "Credential should be scoped to correct service: 'dynamodb'. ");
	if (strcmp(parts[4], "aws4_request") != 0)
		appendStringInfo(&msg, "Credential should be scoped with a valid terminator: 'aws4_request', not '%s'. ", parts[4]);
	if (strncmp(parts[1], req->amz_date, 8) != 0 || strlen(parts[1]) != 8)
		appendStringInfo(&msg, "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '%s' != '%.8s', from '%s'.",
						 parts[1], req->amz_date, req->amz_date);
	while (msg.len > 0 && msg.data[msg.len - 1] == ' ')
		msg.data[--msg.len] = '\0';
	return fail(err, NS_SERVICE "InvalidSignatureException", msg.data);
}

/*
 * keyid/date/region/service/aws4_request (trailing slashes ignored): fills
 * key_id, date and region; false with *err set when it is not DynamoDB's.
 */
static bool
check_scope(SigV4Request *req, const char *credential, char **key_id, HttpAuthError *err)
{
	size_t		len = strlen(credential);
	char	   *cred;
	char	   *parts[6];
	int			nparts = 0;
	char	   *slash;
	size_t		id_len;
	char	   *scope;

	while (len > 0 && credential[len - 1] == '/')
		len--;
	cred = pnstrdup(credential, len);
	for (char *p = cred; nparts < 6; p = slash + 1)
	{
		parts[nparts++] = p;
		if ((slash = strchr(p, '/')) == NULL)
			break;
		*slash = '\0';
	}
	if (nparts != 5)
		return fail(err, NS_SERVICE "IncompleteSignatureException",
					psprintf("Credential must have exactly 5 slash-delimited elements, e.g. keyid/date/region/service/term, got '%s'",
							 credential));
	/* an endpoint serves one region when stdesign.http_region says which */
	if (unlikely(!region_ok(parts[2]) ||
				 !service_ok(parts[3]) || strcmp(parts[4], "aws4_request") != 0 ||
				 strncmp(parts[1], req->amz_date, 8) != 0 || strlen(parts[1]) != 8))
		return scope_error(req, parts, err);
	*key_id = parts[0];
	req->date = parts[1];
	req->region = parts[2];
	req->streams_service = strcmp(parts[3], "dynamodb") != 0;
	/* the scope, date/region/dynamodb/aws4_request, is what follows the id */
	id_len = strlen(parts[0]);
	scope = palloc(len - id_len);
	memcpy(scope, credential + id_len + 1, len - id_len - 1);
	scope[len - id_len - 1] = '\0';
	req->scope = scope;
	return true;
}

bool
http_sigv4_parse(SigV4Request *req, char **key_id, HttpAuthError *err)
{
	SigV4Auth	a = {0};

	req->presigned = http_sigv4_presigned(req);
	if (req->presigned && req->authorization != NULL)
		return fail(err, NS_SERVICE "InvalidSignatureException",
					"Found both 'X-Amz-Algorithm' as a query-string param and 'Authorization' as HTTP header.");
	if (!gather(req, &a, err) || !check_date(req, err))
		return false;
	if (!header_signed(a.signed_headers, "host"))
		return fail(err, NS_SERVICE "InvalidSignatureException",
					"'Host' must be a 'SignedHeader' in the AWS Authorization.");
	if (!amz_headers_signed(req, a.signed_headers, err))
		return false;
	if (strcmp(a.algorithm, SIGV4_ALGORITHM) != 0)
		return fail(err, NS_SERVICE "IncompleteSignatureException",
					psprintf("Unsupported AWS 'algorithm': '%s' (only AWS4-HMAC-SHA256 for now). ", a.algorithm));
	if (!check_scope(req, a.credential, key_id, err))
		return false;
	req->signed_headers = a.signed_headers;
	req->signature = a.signature;
	return true;
}

/* ---------- the signature ---------- */

static void
hex(const uint8 *bytes, int n, char *out)
{
	static const char digits[] = "0123456789abcdef";

	for (int i = 0; i < n; i++)
	{
		out[2 * i] = digits[bytes[i] >> 4];
		out[2 * i + 1] = digits[bytes[i] & 15];
	}
	out[2 * n] = '\0';
}

/*
 * SHA-256 with OpenSSL's own SHA256_* functions, and HMAC (RFC 2104) built
 * on them.  Postgres's pg_cryptohash and pg_hmac create (and register with
 * the resource owner) an EVP context per call, through which OpenSSL 3
 * looks the algorithm up each time: for requests of a few hundred bytes
 * that cost more than the hashing (measured: 7 us of a request's 12 us of
 * signature work, against 3 us this way).  OpenSSL 3 deprecates these
 * functions in favour of EVP but keeps them.  A context holds nothing of
 * the data once its digest is final.
 */
StaticAssertDecl(sizeof(SHA256_CTX) <= sizeof(((HttpSigningKey *) NULL)->pads[0]),
				 "HttpSigningKey's pads must hold a SHA256_CTX");

static void
sha_begin(SHA256_CTX *c)
{
	if (SHA256_Init(c) != 1)
		st_internal_error("could not start SHA-256");
}

static void
sha_update(SHA256_CTX *c, const void *data, size_t len)
{
	if (SHA256_Update(c, data, len) != 1)
		st_internal_error("could not compute SHA-256");
}

static void
sha_end(SHA256_CTX *c, uint8 *out)
{
	if (SHA256_Final(out, c) != 1)
		st_internal_error("could not compute SHA-256");
}

/* The SHA-256 states after a key's inner and outer pads (RFC 2104). */
static void
hmac_pads(const uint8 *key, size_t keylen, SHA256_CTX *inner, SHA256_CTX *outer)
{
	uint8		block[SHA_BLOCK];

	memset(block, 0, sizeof(block));
	if (keylen > SHA_BLOCK)
	{
		sha_begin(inner);
		sha_update(inner, key, keylen);
		sha_end(inner, block);
	}
	else
		memcpy(block, key, keylen);
	for (int i = 0; i < SHA_BLOCK; i++)
		block[i] ^= 0x36;
	sha_begin(inner);
	sha_update(inner, block, SHA_BLOCK);
	for (int i = 0; i < SHA_BLOCK; i++)
		block[i] ^= 0x36 ^ 0x5c;
	sha_begin(outer);
	sha_update(outer, block, SHA_BLOCK);
	explicit_bzero(block, sizeof(block));
}

/* An HMAC's end: the outer hash of the inner one (inner is final after). */
static void
hmac_end(SHA256_CTX *inner, SHA256_CTX *outer, uint8 *out)
{
	uint8		digest[SHA_LEN];

	sha_end(inner, digest);
	sha_update(outer, digest, SHA_LEN);
	sha_end(outer, out);
	explicit_bzero(digest, sizeof(digest));
}

/* HMAC-SHA256 of data with key; out may be key (written last). */
static void
hmac(const uint8 *key, size_t keylen, const char *data, uint8 *out)
{
	SHA256_CTX	inner;
	SHA256_CTX	outer;

	hmac_pads(key, keylen, &inner, &outer);
	sha_update(&inner, data, strlen(data));
	hmac_end(&inner, &outer, out);
	explicit_bzero(&inner, sizeof(inner));
	explicit_bzero(&outer, sizeof(outer));
}

/*
 * The canonical request, built in one buffer kept by the worker (it holds
 * nothing secret), then hashed.
 */
static StringInfo creq_buf = NULL;

/* Room for n more bytes at the end of s: where to write them. */
static inline char *
reserve(StringInfo s, int n)
{
	enlargeStringInfo(s, n);
	return s->data + s->len;
}

/* RFC 3986 percent-encoding; '/' kept when slash_ok (paths). */
static void
uri_encode(StringInfo s, const char *v, bool slash_ok)
{
	static const char digits[] = "0123456789ABCDEF";
	char	   *out = reserve(s, 3 * strlen(v));

	for (const unsigned char *p = (const unsigned char *) v; *p; p++)
	{
		if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
			*p == '-' || *p == '_' || *p == '.' || *p == '~' || (slash_ok && *p == '/'))
			*out++ = (char) *p;
		else
		{
			*out++ = '%';
			*out++ = digits[*p >> 4];
			*out++ = digits[*p & 15];
		}
	}
	s->len = out - s->data;
	*out = '\0';
}

/* A query argument, encoded, for sorting by name and then value. */
typedef struct EncodedArg
{
	char	   *name;
	char	   *value;
} EncodedArg;

static int
cmp_arg(const void *a, const void *b)
{
	const EncodedArg *x = a;
	const EncodedArg *y = b;
	int			c = strcmp(x->name, y->name);

	return c != 0 ? c : strcmp(x->value, y->value);
}

static char *
encoded(const char *v)
{
	StringInfoData s;

	initStringInfo(&s);
	uri_encode(&s, v, false);
	return s.data;
}

/*
 * The canonical query string: every argument encoded, sorted by name then
 * value; a presigned request's own X-Amz-Signature left out.
 */
static pg_noinline void
canonical_query(StringInfo s, const SigV4Request *req)
{
	EncodedArg *args;
	int			n = 0;

	args = palloc(sizeof(EncodedArg) * req->nquery);
	for (int i = 0; i < req->nquery; i++)
	{
		if (req->presigned && strcmp(req->query[i].name, "X-Amz-Signature") == 0)
			continue;
		args[n].name = encoded(req->query[i].name);
		args[n].value = encoded(req->query[i].value);
		n++;
	}
	qsort(args, n, sizeof(EncodedArg), cmp_arg);
	for (int i = 0; i < n; i++)
		appendStringInfo(s, "%s%s=%s", i ? "&" : "", args[i].name, args[i].value);
}

/*
 * The value(s) of the header name (len bytes, lower case) as canonical:
 * trimmed, runs of spaces and tabs folded into one space, joined by ','.
 */
static void
canonical_header_value(StringInfo s, const SigV4Request *req, const char *name, int len)
{
	bool		first = true;

	for (int i = 0; i < req->nheaders; i++)
	{
		const char *h = req->headers[i].name;
		const char *v = req->headers[i].value;
		char	   *out;
		bool		space = false;

		/* (the first letter and the length first: most names differ there) */
		if (!name_equal(h, name, len))
			continue;
		out = reserve(s, strlen(v) + 1);
		if (!first)
			*out++ = ',';
		first = false;
		while (*v == ' ' || *v == '\t')
			v++;
		for (; *v; v++)
		{
			if (*v == ' ' || *v == '\t')
				space = true;
			else
			{
				if (space)
					*out++ = ' ';
				space = false;
				*out++ = *v;
			}
		}
		s->len = out - s->data;
		*out = '\0';
	}
}

/* The canonical request's SHA-256, in hex, into out. */
static void
canonical_request_hash(const SigV4Request *req, char *out)
{
	StringInfo	s;
	uint8		digest[SHA_LEN];
	SHA256_CTX	c;

	if (creq_buf == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

		creq_buf = makeStringInfo();
		MemoryContextSwitchTo(old);
	}
	s = creq_buf;
	resetStringInfo(s);
	appendStringInfoString(s, req->method);
	appendStringInfoChar(s, '\n');
	uri_encode(s, req->path && req->path[0] ? req->path : "/", true);
	appendStringInfoChar(s, '\n');
	if (req->nquery > 0)
		canonical_query(s, req);
	appendStringInfoChar(s, '\n');
	/* each signed header, lower-cased, in the order given (empty ones skipped) */
	for (const char *h = req->signed_headers; *h;)
	{
		int			len = 0;
		char	   *name;

		while (h[len] != '\0' && h[len] != ';')
			len++;
		if (len == 0)
		{
			h++;
			continue;
		}
		name = reserve(s, len + 1);
		for (int i = 0; i < len; i++)
			name[i] = ascii_lower(h[i]);
		name[len] = ':';
		s->len += len + 1;
		canonical_header_value(s, req, name, len);
		appendStringInfoChar(s, '\n');
		h += len;
		if (*h == ';')
			h++;
	}
	appendStringInfoChar(s, '\n');
	appendStringInfoString(s, req->signed_headers);
	appendStringInfoChar(s, '\n');
	/* the payload's hash, of the body as received */
	sha_begin(&c);
	sha_update(&c, req->body, req->body_len);
	sha_end(&c, digest);
	hex(digest, SHA_LEN, reserve(s, 2 * SHA_LEN));
	s->len += 2 * SHA_LEN;

	sha_begin(&c);
	sha_update(&c, s->data, s->len);
	sha_end(&c, digest);
	hex(digest, SHA_LEN, out);
}

/*
 * The HMAC pads of the key's signing key for date and region: derived once
 * per key, date and region, then kept in the key (cached with it).  A
 * region too long to keep is derived each time.
 */
static pg_noinline void
derive_signing_pads(HttpKey *key, const char *date, const char *region, const char *service,
					SHA256_CTX *inner, SHA256_CTX *outer)
{
	HttpSigningKey *sk = &key->signing;
	char	   *secret;
	uint8		k[SHA_LEN];

	secret = psprintf("AWS4%s", key->secret);
	hmac((const uint8 *) secret, strlen(secret), date, k);
	hmac(k, SHA_LEN, region, k);
	hmac(k, SHA_LEN, service, k);
	hmac(k, SHA_LEN, "aws4_request", k);
	explicit_bzero(secret, strlen(secret));
	hmac_pads(k, SHA_LEN, inner, outer);
	explicit_bzero(k, sizeof(k));
	/* the cache holds dynamodb's key: streams.dynamodb's, rare, is derived each time */
	if (strcmp(service, "dynamodb") != 0)
		return;
	explicit_bzero(sk, sizeof(HttpSigningKey));
	/* (the scope's date was checked: 8 digits) */
	if (strlen(region) < sizeof(sk->region))
	{
		strlcpy(sk->date, date, sizeof(sk->date));
		strlcpy(sk->region, region, sizeof(sk->region));
		memcpy(&sk->pads[0], inner, sizeof(SHA256_CTX));
		memcpy(&sk->pads[1], outer, sizeof(SHA256_CTX));
		sk->valid = true;
	}
}

static void
signing_pads(HttpKey *key, const char *date, const char *region, bool streams_service,
			 SHA256_CTX *inner, SHA256_CTX *outer)
{
	HttpSigningKey *sk = &key->signing;

	if (unlikely(streams_service))
		derive_signing_pads(key, date, region, "streams.dynamodb", inner, outer);
	else if (likely(sk->valid && strcmp(sk->date, date) == 0 && strcmp(sk->region, region) == 0))
	{
		memcpy(inner, &sk->pads[0], sizeof(SHA256_CTX));
		memcpy(outer, &sk->pads[1], sizeof(SHA256_CTX));
	}
	else
		derive_signing_pads(key, date, region, "dynamodb", inner, outer);
}

/* Equal strings, in time that depends on their length only. */
static bool
equal_constant_time(const char *a, const char *b)
{
	size_t		la = strlen(a);
	size_t		lb = strlen(b);
	unsigned char diff = (la != lb);

	for (size_t i = 0; i < la && i < lb; i++)
		diff |= (unsigned char) (a[i] ^ b[i]);
	return diff == 0;
}

bool
http_sigv4_verify(const SigV4Request *req, HttpKey *key, HttpAuthError *err)
{
	char		creq_hash[2 * SHA_LEN + 1];
	SHA256_CTX	inner;
	SHA256_CTX	outer;
	uint8		sig[SHA_LEN];
	char		sig_hex[2 * SHA_LEN + 1];

	/* http_sigv4_parse filled the date, scope, signed headers and signature */
	canonical_request_hash(req, creq_hash);

	/* the string to sign goes straight into the HMAC */
	signing_pads(key, req->date, req->region, req->streams_service, &inner, &outer);
	sha_update(&inner, SIGV4_ALGORITHM "\n", sizeof(SIGV4_ALGORITHM "\n") - 1);
	sha_update(&inner, req->amz_date, strlen(req->amz_date));
	sha_update(&inner, "\n", 1);
	sha_update(&inner, req->scope, strlen(req->scope));
	sha_update(&inner, "\n", 1);
	sha_update(&inner, creq_hash, 2 * SHA_LEN);
	hmac_end(&inner, &outer, sig);
	explicit_bzero(&inner, sizeof(inner));
	explicit_bzero(&outer, sizeof(outer));
	hex(sig, sizeof(sig), sig_hex);
	if (!equal_constant_time(sig_hex, req->signature))
		return fail(err, NS_SERVICE "InvalidSignatureException",
					"The request signature we calculated does not match the signature you provided. "
					"Check your AWS Secret Access Key and signing method. Consult the service documentation for details.");

	/*
	 * A session token names temporary credentials from AWS STS; stdesign has
	 * no STS, and its keys are long-term ones, which DynamoDB refuses when a
	 * token comes with them (checked after the signature, as DynamoDB does).
	 */
	if (req->security_token != NULL)
		return fail(err, NS_SERVICE "UnrecognizedClientException",
					"The security token included in the request is invalid");
	return true;
}
