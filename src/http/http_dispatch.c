/*-------------------------------------------------------------------------
 *
 * http_dispatch.c
 *		The HTTP endpoint's I/O thread and the shared request queue through
 *		which any worker answers a request that another worker received.
 *
 * Each worker has two threads.  Its main thread does all the Postgres work
 * (transactions, SPI, memory contexts, signals).  Its I/O thread runs
 * libmicrohttpd on the worker's listening sockets: it accepts connections,
 * reads requests, and sends responses; it never calls Postgres (no palloc,
 * no ereport, no locks of Postgres): only libc, libmicrohttpd, st_crc32, the
 * queue below, guarded by a process-shared pthread mutex, and eventfds.  It
 * starts with every signal blocked, so Postgres's signal handlers only ever
 * run on the main thread.
 *
 * A complete request (headers, query string and body) goes into a slot of
 * the queue in shared memory, and its connection is suspended.  The I/O
 * thread then wakes an idle worker (its own first).  Whichever worker's main
 * thread claims the slot runs the request (http_protocol.c) and writes the
 * response into the slot, then tells the owner, the worker whose I/O thread
 * holds the connection; the owner's I/O thread resumes the connection and
 * sends the response.  So a worker busy with a long request (a wait for a
 * row lock) holds up no connection: another worker answers the requests of
 * all the connections it owns.  Both wake-ups are eventfds that the
 * postmaster creates when it loads the library, two per worker, which every
 * worker inherits: a write wakes the other process without a signal (a
 * latch's SetLatch sends SIGURG, which costs more, and is Postgres's).
 *
 * The fast path.  The hand-off above costs two thread switches and two
 * copies of the request and of the response per request; when a worker's
 * main thread is idle, it is not needed.  An idle main thread drives its
 * own daemons instead (it waits on their epoll descriptors with its latch,
 * and runs libmicrohttpd itself), and a request that completes there is
 * run at once on that thread, without a slot ("direct"): its response goes
 * straight to its connection, which the main thread resumes and sends.  The
 * daemons are run by one thread at a time, under mhd_lock (a mutex of this
 * process), and the I/O thread's state below is touched only under it; the
 * main thread never calls Postgres while it holds it (what it takes from
 * libmicrohttpd there it copies with malloc, and parses into memory
 * contexts only once it has let go).  While the main thread drives, the
 * I/O thread does not watch the daemons (their descriptors are disabled in
 * its epoll set) so that it does not wake for each request; when the main
 * thread stops driving, to run any request, it enables them again, and
 * wakes the I/O thread when libmicrohttpd has work that no descriptor will
 * signal (its timeout is 0: data already read, a resumed connection), so
 * that a request that runs long (a wait for a lock) holds up none of its
 * worker's other connections, as on the queue's path.  A request is taken
 * directly only by a worker marked idle in the queue (which it then is no
 * longer, so no request is queued for it meanwhile: no wake-up is lost),
 * only a complete one (a credentials check goes through the queue), and
 * only when no bound of workers per role applies (a request put back for
 * its role needs a slot); the main thread decides this for each request
 * from its own settings, so a reload applies to the next one.  Any other
 * request, and every request while the main thread is busy, takes the
 * queue as above.
 *
 * A slot holds requests and responses of up to HTTP_SLOT_INLINE bytes; a
 * larger one goes through a file in the data directory's pgsql_tmp, named
 * after the slot, written and read with plain system calls (Postgres
 * removes those files when it starts and after a crash).
 *
 * Slots are partitioned by owner, HTTP_SLOTS_PER_WORKER each; requests that
 * find their owner's slots taken wait in the I/O thread, suspended, until
 * one is free.  Runners take the oldest pending request of any owner.  A
 * worker that exits gives back what it holds: its own pending requests are
 * dropped (their connections close with it), the requests it was running
 * are answered with a 500 (their transactions were rolled back); a slot
 * whose owner is gone is freed by its runner.  A crash of any worker
 * restarts the whole server, which initialises the queue afresh.
 *
 * Bounds, so that no client makes a worker hold more than the settings
 * allow.  A request whose framing a proxy could read otherwise (two
 * Content-Length headers, a Transfer-Encoding libmicrohttpd would not
 * honour exactly) is refused with a 400 before anything else.  A body that
 * may be over HTTP_UNAUTH_BODY is not read until its credentials are
 * checked: the I/O thread cannot look up access keys (that is Postgres
 * work), so it queues the request's head alone, as a "check", and a
 * worker's main thread answers whether the key exists and is enabled; the
 * connection waits suspended before its body meanwhile (libmicrohttpd can
 * answer a request only before or after its body).  The bodies held at once
 * by all the I/O threads are counted in the queue (stdesign.http_max_buffer),
 * the connections of each worker by its I/O thread
 * (stdesign.http_max_connections): past them, a 503.  And a request the
 * worker that claimed it finds to be of a role that already has
 * stdesign.http_max_workers_per_role workers is put back, in its place,
 * marked with its role, which the workers skip until one of that role's
 * requests ends.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>
#include <microhttpd.h>

#include "common/file_utils.h"	/* PG_TEMP_FILE_PREFIX since 17 (st_compat.h) */
#include "common/st_compat.h"
#include "common/st_crc32.h"
#include "miscadmin.h"
#include "port/atomics.h"
#include "storage/fd.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "storage/proc.h"
#include "pgstat.h"
#include "utils/memutils.h"
#include "utils/timestamp.h"

#include "http_server.h"

/*
 * The I/O thread formats with the C library's snprintf, not Postgres's
 * replacement (port.h): nothing of Postgres runs on that thread.
 */
#undef snprintf

#define JSON_CT		"application/x-amz-json-1.0"

typedef enum HttpSlotState
{
	SLOT_FREE,
	SLOT_FILLING,				/* its owner's I/O thread writes the request */
	SLOT_PENDING,				/* waits for a worker */
	SLOT_RUNNING,				/* a worker's main thread runs it */
	SLOT_DONE					/* the response waits for the owner */
} HttpSlotState;

typedef struct HttpSlot
{
	HttpSlotState state;
	int			owner;			/* worker index whose I/O thread holds the
								 * connection */
	uint32		owner_pid;		/* that worker's process when queued */
	int			runner;			/* worker index running it (RUNNING) */
	uint64		seq;			/* queue order */
	bool		loopback;		/* received on a loopback address */
	bool		check;			/* headers only: a credentials check */
	Oid			role_hint;		/* PENDING: put back, it runs as this role */
	bool		in_file;		/* request (PENDING) or response (DONE) in
								 * the slot's file */
	uint32		len;			/* its length */
	int			status;			/* the response's HTTP status */
	char		request_id[HTTP_REQUEST_ID_LEN + 1];
	char		data[HTTP_SLOT_INLINE];
} HttpSlot;

typedef struct HttpQueueWorker
{
	uint32		pid;			/* 0: not running */
	bool		idle;			/* its main thread waits for work */
} HttpQueueWorker;

/*
 * A role's requests being run (busy) and put back (waiting), for
 * stdesign.http_max_workers_per_role.  At most one busy request per worker,
 * so twice as many entries leave room for roles that only wait.
 */
typedef struct HttpRoleCount
{
	Oid			role;
	int			busy;
	int			waiting;
} HttpRoleCount;

#define HTTP_ROLE_ENTRIES	(2 * HTTP_MAX_WORKERS)

typedef struct HttpQueue
{
	pthread_mutex_t lock;
	int			nworkers;
	uint64		next_seq;
	pg_atomic_uint64 buffered;	/* body bytes the I/O threads hold */
	HttpRoleCount roles[HTTP_ROLE_ENTRIES];
	HttpQueueWorker workers[HTTP_MAX_WORKERS];
	HttpSlot	slots[FLEXIBLE_ARRAY_MEMBER];
} HttpQueue;

/* The serialized request: this, then the strings, then the body. */
typedef struct HttpBlobHead
{
	uint32		nheaders;
	uint32		nquery;
	uint32		strings_len;	/* method, url, then name and value pairs */
	uint32		body_len;
} HttpBlobHead;

static HttpQueue *http_queue = NULL;

/* ---------- this process: fixed before the I/O thread starts ---------- */

static int	my_index = -1;
static char tmp_dir[MAXPGPATH];
static int	wake_fd = -1;		/* eventfd: the main thread stops or wakes
								 * its I/O thread */
static int	io_ep = -1;			/* the I/O thread's epoll set */
static int	io_daemon_fds[HTTP_MAX_LISTENERS];	/* the daemons' epoll fds */

/*
 * An epoll set of the daemons' epoll sets, in io_ep as one entry: the
 * I/O thread's watch of every daemon is turned off and on with one system
 * call (twice per request on the fast path), whatever the number of
 * addresses listened on.
 */
static int	io_daemons_ep = -1;

/*
 * The daemons and the I/O thread's state (io_daemons, io_due, the
 * uploads, io_slot_upload, the wait list, io_nconnections, io_counted)
 * belong to whichever thread holds this; the main thread holds it only in
 * short stretches that never call Postgres (no palloc, no elog).
 */
static pthread_mutex_t mhd_lock = PTHREAD_MUTEX_INITIALIZER;
static bool main_drives = false;	/* the idle main thread watches the
									 * daemons; the I/O thread does not */
static bool main_in_run = false;	/* the main thread runs the daemons (the
									 * callbacks may take a request directly) */
static struct HttpUpload *direct_taken = NULL;	/* taken in that run */
static struct HttpUpload *direct_running = NULL;	/* being answered directly */
static uint64 io_counted = 0;	/* this process's share of the queue's
								 * buffered bytes, given back on exit */

/* The main thread's wait sets: without and with the daemons. */
static WaitEventSet *plain_set = NULL;
static WaitEventSet *drive_set = NULL;

/*
 * This worker's io_work_fds entry may hold wake-ups: not known to be empty
 * since a wait last returned other than for a daemon.  While it is false,
 * http_dispatch_next skips reading it (a system call per request on the
 * fast path); a wake-up that arrives meanwhile is seen by the next wait
 * (level triggered), which sets it again.
 */
static bool work_maybe = true;

/*
 * Eventfds made by the postmaster (http_dispatch_preload), inherited: a
 * worker's main thread waits on its io_work_fds entry for requests to run,
 * its I/O thread on its io_done_fds entry for responses to send.
 */
static int	io_nfds = 0;
static int	io_work_fds[HTTP_MAX_WORKERS];
static int	io_done_fds[HTTP_MAX_WORKERS];
static pthread_t io_thread;
static bool io_started = false;
static volatile sig_atomic_t io_stop = false;
static volatile sig_atomic_t io_failed = false;
static struct MHD_Daemon *io_daemons[HTTP_MAX_LISTENERS];
static int	io_ndaemons = 0;
static bool io_due[HTTP_MAX_LISTENERS];	/* daemons with work to run */

/* The settings the I/O thread reads, copied on start and on reload. */
static pthread_mutex_t io_config_lock = PTHREAD_MUTEX_INITIALIZER;
static char io_cors_origin[256];
static uint64 io_max_buffer;	/* stdesign.http_max_buffer, in bytes */
static int	io_max_connections; /* stdesign.http_max_connections */

/*
 * Connections past stdesign.http_max_connections get a 503 to their first
 * request (and are closed); past this many more, libmicrohttpd closes them
 * as soon as they are accepted.
 */
#define HTTP_CONNECTION_MARGIN 64

/* The role whose count this worker's running request holds (main thread). */
static Oid	running_role = InvalidOid;

/* ---------- the I/O thread's own ---------- */

typedef enum HttpUploadState
{
	UP_READING,					/* the body arrives */
	UP_WAITING,					/* suspended, no slot free yet */
	UP_CHECKING,				/* suspended, its credentials checked in a slot */
	UP_QUEUED,					/* suspended, in a slot */
	UP_DIRECT,					/* suspended, run by this worker's main
								 * thread without a slot */
	UP_ANSWERED					/* resumed with its response */
} HttpUploadState;

/* Per request (libmicrohttpd's con_cls). */
typedef struct HttpUpload
{
	HttpUploadState state;
	struct MHD_Connection *conn;
	bool		loopback;
	int			daemon;			/* index in io_daemons */
	const char *method;			/* libmicrohttpd's, valid until the end */
	const char *url;
	char	   *data;			/* the body as it arrives */
	size_t		len;
	size_t		cap;
	size_t		counted;		/* bytes counted in the queue's buffered ones */
	size_t		expect;			/* its Content-Length (0: none) */
	bool		check_pending;	/* its credentials are (to be) checked */
	bool		at_headers;		/* suspended before its body, for the check */
	char		request_id[HTTP_REQUEST_ID_LEN + 1];
	int			status;			/* the response (UP_ANSWERED) */
	char	   *resp;
	size_t		resp_len;
	struct HttpUpload *next;	/* UP_WAITING: the wait list */
} HttpUpload;

static HttpUpload *io_slot_upload[HTTP_SLOTS_PER_WORKER];
static HttpUpload *io_wait_head = NULL;
static HttpUpload *io_wait_tail = NULL;
static int	io_nconnections = 0;	/* this worker's open connections */

/* ---------- shared memory ---------- */

Size
http_queue_shmem_size(int nworkers)
{
	return add_size(offsetof(HttpQueue, slots),
					mul_size(sizeof(HttpSlot), mul_size(nworkers, HTTP_SLOTS_PER_WORKER)));
}

void
http_queue_shmem_init(void *base, int nworkers)
{
	pthread_mutexattr_t attr;

	http_queue = base;
	memset(http_queue, 0, http_queue_shmem_size(nworkers));
	pthread_mutexattr_init(&attr);
	pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
	pthread_mutex_init(&http_queue->lock, &attr);
	pthread_mutexattr_destroy(&attr);
	http_queue->nworkers = nworkers;
	pg_atomic_init_u64(&http_queue->buffered, 0);
	for (int i = 0; i < nworkers * HTTP_SLOTS_PER_WORKER; i++)
		http_queue->slots[i].owner = i / HTTP_SLOTS_PER_WORKER;
}

void
http_queue_attach(void *base)
{
	http_queue = base;
}

static inline void
queue_lock(void)
{
	pthread_mutex_lock(&http_queue->lock);
}

static inline void
queue_unlock(void)
{
	pthread_mutex_unlock(&http_queue->lock);
}

static void
slot_path(char *buf, size_t size, int slot, const char *kind)
{
	snprintf(buf, size, "%s/%s_stdesign_http_%d.%s", tmp_dir, PG_TEMP_FILE_PREFIX, slot, kind);
}

/* Write all of buf at the file's current position; false on error. */
static bool
write_all(int fd, const char *buf, size_t len)
{
	while (len > 0)
	{
		ssize_t		n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		buf += n;
		len -= n;
	}
	return true;
}

static bool
read_all(int fd, char *buf, size_t len)
{
	while (len > 0)
	{
		ssize_t		n = read(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		buf += n;
		len -= n;
	}
	return true;
}

/* Write head + tail into a fresh file; false on error (nothing left). */
static bool
write_file(const char *path, const char *head, size_t head_len, const char *tail, size_t tail_len)
{
	int			fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, S_IRUSR | S_IWUSR);
	bool		ok;

	if (fd < 0)
		return false;
	ok = write_all(fd, head, head_len) && write_all(fd, tail, tail_len);
	if (close(fd) != 0)
		ok = false;
	if (!ok)
		unlink(path);
	return ok;
}

/* Read a file of len bytes into buf, then remove it (if remove). */
static bool
read_file(const char *path, char *buf, size_t len, bool remove)
{
	int			fd = open(path, O_RDONLY | O_CLOEXEC);
	bool		ok;

	if (fd < 0)
		return false;
	ok = read_all(fd, buf, len);
	close(fd);
	if (remove)
		unlink(path);
	return ok;
}

/* Add one to an eventfd (a wake-up); a full counter is a wake-up already. */
static void
bump(int fd)
{
	uint64		one = 1;

	if (write(fd, &one, sizeof(one)) < 0)
	{
		/* EAGAIN: the counter is full, so a wake-up is waiting */
	}
}

/* Take an eventfd's wake-ups. */
static void
io_drain_fd(int fd)
{
	uint64		count;

	if (read(fd, &count, sizeof(count)) < 0)
	{
		/* EAGAIN: none */
	}
}

/* ====================================================================== */
/*							 the I/O thread								  */
/* ====================================================================== */

/*
 * DynamoDB's request ids: 52 upper-case letters and digits.  They need to
 * be unique, not secret: splitmix64 over a seed from getrandom(), taken
 * once (a system call per request costs more than the rest of this).
 */
static void
io_request_id(char *out)
{
	static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	static uint64 state = 0;
	uint64		z = 0;

	while (state == 0)
	{
		if (getrandom(&state, sizeof(state), 0) != sizeof(state))
			state = ((uint64) getpid() << 32) ^ (uint64) time(NULL);
	}
	for (int i = 0; i < HTTP_REQUEST_ID_LEN; i++)
	{
		/* twelve characters per 64 bits (36^12 < 2^64) */
		if (i % 12 == 0)
		{
			z = (state += UINT64CONST(0x9E3779B97F4A7C15));
			z = (z ^ (z >> 30)) * UINT64CONST(0xBF58476D1CE4E5B9);
			z = (z ^ (z >> 27)) * UINT64CONST(0x94D049BB133111EB);
			z ^= z >> 31;
		}
		out[i] = alphabet[z % 36];
		z /= 36;
	}
	out[HTTP_REQUEST_ID_LEN] = '\0';
}

/* The allowed origin for this request's Origin header, or NULL. */
static const char *
io_cors_allowed(struct MHD_Connection *conn, char *buf, size_t size)
{
	const char *origin = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Origin");
	const char *allow = NULL;

	if (origin == NULL)
		return NULL;
	pthread_mutex_lock(&io_config_lock);
	if (io_cors_origin[0] == '\0')
		allow = NULL;
	else if (strcmp(io_cors_origin, "*") == 0)
		allow = "*";
	else if (strcmp(io_cors_origin, origin) == 0)
		allow = origin;
	pthread_mutex_unlock(&io_config_lock);
	if (allow == NULL)
		return NULL;
	snprintf(buf, size, "%s", allow);
	return buf;
}

/*
 * Queue a response: every one carries the request id, the CRC-32 of the
 * exact bytes sent, and DynamoDB's content type.  body is malloc'd and
 * given to libmicrohttpd (or freed here).  close: the connection is closed
 * once it is sent (what follows on it cannot be trusted, or is not read).
 */
static enum MHD_Result
io_send(struct MHD_Connection *conn, const char *request_id, int status,
		char *body, size_t len, bool preflight, bool close)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;
	char		crc[16];
	char		allow[256];

	snprintf(crc, sizeof(crc), "%lu", (unsigned long) st_crc32(0, body, len));
	resp = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (resp == NULL)
	{
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(resp, "x-amzn-RequestId", request_id);
	MHD_add_response_header(resp, "x-amz-crc32", crc);
	MHD_add_response_header(resp, "Content-Type", JSON_CT);
	if (close)
		MHD_add_response_header(resp, "Connection", "close");
	if (io_cors_allowed(conn, allow, sizeof(allow)))
	{
		MHD_add_response_header(resp, "Access-Control-Allow-Origin", allow);
		if (preflight)
		{
			const char *h = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Access-Control-Request-Headers");
			const char *m = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Access-Control-Request-Method");

			/*
			 * echoed only when short: the answer's headers share the
			 * connection's 16 kB with the request's (HTTP_CONNECTION_MEMORY),
			 * and a browser asks for a few names
			 */
			if (h && strlen(h) <= 2048)
				MHD_add_response_header(resp, "Access-Control-Allow-Headers", h);
			MHD_add_response_header(resp, "Access-Control-Allow-Methods", m ? m : "POST, GET, OPTIONS");
			MHD_add_response_header(resp, "Access-Control-Max-Age", "172800");
		}
		else
			MHD_add_response_header(resp, "Access-Control-Expose-Headers",
									"x-amzn-RequestId, x-amz-crc32");
	}
	ret = MHD_queue_response(conn, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result
io_send_text(struct MHD_Connection *conn, int status, const char *text, bool preflight)
{
	char		id[HTTP_REQUEST_ID_LEN + 1];
	size_t		len = strlen(text);
	char	   *body = malloc(len + 1);

	if (body == NULL)
		return MHD_NO;
	memcpy(body, text, len + 1);
	io_request_id(id);
	return io_send(conn, id, status, body, len, preflight, false);
}

/*
 * An error the I/O thread answers itself, in DynamoDB's shape, and the
 * connection closed after it (the request's body is not read, or its
 * framing is in doubt).  type is the full __type; message has no character
 * to escape.
 */
static enum MHD_Result
io_send_error(struct MHD_Connection *conn, int status, const char *type, const char *message)
{
	char		id[HTTP_REQUEST_ID_LEN + 1];
	char		text[512];
	char	   *body;
	int			len;

	len = snprintf(text, sizeof(text), "{\"__type\": \"%s\", \"message\": \"%s\"}", type, message);
	if (len < 0 || (size_t) len >= sizeof(text) || (body = malloc(len + 1)) == NULL)
		return MHD_NO;
	memcpy(body, text, len + 1);
	io_request_id(id);
	http_stats_io_request(NULL, false);
	return io_send(conn, id, status, body, len, false, true);
}

/* ---------- serializing a request into a slot ---------- */

typedef struct BlobWriter
{
	char	   *out;			/* NULL: only measure */
	size_t		len;
	uint32		n;
} BlobWriter;

static void
blob_put(BlobWriter *w, const char *s)
{
	size_t		l = strlen(s) + 1;

	if (w->out)
		memcpy(w->out + w->len, s, l);
	w->len += l;
}

static enum MHD_Result
blob_value(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	BlobWriter *w = cls;

	blob_put(w, key ? key : "");
	blob_put(w, value ? value : "");
	w->n++;
	return MHD_YES;
}

/*
 * The request's head (counts, method, url, headers, query arguments) in a
 * malloc'd buffer; NULL when out of memory.
 */
static char *
io_blob_head(struct MHD_Connection *conn, const char *method, const char *url,
			 size_t body_len, size_t *len)
{
	BlobWriter	w = {0};
	HttpBlobHead head = {0};
	char	   *buf;

	/* measure, then write */
	for (int pass = 0; pass < 2; pass++)
	{
		w.len = 0;
		blob_put(&w, method);
		blob_put(&w, url);
		w.n = 0;
		MHD_get_connection_values(conn, MHD_HEADER_KIND, blob_value, &w);
		head.nheaders = w.n;
		w.n = 0;
		MHD_get_connection_values(conn, MHD_GET_ARGUMENT_KIND, blob_value, &w);
		head.nquery = w.n;
		if (pass == 0)
		{
			buf = malloc(sizeof(head) + w.len);
			if (buf == NULL)
				return NULL;
			w.out = buf + sizeof(head);
		}
	}
	head.strings_len = w.len;
	head.body_len = body_len;
	memcpy(buf, &head, sizeof(head));
	*len = sizeof(head) + w.len;
	return buf;
}

/* A free slot of this worker, now FILLING; -1 when none. */
static int
io_take_slot(void)
{
	int			base = my_index * HTTP_SLOTS_PER_WORKER;
	int			found = -1;

	queue_lock();
	for (int i = 0; i < HTTP_SLOTS_PER_WORKER; i++)
		if (http_queue->slots[base + i].state == SLOT_FREE)
		{
			found = base + i;
			http_queue->slots[found].state = SLOT_FILLING;
			break;
		}
	queue_unlock();
	return found;
}

static void
io_free_slot(int slot)
{
	queue_lock();
	http_queue->slots[slot].state = SLOT_FREE;
	queue_unlock();
}

/*
 * Make the FILLING slot pending and wake a worker: this one when idle,
 * else another idle one; when none is idle, all are busy and each takes the
 * oldest pending request when it is done with its own.
 */
static void
io_publish(int slot)
{
	HttpSlot   *s = &http_queue->slots[slot];
	int			wake = -1;
	int			n;

	queue_lock();
	n = http_queue->nworkers;
	s->state = SLOT_PENDING;
	s->owner_pid = http_queue->workers[my_index].pid;
	s->seq = http_queue->next_seq++;
	for (int k = 0; k < n; k++)
	{
		int			w = (my_index + k) % n;
		HttpQueueWorker *qw = &http_queue->workers[w];

		if (qw->pid != 0 && qw->idle)
		{
			qw->idle = false;
			wake = w;
			break;
		}
	}
	queue_unlock();
	if (wake >= 0 && wake < io_nfds)
		bump(io_work_fds[wake]);
}

/* Count n more body bytes held by I/O threads; false past the bound. */
static bool
io_buffer_take(size_t n)
{
	uint64		limit;

	pthread_mutex_lock(&io_config_lock);
	limit = io_max_buffer;
	pthread_mutex_unlock(&io_config_lock);
	if (pg_atomic_add_fetch_u64(&http_queue->buffered, n) > limit)
	{
		pg_atomic_sub_fetch_u64(&http_queue->buffered, n);
		return false;
	}
	io_counted += n;
	return true;
}

/* An upload's body is gone: its bytes no longer count. */
static void
io_buffer_free(HttpUpload *up)
{
	if (up->counted > 0)
	{
		pg_atomic_sub_fetch_u64(&http_queue->buffered, up->counted);
		io_counted -= up->counted;
	}
	free(up->data);
	up->data = NULL;
	up->len = up->cap = up->counted = 0;
}

/*
 * Put a complete request into the FILLING slot, or (check_pending) only its
 * head, for a worker to check its credentials; false when it cannot be.
 */
static bool
io_enqueue(HttpUpload *up, int slot)
{
	HttpSlot   *s = &http_queue->slots[slot];
	char	   *head;
	size_t		head_len;
	size_t		body_len = up->check_pending ? 0 : up->len;
	bool		ok = true;

	head = io_blob_head(up->conn, up->method, up->url, body_len, &head_len);
	if (head == NULL)
		return false;
	s->loopback = up->loopback;
	s->check = up->check_pending;
	s->role_hint = InvalidOid;
	s->len = head_len + body_len;
	memcpy(s->request_id, up->request_id, sizeof(s->request_id));
	if (s->len <= HTTP_SLOT_INLINE)
	{
		s->in_file = false;
		memcpy(s->data, head, head_len);
		if (body_len > 0)
			memcpy(s->data + head_len, up->data, body_len);
	}
	else
	{
		char		path[MAXPGPATH];

		s->in_file = true;
		slot_path(path, sizeof(path), slot, "req");
		ok = write_file(path, head, head_len, up->data ? up->data : "", body_len);
	}
	free(head);
	if (!ok)
		return false;
	io_slot_upload[slot - my_index * HTTP_SLOTS_PER_WORKER] = up;
	if (up->check_pending)
		up->state = UP_CHECKING;	/* the body so far stays here */
	else
	{
		/* the body now lives in the slot */
		io_buffer_free(up);
		up->state = UP_QUEUED;
	}
	io_publish(slot);
	return true;
}

/* A 500 from the I/O thread itself (out of memory, no file written). */
static void
io_fail(HttpUpload *up)
{
	static const char body[] = "{\"__type\": \"com.amazonaws.dynamodb.v20120810#InternalServerError\", \"message\": \"Internal server error\"}";

	up->status = 500;
	up->resp = malloc(sizeof(body) - 1);
	up->resp_len = up->resp ? sizeof(body) - 1 : 0;
	if (up->resp)
		memcpy(up->resp, body, sizeof(body) - 1);
	up->state = UP_ANSWERED;
	http_stats_io_request(NULL, false);
}

/* Give the requests waiting for a slot those that are free. */
static void
io_drain_waiting(void)
{
	while (io_wait_head)
	{
		HttpUpload *up = io_wait_head;
		int			slot = io_take_slot();

		if (slot < 0)
			return;
		io_wait_head = up->next;
		if (io_wait_head == NULL)
			io_wait_tail = NULL;
		up->next = NULL;
		if (!io_enqueue(up, slot))
		{
			io_free_slot(slot);
			io_fail(up);
			MHD_resume_connection(up->conn);
			io_due[up->daemon] = true;
		}
	}
}

/* Take the responses of this worker's DONE slots and resume their connections. */
static void
io_collect(void)
{
	int			base = my_index * HTTP_SLOTS_PER_WORKER;
	bool		done[HTTP_SLOTS_PER_WORKER];
	bool		any = false;

	queue_lock();
	for (int i = 0; i < HTTP_SLOTS_PER_WORKER; i++)
	{
		done[i] = http_queue->slots[base + i].state == SLOT_DONE;
		any |= done[i];
	}
	queue_unlock();
	if (!any)
		return;
	for (int i = 0; i < HTTP_SLOTS_PER_WORKER; i++)
	{
		HttpSlot   *s = &http_queue->slots[base + i];
		HttpUpload *up = io_slot_upload[i];
		bool		ok = true;

		if (!done[i])
			continue;
		/* a DONE slot is the owner's alone until it frees it */
		if (up != NULL)
		{
			up->status = s->status;
			up->resp_len = s->len;
			up->resp = malloc(Max(s->len, 1));
			if (up->resp == NULL)
				ok = false;
			else if (s->in_file)
			{
				char		path[MAXPGPATH];

				slot_path(path, sizeof(path), base + i, "resp");
				ok = read_file(path, up->resp, s->len, true);
			}
			else
				memcpy(up->resp, s->data, s->len);
			if (!ok)
			{
				free(up->resp);
				up->resp = NULL;
				io_fail(up);
			}
			if (ok && up->state == UP_CHECKING && s->status == HTTP_STATUS_CHECKED)
			{
				/* the credentials passed: read the body on */
				free(up->resp);
				up->resp = NULL;
				up->check_pending = false;
				up->state = UP_READING;
			}
			else
				up->state = UP_ANSWERED;
			io_slot_upload[i] = NULL;
		}
		else if (s->in_file)
		{
			char		path[MAXPGPATH];

			slot_path(path, sizeof(path), base + i, "resp");
			unlink(path);
		}
		io_free_slot(base + i);
		if (up != NULL)
		{
			MHD_resume_connection(up->conn);
			io_due[up->daemon] = true;
		}
	}
	io_drain_waiting();
}

/* ---------- libmicrohttpd's callbacks (I/O thread) ---------- */

static enum MHD_Result
io_too_large(struct MHD_Connection *conn)
{
	http_stats_io_request(NULL, false);
	return io_send_text(conn, 413, "", false);
}

/*
 * What DynamoDB answers without running anything, in its order: CORS
 * preflight, GET (health), other methods and content types (404).  false:
 * the request is for a worker.
 */
static bool
io_answer_locally(HttpUpload *up, enum MHD_Result *ret)
{
	struct MHD_Connection *conn = up->conn;
	const char *ct;
	char		allow[256];

	if (strcmp(up->method, "OPTIONS") == 0 &&
		io_cors_allowed(conn, allow, sizeof(allow)))
	{
		*ret = io_send_text(conn, 200, "", true);
		return true;
	}
	if (strcmp(up->method, "GET") == 0)
	{
		const char *host;
		char		body[1024];
		int			studio;

		/* the design studio's page (http_studio.c) */
		if (http_studio_serve(conn, up->url, up->loopback, &studio))
		{
			*ret = (enum MHD_Result) studio;
			return true;
		}
		host = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Host");
		snprintf(body, sizeof(body), "healthy: %s ", host ? host : "localhost");
		*ret = io_send_text(conn, 200, body, false);
		return true;
	}
	ct = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Type");
	if (strcmp(up->method, "POST") != 0 ||
		(up->len > 0 && (ct == NULL ||
						 (strncmp(ct, JSON_CT, strlen(JSON_CT)) != 0 &&
						  strncmp(ct, "application/json", 16) != 0))))
	{
		*ret = io_send_text(conn, 404, "<UnknownOperationException/>\n", false);
		return true;
	}
	return false;
}

/*
 * Is the request's framing ambiguous?  A proxy in front (for TLS, as
 * docs/http.md recommends) may read the body's length otherwise than
 * libmicrohttpd does, and take what follows for another request (request
 * smuggling).  libmicrohttpd 0.9.75 takes the first Content-Length header,
 * and honours Transfer-Encoding only when its whole value is "chunked";
 * it keeps a header whose name has a space before the colon under that name
 * (so "Transfer-Encoding : chunked" is not a transfer coding to it).  So,
 * as RFC 9112 (sections 5.1, 6.1, 6.3) lets a server do, refuse: a field
 * name that is not a token, more than one Content-Length or
 * Transfer-Encoding, a Content-Length that is not digits, a
 * Transfer-Encoding other than "chunked" or with a Content-Length, and a
 * Transfer-Encoding in HTTP/1.0.  The message says which; NULL: none.
 */
typedef struct FramingScan
{
	int			content_length;
	int			transfer_encoding;
	const char *bad;
} FramingScan;

/*
 * A header field name is a token (RFC 9110, 5.6.2): visible ASCII but the
 * delimiters.  Checked a character at a time rather than by strspn with
 * the allowed set, which builds a table of the set on every call (a header
 * of every request passes here).
 */
static bool
is_token(const char *s)
{
	static const char *const other = "!#$%&'*+-.^_`|~";

	if (s == NULL || *s == '\0')
		return false;
	for (; *s; s++)
	{
		unsigned char c = (unsigned char) *s;

		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			  strchr(other, c) != NULL))
			return false;
	}
	return true;
}

static enum MHD_Result
io_framing_header(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	FramingScan *f = cls;

	if (!is_token(key))
	{
		f->bad = "Invalid header field name";
		return MHD_NO;
	}
	if (strcasecmp(key, "Content-Length") == 0)
	{
		f->content_length++;
		if (value == NULL || value[0] == '\0' || value[strspn(value, "0123456789")] != '\0')
			f->bad = "Invalid Content-Length";
	}
	else if (strcasecmp(key, "Transfer-Encoding") == 0)
	{
		f->transfer_encoding++;
		if (value == NULL || strcasecmp(value, "chunked") != 0)
			f->bad = "Unsupported Transfer-Encoding";
	}
	return f->bad ? MHD_NO : MHD_YES;
}

static const char *
io_bad_framing(struct MHD_Connection *conn, const char *version)
{
	FramingScan f = {0};

	MHD_get_connection_values(conn, MHD_HEADER_KIND, io_framing_header, &f);
	if (f.bad)
		return f.bad;
	if (f.content_length > 1)
		return "Multiple Content-Length headers";
	if (f.transfer_encoding > 1)
		return "Multiple Transfer-Encoding headers";
	if (f.transfer_encoding > 0 && f.content_length > 0)
		return "Both Transfer-Encoding and Content-Length";
	if (f.transfer_encoding > 0 && strcmp(version, MHD_HTTP_VERSION_1_1) != 0)
		return "Transfer-Encoding needs HTTP/1.1";
	return NULL;
}

/*
 * Queue the suspended upload in a free slot of this worker (the whole
 * request, or its head to be checked), or put it on the wait list.
 */
static void
io_queue(HttpUpload *up)
{
	int			slot = io_take_slot();

	if (slot < 0)
	{
		/* every slot of this worker is taken: wait for one, in order */
		up->state = UP_WAITING;
		if (io_wait_tail)
			io_wait_tail->next = up;
		else
			io_wait_head = up;
		io_wait_tail = up;
		return;
	}
	if (!io_enqueue(up, slot))
	{
		io_free_slot(slot);
		io_fail(up);
		MHD_resume_connection(up->conn);
	}
}

/*
 * The body's bytes, counted in stdesign.http_max_buffer (all the workers'
 * bodies at once) before they are read: false past it.  With a
 * Content-Length, all of them at once, before the body (where a 503 can
 * still be answered); a chunked body as it grows.
 */
static bool
io_buffer_reserve(HttpUpload *up, size_t want)
{
	if (want <= up->counted)
		return true;
	if (!io_buffer_take(want - up->counted))
		return false;
	up->counted = want;
	return true;
}

static enum MHD_Result
io_unavailable(struct MHD_Connection *conn)
{
	return io_send_error(conn, 503, "com.amazonaws.dynamodb.v20120810#ServiceUnavailableException",
						 "Too many request bytes in flight (stdesign.http_max_buffer)");
}

static int	role_bound(void);

/*
 * Does the fast path apply (main thread: its settings, read per request,
 * so a reload applies to the next one)?  Not when a bound of workers per
 * role does: a request put back for its role needs a slot.
 */
static bool
fast_path_applies(void)
{
	return http_fast_path && role_bound() == 0;
}

/*
 * May the request that just completed be run directly by this worker's
 * main thread (the fast path)?  Only while that thread runs the daemons
 * itself (so this is the main thread, and its settings are current), for
 * one request per run, when no bound of workers per role applies, and when
 * the queue still counts this worker idle: it is then marked busy, so no
 * request is queued for it meanwhile (one queued before has marked it busy
 * already and woken it: the request then goes through the queue behind
 * it, and no wake-up is lost).
 */
static bool
io_claim_direct(HttpUpload *up)
{
	bool		ok = false;

	if (!main_in_run || direct_taken != NULL || direct_running != NULL ||
		up->check_pending || !fast_path_applies())
		return false;
	queue_lock();
	if (http_queue->workers[my_index].idle)
	{
		http_queue->workers[my_index].idle = false;
		ok = true;
	}
	queue_unlock();
	return ok;
}

static enum MHD_Result
io_access(void *cls, struct MHD_Connection *conn, const char *url,
		  const char *method, const char *version, const char *upload_data,
		  size_t *upload_data_size, void **con_cls)
{
	HttpUpload *up = *con_cls;
	enum MHD_Result ret;

	if (up == NULL)
	{
		const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Length");
		const char *bad = io_bad_framing(conn, version);
		int			max_connections;

		up = calloc(1, sizeof(HttpUpload));
		if (up == NULL)
			return MHD_NO;
		*con_cls = up;
		up->conn = conn;
		/* cls: the daemon's index, twice, plus 1 for a loopback address */
		up->loopback = ((intptr_t) cls & 1) != 0;
		up->daemon = (int) ((intptr_t) cls >> 1);
		up->method = method;
		up->url = url;
		if (bad)
			return io_send_error(conn, 400, "com.amazon.coral.service#SerializationException", bad);
		pthread_mutex_lock(&io_config_lock);
		max_connections = io_max_connections;
		pthread_mutex_unlock(&io_config_lock);
		if (io_nconnections > max_connections)
			return io_send_error(conn, 503, "com.amazonaws.dynamodb.v20120810#ServiceUnavailableException",
								 "Too many connections (stdesign.http_max_connections)");
		if (cl && strtoull(cl, NULL, 10) > HTTP_MAX_BODY)
			return io_too_large(conn);
		up->expect = cl ? (size_t) strtoull(cl, NULL, 10) : 0;

		/*
		 * A body that may be over HTTP_UNAUTH_BODY (by its Content-Length,
		 * or chunked) is read only once a worker has found the request's
		 * access key: an unknown client cannot make the worker hold more
		 * than that per connection.  The connection waits, suspended before
		 * its body, and libmicrohttpd calls here again once it is resumed.
		 */
		if (up->expect > HTTP_UNAUTH_BODY ||
			MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Transfer-Encoding") != NULL)
		{
			io_request_id(up->request_id);
			up->check_pending = true;
			up->at_headers = true;
			MHD_suspend_connection(conn);
			io_queue(up);
			return MHD_YES;
		}
		if (!io_buffer_reserve(up, up->expect))
			return io_unavailable(conn);
		return MHD_YES;
	}
	if (up->state == UP_ANSWERED)
	{
		char	   *body = up->resp;

		up->resp = NULL;
		if (body == NULL)
			return MHD_NO;
		/* a refused check: the body is not read, the connection closed */
		return io_send(conn, up->request_id, up->status, body, up->resp_len, false, up->check_pending);
	}
	if (up->state != UP_READING)
		return MHD_YES;			/* suspended: nothing to do until resumed */
	if (up->at_headers)
	{
		/* resumed: the check passed, the body may come */
		up->at_headers = false;
		if (!io_buffer_reserve(up, up->expect))
			return io_unavailable(conn);
		return MHD_YES;
	}
	if (*upload_data_size > 0)
	{
		size_t		n = *upload_data_size;

		*upload_data_size = 0;
		if (up->len + n > HTTP_MAX_BODY)
			return io_too_large(conn);
		if (up->len + n > up->cap)
		{
			size_t		cap = Max(up->cap * 2, up->len + n);
			char	   *d;

			if (up->expect >= up->len + n)
				cap = up->expect;
			cap = Min(cap, HTTP_MAX_BODY);

			/*
			 * A chunked body past stdesign.http_max_buffer: libmicrohttpd
			 * cannot answer in the middle of a body, so its connection is
			 * closed.
			 */
			if (!io_buffer_reserve(up, cap))
				return MHD_NO;
			d = realloc(up->data, cap);
			if (d == NULL)
				return MHD_NO;
			up->data = d;
			up->cap = cap;
		}
		memcpy(up->data + up->len, upload_data, n);
		up->len += n;
		return MHD_YES;
	}

	/* the whole request has arrived */
	if (io_answer_locally(up, &ret))
		return ret;
	io_request_id(up->request_id);
	MHD_suspend_connection(conn);
	if (io_claim_direct(up))
	{
		up->state = UP_DIRECT;
		direct_taken = up;
		return MHD_YES;
	}
	io_queue(up);
	return MHD_YES;
}

static void
io_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	HttpUpload *up = *con_cls;

	if (up == NULL)
		return;
	/* a request run directly: its answer has no connection to go to */
	if (direct_taken == up)
		direct_taken = NULL;
	if (direct_running == up)
		direct_running = NULL;
	/* a queued request's slot still names it: forget it there */
	for (int i = 0; i < HTTP_SLOTS_PER_WORKER; i++)
		if (io_slot_upload[i] == up)
			io_slot_upload[i] = NULL;
	if (up->state == UP_WAITING)
	{
		HttpUpload **p = &io_wait_head;

		io_wait_tail = NULL;
		while (*p)
		{
			if (*p == up)
				*p = up->next;
			else
			{
				io_wait_tail = *p;
				p = &(*p)->next;
			}
		}
	}
	io_buffer_free(up);
	free(up->resp);
	free(up);
	*con_cls = NULL;
}

static void
io_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
			  enum MHD_ConnectionNotificationCode toe)
{
	io_nconnections += (toe == MHD_CONNECTION_NOTIFY_STARTED ? 1 : -1);
	http_stats_connection(toe == MHD_CONNECTION_NOTIFY_STARTED ? 1 : -1);
}

/*
 * A new connection: refused (closed at once) past stdesign.http_max_connections
 * and the margin in which the first request is answered 503.
 */
static enum MHD_Result
io_accept(void *cls, const struct sockaddr *addr, socklen_t addrlen)
{
	int			max_connections;

	pthread_mutex_lock(&io_config_lock);
	max_connections = io_max_connections;
	pthread_mutex_unlock(&io_config_lock);
	return io_nconnections >= max_connections + HTTP_CONNECTION_MARGIN ? MHD_NO : MHD_YES;
}

/* ---------- the thread's loop ---------- */

/*
 * Run daemon i's pending work (mhd_lock held): its events, resumed
 * connections, timeouts.  A connection that sent a response takes
 * libmicrohttpd a few more passes (its timeout stays 0 meanwhile): they run
 * here rather than through another wait.
 */
static void
io_run_daemon(int i)
{
	MHD_UNSIGNED_LONG_LONG t;

	io_due[i] = false;
	for (int pass = 0; pass < 4; pass++)
	{
		MHD_run(io_daemons[i]);
		if (MHD_get_timeout(io_daemons[i], &t) != MHD_YES || t != 0)
			break;
	}
}

/*
 * The longest wait before a daemon needs running (mhd_lock held), at most
 * cap ms: 0 when libmicrohttpd has work that no descriptor signals
 * (data read already, a resumed connection) or a daemon is due.
 */
static int
io_daemons_timeout(int cap)
{
	int			timeout = cap;

	for (int i = 0; i < io_ndaemons; i++)
	{
		MHD_UNSIGNED_LONG_LONG t;

		if (MHD_get_timeout(io_daemons[i], &t) == MHD_YES && t < (MHD_UNSIGNED_LONG_LONG) timeout)
			timeout = (int) t;
		if (io_due[i])
			timeout = 0;
	}
	return timeout;
}

/* The I/O thread watches the daemons' descriptors, or not (mhd_lock held). */
static void
io_watch(bool on)
{
	struct epoll_event ev;

	ev.events = on ? EPOLLIN : 0;
	ev.data.u64 = 0;
	ev.data.u32 = 2;
	if (epoll_ctl(io_ep, EPOLL_CTL_MOD, io_daemons_ep, &ev) != 0)
		io_failed = true;
}

static void *
io_main(void *arg)
{
	struct epoll_event events[HTTP_MAX_LISTENERS + 2];

	while (!io_stop && !io_failed)
	{
		int			timeout;
		int			n;
		bool		notified = false;

		/*
		 * While the main thread drives the daemons, it runs their timeouts
		 * too; this thread still wakes now and then, and whenever the main
		 * thread stops driving with work pending (wake_fd).
		 */
		pthread_mutex_lock(&mhd_lock);
		timeout = main_drives ? 1000 : io_daemons_timeout(1000);
		pthread_mutex_unlock(&mhd_lock);
		n = epoll_wait(io_ep, events, lengthof(events), timeout);
		if (n < 0 && errno != EINTR)
		{
			io_failed = true;
			break;
		}
		pthread_mutex_lock(&mhd_lock);
		for (int i = 0; i < n; i++)
		{
			uint32		tag = events[i].data.u32;

			if (tag == 0)
			{
				io_drain_fd(io_done_fds[my_index]);
				notified = true;
			}
			else if (tag == 1)
				io_drain_fd(wake_fd);
			else
			{
				/* a daemon has events (io_daemons_ep does not say which) */
				for (int d = 0; d < io_ndaemons; d++)
					io_due[d] = true;
			}
		}
		/* on a timeout too, for safety's sake */
		if (notified || n == 0)
			io_collect();

		/*
		 * libmicrohttpd runs the daemons with something to do: events on
		 * their descriptors, resumed connections, or their timeouts (all of
		 * them when the wait timed out).  Not those the idle main thread
		 * drives (an event seen before it took them over is its own), but
		 * for the connections resumed here.
		 */
		for (int i = 0; i < io_ndaemons; i++)
		{
			MHD_UNSIGNED_LONG_LONG t;

			if (main_drives && !io_due[i])
				continue;
			if (!io_due[i] && n != 0 &&
				!(MHD_get_timeout(io_daemons[i], &t) == MHD_YES && t == 0))
				continue;
			io_run_daemon(i);
		}
		pthread_mutex_unlock(&mhd_lock);
	}
	return NULL;
}

/* ====================================================================== */
/*						   the worker's main thread						  */
/* ====================================================================== */

/*
 * stdesign.http_max_workers_per_role, 0 when it does not apply: under
 * trust every request has the same role, and a bound would only leave
 * workers idle.  -1, the default, keeps one worker for the other roles
 * (the workers less one, at least one), so that a shared endpoint is safe
 * as configured out of the box; 0 lifts the bound.
 */
static int
role_bound(void)
{
	if (http_auth == HTTP_AUTH_TRUST || http_max_workers_per_role == 0)
		return 0;
	if (http_max_workers_per_role < 0)
		return Max(1, http_workers - 1);
	return http_max_workers_per_role;
}

/* A role's counts (queue locked); create: take a free entry if it has none. */
static HttpRoleCount *
role_entry(Oid role, bool create)
{
	HttpRoleCount *unused = NULL;

	for (int i = 0; i < HTTP_ROLE_ENTRIES; i++)
	{
		HttpRoleCount *e = &http_queue->roles[i];

		if (e->busy == 0 && e->waiting == 0)
		{
			if (unused == NULL)
				unused = e;
		}
		else if (e->role == role)
			return e;
	}
	if (create && unused != NULL)
	{
		unused->role = role;
		return unused;
	}
	return NULL;
}

/* A request put back for its role no longer waits (queue locked). */
static void
role_unwait(HttpSlot *s)
{
	HttpRoleCount *e;

	if (!OidIsValid(s->role_hint))
		return;
	e = role_entry(s->role_hint, false);
	if (e != NULL && e->waiting > 0)
		e->waiting--;
	s->role_hint = InvalidOid;
}

/*
 * This worker is done with its request's role (queue locked): the index of
 * an idle worker to wake for a request of that role put back, or -1.
 */
static int
role_release(void)
{
	HttpRoleCount *e;

	if (!OidIsValid(running_role))
		return -1;
	e = role_entry(running_role, false);
	running_role = InvalidOid;
	if (e == NULL || e->busy == 0)
		return -1;
	e->busy--;
	if (e->waiting == 0)
		return -1;
	for (int w = 0; w < http_queue->nworkers; w++)
	{
		HttpQueueWorker *qw = &http_queue->workers[w];

		if (w != my_index && qw->pid != 0 && qw->idle)
		{
			qw->idle = false;
			return w;
		}
	}
	return -1;
}

static void
wake_worker(int w)
{
	if (w >= 0 && w < io_nfds)
		bump(io_work_fds[w]);
}

struct MHD_Daemon *
http_start_daemon(int listen_fd, bool loopback)
{
	struct MHD_Daemon *d;

	if (io_ndaemons >= HTTP_MAX_LISTENERS)
		return NULL;
	d = MHD_start_daemon(MHD_USE_EPOLL | MHD_USE_TURBO | MHD_ALLOW_SUSPEND_RESUME,
						 0, io_accept, NULL,
						 io_access, (void *) (intptr_t) ((io_ndaemons << 1) | (loopback ? 1 : 0)),
						 MHD_OPTION_LISTEN_SOCKET, listen_fd,
						 MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int) 120,
						 MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t) HTTP_CONNECTION_MEMORY,
						 MHD_OPTION_CONNECTION_LIMIT, (unsigned int) (HTTP_MAX_CONNECTIONS + HTTP_CONNECTION_MARGIN),
						 MHD_OPTION_NOTIFY_COMPLETED, io_completed, NULL,
						 MHD_OPTION_NOTIFY_CONNECTION, io_connection, NULL,
						 MHD_OPTION_SIGPIPE_HANDLED_BY_APP, (int) 1,
						 MHD_OPTION_END);
	if (d)
		io_daemons[io_ndaemons++] = d;
	return d;
}

/* Copy the settings the I/O thread reads (at start and after a reload). */
void
http_dispatch_config(void)
{
	pthread_mutex_lock(&io_config_lock);
	strlcpy(io_cors_origin, http_cors_origin ? http_cors_origin : "", sizeof(io_cors_origin));
	io_max_buffer = (uint64) http_max_buffer * 1024;
	io_max_connections = http_max_connections;
	pthread_mutex_unlock(&io_config_lock);
	http_studio_config();
}

/*
 * Stop the I/O thread and give back this worker's slots: its own requests
 * are dropped with their connections (a runner frees a slot whose owner is
 * gone), those it ran get a 500 (their transaction was rolled back).
 */
static void
dispatch_exit(int code, Datum arg)
{
	int			owners[HTTP_MAX_WORKERS];
	int			nowners = 0;
	int			wake;

	if (io_started)
	{
		io_stop = true;
		bump(wake_fd);
		pthread_join(io_thread, NULL);
		io_started = false;
	}
	if (http_queue == NULL || my_index < 0)
		return;

	/*
	 * The bodies this process's connections hold die with it: their bytes
	 * no longer count in stdesign.http_max_buffer (the I/O thread is gone,
	 * and the main thread is here, so nothing else counts now).
	 */
	if (io_counted > 0)
	{
		pg_atomic_sub_fetch_u64(&http_queue->buffered, io_counted);
		io_counted = 0;
	}
	queue_lock();
	http_queue->workers[my_index].pid = 0;
	http_queue->workers[my_index].idle = false;
	wake = role_release();
	for (int i = 0; i < http_queue->nworkers * HTTP_SLOTS_PER_WORKER; i++)
	{
		HttpSlot   *s = &http_queue->slots[i];

		if (s->owner == my_index && s->state != SLOT_RUNNING)
		{
			if (s->state == SLOT_PENDING)
				role_unwait(s);
			s->state = SLOT_FREE;
		}
		else if (s->state == SLOT_RUNNING && s->runner == my_index)
		{
			static const char body[] = "{\"__type\": \"com.amazonaws.dynamodb.v20120810#InternalServerError\", \"message\": \"Internal server error\"}";

			s->status = 500;
			s->in_file = false;
			s->len = sizeof(body) - 1;
			memcpy(s->data, body, s->len);
			if (s->owner_pid == http_queue->workers[s->owner].pid)
			{
				s->state = SLOT_DONE;
				if (nowners < HTTP_MAX_WORKERS)
					owners[nowners++] = s->owner;
			}
			else
				s->state = SLOT_FREE;
		}
	}
	queue_unlock();
	wake_worker(wake);
	for (int i = 0; i < nowners; i++)
		if (owners[i] < io_nfds)
			bump(io_done_fds[owners[i]]);
}

/*
 * Start this worker's I/O thread on the daemons started with
 * http_start_daemon: its notification socket, its slots, the thread (with
 * every signal blocked).  Errors are raised here, before the thread runs.
 */
void
http_dispatch_start(int index)
{
	sigset_t	all;
	sigset_t	old;
	int			rc;

	if (http_queue == NULL || index < 0 || index >= http_queue->nworkers || index >= io_nfds)
		ereport(ERROR, (errmsg("stdesign: the HTTP request queue is not in shared memory")));
	my_index = index;
	snprintf(tmp_dir, sizeof(tmp_dir), "%s/base/%s", DataDir, PG_TEMP_FILES_DIR);
	if (MakePGDirectory(tmp_dir) < 0 && errno != EEXIST)
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("stdesign: could not create directory \"%s\": %m", tmp_dir)));

	wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (wake_fd < 0)
		ereport(ERROR, (errmsg("stdesign: could not create an eventfd: %m")));
	/* wake-ups left from a previous run of this worker */
	io_drain_fd(io_work_fds[index]);
	io_drain_fd(io_done_fds[index]);

	/*
	 * This worker's slots: whatever a previous run of it left is dropped
	 * (its connections are gone), except what a runner still runs, which
	 * that runner frees.
	 */
	queue_lock();
	for (int i = 0; i < HTTP_SLOTS_PER_WORKER; i++)
	{
		HttpSlot   *s = &http_queue->slots[index * HTTP_SLOTS_PER_WORKER + i];

		if (s->state == SLOT_PENDING)
			role_unwait(s);
		if (s->state != SLOT_RUNNING)
			s->state = SLOT_FREE;
	}
	http_queue->workers[index].pid = (uint32) MyProcPid;
	http_queue->workers[index].idle = false;
	queue_unlock();
	memset(io_slot_upload, 0, sizeof(io_slot_upload));

	http_dispatch_config();

	/*
	 * The I/O thread's epoll set (data.u32: 0 responses to send, 1 wake_fd,
	 * 2 the daemons, through io_daemons_ep), made here so that the main
	 * thread can turn the daemons' entry off and on while it drives them.
	 */
	io_ep = epoll_create1(EPOLL_CLOEXEC);
	io_daemons_ep = epoll_create1(EPOLL_CLOEXEC);
	if (io_ep < 0 || io_daemons_ep < 0)
		ereport(ERROR, (errmsg("stdesign: could not create an epoll set: %m")));
	{
		struct epoll_event ev;

		ev.events = EPOLLIN;
		ev.data.u64 = 0;
		ev.data.u32 = 0;
		if (epoll_ctl(io_ep, EPOLL_CTL_ADD, io_done_fds[index], &ev) != 0)
			ereport(ERROR, (errmsg("stdesign: could not watch an eventfd: %m")));
		ev.data.u32 = 1;
		if (epoll_ctl(io_ep, EPOLL_CTL_ADD, wake_fd, &ev) != 0)
			ereport(ERROR, (errmsg("stdesign: could not watch an eventfd: %m")));
		for (int i = 0; i < io_ndaemons; i++)
		{
			const union MHD_DaemonInfo *info = MHD_get_daemon_info(io_daemons[i], MHD_DAEMON_INFO_EPOLL_FD);

			ev.data.u32 = 2 + i;
			if (info == NULL || epoll_ctl(io_daemons_ep, EPOLL_CTL_ADD, info->epoll_fd, &ev) != 0)
				ereport(ERROR, (errmsg("stdesign: could not watch the HTTP daemon: %m")));
			io_daemon_fds[i] = info->epoll_fd;
		}
		ev.data.u32 = 2;
		if (epoll_ctl(io_ep, EPOLL_CTL_ADD, io_daemons_ep, &ev) != 0)
			ereport(ERROR, (errmsg("stdesign: could not watch the HTTP daemons: %m")));
	}

	/* what the main thread waits on: idle and driving, or busy */
	plain_set = st_create_wait_event_set(3);
	AddWaitEventToSet(plain_set, WL_LATCH_SET, PGINVALID_SOCKET, MyLatch, NULL);
	AddWaitEventToSet(plain_set, WL_EXIT_ON_PM_DEATH, PGINVALID_SOCKET, NULL, NULL);
	AddWaitEventToSet(plain_set, WL_SOCKET_READABLE, io_work_fds[index], NULL, NULL);
	drive_set = st_create_wait_event_set(3 + io_ndaemons);
	AddWaitEventToSet(drive_set, WL_LATCH_SET, PGINVALID_SOCKET, MyLatch, NULL);
	AddWaitEventToSet(drive_set, WL_EXIT_ON_PM_DEATH, PGINVALID_SOCKET, NULL, NULL);
	AddWaitEventToSet(drive_set, WL_SOCKET_READABLE, io_work_fds[index], NULL, NULL);
	for (int i = 0; i < io_ndaemons; i++)
		AddWaitEventToSet(drive_set, WL_SOCKET_READABLE, io_daemon_fds[i], NULL, (void *) &io_daemon_fds[i]);

	/* after the transaction's abort (before_shmem_exit), before ProcKill */
	on_shmem_exit(dispatch_exit, (Datum) 0);

	/* the thread starts with every signal blocked, and keeps them so */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&io_thread, NULL, io_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0)
		ereport(ERROR, (errmsg("stdesign: could not start the HTTP I/O thread: %s", strerror(rc))));
	io_started = true;
}

/*
 * In the postmaster, loading the library: the eventfds of the workers'
 * wake-ups, inherited by every worker (and kept across a crash restart,
 * where a wake-up left over is only a spurious one).
 */
void
http_dispatch_preload(int nworkers)
{
	for (int i = io_nfds; i < nworkers; i++)
	{
		io_work_fds[i] = eventfd(0, EFD_NONBLOCK);
		io_done_fds[i] = eventfd(0, EFD_NONBLOCK);
		if (io_work_fds[i] < 0 || io_done_fds[i] < 0)
			ereport(ERROR,
					(errmsg("stdesign: could not create the HTTP workers' eventfds: %m")));
		io_nfds = i + 1;
	}
}

/* Is the I/O thread still running? */
bool
http_dispatch_alive(void)
{
	return io_started && !io_failed;
}

/* Split the next n NUL-terminated strings of the request's head. */
static bool
next_string(const char **p, const char *end, const char **out)
{
	const char *nul = memchr(*p, '\0', end - *p);

	if (nul == NULL)
		return false;
	*out = *p;
	*p = nul + 1;
	return true;
}

static bool
read_pairs(const char **p, const char *end, uint32 n, HttpHeader **out)
{
	HttpHeader *h = palloc(sizeof(HttpHeader) * Max(n, 1));

	for (uint32 i = 0; i < n; i++)
		if (!next_string(p, end, &h[i].name) || !next_string(p, end, &h[i].value))
			return false;
	*out = h;
	return true;
}

/*
 * Split a request's head (HttpBlobHead, then its strings) at the start of
 * blob, of len bytes, into req (headers and query arguments allocated in
 * the current memory context, strings pointing into blob); *end: where
 * its strings end.  false when it is malformed.
 */
static bool
parse_head(HttpRequest *req, const char *blob, size_t len, const char **end)
{
	HttpBlobHead head;
	const char *p;

	if (len < sizeof(head))
		return false;
	memcpy(&head, blob, sizeof(head));
	if ((uint64) sizeof(head) + head.strings_len > len)
		return false;
	p = blob + sizeof(head);
	*end = p + head.strings_len;
	if (!next_string(&p, *end, &req->method) || !next_string(&p, *end, &req->url) ||
		!read_pairs(&p, *end, head.nheaders, &req->headers) ||
		!read_pairs(&p, *end, head.nquery, &req->query))
		return false;
	req->nheaders = head.nheaders;
	req->nquery = head.nquery;
	req->body_len = head.body_len;
	return true;
}

/*
 * The main thread stops driving the daemons, to run a request: the I/O
 * thread watches them again, and is woken when libmicrohttpd has work no
 * descriptor signals (data it read already, on a connection other than
 * the request's), so that none of this worker's connections waits for the
 * request to end.  main_drives is written by the main thread only.
 */
static void
drive_end(void)
{
	bool		wake = false;

	if (!main_drives)
		return;
	pthread_mutex_lock(&mhd_lock);
	main_drives = false;
	io_watch(true);
	wake = io_daemons_timeout(1) == 0;
	pthread_mutex_unlock(&mhd_lock);
	if (wake)
		bump(wake_fd);
}

/* The idle main thread drives the daemons (mhd_lock held). */
static void
drive_begin(void)
{
	if (main_drives)
		return;
	main_drives = true;
	io_watch(false);
}

/*
 * Claim the oldest pending request: true with *req filled (in the current
 * memory context).  false when there is none: this worker is then idle, so
 * the next request wakes it.
 */
bool
http_dispatch_next(HttpRequest *req)
{
	int			found = -1;
	uint64		best = PG_UINT64_MAX;
	HttpSlot   *s;
	char	   *blob;
	const char *end;
	int			bound = role_bound();

	/* a wake-up is taken: the queue is looked at now */
	if (work_maybe)
		io_drain_fd(io_work_fds[my_index]);
	work_maybe = false;
	queue_lock();
	for (int i = 0; i < http_queue->nworkers * HTTP_SLOTS_PER_WORKER; i++)
	{
		s = &http_queue->slots[i];
		if (s->state == SLOT_PENDING && s->seq < best)
		{
			/* put back for its role, which has all its workers still */
			if (OidIsValid(s->role_hint) && bound > 0)
			{
				HttpRoleCount *e = role_entry(s->role_hint, false);

				if (e != NULL && e->busy >= bound)
					continue;
			}
			best = s->seq;
			found = i;
		}
	}
	if (found >= 0)
	{
		s = &http_queue->slots[found];
		s->state = SLOT_RUNNING;
		s->runner = my_index;
		if (OidIsValid(s->role_hint))
		{
			/* its role's turn: counted now, so no other worker takes it too */
			Oid			role = s->role_hint;
			HttpRoleCount *e;

			role_unwait(s);
			if (bound > 0 && (e = role_entry(role, true)) != NULL)
			{
				e->busy++;
				running_role = role;
			}
		}
	}
	http_queue->workers[my_index].idle = (found < 0);
	queue_unlock();
	if (found < 0)
		return false;
	/* busy now: the I/O thread serves this worker's connections */
	drive_end();

	/* the slot is this worker's until it answers */
	s = &http_queue->slots[found];
	memset(req, 0, sizeof(*req));
	req->slot = found;
	req->loopback = s->loopback;
	req->check = s->check;
	req->in_file = s->in_file;
	memcpy(req->request_id, s->request_id, sizeof(req->request_id));
	blob = palloc(s->len + 1);
	if (s->in_file)
	{
		char		path[MAXPGPATH];

		slot_path(path, sizeof(path), found, "req");
		/* kept until answered: a request put back is read again */
		if (!read_file(path, blob, s->len, false))
		{
			ereport(LOG,
					(errcode_for_file_access(),
					 errmsg("stdesign http: request %s: could not read \"%s\": %m", req->request_id, path)));
			req->broken = true;
			return true;
		}
	}
	else
		memcpy(blob, s->data, s->len);
	blob[s->len] = '\0';
	if (!parse_head(req, blob, s->len, &end) ||
		(uint64) (end - blob) + req->body_len != s->len)
	{
		req->broken = true;
		return true;
	}
	req->body = end;
	return true;
}

/*
 * Wait for work; the fast path when it applies: the idle main thread
 * drives this worker's daemons itself, and a request that completes on one
 * of its connections is claimed here (io_claim_direct), copied with malloc
 * under mhd_lock, and parsed into *req once the lock is let go.
 */
bool
http_dispatch_wait(HttpRequest *req, long timeout)
{
	WaitEvent	events[HTTP_MAX_LISTENERS + 3];
	TimestampTz start;
	bool		due[HTTP_MAX_LISTENERS];

	if (!fast_path_applies() || io_ndaemons == 0)
	{
		/* no fast path: the I/O thread drives, the queue brings work */
		drive_end();
		(void) WaitEventSetWait(plain_set, timeout, events, 1, PG_WAIT_EXTENSION);
		work_maybe = true;
		return false;
	}

	/*
	 * Back to the caller once timeout ms have passed, whatever wakes this
	 * loop meanwhile (a client sending a byte at a time, connections timing
	 * out one after another): it checks its I/O thread there.
	 */
	start = GetCurrentTimestamp();
	/*
	 * A daemon runs when its descriptor has events (the wait set is level
	 * triggered: what arrived while a request ran is reported at once) or
	 * it has work of its own (libmicrohttpd's timeout is 0, or the I/O
	 * thread marked it due); the others are not run.
	 */
	for (int i = 0; i < io_ndaemons; i++)
		due[i] = false;
	for (;;)
	{
		HttpUpload *up;
		char	   *head = NULL;
		size_t		head_len = 0;
		char	   *body = NULL;
		size_t		body_len = 0;
		bool		wake = false;
		int			t = 0;
		int			n;
		bool		other = false;
		long		left = timeout - TimestampDifferenceMilliseconds(start, GetCurrentTimestamp());

		pthread_mutex_lock(&mhd_lock);
		drive_begin();
		main_in_run = true;
		for (int i = 0; i < io_ndaemons; i++)
		{
			MHD_UNSIGNED_LONG_LONG mt;

			/* libmicrohttpd's run is a system call at least: not for nothing */
			if (!due[i] && !io_due[i] &&
				!(MHD_get_timeout(io_daemons[i], &mt) == MHD_YES && mt == 0))
				continue;
			io_run_daemon(i);
		}
		main_in_run = false;
		up = direct_taken;
		direct_taken = NULL;
		if (up != NULL)
		{
			/* the request's bytes leave the connection: no longer counted */
			direct_running = up;
			head = io_blob_head(up->conn, up->method, up->url, up->len, &head_len);
			body = up->data;
			body_len = up->len;
			up->data = NULL;
			io_buffer_free(up);
			memset(req, 0, sizeof(*req));
			req->slot = -1;
			req->direct = true;
			req->upload = up;
			req->loopback = up->loopback;
			memcpy(req->request_id, up->request_id, sizeof(req->request_id));
			/* busy now: as drive_end(), under the lock already held */
			main_drives = false;
			io_watch(true);
			wake = io_daemons_timeout(1) == 0;
		}
		else
			t = io_daemons_timeout((int) Min(Max(left, 0), INT_MAX));
		pthread_mutex_unlock(&mhd_lock);

		if (up != NULL)
		{
			const char *end;

			if (wake)
				bump(wake_fd);
			/* Postgres's memory from here on, the lock let go */
			if (head == NULL)
				req->broken = true;
			else
			{
				char	   *copy = palloc(head_len + body_len + 1);

				/* the strings point into the copy; the body follows them */
				memcpy(copy, head, head_len);
				if (body_len > 0)
					memcpy(copy + head_len, body, body_len);
				copy[head_len + body_len] = '\0';
				if (!parse_head(req, copy, head_len, &end) ||
					(uint64) (end - copy) != head_len || req->body_len != body_len)
					req->broken = true;
				req->body = end;
			}
			free(head);
			free(body);
			return true;
		}

		n = WaitEventSetWait(drive_set, t, events, lengthof(events), PG_WAIT_EXTENSION);
		/* a wait that timed out: every daemon's timeouts are run */
		for (int i = 0; i < io_ndaemons; i++)
			due[i] = (n == 0);
		for (int i = 0; i < n; i++)
		{
			if (events[i].user_data == NULL)
				other = work_maybe = true;
			else
				due[(int *) events[i].user_data - io_daemon_fds] = true;
		}
		/* the latch, a queued request, or the caller's time is up */
		if (other || left <= 0 || (n == 0 && t >= left))
			return false;
	}
}

/*
 * Answer a request run directly: its response goes to its connection,
 * which the main thread resumes and sends itself, driving the daemons on
 * (so that no thread is woken for it); the copy is made before the lock.
 */
static void
direct_reply(HttpRequest *req, int status, const char *body, size_t len)
{
	char	   *copy = malloc(Max(len, 1));

	if (copy != NULL)
		memcpy(copy, body, len);
	pthread_mutex_lock(&mhd_lock);
	if (direct_running != NULL && direct_running == req->upload)
	{
		HttpUpload *up = direct_running;

		direct_running = NULL;
		drive_begin();
		if (copy == NULL)
			io_fail(up);
		else
		{
			up->status = status;
			up->resp = copy;
			up->resp_len = len;
			up->state = UP_ANSWERED;
			copy = NULL;
		}
		MHD_resume_connection(up->conn);
		io_run_daemon(up->daemon);
	}
	pthread_mutex_unlock(&mhd_lock);
	free(copy);					/* its connection is gone */
}

/*
 * Answer the claimed request: the response goes into its slot (or the
 * slot's file), and its owner's I/O thread is told.
 */
void
http_dispatch_reply(HttpRequest *req, int status, const char *body, size_t len)
{
	HttpSlot   *s;
	bool		notify = false;
	int			owner;
	int			wake;

	if (req->direct)
	{
		direct_reply(req, status, body, len);
		if (OidIsValid(running_role))
		{
			queue_lock();
			wake = role_release();
			queue_unlock();
			wake_worker(wake);
		}
		return;
	}
	s = &http_queue->slots[req->slot];

	if (req->in_file)
	{
		char		path[MAXPGPATH];

		slot_path(path, sizeof(path), req->slot, "req");
		unlink(path);
	}
	s->status = status;
	s->len = len;
	s->in_file = len > HTTP_SLOT_INLINE;
	if (!s->in_file)
		memcpy(s->data, body, len);
	else
	{
		char		path[MAXPGPATH];

		slot_path(path, sizeof(path), req->slot, "resp");
		if (!write_file(path, "", 0, body, len))
		{
			static const char err[] = "{\"__type\": \"com.amazonaws.dynamodb.v20120810#InternalServerError\", \"message\": \"Internal server error\"}";

			ereport(LOG,
					(errcode_for_file_access(),
					 errmsg("stdesign http: request %s: could not write \"%s\": %m", req->request_id, path)));
			s->status = 500;
			s->in_file = false;
			s->len = sizeof(err) - 1;
			memcpy(s->data, err, s->len);
		}
	}
	queue_lock();
	owner = s->owner;
	if (s->state == SLOT_RUNNING && s->owner_pid == http_queue->workers[owner].pid)
	{
		s->state = SLOT_DONE;
		notify = true;
	}
	else
		s->state = SLOT_FREE;	/* its owner is gone, and its connection */
	wake = role_release();
	queue_unlock();
	wake_worker(wake);
	if (notify && owner < io_nfds)
		bump(io_done_fds[owner]);
}

/*
 * May the claimed request run as roleid now?  stdesign.http_max_workers_per_role
 * bounds how many workers run one role's requests at once, so that one
 * client (whose requests may all wait for a lock its role holds elsewhere)
 * cannot take every worker from the others.  Past it the request goes back
 * into the queue, in its place, until one of the role's requests ends; when
 * half the queue's slots already wait so, it is refused (throttled), so
 * that the role's backlog cannot fill the slots of the other roles'
 * requests either.  The request's count is held across its retries, and
 * given back when it is answered.
 */
HttpRoleTurn
http_dispatch_role(HttpRequest *req, Oid roleid)
{
	int			bound = role_bound();
	HttpRoleTurn turn = HTTP_ROLE_RUN;
	HttpRoleCount *e;
	int			wake = -1;

	/*
	 * The common case, no bound and nothing counted: no lock taken.  A
	 * request run directly is taken only when no bound applies, and the
	 * settings are not reloaded before it is answered.
	 */
	if (req->check || req->direct || (bound == 0 && !OidIsValid(running_role)))
		return HTTP_ROLE_RUN;
	queue_lock();
	if (OidIsValid(running_role) && running_role == roleid)
	{
		queue_unlock();
		return HTTP_ROLE_RUN;
	}
	wake = role_release();
	if (bound > 0 && (e = role_entry(roleid, true)) == NULL)
	{
		/*
		 * Every entry counts another role: never the case while each role
		 * counted has a request busy or put back (at most two per worker),
		 * but were it so, the request is throttled rather than run unbounded.
		 */
		turn = HTTP_ROLE_THROTTLE;
	}
	else if (bound > 0)
	{
		if (e->busy < bound)
		{
			e->busy++;
			running_role = roleid;
		}
		else if (e->waiting >= http_queue->nworkers * HTTP_SLOTS_PER_WORKER / 2)
			turn = HTTP_ROLE_THROTTLE;
		else
		{
			e->waiting++;
			http_queue->slots[req->slot].role_hint = roleid;
			turn = HTTP_ROLE_DEFER;
		}
	}
	queue_unlock();
	wake_worker(wake);
	return turn;
}

/*
 * Put the claimed request back (after HTTP_ROLE_DEFER): pending again, in
 * its place in the queue (its seq), its file kept; the worker that ends one
 * of its role's requests takes it, or wakes an idle one for it.
 */
void
http_dispatch_defer(HttpRequest *req)
{
	HttpSlot   *s = &http_queue->slots[req->slot];

	queue_lock();
	if (s->state == SLOT_RUNNING && s->owner_pid == http_queue->workers[s->owner].pid)
		s->state = SLOT_PENDING;
	else
	{
		/* its owner is gone, and its connection */
		role_unwait(s);
		s->state = SLOT_FREE;
	}
	queue_unlock();
}
