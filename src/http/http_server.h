/*-------------------------------------------------------------------------
 *
 * http_server.h
 *		DynamoDB's HTTP API served by background workers of the extension:
 *		the settings, the worker, the wire protocol, SigV4 and access keys.
 *
 * Clients (the AWS SDKs, aws-cli, dynamodb-admin) speak DynamoDB's JSON 1.0
 * protocol over HTTP/1.1.  Each worker reads and writes its connections
 * (http_wire.c, http_dispatch.c) in an I/O thread that never calls
 * Postgres, and puts each request into a queue in shared memory; the main
 * thread of whichever worker is free answers it in its own
 * transaction, as the Postgres role its credentials map to, through the
 * same handlers as st_api (src/api).  A worker whose main thread is idle
 * drives its own connections itself and runs their requests without the
 * queue (the fast path, http_dispatch.c).  Workers are started only when
 * the library is in shared_preload_libraries and stdesign.http_port is set.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ST_HTTP_SERVER_H
#define ST_HTTP_SERVER_H

#include "postgres.h"

#include "utils/jsonb.h"

#include "api/api.h"
#include "http_wire.h"

/* DynamoDB's request size limit: larger bodies get 413 before being read. */
#define HTTP_MAX_BODY		(16 * 1024 * 1024)

/*
 * Body bytes a request may send before its credentials are checked: a
 * larger body is read on only once a worker has found the request's access
 * key (it exists and is enabled); the signature, which covers the body, is
 * verified later, as for any request.
 */
#define HTTP_UNAUTH_BODY	(64 * 1024)

/* Most workers one server can have (their statistics live in shared memory). */
#define HTTP_MAX_WORKERS	64

/* Most connections one worker holds (stdesign.http_max_connections). */
#define HTTP_MAX_CONNECTIONS 10000

/*
 * A connection's read buffer, which the request's head must fit in (a
 * longer head gets 431): above the 8 kB that many HTTP servers allow and
 * far more than an AWS SDK sends (its longest header, a session token, is
 * a few kB at most).  Bodies are read into buffers of their own.
 */
#define HTTP_CONNECTION_MEMORY (16 * 1024)

/* Most listening sockets of one worker. */
#define HTTP_MAX_LISTENERS	16

/* Requests of one worker's connections queued at once (more wait in it). */
#define HTTP_SLOTS_PER_WORKER 64

/* Requests and responses up to this size travel in shared memory. */
#define HTTP_SLOT_INLINE	8192

/* DynamoDB's request ids: 52 upper-case letters and digits. */
#define HTTP_REQUEST_ID_LEN 52

/* ---------- settings (http_worker.c) ---------- */

typedef enum HttpAuthMode
{
	HTTP_AUTH_TRUST,
	HTTP_AUTH_SIGV4
} HttpAuthMode;

extern int	http_port;
extern int	http_workers;
extern char *http_listen_addresses;
extern char *http_database;
extern int	http_auth;
extern char *http_trust_role;
extern bool http_trust_allow_superuser;
extern char *http_cors_origin;
extern int	http_request_timeout;
extern char *http_region;
extern int	http_max_connections;
extern int	http_max_buffer;
extern int	http_max_workers_per_role;
extern int	http_lock_timeout;
extern bool http_fast_path;

/* Define the settings; register the workers when preloaded (from _PG_init). */
extern void http_init(void);

/* The worker's entry point (named in its BackgroundWorker). */
extern PGDLLEXPORT void http_worker_main(Datum arg);

/* ---------- statistics in shared memory (http_worker.c) ---------- */

/*
 * A connection opened (+1) or closed (-1) on this worker.  Called by the
 * I/O thread too: atomics only.
 */
extern void http_stats_connection(int delta);

/*
 * A request of operation op (NULL: none recognised) answered; ok: 2xx.
 * Main thread only: its CPU times are counted too when http_timing_begin()
 * timed it.
 */
extern void http_stats_request(const char *op, bool ok);

/* The same for a request the I/O thread answered itself: atomics only. */
extern void http_stats_io_request(const char *op, bool ok);

/* ---------- CPU time of requests (http_timing.c) ---------- */

extern bool http_track_timing;

/* Define stdesign.http_track_timing (from http_init). */
extern void http_timing_define_setting(void);

/*
 * A request's answer starts (on the worker's main thread): timed, if the
 * setting is on, until http_stats_request() counts it; every request counted
 * there must have begun here first.
 */
extern void http_timing_begin(void);

/* Its authentication starts and ends (each attempt's counts). */
extern void http_timing_auth_begin(void);
extern void http_timing_auth_end(void);

/*
 * It ends: false when it was not timed, else its CPU time and its
 * authentication's, in nanoseconds (the clock's own cost taken out; a sum
 * of many is accurate, one alone may be a little off, even below zero).
 */
extern bool http_timing_end(int64 *request_ns, int64 *auth_ns);

/* ---------- the I/O thread and the request queue (http_dispatch.c) ---------- */

/*
 * A request taken from the queue, or taken directly from one of this
 * worker's connections (direct), as a worker's main thread runs it.
 */
typedef struct HttpRequest
{
	int			slot;			/* -1 when direct */
	bool		direct;			/* the fast path: no slot */
	void	   *upload;			/* direct: its connection's upload */
	bool		broken;			/* could not be read back: answer 500 */
	bool		check;			/* headers only: check the credentials (a
								 * body over HTTP_UNAUTH_BODY waits for it) */
	bool		in_file;		/* it came through the slot's file */
	bool		loopback;		/* received on a loopback address */
	char		request_id[HTTP_REQUEST_ID_LEN + 1];
	const char *method;
	const char *url;
	HttpHeader *headers;
	int			nheaders;
	HttpHeader *query;			/* query arguments, decoded */
	int			nquery;
	const char *body;			/* as received (gzip not undone) */
	size_t		body_len;
} HttpRequest;

/* The queue in shared memory: its size, set up (postmaster), attached. */
extern Size http_queue_shmem_size(int nworkers);
extern void http_queue_shmem_init(void *base, int nworkers);
extern void http_queue_attach(void *base);

/*
 * Serve a listening socket (before http_dispatch_start); loopback says
 * whether its address is a loopback one (trust mode serves only those).
 * false when no more can be.
 */
extern bool http_listen(int listen_fd, bool loopback);

/* In the postmaster: the eventfds the workers wake each other with. */
extern void http_dispatch_preload(int nworkers);

/* Start worker index's I/O thread on the daemons started. */
extern void http_dispatch_start(int index);

/* Copy the settings the I/O thread reads (after a reload). */
extern void http_dispatch_config(void);

/*
 * Wait, up to timeout ms, for this worker's latch, a request queued for it,
 * or (the fast path, when its main thread is idle) a request on one of its
 * own connections: true with that request claimed into *req (in the current
 * memory context), to be answered like a queued one.
 */
extern bool http_dispatch_wait(HttpRequest *req, long timeout);

/* Is the I/O thread running? */
extern bool http_dispatch_alive(void);

/* Claim the oldest queued request (true), or mark this worker idle. */
extern bool http_dispatch_next(HttpRequest *req);

/* Hand the claimed request's response back to its connection's worker. */
extern void http_dispatch_reply(HttpRequest *req, int status, const char *body, size_t len);

/*
 * A credentials check passed (HttpRequest.check): its connection reads the
 * body on.
 */
#define HTTP_STATUS_CHECKED 100

/* May the claimed request run as roleid (stdesign.http_max_workers_per_role)? */
typedef enum HttpRoleTurn
{
	HTTP_ROLE_RUN,				/* yes: counted as one of the role's workers */
	HTTP_ROLE_DEFER,			/* not now: http_dispatch_defer puts it back */
	HTTP_ROLE_THROTTLE			/* too many of the role's requests wait */
} HttpRoleTurn;

extern HttpRoleTurn http_dispatch_role(HttpRequest *req, Oid roleid);

/* Put the claimed request back in the queue, unanswered, in its place. */
extern void http_dispatch_defer(HttpRequest *req);

/* ---------- the protocol (http_protocol.c) ---------- */

/* Answer a request taken from the queue (then http_dispatch_reply). */
extern void http_answer(HttpRequest *req);

/* The worker's lock_timeout from stdesign.http_lock_timeout: at its start and after a reload. */
extern void http_bound_lock_wait(void);

/* ---------- the request being answered ---------- */

/* The Host header of the request being answered (DescribeEndpoints). */
extern const char *http_request_host;

/* ---------- Signature Version 4 (http_sigv4.c) ---------- */

/* What a request gives to be verified. */
typedef struct SigV4Request
{
	const char *method;
	const char *path;
	HttpHeader *query;			/* query arguments, decoded */
	int			nquery;
	HttpHeader *headers;
	int			nheaders;
	const char *body;			/* as received (before gzip is undone) */
	size_t		body_len;
	const char *authorization;	/* the Authorization header (NULL: none) */

	/* filled by http_sigv4_parse, for http_sigv4_verify */
	bool		presigned;		/* the signature is in the query string */
	const char *amz_date;
	const char *signed_headers;
	const char *signature;
	const char *date;			/* of the credential scope */
	const char *region;
	bool		streams_service;	/* signed for streams.dynamodb, not dynamodb */
	const char *scope;			/* date/region/dynamodb/aws4_request */
	const char *security_token; /* X-Amz-Security-Token, if any */
} SigV4Request;

/* The outcome of a check: ok, or DynamoDB's exception and message. */
typedef struct HttpAuthError
{
	const char *type;			/* full __type, e.g. com.amazon.coral.service#... */
	char	   *message;
} HttpAuthError;

/* Does the query string carry a signature (X-Amz-Algorithm)? */
extern bool http_sigv4_presigned(const SigV4Request *req);

/*
 * Parse the Authorization header (or a presigned request's query string)
 * and check the date: fills key_id and req's parsed fields; false with *err
 * set when the signature is incomplete, the algorithm or scope is wrong or
 * the date out of the 15 minutes' skew (or past X-Amz-Expires).
 */
extern bool http_sigv4_parse(SigV4Request *req, char **key_id, HttpAuthError *err);

/* ---------- access keys (http_keys.c) ---------- */

/*
 * The signing key of an access key for one date and region (the service is
 * always dynamodb), derived from the secret by four HMACs, which clients
 * repeat on every request of a day: kept with the access key in the
 * worker's cache, as SHA-256 states after the HMAC's inner and outer pads
 * (http_sigv4.c fills it; opaque elsewhere).  It goes when the key does.
 */
#define HTTP_SIGNING_REGION_MAX 64

typedef struct HttpSigningKey
{
	bool		valid;
	char		date[9];		/* YYYYMMDD */
	char		region[HTTP_SIGNING_REGION_MAX];
	uint64		pads[2][16];	/* two SHA256_CTX */
} HttpSigningKey;

/* An enabled access key. */
typedef struct HttpKey
{
	char	   *secret;
	char	   *role;
	Oid			roleid;			/* the key's role, as it was made for */
	HttpSigningKey signing;
} HttpKey;

/*
 * The enabled access key key_id, or NULL when it does not exist, is
 * disabled, or its role is not the one it was made for any more (dropped,
 * renamed, or another role of the same name).  The key stays valid until the next lookup (it may be the
 * worker's cached copy).  Needs a transaction; runs as the worker's own
 * (superuser) role.
 */
extern HttpKey *http_key_lookup(const char *key_id);

/*
 * Verify the signature with the key (constant-time comparison), then
 * refuse a session token (stdesign has no STS).  May keep the signing key
 * of the request's date and region in key->signing.
 */
extern bool http_sigv4_verify(const SigV4Request *req, HttpKey *key, HttpAuthError *err);

/* An alphanumeric random string of len characters from a strong source. */
extern char *http_random_string(int len, const char *alphabet);

/* ---------- the design studio's page (http_studio.c) ---------- */

/* A page the I/O thread answers with (http_studio_serve). */
typedef struct HttpPage
{
	int			status;
	const char *type;			/* its Content-Type */
	const char *data;
	size_t		len;
	bool		must_free;		/* data is malloc'd, the page's to free */
	const char *headers;		/* more header lines, each ending "\r\n" */
} HttpPage;

/* In the postmaster: draw the secret the page tokens are made with. */
extern void http_studio_preload(void);

/* In a worker, before its I/O thread starts: read the page's files. */
extern void http_studio_load(void);

/* Copy the settings the I/O thread reads for the page (http_dispatch_config). */
extern void http_studio_config(void);

/*
 * The I/O thread: the answer to a GET of /studio or /studio/<file> (true,
 * *page set); false for any other path.  host: the request's Host header.
 */
extern bool http_studio_serve(const char *url, const char *host, bool loopback,
							  HttpPage *page);

/* Is token one the page was served with (since the server started)? */
extern bool http_studio_token_ok(const char *token);

/* Does a Host header name localhost, 127.0.0.1 or [::1]? */
extern bool http_studio_loopback_host(const char *host);

#endif							/* ST_HTTP_SERVER_H */
