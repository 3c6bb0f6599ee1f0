/*-------------------------------------------------------------------------
 *
 * http_worker.c
 *		The HTTP endpoint's background workers: settings, registration,
 *		listening sockets, the wait loop, and the statistics that
 *		stdesign.http_status() shows.
 *
 * Every worker opens its own listening sockets on the same port with
 * SO_REUSEPORT, so that the kernel spreads new connections over the
 * workers.  A port that another program holds makes bind() fail: the worker
 * says so in the server log and exits, to be restarted (and to say so
 * again) later; it never listens elsewhere.
 *
 * A worker's I/O thread (http_dispatch.c) serves its connections and queues
 * their requests in shared memory; the worker's main thread, here, waits on
 * its latch and the postmaster, and answers queued requests, whichever
 * worker's connection they came on, one at a time, each in its own
 * transaction; while idle it drives its own connections and answers their
 * requests without the queue.  All Postgres work happens on the main
 * thread.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <arpa/inet.h>
#include <fcntl.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "pgstat.h"
#include "port/atomics.h"
#include "postmaster/bgworker.h"
#include "postmaster/interrupt.h"
#include "replication/logicallauncher.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/lwlock.h"
#include "storage/shmem.h"
#include "tcop/tcopprot.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"
#include "utils/varlena.h"

#include "http_server.h"

int			http_port = 0;
int			http_workers = 2;
char	   *http_listen_addresses = NULL;
char	   *http_database = NULL;
int			http_auth = HTTP_AUTH_TRUST;
char	   *http_trust_role = NULL;
bool		http_trust_allow_superuser = false;
char	   *http_cors_origin = NULL;
int			http_request_timeout = 60000;
char	   *http_region = NULL;
int			http_max_connections = 1000;
int			http_max_buffer = 128 * 1024;	/* kB */
int			http_max_workers_per_role = -1;
int			http_lock_timeout = 10000;
bool		http_fast_path = true;

static const struct config_enum_entry auth_options[] = {
	{"trust", HTTP_AUTH_TRUST, false},
	{"sigv4", HTTP_AUTH_SIGV4, false},
	{NULL, 0, false}
};

/*
 * The operations counted apart in the statistics; any other is counted
 * under the last name.
 */
static const char *const counted_ops[] = {
	"PutItem", "GetItem", "UpdateItem", "DeleteItem", "Query", "Scan",
	"BatchGetItem", "BatchWriteItem", "TransactWriteItems", "TransactGetItems",
	"CreateTable", "DeleteTable", "DescribeTable", "ListTables", "UpdateTable",
	"ExecuteStatement", "BatchExecuteStatement", "ExecuteTransaction",
	"DescribeTimeToLive", "UpdateTimeToLive", "ListTagsOfResource", "DescribeEndpoints",
	"DescribeLimits", "DescribeContinuousBackups", "TagResource", "UntagResource",
	"UpdateContinuousBackups", "UpdateContributorInsights", "DescribeContributorInsights",
	"ListContributorInsights", "(other)"
};

#define HTTP_NOPS lengthof(counted_ops)

/* One worker's slot: written by that worker only, read by http_status(). */
typedef struct HttpWorkerSlot
{
	pg_atomic_uint32 pid;
	pg_atomic_uint32 connections;
	pg_atomic_uint64 served[HTTP_NOPS];
	pg_atomic_uint64 failed[HTTP_NOPS];
	/* stdesign.http_track_timing: requests timed, their CPU time (ns) */
	pg_atomic_uint64 timed[HTTP_NOPS];
	pg_atomic_uint64 request_ns[HTTP_NOPS];
	pg_atomic_uint64 auth_ns[HTTP_NOPS];
	char		listening[256];	/* the addresses bound, "a, b" */
} HttpWorkerSlot;

typedef struct HttpShared
{
	int			nworkers;
	HttpWorkerSlot slots[FLEXIBLE_ARRAY_MEMBER];
} HttpShared;

static HttpShared *http_shared = NULL;
static MemoryContext request_context = NULL;
static HttpWorkerSlot *my_slot = NULL;
static shmem_request_hook_type prev_shmem_request_hook = NULL;
static shmem_startup_hook_type prev_shmem_startup_hook = NULL;

static Size
http_stats_size(void)
{
	return add_size(offsetof(HttpShared, slots),
					mul_size(sizeof(HttpWorkerSlot), http_workers));
}

/* The statistics, then the request queue (http_dispatch.c). */
static Size
http_shmem_size(void)
{
	return add_size(MAXALIGN(http_stats_size()), http_queue_shmem_size(http_workers));
}

static void
http_shmem_request(void)
{
	if (prev_shmem_request_hook)
		prev_shmem_request_hook();
	RequestAddinShmemSpace(http_shmem_size());
}

static void
http_shmem_startup(void)
{
	bool		found;

	if (prev_shmem_startup_hook)
		prev_shmem_startup_hook();
	LWLockAcquire(AddinShmemInitLock, LW_EXCLUSIVE);
	http_shared = ShmemInitStruct("stdesign http", http_shmem_size(), &found);
	if (!found)
	{
		http_shared->nworkers = http_workers;
		for (int i = 0; i < http_workers; i++)
		{
			HttpWorkerSlot *s = &http_shared->slots[i];

			pg_atomic_init_u32(&s->pid, 0);
			pg_atomic_init_u32(&s->connections, 0);
			for (int j = 0; j < (int) HTTP_NOPS; j++)
			{
				pg_atomic_init_u64(&s->served[j], 0);
				pg_atomic_init_u64(&s->failed[j], 0);
				pg_atomic_init_u64(&s->timed[j], 0);
				pg_atomic_init_u64(&s->request_ns[j], 0);
				pg_atomic_init_u64(&s->auth_ns[j], 0);
			}
			s->listening[0] = '\0';
		}
		http_queue_shmem_init((char *) http_shared + MAXALIGN(http_stats_size()), http_workers);
	}
	else
		http_queue_attach((char *) http_shared + MAXALIGN(http_stats_size()));
	LWLockRelease(AddinShmemInitLock);
}

/*
 * The settings.  Those read only at server start exist only when the library
 * is preloaded (Postgres refuses to create them later); the others always.
 */
static void
define_settings(void)
{
	if (process_shared_preload_libraries_in_progress)
	{
		DefineCustomIntVariable("stdesign.http_port",
								"TCP port of the DynamoDB HTTP endpoint (0: off).",
								"Needs stdesign in shared_preload_libraries.",
								&http_port, 0, 0, 65535, PGC_POSTMASTER, 0,
								NULL, NULL, NULL);
		DefineCustomIntVariable("stdesign.http_workers",
								"Number of background workers answering HTTP requests.",
								"Each takes one of max_worker_processes.",
								&http_workers, 2, 1, HTTP_MAX_WORKERS, PGC_POSTMASTER, 0,
								NULL, NULL, NULL);
		DefineCustomStringVariable("stdesign.http_listen_addresses",
								   "Addresses the HTTP endpoint listens on (comma-separated; * for all).",
								   NULL, &http_listen_addresses, "127.0.0.1, ::1",
								   PGC_POSTMASTER, GUC_LIST_INPUT, NULL, NULL, NULL);
		DefineCustomStringVariable("stdesign.http_database",
								   "The database the HTTP endpoint serves.",
								   NULL, &http_database, "postgres",
								   PGC_POSTMASTER, 0, NULL, NULL, NULL);
	}
	DefineCustomEnumVariable("stdesign.http_auth",
							 "How HTTP requests are authenticated: trust or sigv4.",
							 "trust accepts any credentials and serves loopback addresses only.",
							 &http_auth, HTTP_AUTH_TRUST, auth_options,
							 PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomStringVariable("stdesign.http_trust_role",
							   "The role HTTP requests run as when stdesign.http_auth is trust.",
							   "Until it exists (and, unless stdesign.http_trust_allow_superuser is on, "
							   "while it is a superuser) requests get 503.",
							   &http_trust_role, "stdesign_http",
							   PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomBoolVariable("stdesign.http_trust_allow_superuser",
							 "Let stdesign.http_trust_role be a superuser.",
							 "Off: under trust, requests are refused (503) while the role is a superuser.",
							 &http_trust_allow_superuser, false,
							 PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomStringVariable("stdesign.http_cors_origin",
							   "Origin allowed by CORS (empty: no CORS headers; * for any).",
							   NULL, &http_cors_origin, "",
							   PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomStringVariable("stdesign.http_region",
							   "The region signed requests must be scoped to (empty: any).",
							   "DynamoDB refuses a signature scoped to another region than the endpoint's.",
							   &http_region, "",
							   PGC_SIGHUP, 0, NULL, NULL, NULL);
	http_timing_define_setting();
	DefineCustomIntVariable("stdesign.http_request_timeout",
							"Longest time one HTTP request may run (0: no limit).",
							NULL, &http_request_timeout, 60000, 0, INT_MAX,
							PGC_SIGHUP, GUC_UNIT_MS, NULL, NULL, NULL);
	DefineCustomIntVariable("stdesign.http_lock_timeout",
							"Longest wait of one HTTP request for a lock (0: no limit but the request's).",
							"Past it the request is answered as a transaction conflict.",
							&http_lock_timeout, 10000, 0, INT_MAX,
							PGC_SIGHUP, GUC_UNIT_MS, NULL, NULL, NULL);
	DefineCustomIntVariable("stdesign.http_max_connections",
							"Open HTTP connections per worker; past it new ones get a 503, then are refused.",
							NULL, &http_max_connections, 1000, 1, HTTP_MAX_CONNECTIONS,
							PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("stdesign.http_max_buffer",
							"Request bodies the HTTP workers hold in memory at once, in all; past it a request gets a 503.",
							NULL, &http_max_buffer, 128 * 1024, HTTP_MAX_BODY / 1024, INT_MAX / 2,
							PGC_SIGHUP, GUC_UNIT_KB, NULL, NULL, NULL);
	DefineCustomBoolVariable("stdesign.http_fast_path",
							 "Lets an idle HTTP worker answer its own connections' requests without the queue.",
							 "Off, every request goes through the queue in shared memory (to compare the two paths).",
							 &http_fast_path, true,
							 PGC_SIGHUP, 0, NULL, NULL, NULL);
	DefineCustomIntVariable("stdesign.http_max_workers_per_role",
							"HTTP workers that may run one role's requests at once under sigv4 (0: all).",
							"Its other requests wait in the queue, so that one client cannot take every worker.",
							&http_max_workers_per_role, -1, -1, HTTP_MAX_WORKERS,
							PGC_SIGHUP, 0, NULL, NULL, NULL);
}

/*
 * The workers take slots of max_worker_processes, which other features
 * share (the logical replication launcher is registered before the
 * libraries' workers, parallel query takes what is left): say plainly when
 * they cannot all start, rather than leave Postgres's generic message alone.
 */
static void
register_workers(void)
{
	BackgroundWorker worker;
	int			avail = max_worker_processes - (max_logical_replication_workers > 0 ? 1 : 0);
	int			n = Min(http_workers, Max(avail, 0));

	if (n < http_workers)
		ereport(LOG,
				(errmsg("stdesign: stdesign.http_workers = %d but max_worker_processes = %d: starting %d HTTP workers",
						http_workers, max_worker_processes, n),
				 errdetail("The logical replication launcher takes one of max_worker_processes."),
				 errhint("Raise max_worker_processes to at least stdesign.http_workers plus the workers other features need.")));
	else if (n == avail)
		ereport(LOG,
				(errmsg("stdesign: stdesign.http_workers = %d takes every free one of max_worker_processes = %d",
						http_workers, max_worker_processes),
				 errhint("Parallel query needs workers too: raise max_worker_processes.")));

	for (int i = 0; i < n; i++)
	{
		memset(&worker, 0, sizeof(worker));
		worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
		worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
		worker.bgw_restart_time = 5;
		snprintf(worker.bgw_library_name, BGW_MAXLEN, "stdesign");
		snprintf(worker.bgw_function_name, BGW_MAXLEN, "http_worker_main");
		snprintf(worker.bgw_name, BGW_MAXLEN, "stdesign http worker %d", i + 1);
		snprintf(worker.bgw_type, BGW_MAXLEN, "stdesign http worker");
		worker.bgw_main_arg = Int32GetDatum(i);
		RegisterBackgroundWorker(&worker);
	}
}

void
http_init(void)
{
	define_settings();
	if (!process_shared_preload_libraries_in_progress)
		return;
	prev_shmem_request_hook = shmem_request_hook;
	shmem_request_hook = http_shmem_request;
	prev_shmem_startup_hook = shmem_startup_hook;
	shmem_startup_hook = http_shmem_startup;
	if (http_port != 0)
	{
		http_studio_preload();
		http_dispatch_preload(http_workers);
		register_workers();
	}
}

/* ---------- statistics ---------- */

void
http_stats_connection(int delta)
{
	if (my_slot == NULL)
		return;
	if (delta > 0)
		pg_atomic_fetch_add_u32(&my_slot->connections, 1);
	else
		pg_atomic_fetch_sub_u32(&my_slot->connections, 1);
}

/* Count a request in this worker's statistics: atomics only. */
static void
count_request(const char *op, bool ok, bool timed, int64 request_ns, int64 auth_ns)
{
	int			i = HTTP_NOPS - 1;

	if (my_slot == NULL)
		return;
	for (int j = 0; op && j < (int) HTTP_NOPS - 1; j++)
		if (strcmp(counted_ops[j], op) == 0)
			i = j;
	if (ok)
		pg_atomic_fetch_add_u64(&my_slot->served[i], 1);
	else
		pg_atomic_fetch_add_u64(&my_slot->failed[i], 1);
	if (timed)
	{
		/* (a time may be a little below zero: the sums are what count) */
		pg_atomic_fetch_add_u64(&my_slot->timed[i], 1);
		pg_atomic_fetch_add_u64(&my_slot->request_ns[i], request_ns);
		pg_atomic_fetch_add_u64(&my_slot->auth_ns[i], auth_ns);
	}
}

void
http_stats_request(const char *op, bool ok)
{
	int64		request_ns;
	int64		auth_ns;
	bool		timed = http_timing_end(&request_ns, &auth_ns);

	count_request(op, ok, timed, request_ns, auth_ns);
}

/*
 * A request the I/O thread answered itself (a body over the limit): counted
 * with atomics only, never timed (the timing state is the main thread's).
 */
void
http_stats_io_request(const char *op, bool ok)
{
	count_request(op, ok, false, 0, 0);
}

/* Nanoseconds summed (two's complement) -> microseconds, never below zero. */
static int64
sum_us(pg_atomic_uint64 *v)
{
	int64		ns = (int64) pg_atomic_read_u64(v);

	return ns > 0 ? ns / 1000 : 0;
}

/*
 * stdesign.http_status(): one row per worker: its process, the addresses
 * it listens on, its open connections, and the requests it served and that
 * failed, in all and by operation, with (stdesign.http_track_timing) the
 * CPU time of the requests timed and of their authentication.  No rows when
 * the library is not preloaded.
 */
PG_FUNCTION_INFO_V1(st_http_status);
Datum
st_http_status(PG_FUNCTION_ARGS)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;

	InitMaterializedSRF(fcinfo, 0);
	if (http_shared == NULL)
		return (Datum) 0;
	for (int i = 0; i < http_shared->nworkers; i++)
	{
		HttpWorkerSlot *s = &http_shared->slots[i];
		Datum		values[11];
		bool		nulls[11] = {0};
		uint32		pid = pg_atomic_read_u32(&s->pid);
		int64		served = 0;
		int64		failed = 0;
		int64		timed = 0;
		int64		request_ns = 0;
		int64		auth_ns = 0;
		StringInfoData ops;

		initStringInfo(&ops);
		appendStringInfoChar(&ops, '{');
		for (int j = 0; j < (int) HTTP_NOPS; j++)
		{
			uint64		sv = pg_atomic_read_u64(&s->served[j]);
			uint64		fl = pg_atomic_read_u64(&s->failed[j]);

			uint64		tm = pg_atomic_read_u64(&s->timed[j]);

			if (sv == 0 && fl == 0)
				continue;
			appendStringInfo(&ops, "%s\"%s\": {\"served\": " UINT64_FORMAT ", \"failed\": " UINT64_FORMAT,
							 ops.len > 1 ? ", " : "", counted_ops[j], sv, fl);
			if (tm > 0)
				appendStringInfo(&ops, ", \"timed\": " UINT64_FORMAT ", \"request_cpu_us\": " INT64_FORMAT
								 ", \"auth_cpu_us\": " INT64_FORMAT,
								 tm, sum_us(&s->request_ns[j]), sum_us(&s->auth_ns[j]));
			appendStringInfoChar(&ops, '}');
			served += sv;
			failed += fl;
			timed += tm;
			request_ns += (int64) pg_atomic_read_u64(&s->request_ns[j]);
			auth_ns += (int64) pg_atomic_read_u64(&s->auth_ns[j]);
		}
		appendStringInfoChar(&ops, '}');
		values[0] = Int32GetDatum(i + 1);
		values[1] = Int32GetDatum((int32) pid);
		nulls[1] = (pid == 0);
		values[2] = CStringGetTextDatum(s->listening);
		values[3] = Int32GetDatum(http_port);
		values[4] = Int32GetDatum((int32) pg_atomic_read_u32(&s->connections));
		values[5] = Int64GetDatum(served);
		values[6] = Int64GetDatum(failed);
		values[7] = DirectFunctionCall1(jsonb_in, CStringGetDatum(ops.data));
		values[8] = Int64GetDatum(timed);
		values[9] = Int64GetDatum(Max(request_ns, 0) / 1000);
		values[10] = Int64GetDatum(Max(auth_ns, 0) / 1000);
		tuplestore_putvalues(rsinfo->setResult, rsinfo->setDesc, values, nulls);
	}
	return (Datum) 0;
}

/* ---------- listening ---------- */

typedef struct HttpListener
{
	int			fd;
	bool		loopback;
} HttpListener;

static bool
address_is_loopback(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *) sa)->sin_addr.s_addr) >> 24) == 127;
	if (sa->sa_family == AF_INET6)
		return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *) sa)->sin6_addr);
	return false;
}

/*
 * A listening socket on one resolved address, or -1 (logged).  A port in
 * use is fatal to the worker: it must never serve silently on fewer
 * addresses than asked, nor elsewhere.
 */
static int
open_listener(const struct addrinfo *ai, const char *host)
{
	int			fd;
	int			one = 1;
	char		shown[NI_MAXHOST];

	if (getnameinfo(ai->ai_addr, ai->ai_addrlen, shown, sizeof(shown), NULL, 0, NI_NUMERICHOST) != 0)
		strlcpy(shown, host, sizeof(shown));
	fd = socket(ai->ai_family, SOCK_STREAM, 0);
	if (fd < 0)
	{
		ereport(WARNING,
				(errmsg("stdesign: could not create a socket for HTTP address \"%s\": %m", shown)));
		return -1;
	}
	(void) setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) < 0)
		ereport(WARNING, (errmsg("stdesign: SO_REUSEPORT not available: %m")));
	if (ai->ai_family == AF_INET6)
		(void) setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	if (bind(fd, ai->ai_addr, ai->ai_addrlen) < 0)
	{
		int			save = errno;

		close(fd);
		errno = save;
		if (save == EADDRINUSE)
			ereport(ERROR,
					(errcode_for_socket_access(),
					 errmsg("stdesign: could not bind the HTTP endpoint to %s port %d: %m", shown, http_port),
					 errhint("Another program listens on that port: stop it or change stdesign.http_port.")));
		ereport(WARNING,
				(errcode_for_socket_access(),
				 errmsg("stdesign: could not bind the HTTP endpoint to %s port %d: %m", shown, http_port)));
		return -1;
	}
	if (listen(fd, 1024) < 0 || fcntl(fd, F_SETFL, O_NONBLOCK) < 0 ||
		fcntl(fd, F_SETFD, FD_CLOEXEC) < 0)
	{
		ereport(WARNING, (errmsg("stdesign: could not listen on %s port %d: %m", shown, http_port)));
		close(fd);
		return -1;
	}
	return fd;
}

/* Open every address of stdesign.http_listen_addresses. */
static int
open_listeners(HttpListener *out)
{
	char	   *raw = pstrdup(http_listen_addresses);
	List	   *hosts;
	ListCell   *lc;
	int			n = 0;
	char		port[16];
	StringInfoData shown;

	if (!SplitGUCList(raw, ',', &hosts))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("stdesign: invalid list syntax in stdesign.http_listen_addresses")));
	snprintf(port, sizeof(port), "%d", http_port);
	initStringInfo(&shown);
	foreach(lc, hosts)
	{
		char	   *host = lfirst(lc);
		struct addrinfo hints = {0};
		struct addrinfo *res;
		int			rc;

		hints.ai_family = AF_UNSPEC;
		hints.ai_socktype = SOCK_STREAM;
		hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
		rc = getaddrinfo(strcmp(host, "*") == 0 ? NULL : host, port, &hints, &res);
		if (rc != 0)
		{
			ereport(WARNING,
					(errmsg("stdesign: could not resolve HTTP address \"%s\": %s", host, gai_strerror(rc))));
			continue;
		}
		for (struct addrinfo *ai = res; ai && n < HTTP_MAX_LISTENERS; ai = ai->ai_next)
		{
			bool		loopback = address_is_loopback(ai->ai_addr);
			int			fd;

			if (ai->ai_family != AF_INET && ai->ai_family != AF_INET6)
				continue;
			if (http_auth == HTTP_AUTH_TRUST && !loopback)
			{
				ereport(WARNING,
						(errmsg("stdesign: not listening on \"%s\": stdesign.http_auth = trust serves loopback addresses only", host),
						 errhint("Set stdesign.http_auth = sigv4 to serve other addresses.")));
				continue;
			}
			fd = open_listener(ai, host);
			if (fd < 0)
				continue;
			out[n].fd = fd;
			out[n].loopback = loopback;
			n++;
			appendStringInfo(&shown, "%s%s", shown.len ? ", " : "", host);
		}
		freeaddrinfo(res);
	}
	if (my_slot)
		strlcpy(my_slot->listening, shown.data, sizeof(my_slot->listening));
	return n;
}

/* ---------- the worker ---------- */

static void
http_worker_exit(int code, Datum arg)
{
	if (my_slot)
	{
		pg_atomic_write_u32(&my_slot->pid, 0);
		pg_atomic_write_u32(&my_slot->connections, 0);
	}
}

/* A reload: the settings, and the I/O thread's copy of those it reads. */
static void
reload_if_pending(void)
{
	if (ConfigReloadPending)
	{
		ConfigReloadPending = false;
		ProcessConfigFile(PGC_SIGHUP);
		http_dispatch_config();
		http_bound_lock_wait();
	}
}

/*
 * The C library's heap keeps what requests free, up to a bound.  glibc
 * gives the top of its heap back to the system once more than its trim
 * threshold is free there, and serves allocations past its mmap threshold
 * with mmap; both thresholds adapt to what the process frees, and after a
 * mix of operations a worker was found (bench/RESULTS.md) to give back and
 * fault in again the memory of every large request: a 100-key BatchGetItem
 * cost 3.5x its CPU time, 15% of it in page faults, until the worker
 * restarted.  Fixed thresholds keep up to HTTP_HEAP_KEEP of freed memory in
 * the worker for the next request (what a request's memory contexts and
 * its connections' buffers take again), and still give back what a rare huge
 * request leaves past it.
 */
#define HTTP_HEAP_KEEP	(32 * 1024 * 1024)

static void
keep_heap(void)
{
#ifdef __GLIBC__
	(void) mallopt(M_MMAP_THRESHOLD, HTTP_HEAP_KEEP);
	(void) mallopt(M_TRIM_THRESHOLD, HTTP_HEAP_KEEP);
#endif
}

void
http_worker_main(Datum arg)
{
	int			index = DatumGetInt32(arg);
	HttpListener listeners[HTTP_MAX_LISTENERS];
	int			n;

	pqsignal(SIGHUP, SignalHandlerForConfigReload);
	pqsignal(SIGTERM, die);
	pqsignal(SIGPIPE, SIG_IGN);
	BackgroundWorkerUnblockSignals();

	if (http_shared && index >= 0 && index < http_shared->nworkers)
	{
		my_slot = &http_shared->slots[index];
		pg_atomic_write_u32(&my_slot->pid, (uint32) MyProcPid);
		pg_atomic_write_u32(&my_slot->connections, 0);
		on_shmem_exit(http_worker_exit, (Datum) 0);
	}

	keep_heap();
	BackgroundWorkerInitializeConnection(http_database, NULL, 0);
	pgstat_report_appname("stdesign http");
	http_bound_lock_wait();

	/* the studio's page, read before the I/O thread serves it */
	http_studio_load();
	n = open_listeners(listeners);
	if (n == 0)
		ereport(ERROR,
				(errmsg("stdesign: the HTTP endpoint has no address to listen on (stdesign.http_listen_addresses = '%s', port %d)",
						http_listen_addresses, http_port)));
	for (int i = 0; i < n; i++)
		if (!http_listen(listeners[i].fd, listeners[i].loopback))
			ereport(ERROR, (errmsg("stdesign: could not serve the HTTP listening socket: %m")));
	request_context = AllocSetContextCreate(TopMemoryContext, "stdesign http request",
											ALLOCSET_DEFAULT_SIZES);
	http_dispatch_start(index);
	ereport(LOG,
			(errmsg("stdesign: HTTP worker %d listening on %s port %d (database \"%s\", auth %s)",
					index + 1, my_slot ? my_slot->listening : http_listen_addresses, http_port,
					http_database, http_auth == HTTP_AUTH_SIGV4 ? "sigv4" : "trust")));
	pgstat_report_activity(STATE_IDLE, NULL);

	for (;;)
	{
		HttpRequest req;
		MemoryContext old;

		ResetLatch(MyLatch);
		CHECK_FOR_INTERRUPTS();
		reload_if_pending();
		if (!http_dispatch_alive())
			ereport(ERROR, (errmsg("stdesign: the HTTP worker's I/O thread stopped")));
		for (;;)
		{
			/*
			 * A cancel that arrives between requests has nothing to cancel;
			 * termination (die) is acted on here.
			 */
			QueryCancelPending = false;
			CHECK_FOR_INTERRUPTS();
			old = MemoryContextSwitchTo(request_context);
			if (!http_dispatch_next(&req))
			{
				MemoryContextSwitchTo(old);
				break;
			}
			http_answer(&req);
			MemoryContextSwitchTo(old);
			MemoryContextReset(request_context);
			reload_if_pending();
		}

		/*
		 * Idle: wait, driving this worker's own connections meanwhile (the
		 * fast path); a request taken from one of them is answered here,
		 * as one from the queue is.
		 */
		old = MemoryContextSwitchTo(request_context);
		if (http_dispatch_wait(&req, 1000L))
		{
			QueryCancelPending = false;
			CHECK_FOR_INTERRUPTS();
			http_answer(&req);
		}
		MemoryContextSwitchTo(old);
		MemoryContextReset(request_context);
	}
}
