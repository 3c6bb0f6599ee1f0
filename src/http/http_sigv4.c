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
 * way), Host signed, algorithm, credential scope, key, signature, session
 * token.
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

#include "lib/stringinfo.h"
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

static bool
fail(HttpAuthError *err, const char *type, char *message)
{
	err->type = type;
	err->message = message;
	return false;
}

static const char *
find_in(const HttpHeader *list, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (pg_strcasecmp(list[i].name, name) == 0)
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

/* Split "ALG Credential=..., SignedHeaders=..., Signature=..." into *a. */
static void
split_authorization(const char *header, SigV4Auth *a)
{
	char	   *copy = pstrdup(header);
	char	   *save = NULL;
	char	   *tok;

	/* the parts point into one copy of the header */
	copy += strspn(copy, " ");
	tok = strtok_r(copy, " ,", &save);
	a->algorithm = tok ? tok : "";
	while ((tok = strtok_r(NULL, " ,", &save)) != NULL)
	{
		char	   *eq = strchr(tok, '=');

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
}

/* "20130609T095204Z" -> seconds since the epoch, or -1. */
static int64
parse_amz_date(const char *s)
{
	struct tm	tm = {0};

	if (strlen(s) != 16 || s[8] != 'T' || s[15] != 'Z')
		return -1;
	for (int i = 0; i < 15; i++)
		if (i != 8 && (s[i] < '0' || s[i] > '9'))
			return -1;
	tm.tm_year = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0') - 1900;
	tm.tm_mon = (s[4] - '0') * 10 + (s[5] - '0') - 1;
	tm.tm_mday = (s[6] - '0') * 10 + (s[7] - '0');
	tm.tm_hour = (s[9] - '0') * 10 + (s[10] - '0');
	tm.tm_min = (s[11] - '0') * 10 + (s[12] - '0');
	tm.tm_sec = (s[13] - '0') * 10 + (s[14] - '0');
	if (tm.tm_mon < 0 || tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31 ||
		tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 60)
		return -1;
	return (int64) timegm(&tm);
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

/* Is name one of the ';'-separated signed headers (case-insensitively)? */
static bool
header_signed(const char *signed_headers, const char *name)
{
	size_t		n = strlen(name);
	const char *p = signed_headers;

	while (*p)
	{
		const char *end = strchr(p, ';');
		size_t		len = end ? (size_t) (end - p) : strlen(p);

		if (len == n && pg_strncasecmp(p, name, n) == 0)
			return true;
		if (end == NULL)
			break;
		p = end + 1;
	}
	return false;
}

/*
 * The signature's parts from the Authorization header, or from the query
 * string of a presigned request: false with *err set when some are missing.
 */
static bool
gather(SigV4Request *req, SigV4Auth *a, HttpAuthError *err)
{
	StringInfoData msg;

	initStringInfo(&msg);
	if (!req->presigned)
	{
		split_authorization(req->authorization, a);
		req->amz_date = find_header(req, "X-Amz-Date");
		if (a->credential == NULL)
			appendStringInfoString(&msg, "Authorization header requires 'Credential' parameter. ");
		if (a->signature == NULL)
			appendStringInfoString(&msg, "Authorization header requires 'Signature' parameter. ");
		if (a->signed_headers == NULL)
			appendStringInfoString(&msg, "Authorization header requires 'SignedHeaders' parameter. ");
		if (req->amz_date == NULL && find_header(req, "Date") == NULL)
			appendStringInfoString(&msg, "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. ");
		if (msg.len > 0)
			appendStringInfo(&msg, "Authorization=%s", req->authorization);
		req->security_token = find_header(req, "X-Amz-Security-Token");
	}
	else
	{
		static const char *const params[] = {
			"X-Amz-Algorithm", "X-Amz-Credential", "X-Amz-Signature", "X-Amz-SignedHeaders", "X-Amz-Date"
		};

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
	}
	if (msg.len > 0)
		return fail(err, NS_SERVICE "IncompleteSignatureException", msg.data);
	return true;
}

/*
 * How long the signature is valid after its date: 15 minutes, or a
 * presigned request's X-Amz-Expires (1 s to 7 days, as AWS allows);
 * -1 with *err set when X-Amz-Expires is not such a number.
 */
static int64
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
static bool
check_date(const SigV4Request *req, HttpAuthError *err)
{
	int64		now = (int64) time(NULL);
	int64		t;
	int64		life;

	if (req->amz_date == NULL || (t = parse_amz_date(req->amz_date)) < 0)
		return fail(err, NS_SERVICE "IncompleteSignatureException",
					psprintf("Date must be in ISO-8601 'basic format'. Got '%s'. See http://en.wikipedia.org/wiki/ISO_8601",
							 req->amz_date ? req->amz_date : find_header(req, "Date")));
	if ((life = lifetime(req, err)) < 0)
		return false;
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
	if (t > now + SKEW_SECONDS)
		return fail(err, NS_SERVICE "InvalidSignatureException",
					psprintf("Signature not yet current: %s is still later than %s (%s + 15 min.)",
							 req->amz_date, format_amz_date(now + SKEW_SECONDS), format_amz_date(now)));
	return true;
}

/*
 * keyid/date/region/service/aws4_request (trailing slashes ignored): fills
 * key_id, date and region; false with *err set when it is not DynamoDB's.
 */
static bool
check_scope(SigV4Request *req, const char *credential, char **key_id, HttpAuthError *err)
{
	char	   *cred = pstrdup(credential);
	char	   *parts[6];
	int			nparts = 0;
	char	   *slash;
	StringInfoData msg;

	while (strlen(cred) > 0 && cred[strlen(cred) - 1] == '/')
		cred[strlen(cred) - 1] = '\0';
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
	initStringInfo(&msg);
	/* an endpoint serves one region when stdesign.http_region says which */
	if (parts[2][0] == '\0' ||
		(http_region != NULL && http_region[0] != '\0' && strcmp(parts[2], http_region) != 0))
		appendStringInfo(&msg, "Credential should be scoped to a valid region, not '%s'. ", parts[2]);
	if (strcmp(parts[3], "dynamodb") != 0)
		appendStringInfoString(&msg, "Credential should be scoped to correct service: 'dynamodb'. ");
	if (strcmp(parts[4], "aws4_request") != 0)
		appendStringInfo(&msg, "Credential should be scoped with a valid terminator: 'aws4_request', not '%s'. ", parts[4]);
	if (strncmp(parts[1], req->amz_date, 8) != 0 || strlen(parts[1]) != 8)
		appendStringInfo(&msg, "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '%s' != '%.8s', from '%s'.",
						 parts[1], req->amz_date, req->amz_date);
	if (msg.len > 0)
	{
		while (msg.len > 0 && msg.data[msg.len - 1] == ' ')
			msg.data[--msg.len] = '\0';
		return fail(err, NS_SERVICE "InvalidSignatureException", msg.data);
	}
	*key_id = parts[0];
	req->date = parts[1];
	req->region = parts[2];
	initStringInfo(&msg);
	appendStringInfoString(&msg, parts[1]);
	appendStringInfoChar(&msg, '/');
	appendStringInfoString(&msg, parts[2]);
	appendStringInfoString(&msg, "/dynamodb/aws4_request");
	req->scope = msg.data;
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
 * functions in favour of EVP but keeps them.  The context holds nothing of
 * the data once a digest is final.
 */
static SHA256_CTX sha_ctx;

static void
sha_begin(void)
{
	if (SHA256_Init(&sha_ctx) != 1)
		st_internal_error("could not start SHA-256");
}

static void
sha_update(const void *data, size_t len)
{
	if (SHA256_Update(&sha_ctx, data, len) != 1)
		st_internal_error("could not compute SHA-256");
}

static void
sha_end(uint8 *out)
{
	if (SHA256_Final(out, &sha_ctx) != 1)
		st_internal_error("could not compute SHA-256");
}

static void
sha256_hex(const char *data, size_t len, char *out)
{
	uint8		digest[SHA_LEN];

	sha_begin();
	sha_update(data, len);
	sha_end(digest);
	hex(digest, sizeof(digest), out);
}

/* HMAC-SHA256 of data with key; out may be key (written last). */
static void
hmac(const uint8 *key, size_t keylen, const char *data, uint8 *out)
{
	uint8		block[SHA_BLOCK];
	uint8		inner[SHA_LEN];

	memset(block, 0, sizeof(block));
	if (keylen > SHA_BLOCK)
	{
		sha_begin();
		sha_update(key, keylen);
		sha_end(block);
	}
	else
		memcpy(block, key, keylen);
	for (int i = 0; i < SHA_BLOCK; i++)
		block[i] ^= 0x36;
	sha_begin();
	sha_update(block, SHA_BLOCK);
	sha_update(data, strlen(data));
	sha_end(inner);
	for (int i = 0; i < SHA_BLOCK; i++)
		block[i] ^= 0x36 ^ 0x5c;
	sha_begin();
	sha_update(block, SHA_BLOCK);
	sha_update(inner, SHA_LEN);
	sha_end(out);
	explicit_bzero(block, sizeof(block));
	explicit_bzero(inner, sizeof(inner));
}

/* RFC 3986 percent-encoding; '/' kept when slash_ok (paths). */
static void
uri_encode(StringInfo s, const char *v, bool slash_ok)
{
	for (const unsigned char *p = (const unsigned char *) v; *p; p++)
	{
		if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
			*p == '-' || *p == '_' || *p == '.' || *p == '~' || (slash_ok && *p == '/'))
			appendStringInfoChar(s, (char) *p);
		else
			appendStringInfo(s, "%%%02X", *p);
	}
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
static void
canonical_query(StringInfo s, const SigV4Request *req)
{
	EncodedArg *args = palloc(sizeof(EncodedArg) * (req->nquery + 1));
	int			n = 0;

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

/* The header's value(s) as canonical: trimmed, spaces folded, joined by ','. */
static void
canonical_header_value(StringInfo s, const SigV4Request *req, const char *name)
{
	bool		first = true;

	for (int i = 0; i < req->nheaders; i++)
	{
		const char *v = req->headers[i].value;
		bool		space = false;

		if (pg_strcasecmp(req->headers[i].name, name) != 0)
			continue;
		if (!first)
			appendStringInfoChar(s, ',');
		first = false;
		while (*v == ' ' || *v == '\t')
			v++;
		while (*v)
		{
			size_t		run = strcspn(v, " \t");

			if (space && run > 0)
				appendStringInfoChar(s, ' ');
			appendBinaryStringInfo(s, v, (int) run);
			v += run;
			space = false;
			while (*v == ' ' || *v == '\t')
			{
				space = true;
				v++;
			}
		}
	}
}

static char *
canonical_request(const SigV4Request *req)
{
	StringInfoData s;
	char		payload[2 * SHA_LEN + 1];
	char	   *names = pstrdup(req->signed_headers);
	char	   *save = NULL;

	initStringInfo(&s);
	appendStringInfoString(&s, req->method);
	appendStringInfoChar(&s, '\n');
	uri_encode(&s, req->path && req->path[0] ? req->path : "/", true);
	appendStringInfoChar(&s, '\n');
	canonical_query(&s, req);
	appendStringInfoChar(&s, '\n');
	for (char *h = strtok_r(names, ";", &save); h; h = strtok_r(NULL, ";", &save))
	{
		for (char *c = h; *c; c++)
			*c = pg_tolower((unsigned char) *c);
		appendStringInfoString(&s, h);
		appendStringInfoChar(&s, ':');
		canonical_header_value(&s, req, h);
		appendStringInfoChar(&s, '\n');
	}
	appendStringInfoChar(&s, '\n');
	appendStringInfoString(&s, req->signed_headers);
	appendStringInfoChar(&s, '\n');
	sha256_hex(req->body, req->body_len, payload);
	appendStringInfoString(&s, payload);
	return s.data;
}

/*
 * The signing key of a secret, date and region: four HMACs, which clients
 * repeat on every request of a day; the last one derived is kept (in this
 * worker's memory only, like the secret it comes from).
 */
static void
signing_key(const char *secret, const char *date, const char *region, uint8 *k)
{
	static char last_date[16];
	static char *last_region = NULL;
	static char *last_secret = NULL;
	static uint8 last_key[SHA_LEN];
	char	   *key;

	if (last_secret != NULL && strcmp(last_date, date) == 0 &&
		strcmp(last_region, region) == 0 && strcmp(last_secret, secret) == 0)
	{
		memcpy(k, last_key, SHA_LEN);
		return;
	}
	key = psprintf("AWS4%s", secret);
	hmac((const uint8 *) key, strlen(key), date, k);
	hmac(k, SHA_LEN, region, k);
	hmac(k, SHA_LEN, "dynamodb", k);
	hmac(k, SHA_LEN, "aws4_request", k);
	explicit_bzero(key, strlen(key));
	if (last_secret != NULL)
	{
		explicit_bzero(last_secret, strlen(last_secret));
		pfree(last_secret);
		pfree(last_region);
		last_secret = NULL;
	}
	/* (the scope's date was checked: 8 digits) */
	strlcpy(last_date, date, sizeof(last_date));
	last_region = MemoryContextStrdup(TopMemoryContext, region);
	last_secret = MemoryContextStrdup(TopMemoryContext, secret);
	memcpy(last_key, k, SHA_LEN);
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
http_sigv4_verify(const SigV4Request *req, const char *secret, HttpAuthError *err)
{
	char		creq_hash[2 * SHA_LEN + 1];
	char	   *creq;
	StringInfoData to_sign;
	uint8		k[SHA_LEN];
	uint8		sig[SHA_LEN];
	char		sig_hex[2 * SHA_LEN + 1];

	/* http_sigv4_parse filled the date, scope, signed headers and signature */
	creq = canonical_request(req);
	sha256_hex(creq, strlen(creq), creq_hash);
	initStringInfo(&to_sign);
	appendStringInfoString(&to_sign, SIGV4_ALGORITHM "\n");
	appendStringInfoString(&to_sign, req->amz_date);
	appendStringInfoChar(&to_sign, '\n');
	appendStringInfoString(&to_sign, req->scope);
	appendStringInfoChar(&to_sign, '\n');
	appendStringInfoString(&to_sign, creq_hash);

	signing_key(secret, req->date, req->region, k);
	hmac(k, sizeof(k), to_sign.data, sig);
	hex(sig, sizeof(sig), sig_hex);
	explicit_bzero(k, sizeof(k));
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
