/*-------------------------------------------------------------------------
 *
 * http_protocol.c
 *		DynamoDB's JSON 1.0 protocol over HTTP: one request in, one
 *		transaction, one response out.
 *
 * A worker's main thread runs here a request that some worker's I/O thread
 * received (http_dispatch.c), and hands the response back to it.  What
 * DynamoDB checks, in its order (as DynamoDB answers; dynalite documents the
 * same order): body size (413), CORS preflight, GET (health), method and
 * content type (404), all answered by the I/O thread; then here the JSON
 * (SerializationException), the target (UnknownOperationException), the
 * credentials, then the operation.
 *
 * Each request runs in its own transaction as the role its credentials map
 * to, with SECURITY_LOCAL_USERID_CHANGE | SECURITY_RESTRICTED_OPERATION so
 * that nothing it runs can SET ROLE its way out, through its commit, and
 * with a GUC nest level undone at its end so that nothing it sets reaches
 * the next request (st_work.c); the transaction commits before the response
 * is handed back.  Errors are caught here and turned into DynamoDB's error
 * bodies; none escapes the request.  Its lock waits are bounded by
 * stdesign.http_lock_timeout (a lock timeout is answered as a transaction
 * conflict), and once its role is known, the role's bound on workers may
 * put it back into the queue (http_dispatch_role).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <zlib.h>

#include "access/xact.h"
#include "catalog/namespace.h"
#include "catalog/pg_authid.h"
#include "commands/extension.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "storage/proc.h"
#include "tcop/tcopprot.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/json.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/timeout.h"

#include "common/st_common.h"
#include "common/st_work.h"
#include "http_server.h"

#define NS_DYNAMODB "com.amazonaws.dynamodb.v20120810#"
#define NS_SERVICE	"com.amazon.coral.service#"
#define NS_VALIDATE "com.amazon.coral.validate#"
#define JSON_CT		"application/x-amz-json-1.0"

/* The design studio's operations (api_studio.c), and its page's token. */
#define STUDIO_PREFIX "StDesign_Studio."
#define STUDIO_TOKEN_HEADER "X-StDesign-Studio-Token"

/* Serialization failures and deadlocks are retried this many times. */
#define HTTP_RETRIES 5

const char *http_request_host = NULL;

/* A response being built. */
typedef struct HttpResult
{
	int			status;
	const char *type;			/* error: the full __type; NULL on success */
	char	   *message;		/* error message (NULL: none) */
	const char *message_key;	/* "message" or "Message" */
	char	   *detail;			/* error: a JSON object whose members are added */
	char	   *body;			/* success: the JSON body */
} HttpResult;

/* What one request carries, gathered once. */
typedef struct HttpCall
{
	HttpRequest *req;
	bool		loopback;
	const char *request_id;
	const char *method;
	const char *url;
	HttpHeader *headers;
	int			nheaders;
	HttpHeader *query;
	int			nquery;
	const char *raw;			/* body as received */
	size_t		raw_len;
	char	   *json;			/* body as text (gzip undone), NUL-terminated */
	const char *op;				/* operation name, once known */
	const char *conflict;		/* why the last attempt is retried */
	bool		deferred;		/* put back: its role has all its workers */
} HttpCall;

/* ---------- small helpers ---------- */

static const char *
header(HttpCall *call, const char *name)
{
	for (int i = 0; i < call->nheaders; i++)
		if (pg_strcasecmp(call->headers[i].name, name) == 0)
			return call->headers[i].value;
	return NULL;
}

static HttpResult
error_result(int status, const char *type, const char *message)
{
	HttpResult	r = {0};

	r.status = status;
	r.type = type;
	r.message = message ? pstrdup(message) : NULL;
	r.message_key = "message";
	return r;
}

static char *
error_body(const HttpResult *r)
{
	StringInfoData s;

	initStringInfo(&s);
	appendStringInfoString(&s, "{\"__type\": ");
	escape_json(&s, r->type);
	if (r->message)
	{
		appendStringInfo(&s, ", \"%s\": ", r->message_key ? r->message_key : "message");
		escape_json(&s, r->message);
	}
	if (r->detail)
	{
		/* our own JSON object: its members join the error object */
		const char *d = r->detail;
		size_t		len = strlen(d);

		while (len > 0 && (d[len - 1] == ' ' || d[len - 1] == '\n'))
			len--;
		if (len > 2 && d[0] == '{' && d[len - 1] == '}')
			appendStringInfo(&s, ", %.*s", (int) (len - 2), d + 1);
	}
	appendStringInfoChar(&s, '}');
	return s.data;
}

/* ---------- sending ---------- */

static void
send_result(HttpCall *call, const HttpResult *r)
{
	char	   *body = r->type ? error_body(r) : r->body;

	http_stats_request(call->op, r->status == 200);
	http_dispatch_reply(call->req, r->status, body, strlen(body));
}

/* ---------- the answer's buffer ---------- */

/* An answer buffer kept larger than this is let go before the next answer. */
#define ANSWER_KEEP (4 * 1024 * 1024)

/*
 * The buffer an operation with a text handler writes its answer into,
 * emptied: one per worker, kept from one answer to the next (up to
 * ANSWER_KEEP), so that a large answer (GetRecords: up to 1 MB of records)
 * is not written into fresh memory each time, whose page faults were a
 * quarter of such a call (bench/streams_getrecords.sh).  The answer is
 * copied out when it is sent (http_dispatch_reply), before the next one.
 */
static StringInfo
answer_buffer(void)
{
	static StringInfoData answer = {0};

	if (answer.data != NULL && answer.maxlen > ANSWER_KEEP)
	{
		pfree(answer.data);
		answer.data = NULL;
	}
	if (answer.data == NULL)
	{
		MemoryContext old = MemoryContextSwitchTo(TopMemoryContext);

		initStringInfo(&answer);
		MemoryContextSwitchTo(old);
	}
	else
		resetStringInfo(&answer);
	return &answer;
}

/* ---------- the request body ---------- */

/*
 * DynamoDB's JSON protocol is UTF-8: a body that is not (a byte no UTF-8
 * sequence allows) is refused as the NUL byte is, whatever the database's
 * encoding (a SQL_ASCII database would otherwise store and echo the bytes).
 */
static bool
body_is_utf8(const char *body, int len)
{
	return pg_verify_mbstr(PG_UTF8, body, len, true);
}

/* Undo Content-Encoding: gzip; false with *r set when it cannot be. */
static bool
decode_body(HttpCall *call, HttpResult *r)
{
	const char *enc = header(call, "Content-Encoding");
	z_stream	zs = {0};
	StringInfoData out;
	int			rc;

	if (enc == NULL || pg_strcasecmp(enc, "identity") == 0 || enc[0] == '\0')
	{
		call->json = palloc(call->raw_len + 1);
		memcpy(call->json, call->raw, call->raw_len);
		call->json[call->raw_len] = '\0';
		if (memchr(call->raw, '\0', call->raw_len) != NULL || !body_is_utf8(call->json, call->raw_len))
		{
			*r = error_result(400, NS_SERVICE "SerializationException", NULL);
			return false;
		}
		return true;
	}
	if (pg_strcasecmp(enc, "gzip") != 0)
	{
		*r = error_result(400, NS_SERVICE "SerializationException",
						  psprintf("Unsupported Content-Encoding: %s", enc));
		return false;
	}
	if (inflateInit2(&zs, 16 + MAX_WBITS) != Z_OK)
	{
		*r = error_result(500, NS_DYNAMODB "InternalServerError", "Internal server error");
		return false;
	}
	initStringInfo(&out);
	zs.next_in = (Bytef *) call->raw;
	zs.avail_in = call->raw_len;
	for (;;)
	{
		enlargeStringInfo(&out, 65536);
		zs.next_out = (Bytef *) out.data + out.len;
		zs.avail_out = out.maxlen - out.len - 1;
		rc = inflate(&zs, Z_NO_FLUSH);
		out.len = out.maxlen - 1 - zs.avail_out;
		if (out.len > HTTP_MAX_BODY)
		{
			inflateEnd(&zs);
			*r = error_result(413, NS_DYNAMODB "RequestEntityTooLarge",
							  "Request must be smaller than 16777216 bytes once decompressed");
			return false;
		}
		if (rc != Z_OK)
			break;
	}
	inflateEnd(&zs);
	/* Z_BUF_ERROR: no progress possible, the stream ended early */
	if (rc != Z_STREAM_END)
	{
		*r = error_result(400, NS_SERVICE "SerializationException",
						  rc == Z_BUF_ERROR ? "The gzip request body is truncated" : "The gzip request body is invalid");
		return false;
	}
	out.data[out.len] = '\0';
	if (memchr(out.data, '\0', out.len) != NULL || !body_is_utf8(out.data, out.len))
	{
		*r = error_result(400, NS_SERVICE "SerializationException", NULL);
		return false;
	}
	call->json = out.data;
	return true;
}

/* ---------- credentials ---------- */

/*
 * The role of every request under trust: stdesign.http_trust_role, which
 * must exist and must not be a superuser unless
 * stdesign.http_trust_allow_superuser says so (anyone who can open a
 * loopback connection is trusted, and they get no more than that role's
 * privileges).  InvalidOid with *r set (503, the endpoint is not usable as
 * configured) otherwise; the reason goes to the server log too, once per
 * worker until it changes.  Checked on every request: roles and settings
 * change while the workers run.
 */
static Oid
trust_role(HttpResult *r)
{
	static char *logged = NULL;
	const char *name = http_trust_role ? http_trust_role : "";
	Oid			roleid = name[0] ? get_role_oid(name, true) : InvalidOid;
	char	   *why;

	if (OidIsValid(roleid) && (http_trust_allow_superuser || !superuser_arg(roleid)))
		return roleid;
	if (name[0] == '\0')
		why = pstrdup("stdesign.http_auth = trust needs stdesign.http_trust_role to name the role requests run as");
	else if (!OidIsValid(roleid))
		why = psprintf("stdesign.http_auth = trust runs requests as role \"%s\" (stdesign.http_trust_role), which does not exist: "
					   "CREATE ROLE %s and grant it what requests may use, or name another role",
					   name, quote_identifier(name));
	else
		why = psprintf("stdesign.http_trust_role \"%s\" is a superuser: under stdesign.http_auth = trust, requests run as a superuser "
					   "only with stdesign.http_trust_allow_superuser = on; name a role without superuser",
					   name);
	if (logged == NULL || strcmp(logged, why) != 0)
	{
		ereport(LOG, (errmsg("stdesign http: %s", why)));
		if (logged)
			pfree(logged);
		logged = MemoryContextStrdup(TopMemoryContext, why);
	}
	*r = error_result(503, NS_DYNAMODB "ServiceUnavailableException", why);
	return InvalidOid;
}

/*
 * The steps of authentication that need no body: a signature is there;
 * under trust, on a loopback address; under sigv4, it parses, its date is
 * in range, and its access key exists, is enabled and has a live role.
 * Both authenticate() and precheck_credentials() start here, so that the
 * check made before a large body is read gives the same answers.
 */
typedef enum HttpCaller
{
	CALLER_REFUSED,				/* *r set */
	CALLER_TRUSTED,				/* trust, from a loopback address */
	CALLER_KEY					/* sigv4, *key found; the signature unverified */
} HttpCaller;

/*
 * A call of the studio's (its operations, or one carrying the page's token)
 * from a browser comes with an Origin: the endpoint's own (the page's), or
 * one stdesign.http_cors_origin allows.  Another site's is refused before
 * anything runs, whatever the browser does with the answer.
 */
static bool
studio_origin_ok(HttpCall *call, HttpResult *r)
{
	const char *origin = header(call, "Origin");
	const char *host = header(call, "Host");
	const char *rest;

	if (origin == NULL ||
		!((call->op && strncmp(call->op, STUDIO_PREFIX, strlen(STUDIO_PREFIX)) == 0) ||
		  header(call, STUDIO_TOKEN_HEADER) != NULL))
		return true;
	if (http_cors_origin && (strcmp(http_cors_origin, "*") == 0 || strcmp(http_cors_origin, origin) == 0))
		return true;
	rest = strncmp(origin, "http://", 7) == 0 ? origin + 7 :
		strncmp(origin, "https://", 8) == 0 ? origin + 8 : NULL;
	if (rest && host && pg_strcasecmp(rest, host) == 0)
		return true;
	*r = error_result(403, NS_SERVICE "AccessDeniedException",
					  "The design studio's calls are accepted from the endpoint's own page, or an origin stdesign.http_cors_origin allows");
	return false;
}

static HttpCaller
identify(HttpCall *call, SigV4Request *sv, HttpKey **key, HttpResult *r)
{
	const char *auth = header(call, "Authorization");
	HttpAuthError err = {0};
	char	   *key_id = NULL;

	sv->method = call->method;
	sv->path = call->url;
	sv->query = call->query;
	sv->nquery = call->nquery;
	sv->headers = call->headers;
	sv->nheaders = call->nheaders;
	sv->authorization = auth;
	/* a signature in the Authorization header or in the query string */
	if (!http_sigv4_presigned(sv) &&
		(auth == NULL || strncmp(auth + strspn(auth, " "), "AWS4-", 5) != 0))
	{
		*r = error_result(400, NS_SERVICE "MissingAuthenticationTokenException",
						  "Request is missing Authentication Token");
		return CALLER_REFUSED;
	}
	if (!studio_origin_ok(call, r))
		return CALLER_REFUSED;
	if (http_auth == HTTP_AUTH_TRUST)
	{
		/*
		 * The studio's operations, and any call that says it comes from the
		 * page, need the page's token (http_studio.c): a request that
		 * another site makes a browser send cannot have it.
		 */
		if (call->loopback &&
			((call->op && strncmp(call->op, STUDIO_PREFIX, strlen(STUDIO_PREFIX)) == 0) ||
			 header(call, STUDIO_TOKEN_HEADER) != NULL) &&
			!http_studio_token_ok(header(call, STUDIO_TOKEN_HEADER)))
		{
			*r = error_result(403, NS_SERVICE "AccessDeniedException",
							  "The design studio's calls need the token of a page served by this endpoint (" STUDIO_TOKEN_HEADER ")");
			return CALLER_REFUSED;
		}
		if (call->loopback)
			return CALLER_TRUSTED;
		*r = error_result(403, NS_SERVICE "AccessDeniedException",
						  "stdesign.http_auth = trust serves loopback addresses only");
		return CALLER_REFUSED;
	}
	if (!http_sigv4_parse(sv, &key_id, &err))
	{
		*r = error_result(400, err.type, err.message);
		return CALLER_REFUSED;
	}
	if ((*key = http_key_lookup(key_id)) == NULL || !OidIsValid((*key)->roleid))
	{
		*r = error_result(400, NS_SERVICE "UnrecognizedClientException",
						  "The security token included in the request is invalid.");
		return CALLER_REFUSED;
	}
	return CALLER_KEY;
}

/*
 * Check the credentials and find the role the request runs as: InvalidOid
 * with *r set when they do not pass.  Runs in the request's transaction,
 * as the worker's own role.
 */
static Oid
authenticate(HttpCall *call, HttpResult *r)
{
	SigV4Request sv = {0};
	HttpAuthError err = {0};
	HttpKey    *key = NULL;

	switch (identify(call, &sv, &key, r))
	{
		case CALLER_REFUSED:
			return InvalidOid;
		case CALLER_TRUSTED:
			return trust_role(r);
		case CALLER_KEY:
			break;
	}
	/* the signature covers the body: verified with the whole request */
	sv.body = call->raw;
	sv.body_len = call->raw_len;
	if (!http_sigv4_verify(&sv, key, &err))
	{
		*r = error_result(400, err.type, err.message);
		return InvalidOid;
	}
	return key->roleid;
}

/* ---------- errors ---------- */

/* The exception of an stdesign SQLSTATE (class SD), or ST_OK. */
static StErrCode
exception_of(int sqlerrcode)
{
	const char *state = unpack_sql_state(sqlerrcode);

	for (int c = ST_OK + 1; c < ST_ERR__COUNT; c++)
		if (strcmp(st_exception_sqlstate((StErrCode) c), state) == 0)
			return (StErrCode) c;
	return ST_OK;
}

/* DynamoDB's namespace of an exception's __type. */
static const char *
namespaced(const char *name)
{
	if (strcmp(name, "ValidationException") == 0)
		return psprintf(NS_VALIDATE "%s", name);
	if (strcmp(name, "SerializationException") == 0 ||
		strcmp(name, "UnknownOperationException") == 0)
		return psprintf(NS_SERVICE "%s", name);
	return psprintf(NS_DYNAMODB "%s", name);
}

/* A generic 500; the cause goes to the server log under the request id. */
static HttpResult
internal_error(HttpCall *call, ErrorData *edata)
{
	ereport(LOG,
			(errmsg("stdesign http: request %s (%s) failed: %s (SQLSTATE %s)",
					call->request_id, call->op ? call->op : "?",
					edata->message ? edata->message : "?",
					unpack_sql_state(edata->sqlerrcode))));
	return error_result(500, NS_DYNAMODB "InternalServerError", "Internal server error");
}

/* DynamoDB's answer to an error the operation raised. */
static HttpResult
map_error(HttpCall *call, ErrorData *edata, bool parsing, const char *role)
{
	StErrCode	code = exception_of(edata->sqlerrcode);
	HttpResult	r;

	if (code != ST_OK && code != ST_ERR_INTERNAL)
	{
		const char *name = st_exception_name(code);
		const char *msg = edata->message ? edata->message : "";
		size_t		nlen = strlen(name);

		if (strncmp(msg, name, nlen) == 0 && msg[nlen] == ':')
			msg += nlen + 1 + (msg[nlen + 1] == ' ');
		r = error_result(400, namespaced(name), msg);
		if (code == ST_ERR_TRANSACTION_CANCELED)
			r.message_key = "Message";
		if (edata->detail)
			r.detail = pstrdup(edata->detail);
		return r;
	}
	switch (edata->sqlerrcode)
	{
		case ERRCODE_INSUFFICIENT_PRIVILEGE:
			return error_result(400, NS_SERVICE "AccessDeniedException",
								psprintf("User: %s is not authorized to perform: dynamodb:%s (%s)",
										 role ? role : "?", call->op ? call->op : "?",
										 edata->message ? edata->message : ""));
		case ERRCODE_UNTRANSLATABLE_CHARACTER:
		case ERRCODE_CHARACTER_NOT_IN_REPERTOIRE:
		case ERRCODE_PROGRAM_LIMIT_EXCEEDED:
			return error_result(400, NS_VALIDATE "ValidationException", edata->message);
		case ERRCODE_READ_ONLY_SQL_TRANSACTION:

			/*
			 * A write on a standby, or under default_transaction_read_only:
			 * the request is valid and nothing is broken, the server cannot
			 * write now.  DynamoDB's answer to a server that cannot serve a
			 * request for the moment is ServiceUnavailable, 503 (API
			 * reference, Common Errors), which the SDKs retry with backoff
			 * (a standby may be promoted meanwhile): not a 500, which says
			 * something failed (docs/errors.md).
			 */
			return error_result(503, NS_DYNAMODB "ServiceUnavailableException",
								psprintf("The server accepts no writes now (a standby, or default_transaction_read_only): %s",
										 edata->message ? edata->message : "read-only transaction"));
		default:
			break;
	}
	if (parsing)
		return error_result(400, NS_SERVICE "SerializationException", NULL);
	return internal_error(call, edata);
}

/* After too many serialization failures: what DynamoDB says to a conflict. */
static HttpResult
conflict_result(HttpCall *call, Jsonb *request)
{
	HttpResult	r;

	if (call->op && strcmp(call->op, "TransactWriteItems") == 0)
	{
		StringInfoData d;
		int			n = 1;
		JsonbValue *items = NULL;

		if (request && JB_ROOT_IS_OBJECT(request))
			items = getKeyJsonValueFromContainer(&request->root, "TransactItems", 13, NULL);
		if (items && items->type == jbvBinary && JsonContainerIsArray(items->val.binary.data))
			n = Max(1, JsonContainerSize(items->val.binary.data));
		initStringInfo(&d);
		appendStringInfoString(&d, "{\"CancellationReasons\": [");
		for (int i = 0; i < n; i++)
			appendStringInfo(&d, "%s{\"Code\": \"TransactionConflict\", \"Message\": \"Transaction is ongoing for the item\"}",
							 i ? ", " : "");
		appendStringInfoString(&d, "]}");
		r = error_result(400, NS_DYNAMODB "TransactionCanceledException",
						 psprintf("Transaction cancelled, please refer cancellation reasons for specific reasons [%s]",
								  n == 1 ? "TransactionConflict" : "TransactionConflict, ..."));
		r.message_key = "Message";
		r.detail = d.data;
		return r;
	}
	return error_result(400, NS_DYNAMODB "TransactionConflictException",
						"Transaction is ongoing for the item");
}

/* ---------- running the operation ---------- */

/*
 * Is the extension installed?  Asking pg_extension is an index scan; the
 * schema stdesign is the extension's own (CREATE EXTENSION creates it,
 * DROP EXTENSION drops it), so once the extension has been seen, the same
 * schema (the same OID, looked up in the syscache) says it is still there.
 */
static bool
extension_installed(void)
{
	static Oid	seen_schema = InvalidOid;
	Oid			schema = get_namespace_oid("stdesign", true);

	if (OidIsValid(schema) && schema == seen_schema)
		return true;
	if (!OidIsValid(get_extension_oid("stdesign", true)))
		return false;
	seen_schema = schema;
	return true;
}

/*
 * stdesign.http_max_workers_per_role (http_dispatch_role): *r set when the
 * request does not run now, either put back into the queue (call->deferred)
 * or throttled, as DynamoDB throttles a client past its account's request
 * quota (RequestLimitExceeded, which the SDKs retry with backoff).
 */
static void
role_turn(HttpCall *call, Oid roleid, HttpResult *r)
{
	switch (http_dispatch_role(call->req, roleid))
	{
		case HTTP_ROLE_RUN:
			return;
		case HTTP_ROLE_DEFER:
			call->deferred = true;
			*r = error_result(503, NS_DYNAMODB "ServiceUnavailableException", NULL);
			return;
		case HTTP_ROLE_THROTTLE:
			*r = error_result(400, NS_DYNAMODB "RequestLimitExceeded",
							  "Throughput exceeds the current throughput limit for your account: "
							  "too many requests of this role wait for a worker (stdesign.http_max_workers_per_role)");
			return;
	}
}

/*
 * Bound the requests' lock waits by stdesign.http_lock_timeout, below the
 * request timeout, so that a request waiting for a lock held elsewhere (a
 * SQL session of the same role, say) gives its worker back early, as a
 * conflict (see run_once).  A shorter lock_timeout of the configuration's
 * or the database's is kept.
 *
 * The worker's session value, set when it starts and after each reload
 * (http_worker.c), not in each request's transaction: a setting made there
 * would make each commit walk every setting to undo it (about a twentieth
 * of a GetItem's instructions).  A role's own SET inside a request is
 * undone at the end of its unit (st_work.c), so the bound holds for every
 * request.
 */
void
http_bound_lock_wait(void)
{
	char		value[32];

	/* back to what the configuration and the database's settings say */
	(void) set_config_option("lock_timeout", NULL, PGC_SUSET, PGC_S_SESSION,
							 GUC_ACTION_SET, true, 0, false);
	if (http_lock_timeout <= 0 || (LockTimeout > 0 && LockTimeout <= http_lock_timeout))
		return;
	snprintf(value, sizeof(value), "%d", http_lock_timeout);
	(void) set_config_option("lock_timeout", value, PGC_SUSET, PGC_S_SESSION,
							 GUC_ACTION_SET, true, 0, false);
}

/*
 * One attempt: a transaction that parses, authenticates, and runs the
 * operation as the request's role, a unit of work of st_work.c: restricted
 * as the role through the commit (deferred triggers included), its
 * settings undone at its end.  *retry is set on a serialization failure or
 * deadlock (the transaction is then rolled back).
 */
static HttpResult
run_once(HttpCall *call, bool *retry)
{
	MemoryContext ctx = CurrentMemoryContext;
	StWork		work;
	volatile bool parsing = true;
	volatile bool switched = false;
	volatile Oid roleid = InvalidOid;
	Jsonb	   *volatile request = NULL;
	HttpResult	r = {0};

	*retry = false;
	st_work_begin(&work);
	PG_TRY();
	{
		ApiHandler	handler = NULL;
		ApiTextHandler text_handler = NULL;

		if (!extension_installed())
			r = error_result(503, NS_DYNAMODB "ServiceUnavailableException",
							 psprintf("stdesign is not installed in database \"%s\" yet", http_database));
		else
		{
			request = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(call->json)));
			parsing = false;
			/* a bare name is DynamoDB's (target_operation): none of DynamoDB Streams' */
			if (call->op == NULL ||
				(handler = api_find_operation(strchr(call->op, '.') ? call->op :
											  psprintf("DynamoDB_20120810.%s", call->op))) == NULL)
				r = error_result(400, NS_SERVICE "UnknownOperationException", NULL);
			else
			{
				text_handler = api_find_text_operation(strchr(call->op, '.') ? call->op :
													   psprintf("DynamoDB_20120810.%s", call->op));
				http_timing_auth_begin();
				roleid = authenticate(call, &r);
				http_timing_auth_end();
				if (r.type == NULL)
					role_turn(call, roleid, &r);
			}
		}
		if (r.type == NULL)
		{
			Jsonb	   *out;

			api_check_request(request);
			/* DynamoDB's model checks, as st_api makes them (api_call) */
			api_validate_request(call->op, request);
			pgstat_report_activity(STATE_RUNNING, strchr(call->op, '.') ? call->op :
								   psprintf("DynamoDB_20120810.%s", call->op));
			st_work_as_role(&work, roleid);
			switched = true;
			if (http_request_timeout > 0)
			{
				enable_timeout_after(STATEMENT_TIMEOUT, http_request_timeout);
				/* a timeout the role's code catches ends the worker later */
				st_work_hard_limit(&work, http_request_timeout > INT_MAX / 2 ?
								   INT_MAX : 2 * http_request_timeout);
			}
			if (text_handler != NULL)
			{
				/* its answer's text, sent as it is (api.h) */
				StringInfo	buf = answer_buffer();

				text_handler(request, buf);
				r.body = buf->data;
			}
			else
			{
				out = handler(request);
				r.body = MemoryContextStrdup(ctx, JsonbToCString(NULL, &out->root, VARSIZE(out)));
			}
			r.status = 200;
			if (http_request_timeout > 0)
				disable_timeout(STATEMENT_TIMEOUT, false);
		}
		else
			r.message = r.message ? MemoryContextStrdup(ctx, r.message) : NULL;

		/*
		 * A shutdown or cancel that arrived while the request ran (say, while
		 * it waited for a lock whose holder the same fast shutdown ended)
		 * ends it here, before its transaction commits: the interrupted
		 * request writes nothing.
		 */
		CHECK_FOR_INTERRUPTS();
		/* still as the role; what the request set is undone (st_work.c) */
		st_work_commit(&work);
	}
	PG_CATCH();
	{
		ErrorData  *edata;
		char	   *role;

		MemoryContextSwitchTo(ctx);
		edata = CopyErrorData();
		FlushErrorState();
		if (http_request_timeout > 0)
			disable_timeout(STATEMENT_TIMEOUT, false);
		if (edata->sqlerrcode == ERRCODE_T_R_SERIALIZATION_FAILURE ||
			edata->sqlerrcode == ERRCODE_T_R_DEADLOCK_DETECTED)
		{
			/* the request (transaction memory) is read before the abort */
			r = conflict_result(call, request);
			call->conflict = edata->sqlerrcode == ERRCODE_T_R_DEADLOCK_DETECTED ?
				"deadlock detected" : "serialization failure";
			st_work_abort(&work);
			*retry = true;
			return r;
		}
		if (edata->sqlerrcode == ERRCODE_LOCK_NOT_AVAILABLE)
		{
			/*
			 * A lock waited for past stdesign.http_lock_timeout (or a
			 * lock_timeout of the database's): the item is held by another
			 * transaction, which DynamoDB answers as a conflict with an
			 * ongoing transaction; not retried, the wait would only start
			 * again.
			 */
			r = conflict_result(call, request);
			st_work_abort(&work);
			ereport(LOG,
					(errmsg("stdesign http: request %s (%s): %s, answered as a transaction conflict",
							call->request_id, call->op ? call->op : "?",
							edata->message ? edata->message : "lock timeout")));
			return r;
		}
		st_work_abort(&work);
		role = NULL;
		if (switched && OidIsValid(roleid))
		{
			/* the role's name for the message: a fresh, short transaction */
			StartTransactionCommand();
			role = GetUserNameFromId(roleid, true);
			role = role ? MemoryContextStrdup(ctx, role) : NULL;
			CommitTransactionCommand();
		}
		r = map_error(call, edata, parsing, role);
	}
	PG_END_TRY();
	MemoryContextSwitchTo(ctx);
	return r;
}

static HttpResult
run_request(HttpCall *call)
{
	HttpResult	r = {0};
	bool		retry = false;

	for (int attempt = 0; attempt <= HTTP_RETRIES; attempt++)
	{
		r = run_once(call, &retry);
		if (!retry || call->deferred)
			break;
		/* said in the log, as a serialization failure in SQL would be */
		ereport(LOG,
				(errmsg("stdesign http: request %s (%s): %s, %s",
						call->request_id, call->op, call->conflict,
						attempt < HTTP_RETRIES ? psprintf("retrying (attempt %d of %d)", attempt + 2, HTTP_RETRIES + 1)
						: "answered as a transaction conflict")));
		if (attempt < HTTP_RETRIES)
			pg_usleep(1000L * (attempt + 1));
	}
	pgstat_report_activity(STATE_IDLE, NULL);
	/* table and function statistics of the request (rate-limited inside) */
	pgstat_report_stat(false);
	return r;
}

/* ---------- checking credentials before the body ---------- */

/*
 * The first steps of authenticate(), on a request's headers alone, before
 * more than HTTP_UNAUTH_BODY of its body is read (http_dispatch.c): a
 * signature is there; under trust, on a loopback address; under sigv4, it
 * parses, its date is in range, and its access key exists and is enabled.
 * The signature, which covers the body, is verified with the whole request,
 * as for any.  false with *r set: the same answer authenticate() would give.
 */
static bool
precheck_credentials(HttpCall *call, HttpResult *r)
{
	SigV4Request sv = {0};
	HttpKey    *key = NULL;

	return identify(call, &sv, &key, r) != CALLER_REFUSED;
}

/* Check a request's credentials before its body is read on (see above). */
static void
answer_check(HttpCall *call)
{
	MemoryContext ctx = CurrentMemoryContext;
	HttpResult	r = {0};
	volatile bool ok = false;

	SetCurrentStatementStartTimestamp();
	StartTransactionCommand();
	PushActiveSnapshot(GetTransactionSnapshot());
	PG_TRY();
	{
		if (!extension_installed())
			r = error_result(503, NS_DYNAMODB "ServiceUnavailableException",
							 psprintf("stdesign is not installed in database \"%s\" yet", http_database));
		else
		{
			http_timing_auth_begin();
			ok = precheck_credentials(call, &r);
			http_timing_auth_end();
		}
		r.message = r.message ? MemoryContextStrdup(ctx, r.message) : NULL;
		PopActiveSnapshot();
		CommitTransactionCommand();
	}
	PG_CATCH();
	{
		ErrorData  *edata;

		MemoryContextSwitchTo(ctx);
		edata = CopyErrorData();
		FlushErrorState();
		AbortCurrentTransaction();
		ok = false;
		r = internal_error(call, edata);
	}
	PG_END_TRY();
	MemoryContextSwitchTo(ctx);
	if (ok)
	{
		/* not an answer yet: the request is counted when it is answered */
		int64		request_ns;
		int64		auth_ns;

		(void) http_timing_end(&request_ns, &auth_ns);
		http_dispatch_reply(call->req, HTTP_STATUS_CHECKED, "", 0);
	}
	else
		send_result(call, &r);
}

/*
 * The operation named by X-Amz-Target, or NULL: DynamoDB's bare
 * ("PutItem"), DynamoDB Streams' with its prefix
 * ("DynamoDBStreams_20120810.GetRecords"), which api_find_operation takes
 * to name that service's operations only, and the design studio's own
 * ("StDesign_Studio.GetModel", api_studio.c) whole, as st_api knows them.
 */
static const char *
target_operation(HttpCall *call)
{
	const char *t = header(call, "X-Amz-Target");
	const char *prefix = "DynamoDB_20120810.";
	const char *streams = "DynamoDBStreams_20120810.";
	const char *op;
	bool		bare = false;

	if (t == NULL)
		return NULL;
	if (strncmp(t, prefix, strlen(prefix)) == 0)
	{
		op = t + strlen(prefix);
		bare = true;
	}
	else if (strncmp(t, streams, strlen(streams)) == 0)
		op = t + strlen(streams);
	else if (strncmp(t, STUDIO_PREFIX, strlen(STUDIO_PREFIX)) == 0)
		op = t + strlen(STUDIO_PREFIX);
	else
		return NULL;
	if (*op == '\0' || strchr(op, '.') != NULL || strlen(op) > 64)
		return NULL;
	return pstrdup(bare ? op : t);
}

/* ---------- the entry point ---------- */

/*
 * Answer a request taken from the queue (http_dispatch_next), in the
 * current memory context, which the caller resets afterwards.
 */
void
http_answer(HttpRequest *req)
{
	HttpCall	call = {0};
	HttpResult	r = {0};

	http_timing_begin();
	call.req = req;
	call.loopback = req->loopback;
	call.request_id = req->request_id;
	if (req->broken)
	{
		r = error_result(500, NS_DYNAMODB "InternalServerError", "Internal server error");
		send_result(&call, &r);
		return;
	}
	call.method = req->method;
	call.url = req->url;
	call.headers = req->headers;
	call.nheaders = req->nheaders;
	call.query = req->query;
	call.nquery = req->nquery;
	call.raw = req->body;
	call.raw_len = req->body_len;
	call.op = target_operation(&call);
	http_request_host = header(&call, "Host");
	/* DescribeEndpoints answers with the address the client used */
	api_endpoint_address = http_request_host;
	if (req->check)
	{
		/* headers only: the body is not here yet */
		answer_check(&call);
		http_request_host = NULL;
		api_endpoint_address = NULL;
		return;
	}
	if (!decode_body(&call, &r))
		;
	else if (call.json[0] == '\0')
		r = error_result(400, NS_SERVICE "SerializationException", NULL);
	else
		r = run_request(&call);
	http_request_host = NULL;
	api_endpoint_address = NULL;
	if (call.deferred)
	{
		/* its role's turn comes later: back into the queue, unanswered */
		int64		request_ns;
		int64		auth_ns;

		(void) http_timing_end(&request_ns, &auth_ns);
		http_dispatch_defer(req);
		return;
	}
	send_result(&call, &r);
}
