/*-------------------------------------------------------------------------
 *
 * http_dispatch.c
 *		The HTTP endpoint's I/O thread and the shared request queue through
 *		which any worker answers a request that another worker received.
 *
 * Each worker has two threads.  Its main thread does all the Postgres work
 * (transactions, SPI, memory contexts, signals).  Its I/O thread serves the
 * worker's listening sockets: it accepts connections, reads requests
 * (HTTP/1.1, http_wire.c), and sends responses; it never calls Postgres (no
 * palloc, no ereport, no locks of Postgres): only libc, http_wire.c,
 * st_crc32, the queue below, guarded by a process-shared pthread mutex, and
 * eventfds.  It starts with every signal blocked, so Postgres's signal
 * handlers only ever run on the main thread.
 *
 * A complete request (headers, query string and body) goes into a slot of
 * the queue in shared memory, and its connection is held (nothing more is
 * read from it).  The I/O thread then wakes an idle worker (its own first).
 * Whichever worker's main thread claims the slot runs the request
 * (http_protocol.c) and writes the response into the slot, then tells the
 * owner, the worker whose I/O thread holds the connection; the owner's I/O
 * thread sends the response.  So a worker busy with a long request (a wait
 * for a row lock) holds up no connection: another worker answers the
 * requests of all the connections it owns.  Both wake-ups are eventfds that
 * the postmaster creates when it loads the library, two per worker, which
 * every worker inherits: a write wakes the other process without a signal
 * (a latch's SetLatch sends SIGURG, which costs more, and is Postgres's).
 *
 * The fast path.  The hand-off above costs two thread switches and two
 * copies of the request and of the response per request; when a worker's
 * main thread is idle, it is not needed.  An idle main thread drives its
 * own connections instead (it waits on their epoll set with its latch, and
 * reads and parses them itself), and a request that completes there is run
 * at once on that thread, without a slot ("direct"): the main thread sends
 * its response itself.  The connections are run by one thread at a time,
 * under conn_lock (a mutex of this process), and the I/O thread's state
 * below is touched only under it; the main thread never calls Postgres
 * while it holds it (what it takes from a connection there it copies with
 * malloc, and parses into memory contexts only once it has let go).  While
 * the main thread drives, the I/O thread does not watch the connections
 * (their epoll set is disabled in its own) so that it does not wake for
 * each request; when the main thread stops driving, to run any request, it
 * enables them again, and wakes the I/O thread when a connection has work
 * that no event will signal (a response to send, a request read already),
 * so that a request that runs long (a wait for a lock) holds up none of its
 * worker's other connections, as on the queue's path.  A request is taken
 * directly only by a worker marked idle in the queue (which it then is no
 * longer, so no request is queued for it meanwhile: no wake-up is lost),
 * only a complete one (a credentials check goes through the queue), and
 * only when no bound of workers per role applies (a request put back for
 * its role needs a slot); the main thread decides this for each request
 * from its own settings, so a reload applies to the next one.  Any other
 * request, and every request while the main thread is busy, takes the
 * queue as above; one that the worker's own main thread then takes from
 * the queue it answers on the connection itself (own_reply), without a
 * wake-up of its I/O thread.  And a connection on which a request arrives
 * while its worker's main thread is busy, and another worker's is idle
 * with fewer connections by two or more, is handed to that worker, socket
 * and all (conn_handoff): the kernel spreads connections by a hash, and a
 * client's connections that land on one worker are spread out so.
 *
 * The system calls of a request on the fast path, as a backend makes
 * them: the wait, a read of the connection's epoll set, the request's
 * read, the response's send, and the two that hand the watch of the
 * connections to the I/O thread and back while the request runs.  Each
 * connection's descriptor is in the epoll set once, edge-triggered, for
 * reading and writing: nothing is changed there per request.
 *
 * A slot holds requests and responses of up to HTTP_SLOT_INLINE bytes; a
 * larger one goes through a file in the data directory's pgsql_tmp, named
 * after the slot, written and read with plain system calls (Postgres
 * removes those files when it starts and after a crash).
 *
 * Slots are partitioned by owner, HTTP_SLOTS_PER_WORKER each; requests that
 * find their owner's slots taken wait in the I/O thread, held, until
 * one is free.  Runners take the oldest pending request of any owner.  A
 * worker that exits gives back what it holds: its own pending requests are
 * dropped (their connections close with it), the requests it was running
 * are answered with a 500 (their transactions were rolled back); a slot
 * whose owner is gone is freed by its runner.  A crash of any worker
 * restarts the whole server, which initialises the queue afresh.
 *
 * Bounds, so that no client makes a worker hold more than the settings
 * allow.  A request whose framing a proxy could read otherwise (two
 * Content-Length headers, a Transfer-Encoding other than chunked) is
 * refused with a 400 before anything else.  A body that
 * may be over HTTP_UNAUTH_BODY is not read until its credentials are
 * checked: the I/O thread cannot look up access keys (that is Postgres
 * work), so it queues the request's head alone, as a "check", and a
 * worker's main thread answers whether the key exists and is enabled; the
 * connection waits, held, before its body meanwhile.  The bodies held at once
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
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

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
	pg_atomic_uint32 nconn;		/* its open connections */
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

	/*
	 * Slots PENDING: a worker looks through the slots only when there are
	 * some (each slot is 8 kB apart, so a look at every one costs a cache
	 * and TLB miss each, on every request of the fast path).
	 */
	int			npending;
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

/*
 * The epoll set of the listening sockets and the connections, in io_ep as
 * one entry: the I/O thread's watch of all of them is turned off and on
 * with one system call (twice per request on the fast path).
 */
static int	conn_ep = -1;

/*
 * The connections and the I/O thread's state (the listeners, the uploads,
 * io_slot_upload, the wait list, io_nconnections, io_counted) belong to
 * whichever thread holds this; the main thread holds it only in short
 * stretches that never call Postgres (no palloc, no elog).
 */
static pthread_mutex_t conn_lock = PTHREAD_MUTEX_INITIALIZER;
static bool main_drives = false;	/* the idle main thread watches the
									 * connections; the I/O thread does not */
static bool main_in_run = false;	/* the main thread runs the connections
									 * (a request may be taken directly) */
static struct HttpUpload *direct_taken = NULL;	/* taken in that run */
static struct HttpUpload *direct_running = NULL;	/* being answered directly */
static uint64 io_counted = 0;	/* this process's share of the queue's
								 * buffered bytes, given back on exit */

/* The main thread's wait sets: without and with the connections. */
static WaitEventSet *plain_set = NULL;
static WaitEventSet *drive_set = NULL;

/*
 * This worker's io_work_fds entry may hold wake-ups: not known to be empty
 * since a wait last returned other than for a connection.  While it is false,
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

/*
 * Each worker's inbox of connections handed to it by another (datagram
 * socket pairs made by the postmaster, inherited): [0] it reads, [1] the
 * others send on.
 */
static int	io_inbox_fds[HTTP_MAX_WORKERS][2];
static pthread_t io_thread;
static bool io_started = false;
static volatile sig_atomic_t io_stop = false;
static volatile sig_atomic_t io_failed = false;

/* The settings the I/O thread reads, copied on start and on reload. */
static pthread_mutex_t io_config_lock = PTHREAD_MUTEX_INITIALIZER;
static char io_cors_origin[256];
static bool io_fast_path;		/* stdesign.http_fast_path, and no bound per role */
static uint64 io_max_buffer;	/* stdesign.http_max_buffer, in bytes */
static int	io_max_connections; /* stdesign.http_max_connections */

/*
 * Connections past stdesign.http_max_connections get a 503 to their first
 * request (and are closed); past this many more, they are closed as soon
 * as they are accepted.
 */
#define HTTP_CONNECTION_MARGIN 64

/* The role whose count this worker's running request holds (main thread). */
static Oid	running_role = InvalidOid;

/* ---------- the I/O thread's own ---------- */

typedef enum HttpUploadState
{
	UP_READING,					/* the body arrives */
	UP_WAITING,					/* held, no slot free yet */
	UP_CHECKING,				/* held, its credentials checked in a slot */
	UP_QUEUED,					/* held, in a slot */
	UP_DIRECT,					/* held, run by this worker's main
								 * thread without a slot */
	UP_ANSWERED					/* resumed with its response */
} HttpUploadState;

/* Per request, from its head to its answer's last byte sent. */
typedef struct HttpUpload
{
	HttpUploadState state;
	struct HttpConn *conn;
	bool		loopback;
	HttpHead	head;			/* method, url, headers, query */
	bool		chunked;		/* Transfer-Encoding: chunked */
	HttpChunked chunk;			/* its decoding */
	char	   *data;			/* the body as it arrives */
	size_t		len;
	size_t		cap;
	size_t		counted;		/* bytes counted in the queue's buffered ones */
	size_t		expect;			/* its Content-Length (0: none) */
	bool		check_pending;	/* its credentials are (to be) checked */
	bool		at_headers;		/* held before its body, for the check */
	char		request_id[HTTP_REQUEST_ID_LEN + 1];
	int			status;			/* the response (UP_ANSWERED) */
	char	   *resp;
	size_t		resp_len;
	struct HttpUpload *next;	/* UP_WAITING: the wait list */
} HttpUpload;

/*
 * A connection, or a listening socket (listener).  Its state: reading a
 * request's head, then its body; held while the request is out (queued,
 * run directly, its credentials checked, or waiting for a slot: nothing is
 * read meanwhile, and it is never closed); sending the answer.  Its
 * descriptor is in conn_ep edge-triggered for reading and writing, once:
 * readable and writable say whether the kernel may have bytes for it, or
 * room for its answer (a read or write short of what was asked, or that
 * would block, says no; an event from conn_ep says yes again).
 */
typedef enum HttpConnState
{
	C_HEAD,
	C_BODY,
	C_HELD,
	C_SEND
} HttpConnState;

/* The answer's head, when it fits; a longer one is malloc'd. */
#define CONN_HEAD_INLINE 384

typedef struct HttpConn
{
	bool		listener;
	bool		inbox;			/* listener: this worker's inbox */
	bool		paused;			/* listener: accepting stopped for a while */
	int			fd;
	bool		loopback;
	HttpConnState state;
	char	   *in;				/* HTTP_CONNECTION_MEMORY bytes */
	size_t		in_len;
	size_t		in_pos;			/* what was taken of it */
	size_t		scanned;		/* how much of a head was looked at */
	int			blank_lines;	/* empty lines before the head */
	HttpUpload *up;				/* the request (not C_HEAD) */
	bool		readable;
	bool		writable;
	char	   *out_head;		/* C_SEND: the answer's head ... */
	size_t		out_head_len;
	const char *out_body;		/* ... and body */
	size_t		out_body_len;
	bool		out_body_free;
	size_t		out_off;		/* sent so far */
	bool		close_after;	/* closed once it is sent */
	int64		active;			/* when it last made progress (ms) */
	bool		due;			/* in the due list: to run without an event */
	struct HttpConn *due_next;
	struct HttpConn *prev;		/* all the connections */
	struct HttpConn *next;
	char		out_inline[CONN_HEAD_INLINE];
} HttpConn;

/* A connection idle (or a request arriving) this long is closed (ms). */
#define HTTP_CONNECTION_TIMEOUT (120 * 1000)

static HttpConn io_listeners[HTTP_MAX_LISTENERS];
static HttpConn io_inbox;		/* connections from the other workers */
static int	io_nlisteners = 0;
static HttpConn *io_conns = NULL;	/* all the connections */
static HttpConn *io_due_head = NULL;	/* to run without an event */
static int64 io_next_sweep = 0;	/* when idle connections are next looked for */

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
	for (int i = 0; i < nworkers; i++)
		pg_atomic_init_u32(&http_queue->workers[i].nconn, 0);
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
io_cors_allowed(const HttpHead *head, char *buf, size_t size)
{
	const char *origin = http_wire_header(head, "Origin");
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

/* A monotonic clock in ms, read without a system call (the vDSO's). */
static int64
io_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (int64) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The Date header's value (RFC 9110, 5.6.7), made once a second. */
static const char *
io_date(void)
{
	static const char days[7][4] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
	static const char months[12][4] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
	"Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
	static time_t made = 0;
	static char text[40];
	time_t		now = time(NULL);

	if (now != made)
	{
		struct tm	tm;

		gmtime_r(&now, &tm);
		snprintf(text, sizeof(text), "%s, %02d %s %04d %02d:%02d:%02d GMT",
				 days[tm.tm_wday % 7], tm.tm_mday, months[tm.tm_mon % 12], tm.tm_year + 1900,
				 tm.tm_hour, tm.tm_min, tm.tm_sec);
		made = now;
	}
	return text;
}

/* Append to a response head being written; false when it does not fit. */
typedef struct HeadWriter
{
	char	   *buf;
	size_t		cap;
	size_t		len;
} HeadWriter;

static void
head_put(HeadWriter *w, const char *s)
{
	size_t		l = strlen(s);

	if (w->len + l < w->cap)
		memcpy(w->buf + w->len, s, l);
	w->len += l;
}

static void
head_header(HeadWriter *w, const char *name, const char *value)
{
	head_put(w, name);
	head_put(w, ": ");
	head_put(w, value);
	head_put(w, "\r\n");
}

/* The head of the connection's request, when it has one parsed. */
static HttpHead *
conn_head_of(HttpConn *c)
{
	return (c->up != NULL && c->up->head.method != NULL) ? &c->up->head : NULL;
}

/*
 * Write the answer's head: the status line, the framing, what every
 * answer carries, and the request's CORS headers.  The caller measures
 * with a buffer too small, then writes.
 */
static void
conn_write_head(HeadWriter *w, HttpConn *c, int status, size_t len, const char *type,
				const char *request_id, uint32 crc, const char *extra, bool preflight)
{
	char		num[32];
	char		allow[256];
	HttpHead   *head = conn_head_of(c);

	snprintf(num, sizeof(num), "HTTP/1.1 %d ", status);
	head_put(w, num);
	head_put(w, http_wire_reason(status));
	head_put(w, "\r\n");
	head_header(w, "Date", io_date());
	snprintf(num, sizeof(num), "%zu", len);
	head_header(w, "Content-Length", num);
	head_header(w, "Content-Type", type);
	if (request_id)
	{
		head_header(w, "x-amzn-RequestId", request_id);
		snprintf(num, sizeof(num), "%lu", (unsigned long) crc);
		head_header(w, "x-amz-crc32", num);
	}
	if (extra)
		head_put(w, extra);
	if (c->close_after)
		head_header(w, "Connection", "close");
	if (head && io_cors_allowed(head, allow, sizeof(allow)))
	{
		head_header(w, "Access-Control-Allow-Origin", allow);
		if (preflight)
		{
			const char *h = http_wire_header(head, "Access-Control-Request-Headers");
			const char *m = http_wire_header(head, "Access-Control-Request-Method");

			/* echoed only when short: a browser asks for a few names */
			if (h && strlen(h) <= 2048)
				head_header(w, "Access-Control-Allow-Headers", h);
			head_header(w, "Access-Control-Allow-Methods", m ? m : "POST, GET, OPTIONS");
			head_header(w, "Access-Control-Max-Age", "172800");
		}
		else
			head_header(w, "Access-Control-Expose-Headers", "x-amzn-RequestId, x-amz-crc32");
	}
	head_put(w, "\r\n");
}

/*
 * Answer on the connection: it goes to C_SEND (conn_run sends it).  body
 * is given to the connection when body_free (freed here if that fails);
 * request_id: a DynamoDB answer (its id and CRC-32 headers); close: the
 * connection is closed once it is sent (what follows on it cannot be
 * trusted, or is not read).  A HEAD request gets the head alone.  false
 * when out of memory: the connection is to be closed.
 */
static bool
conn_respond(HttpConn *c, int status, const char *body, size_t len, bool body_free,
			 const char *type, const char *request_id, const char *extra,
			 bool preflight, bool close)
{
	HeadWriter	w;
	uint32		crc = request_id ? st_crc32(0, body, len) : 0;
	HttpHead   *head = conn_head_of(c);
	const char *conn_header = head ? http_wire_header(head, "Connection") : NULL;

	/* HTTP/1.0, or a client that asks, closes after the answer */
	if (head && (head->minor == 0 || (conn_header && strcasestr(conn_header, "close"))))
		close = true;
	c->close_after = close;
	w.buf = c->out_inline;
	w.cap = sizeof(c->out_inline);
	w.len = 0;
	conn_write_head(&w, c, status, len, type, request_id, crc, extra, preflight);
	if (w.len >= w.cap)
	{
		w.cap = w.len + 1;
		w.buf = malloc(w.cap);
		if (w.buf == NULL)
		{
			if (body_free)
				free((void *) body);
			return false;
		}
		w.len = 0;
		conn_write_head(&w, c, status, len, type, request_id, crc, extra, preflight);
	}
	c->out_head = w.buf;
	c->out_head_len = w.len;
	c->out_body = body;
	c->out_body_len = (head && strcmp(head->method, "HEAD") == 0) ? 0 : len;
	c->out_body_free = body_free;
	c->out_off = 0;
	c->state = C_SEND;
	return true;
}

/* The answer's output is sent or dropped. */
static void
conn_out_free(HttpConn *c)
{
	if (c->out_head != c->out_inline)
		free(c->out_head);
	if (c->out_body_free)
		free((void *) c->out_body);
	c->out_head = NULL;
	c->out_body = NULL;
	c->out_head_len = c->out_body_len = c->out_off = 0;
	c->out_body_free = false;
}

/* A DynamoDB answer: the request id, the CRC-32 of the exact bytes sent. */
static bool
io_send(HttpConn *c, const char *request_id, int status, char *body, size_t len,
		bool preflight, bool close)
{
	return conn_respond(c, status, body, len, true, JSON_CT, request_id, NULL, preflight, close);
}

static bool
io_send_text(HttpConn *c, int status, const char *text, bool preflight, bool close)
{
	char		id[HTTP_REQUEST_ID_LEN + 1];
	size_t		len = strlen(text);
	char	   *body = malloc(len + 1);

	if (body == NULL)
		return false;
	memcpy(body, text, len + 1);
	io_request_id(id);
	return io_send(c, id, status, body, len, preflight, close);
}

/*
 * An error the I/O thread answers itself, in DynamoDB's shape, and the
 * connection closed after it (the request's body is not read, or its
 * framing is in doubt).  type is the full __type; message has no character
 * to escape.
 */
static bool
io_send_error(HttpConn *c, int status, const char *type, const char *message)
{
	char		id[HTTP_REQUEST_ID_LEN + 1];
	char		text[512];
	char	   *body;
	int			len;

	len = snprintf(text, sizeof(text), "{\"__type\": \"%s\", \"message\": \"%s\"}", type, message);
	if (len < 0 || (size_t) len >= sizeof(text) || (body = malloc(len + 1)) == NULL)
		return false;
	memcpy(body, text, len + 1);
	io_request_id(id);
	http_stats_io_request(NULL, false);
	return io_send(c, id, status, body, len, false, true);
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

static void
blob_pairs(BlobWriter *w, const HttpHeader *pairs, int n)
{
	for (int i = 0; i < n; i++)
	{
		blob_put(w, pairs[i].name);
		blob_put(w, pairs[i].value);
	}
}

/*
 * The request's head (counts, method, url, headers, query arguments) in a
 * malloc'd buffer; NULL when out of memory.
 */
static char *
io_blob_head(const HttpHead *h, size_t body_len, size_t *len)
{
	BlobWriter	w = {0};
	HttpBlobHead head = {0};
	char	   *buf = NULL;

	/* measure, then write */
	for (int pass = 0; pass < 2; pass++)
	{
		w.len = 0;
		blob_put(&w, h->method);
		blob_put(&w, h->url);
		blob_pairs(&w, h->headers, h->nheaders);
		blob_pairs(&w, h->query, h->nquery);
		if (pass == 0)
		{
			buf = malloc(sizeof(head) + w.len);
			if (buf == NULL)
				return NULL;
			w.out = buf + sizeof(head);
		}
	}
	head.nheaders = h->nheaders;
	head.nquery = h->nquery;
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
	http_queue->npending++;
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

	head = io_blob_head(&up->head, body_len, &head_len);
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

static void conn_run(HttpConn *c);

/* The connection is to run without an event (its request answered). */
static void
conn_due(HttpConn *c)
{
	if (c->due)
		return;
	c->due = true;
	c->due_next = io_due_head;
	io_due_head = c;
}

/*
 * Run the connections that are due: those due now (one that runs out of
 * its turn's budget is due again, for the next round).
 */
static void
io_run_due(void)
{
	HttpConn   *list = io_due_head;

	io_due_head = NULL;
	while (list)
	{
		HttpConn   *c = list;

		list = c->due_next;
		c->due = false;
		c->due_next = NULL;
		conn_run(c);
	}
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
			conn_due(up->conn);
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
			conn_due(up->conn);
	}
	io_drain_waiting();
}

/* ---------- a request, from its head to its answer (I/O thread) ---------- */

static bool
io_too_large(HttpConn *c)
{
	http_stats_io_request(NULL, false);
	return io_send_text(c, 413, "", false, true);
}

/*
 * What DynamoDB answers without running anything, in its order: CORS
 * preflight, GET (health), other methods and content types (404).  false:
 * the request is for a worker.  *ok: false when the answer could not be
 * made (the connection is closed).
 */
static bool
io_answer_locally(HttpConn *c, bool *ok)
{
	HttpUpload *up = c->up;
	const HttpHead *head = &up->head;
	const char *ct;
	char		allow[256];

	if (strcmp(head->method, "OPTIONS") == 0 &&
		io_cors_allowed(head, allow, sizeof(allow)))
	{
		*ok = io_send_text(c, 200, "", true, false);
		return true;
	}
	if (strcmp(head->method, "GET") == 0 || strcmp(head->method, "HEAD") == 0)
	{
		const char *host = http_wire_header(head, "Host");
		char		body[1024];
		HttpPage	page;

		/* the design studio's page (http_studio.c) */
		if (http_studio_serve(head->url, host, up->loopback, &page))
		{
			*ok = page.status != 0 &&
				conn_respond(c, page.status, page.data, page.len, page.must_free,
							 page.type, NULL, page.headers, false, false);
			return true;
		}
		snprintf(body, sizeof(body), "healthy: %s ", host ? host : "localhost");
		*ok = io_send_text(c, 200, body, false, false);
		return true;
	}
	ct = http_wire_header(head, "Content-Type");
	if (strcmp(head->method, "POST") != 0 ||
		(up->len > 0 && (ct == NULL ||
						 (strncmp(ct, JSON_CT, strlen(JSON_CT)) != 0 &&
						  strncmp(ct, "application/json", 16) != 0))))
	{
		*ok = io_send_text(c, 404, "<UnknownOperationException/>\n", false, false);
		return true;
	}
	return false;
}

/*
 * Is the request's framing ambiguous?  A proxy in front (for TLS, as
 * docs/http.md recommends) may read the body's length otherwise than the
 * endpoint does, and take what follows for another request (request
 * smuggling).  So, as RFC 9112 (sections 5.1, 6.1, 6.3) lets a server do,
 * refuse: more than one Content-Length or Transfer-Encoding, a
 * Content-Length that is not digits, a Transfer-Encoding other than
 * "chunked" or with a Content-Length, and a Transfer-Encoding in HTTP/1.0
 * (a field name that is not a token is refused by the parser,
 * http_wire.c).  The message says which; NULL: none.
 */
static const char *
io_bad_framing(const HttpHead *head)
{
	int			content_length = 0;
	int			transfer_encoding = 0;

	for (int i = 0; i < head->nheaders; i++)
	{
		const char *key = head->headers[i].name;
		const char *value = head->headers[i].value;

		if (strcasecmp(key, "Content-Length") == 0)
		{
			content_length++;
			if (value[0] == '\0' || value[strspn(value, "0123456789")] != '\0')
				return "Invalid Content-Length";
		}
		else if (strcasecmp(key, "Transfer-Encoding") == 0)
		{
			transfer_encoding++;
			if (strcasecmp(value, "chunked") != 0)
				return "Unsupported Transfer-Encoding";
		}
	}
	if (content_length > 1)
		return "Multiple Content-Length headers";
	if (transfer_encoding > 1)
		return "Multiple Transfer-Encoding headers";
	if (transfer_encoding > 0 && content_length > 0)
		return "Both Transfer-Encoding and Content-Length";
	if (transfer_encoding > 0 && head->minor != 1)
		return "Transfer-Encoding needs HTTP/1.1";
	return NULL;
}

/*
 * Queue the held upload in a free slot of this worker (the whole request,
 * or its head to be checked), or put it on the wait list.
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
		conn_due(up->conn);
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

static bool
io_unavailable(HttpConn *c)
{
	return io_send_error(c, 503, "com.amazonaws.dynamodb.v20120810#ServiceUnavailableException",
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
 * main thread (the fast path)?  Only while that thread runs the
 * connections itself (so this is the main thread, and its settings are
 * current), for one request per run, when no bound of workers per role
 * applies, and when the queue still counts this worker idle: it is then
 * marked busy, so no request is queued for it meanwhile (one queued before
 * has marked it busy already and woken it: the request then goes through
 * the queue behind it, and no wake-up is lost).
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

/* Forget a request: its slot, the wait list, the direct path, its memory. */
static void
upload_free(HttpUpload *up)
{
	if (direct_taken == up)
		direct_taken = NULL;
	if (direct_running == up)
		direct_running = NULL;
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
	http_wire_head_free(&up->head);
	free(up);
}

static void
conn_close(HttpConn *c)
{
	if (c->due)
	{
		HttpConn  **p = &io_due_head;

		while (*p && *p != c)
			p = &(*p)->due_next;
		if (*p)
			*p = c->due_next;
	}
	if (c->prev)
		c->prev->next = c->next;
	else
		io_conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	if (c->up)
		upload_free(c->up);
	conn_out_free(c);

	/*
	 * Closed with bytes of the client's unread, a connection is reset, and
	 * the answer just sent may be lost before the client reads it (a 400
	 * for a request's framing, a 431): what has arrived is read first.
	 */
	if (c->close_after)
	{
		char		sink[4096];

		for (int i = 0; i < 16 && recv(c->fd, sink, sizeof(sink), MSG_DONTWAIT) > 0; i++)
			;
	}
	/* out of the set first: a copy of the descriptor in a child would keep it there */
	(void) epoll_ctl(conn_ep, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	free(c->in);
	free(c);
	io_nconnections--;
	pg_atomic_fetch_sub_u32(&http_queue->workers[my_index].nconn, 1);
	http_stats_connection(-1);
}

/*
 * Read up to want bytes of the connection into buf: the count read, 0 when
 * none is there yet, -1 when the connection is over (closed by the client,
 * an error).  The readiness the edge-triggered set reported is used up by
 * a read short of what was asked, or one that would block.
 */
static ssize_t
conn_recv(HttpConn *c, char *buf, size_t want)
{
	ssize_t		n;

	if (!c->readable)
		return 0;
	do
		n = recv(c->fd, buf, want, 0);
	while (n < 0 && errno == EINTR);
	if (n > 0)
	{
		/* a read short of what was asked has emptied the kernel's buffer */
		if ((size_t) n < want)
			c->readable = false;
		c->active = io_now_ms();
		return n;
	}
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
	{
		c->readable = false;
		return 0;
	}
	return -1;
}

/*
 * Read what the kernel has into the connection's buffer: 1 some was read,
 * 0 none is there yet, -1 the connection is over (closed by the client, an
 * error, or its buffer full without the head complete).
 */
static int
conn_fill(HttpConn *c)
{
	size_t		room;
	ssize_t		n;

	if (c->in_pos > 0)
	{
		/* what was taken goes: the rest moves to the start */
		if (c->in_len > c->in_pos)
			memmove(c->in, c->in + c->in_pos, c->in_len - c->in_pos);
		c->in_len -= c->in_pos;
		c->in_pos = 0;
	}
	room = HTTP_CONNECTION_MEMORY - c->in_len;
	if (room == 0)
		return -1;
	n = conn_recv(c, c->in + c->in_len, room);
	if (n <= 0)
		return (int) n;
	c->in_len += n;
	return 1;
}

/*
 * Send what is left of the answer: 1 all of it, 0 the kernel's buffer is
 * full (an event says when there is room), -1 the connection is over.
 */
static int
conn_flush(HttpConn *c)
{
	for (;;)
	{
		struct iovec iov[2];
		struct msghdr msg;
		int			n = 0;
		ssize_t		sent;

		if (c->out_off < c->out_head_len)
		{
			iov[n].iov_base = c->out_head + c->out_off;
			iov[n].iov_len = c->out_head_len - c->out_off;
			n++;
			if (c->out_body_len > 0)
			{
				iov[n].iov_base = (void *) c->out_body;
				iov[n].iov_len = c->out_body_len;
				n++;
			}
		}
		else if (c->out_off < c->out_head_len + c->out_body_len)
		{
			size_t		off = c->out_off - c->out_head_len;

			iov[n].iov_base = (void *) (c->out_body + off);
			iov[n].iov_len = c->out_body_len - off;
			n++;
		}
		if (n == 0)
			return 1;
		if (!c->writable)
			return 0;
		memset(&msg, 0, sizeof(msg));
		msg.msg_iov = iov;
		msg.msg_iovlen = n;
		sent = sendmsg(c->fd, &msg, MSG_NOSIGNAL);
		if (sent < 0)
		{
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
			{
				c->writable = false;
				return 0;
			}
			return -1;
		}
		c->out_off += sent;
		c->active = io_now_ms();
	}
}

/* The answer is sent: the connection waits for its next request. */
static void
conn_next(HttpConn *c)
{
	conn_out_free(c);
	if (c->up)
		upload_free(c->up);
	c->up = NULL;
	c->state = C_HEAD;
	c->scanned = 0;
}

/*
 * The body may come (its bytes reserved): "100 Continue" to a client that
 * waits for it, when none of the body has arrived yet.  Sent at once: the
 * answer before it has gone whole, so the kernel's buffer has room but for
 * a client that does not read its answers (then false: the connection is
 * to be closed, rather than an answer cut in two).
 */
static bool
conn_body_begin(HttpConn *c)
{
	HttpUpload *up = c->up;
	const char *expect = http_wire_header(&up->head, "Expect");

	up->at_headers = false;
	c->state = C_BODY;
	if (expect && strcasecmp(expect, "100-continue") == 0 && up->head.minor == 1 &&
		(up->expect > 0 || up->chunked) && c->in_len == c->in_pos)
	{
		static const char cont[] = "HTTP/1.1 100 Continue\r\n\r\n";

		if (send(c->fd, cont, sizeof(cont) - 1, MSG_NOSIGNAL) != sizeof(cont) - 1)
			return false;
	}
	return true;
}

/*
 * The whole request has arrived: answered here, or run directly by the
 * main thread, or queued.  false when the connection is to be closed.
 */
static bool
conn_complete(HttpConn *c)
{
	HttpUpload *up = c->up;
	bool		ok = true;

	if (io_answer_locally(c, &ok))
		return ok;
	io_request_id(up->request_id);
	c->state = C_HELD;
	if (io_claim_direct(up))
	{
		up->state = UP_DIRECT;
		direct_taken = up;
		return true;
	}
	io_queue(up);
	return true;
}

/*
 * A request's head has arrived: checked, then its body awaited, or its
 * credentials first (a body that may be large).  false when the
 * connection is to be closed.
 */
static bool
conn_start(HttpConn *c)
{
	HttpUpload *up = c->up;
	const char *cl = http_wire_header(&up->head, "Content-Length");
	const char *bad = io_bad_framing(&up->head);
	int			max_connections;

	if (bad)
		return io_send_error(c, 400, "com.amazon.coral.service#SerializationException", bad);
	pthread_mutex_lock(&io_config_lock);
	max_connections = io_max_connections;
	pthread_mutex_unlock(&io_config_lock);
	if (io_nconnections > max_connections)
		return io_send_error(c, 503, "com.amazonaws.dynamodb.v20120810#ServiceUnavailableException",
							 "Too many connections (stdesign.http_max_connections)");
	if (cl && strtoull(cl, NULL, 10) > HTTP_MAX_BODY)
		return io_too_large(c);
	up->expect = cl ? (size_t) strtoull(cl, NULL, 10) : 0;
	up->chunked = http_wire_header(&up->head, "Transfer-Encoding") != NULL;

	/*
	 * A body that may be over HTTP_UNAUTH_BODY (by its Content-Length, or
	 * chunked) is read only once a worker has found the request's access
	 * key: an unknown client cannot make the worker hold more than that per
	 * connection.  The connection is held before its body meanwhile.
	 */
	if (up->expect > HTTP_UNAUTH_BODY || up->chunked)
	{
		io_request_id(up->request_id);
		up->check_pending = true;
		up->at_headers = true;
		c->state = C_HELD;
		io_queue(up);
		return true;
	}
	if (!io_buffer_reserve(up, up->expect))
		return io_unavailable(c);
	return conn_body_begin(c);
}

/*
 * Read a request's head: 1 it moved on (its state changed), 0 it waits for
 * bytes, -1 the connection is to be closed.
 */
static int
conn_head(HttpConn *c)
{
	for (;;)
	{
		size_t		end;
		HttpUpload *up;
		const char *why;

		/*
		 * Empty lines before a request are ignored (RFC 9112, 2.2), a few:
		 * a client that sends nothing else is closed
		 */
		while (c->in_pos < c->in_len && (c->in[c->in_pos] == '\n' ||
										 (c->in[c->in_pos] == '\r' && c->in_pos + 1 < c->in_len &&
										  c->in[c->in_pos + 1] == '\n')))
		{
			c->in_pos += (c->in[c->in_pos] == '\r') ? 2 : 1;
			c->scanned = 0;
			if (++c->blank_lines > 16)
				return -1;
		}
		end = http_wire_head_end(c->in + c->in_pos, c->in_len - c->in_pos, c->scanned);
		if (end == 0)
		{
			int			r;

			c->scanned = c->in_len - c->in_pos;
			r = conn_fill(c);
			if (r > 0)
				continue;
			if (r == 0)
				return 0;
			if (c->in_len < HTTP_CONNECTION_MEMORY)
				return -1;
			/* the buffer is full and the head goes on */
			up = calloc(1, sizeof(HttpUpload));
			if (up == NULL)
				return -1;
			up->conn = c;
			c->up = up;
			http_stats_io_request(NULL, false);
			return io_send_text(c, 431, "", false, true) ? 1 : -1;
		}
		up = calloc(1, sizeof(HttpUpload));
		if (up == NULL)
			return -1;
		up->conn = c;
		up->loopback = c->loopback;
		c->up = up;
		c->blank_lines = 0;
		why = http_wire_parse_head(c->in + c->in_pos, end, &up->head);
		c->in_pos += end;
		c->scanned = 0;
		if (why)
			return io_send_error(c, 400, "com.amazon.coral.service#SerializationException", why) ? 1 : -1;
		return conn_start(c) ? 1 : -1;
	}
}

/* Append body bytes to the request (a chunked body grows): false past a bound. */
static bool
body_append(HttpConn *c, const char *data, size_t n, bool *too_large)
{
	HttpUpload *up = c->up;

	*too_large = false;
	if (up->len + n > HTTP_MAX_BODY)
	{
		*too_large = true;
		return false;
	}
	if (up->len + n > up->cap)
	{
		size_t		cap = Max(up->cap * 2, up->len + n);
		char	   *d;

		cap = Min(Max(cap, 4096), HTTP_MAX_BODY);
		if (!io_buffer_reserve(up, cap))
			return false;
		d = realloc(up->data, cap);
		if (d == NULL)
			return false;
		up->data = d;
		up->cap = cap;
	}
	memcpy(up->data + up->len, data, n);
	up->len += n;
	return true;
}

/*
 * Read a request's body: 1 it moved on, 0 it waits for bytes, -1 the
 * connection is to be closed.
 */
static int
conn_body(HttpConn *c)
{
	HttpUpload *up = c->up;

	if (!up->chunked)
	{
		for (;;)
		{
			size_t		want = up->expect - up->len;
			size_t		have = c->in_len - c->in_pos;
			ssize_t		n;

			if (want == 0)
				return conn_complete(c) ? 1 : -1;
			if (up->data == NULL)
			{
				/* reserved already (conn_start, or after the check) */
				up->data = malloc(up->expect);
				if (up->data == NULL)
					return -1;
				up->cap = up->expect;
			}
			if (have > 0)
			{
				n = Min(have, want);
				memcpy(up->data + up->len, c->in + c->in_pos, n);
				up->len += n;
				c->in_pos += n;
				continue;
			}
			/* the rest straight into the body's buffer */
			n = conn_recv(c, up->data + up->len, want);
			if (n <= 0)
				return (int) n;
			up->len += n;
		}
	}
	for (;;)
	{
		const char *data;
		size_t		data_len;
		size_t		used;
		HttpWireResult r;
		bool		too_large;
		int			f;

		r = http_wire_chunked(&up->chunk, c->in + c->in_pos, c->in_len - c->in_pos,
							  &used, &data, &data_len);
		if (data_len > 0 && !body_append(c, data, data_len, &too_large))
		{
			/* past the limit: 413; past stdesign.http_max_buffer: closed */
			if (too_large)
				return io_too_large(c) ? 1 : -1;
			return -1;
		}
		c->in_pos += used;
		if (r == WIRE_DONE)
			return conn_complete(c) ? 1 : -1;
		if (r == WIRE_BAD)
			return io_send_error(c, 400, "com.amazon.coral.service#SerializationException",
								 "Malformed chunked body") ? 1 : -1;
		if (used > 0 || data_len > 0)
			continue;
		f = conn_fill(c);
		if (f <= 0)
			return f;
	}
}

/*
 * Steps one connection may take in a turn: a client that sends pipelined
 * requests as fast as they are answered (those the I/O thread answers
 * itself) has its turn end there, and the connection is due again, after
 * the others' turns (and the main thread's look at its latch).
 */
#define CONN_TURN_STEPS 64

/*
 * Move the connection on as far as it goes without waiting: send, read,
 * parse, hand a complete request on.  It may be closed here (then c is
 * gone).
 */
static void
conn_run(HttpConn *c)
{
	for (int steps = 0;; steps++)
	{
		int			r;

		if (steps >= CONN_TURN_STEPS)
		{
			conn_due(c);
			return;
		}

		switch (c->state)
		{
			case C_SEND:
				r = conn_flush(c);
				if (r < 0)
				{
					conn_close(c);
					return;
				}
				if (r == 0)
					return;
				if (c->close_after)
				{
					conn_close(c);
					return;
				}
				conn_next(c);
				continue;
			case C_HELD:
				if (c->up->state == UP_ANSWERED)
				{
					HttpUpload *up = c->up;
					char	   *body = up->resp;

					/* its time out counts from the answer, not the request */
					c->active = io_now_ms();
					up->resp = NULL;
					/* a refused check: the body is not read, the connection closed */
					if (body == NULL ||
						!io_send(c, up->request_id, up->status, body, up->resp_len, false,
								 up->check_pending))
					{
						conn_close(c);
						return;
					}
					continue;
				}
				if (c->up->state == UP_READING && c->up->at_headers)
				{
					/* the credentials passed: the body may come */
					c->active = io_now_ms();
					if (!io_buffer_reserve(c->up, c->up->expect))
					{
						if (!io_unavailable(c))
						{
							conn_close(c);
							return;
						}
						continue;
					}
					if (!conn_body_begin(c))
					{
						conn_close(c);
						return;
					}
					continue;
				}
				return;
			case C_HEAD:
				r = conn_head(c);
				break;
			case C_BODY:
				r = conn_body(c);
				break;
			default:
				r = -1;
				break;
		}
		if (r < 0)
		{
			conn_close(c);
			return;
		}
		if (r == 0)
			return;
	}
}

/*
 * A connection on socket fd, accepted here or handed over by another worker
 * (readable: its request may be waiting already; otherwise the next wait
 * reports what there is).  NULL, and fd closed, when it cannot be served.
 */
static HttpConn *
conn_new(int fd, bool loopback, bool readable)
{
	HttpConn   *c = calloc(1, sizeof(HttpConn));
	struct epoll_event ev;

	if (c != NULL)
		c->in = malloc(HTTP_CONNECTION_MEMORY);
	ev.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
	ev.data.ptr = c;
	if (c == NULL || c->in == NULL || epoll_ctl(conn_ep, EPOLL_CTL_ADD, fd, &ev) != 0)
	{
		if (c)
			free(c->in);
		free(c);
		close(fd);
		return NULL;
	}
	c->fd = fd;
	c->loopback = loopback;
	c->state = C_HEAD;
	c->writable = true;
	c->readable = readable;
	c->active = io_now_ms();
	c->next = io_conns;
	if (io_conns)
		io_conns->prev = c;
	io_conns = c;
	io_nconnections++;
	pg_atomic_fetch_add_u32(&http_queue->workers[my_index].nconn, 1);
	http_stats_connection(1);
	if (readable)
		conn_due(c);
	return c;
}

/*
 * Accept what connections the listener has: refused (closed at once) past
 * stdesign.http_max_connections and the margin in which the first request
 * is answered 503.
 */
static void
conn_accept(HttpConn *l)
{
	int			max_connections;

	pthread_mutex_lock(&io_config_lock);
	max_connections = io_max_connections;
	pthread_mutex_unlock(&io_config_lock);
	for (int i = 0; i < 64; i++)
	{
		int			fd = accept4(l->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		int			one = 1;
		struct epoll_event ev;

		if (fd < 0)
		{
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
			{
				/* out of descriptors: stop accepting for a second */
				ev.events = 0;
				ev.data.ptr = l;
				if (epoll_ctl(conn_ep, EPOLL_CTL_MOD, l->fd, &ev) == 0)
					l->paused = true;
			}
			return;
		}
		if (io_nconnections >= max_connections + HTTP_CONNECTION_MARGIN)
		{
			close(fd);
			continue;
		}
		(void) setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		(void) conn_new(fd, l->loopback, false);
	}
}

/*
 * Once a second: close the connections that made no progress for
 * HTTP_CONNECTION_TIMEOUT (a held one waits for its answer, however long),
 * and accept again on listeners paused for want of descriptors.
 */
static void
io_sweep(int64 now)
{
	HttpConn   *next;

	io_next_sweep = now + 1000;
	for (HttpConn *c = io_conns; c != NULL; c = next)
	{
		next = c->next;
		if (c->state != C_HELD && now - c->active > HTTP_CONNECTION_TIMEOUT)
			conn_close(c);
	}
	for (int i = 0; i < io_nlisteners; i++)
	{
		HttpConn   *l = &io_listeners[i];
		struct epoll_event ev;

		if (!l->paused)
			continue;
		ev.events = EPOLLIN;
		ev.data.ptr = l;
		if (epoll_ctl(conn_ep, EPOLL_CTL_MOD, l->fd, &ev) == 0)
			l->paused = false;
	}
}

/*
 * Hand an idle connection to another worker (the I/O thread, while the
 * main thread runs a request): a request arrives on it, and this worker's
 * main thread is busy, while another's is idle and has fewer connections
 * by two or more.  The kernel spreads connections over the workers'
 * sockets by a hash, so both of a client's two connections often land on
 * one worker: one of them would then take the queue, and two wake-ups, at
 * every request while the other runs.  Handed over, it is served on the
 * other worker's fast path from then on.  Only a connection between
 * requests, with nothing read of the next (its bytes wait in the kernel,
 * for the new owner to read).  true when it is gone from this worker.
 */
static bool
conn_handoff(HttpConn *c)
{
	int			target = -1;
	uint32		mine;
	uint32		best = UINT32_MAX;
	char		byte;
	struct msghdr msg;
	struct iovec iov;
	union
	{
		struct cmsghdr align;
		char		buf[CMSG_SPACE(sizeof(int))];
	}			control;
	struct cmsghdr *cm;
	bool		fast;

	if (c->state != C_HEAD || c->up != NULL || c->in_len != c->in_pos || io_nfds < 2)
		return false;
	pthread_mutex_lock(&io_config_lock);
	fast = io_fast_path;
	pthread_mutex_unlock(&io_config_lock);
	if (!fast)
		return false;
	mine = pg_atomic_read_u32(&http_queue->workers[my_index].nconn);
	queue_lock();
	for (int w = 0; w < http_queue->nworkers && w < io_nfds; w++)
	{
		HttpQueueWorker *qw = &http_queue->workers[w];
		uint32		n = pg_atomic_read_u32(&qw->nconn);

		if (w != my_index && qw->pid != 0 && qw->idle && n + 1 < mine && n < best)
		{
			best = n;
			target = w;
		}
	}
	queue_unlock();
	if (target < 0)
		return false;

	byte = c->loopback ? 1 : 0;
	iov.iov_base = &byte;
	iov.iov_len = 1;
	memset(&msg, 0, sizeof(msg));
	memset(&control, 0, sizeof(control));
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = control.buf;
	msg.msg_controllen = sizeof(control.buf);
	cm = CMSG_FIRSTHDR(&msg);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &c->fd, sizeof(int));
	if (sendmsg(io_inbox_fds[target][1], &msg, MSG_DONTWAIT | MSG_NOSIGNAL) != 1)
		return false;
	/* the other worker has the socket now: this one forgets it */
	c->close_after = false;
	conn_close(c);
	return true;
}

/* Take the connections other workers handed to this one. */
static void
conn_receive(HttpConn *inbox)
{
	for (int i = 0; i < 64; i++)
	{
		char		byte = 0;
		struct msghdr msg;
		struct iovec iov;
		union
		{
			struct cmsghdr align;
			char		buf[CMSG_SPACE(sizeof(int) * 4)];
		}			control;
		struct cmsghdr *cm;
		ssize_t		n;
		int			fd = -1;

		iov.iov_base = &byte;
		iov.iov_len = 1;
		memset(&msg, 0, sizeof(msg));
		msg.msg_iov = &iov;
		msg.msg_iovlen = 1;
		msg.msg_control = control.buf;
		msg.msg_controllen = sizeof(control.buf);
		n = recvmsg(inbox->fd, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
		if (n < 0)
		{
			if (errno == EINTR)
				continue;
			return;
		}
		for (cm = CMSG_FIRSTHDR(&msg); cm != NULL; cm = CMSG_NXTHDR(&msg, cm))
		{
			if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
				continue;
			for (size_t k = 0; k < (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int); k++)
			{
				int			got;

				memcpy(&got, CMSG_DATA(cm) + k * sizeof(int), sizeof(int));
				/* one per message is sent; any more are not ours to keep */
				if (fd < 0 && n == 1)
					fd = got;
				else
					close(got);
			}
		}
		if (fd >= 0)
			(void) conn_new(fd, byte == 1, true);
	}
}

/*
 * Run the connections (conn_lock held): those with events when events says
 * conn_ep may have some, those due, and the sweep when its time has come.
 */
static void
io_run_conns(bool events)
{
	int64		now;

	if (events)
	{
		struct epoll_event ev[64];
		int			n = epoll_wait(conn_ep, ev, lengthof(ev), 0);

		for (int i = 0; i < n; i++)
		{
			HttpConn   *c = ev[i].data.ptr;

			if (c->listener)
			{
				if (c->inbox)
					conn_receive(c);
				else
					conn_accept(c);
				continue;
			}
			if (ev[i].events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
				c->readable = true;
			/* a request while the main thread is busy: another may take it */
			if (!main_in_run && !main_drives && (ev[i].events & EPOLLIN) && conn_handoff(c))
				continue;
			if (ev[i].events & (EPOLLOUT | EPOLLHUP | EPOLLERR))
				c->writable = true;
			/* a held connection reads nothing until its request is answered */
			if (c->state != C_HELD)
				conn_run(c);
		}
	}
	io_run_due();
	now = io_now_ms();
	if (now >= io_next_sweep)
		io_sweep(now);
}

/*
 * The longest wait before the connections need running (conn_lock held), at
 * most cap ms: 0 when some are due.
 */
static int
io_conns_timeout(int cap)
{
	int64		left;

	if (io_due_head != NULL)
		return 0;
	left = io_next_sweep - io_now_ms();
	return (int) Max(Min(left, (int64) cap), 0);
}

/* The I/O thread watches the connections, or not (conn_lock held). */
static void
io_watch(bool on)
{
	struct epoll_event ev;

	ev.events = on ? EPOLLIN : 0;
	ev.data.u64 = 0;
	ev.data.u32 = 2;
	if (epoll_ctl(io_ep, EPOLL_CTL_MOD, conn_ep, &ev) != 0)
		io_failed = true;
}

static void *
io_main(void *arg)
{
	struct epoll_event events[3];

	while (!io_stop && !io_failed)
	{
		int			timeout;
		int			n;
		bool		notified = false;
		bool		conn_events = false;

		/*
		 * While the main thread drives the connections, it runs their
		 * timeouts too; this thread still wakes now and then, and whenever
		 * the main thread stops driving with work pending (wake_fd).
		 */
		pthread_mutex_lock(&conn_lock);
		timeout = main_drives ? 1000 : io_conns_timeout(1000);
		pthread_mutex_unlock(&conn_lock);
		n = epoll_wait(io_ep, events, lengthof(events), timeout);
		if (n < 0 && errno != EINTR)
		{
			io_failed = true;
			break;
		}
		pthread_mutex_lock(&conn_lock);
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
				conn_events = true;
		}
		/* on a timeout too, for safety's sake */
		if (notified || n == 0)
			io_collect();

		/*
		 * The connections with something to do: events, answers, the
		 * sweep.  Not those the idle main thread drives (an event seen
		 * before it took them over is its own), but for the connections
		 * whose answers came here.
		 */
		if (main_drives)
			io_run_due();
		else
			io_run_conns(conn_events);
		pthread_mutex_unlock(&conn_lock);
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

bool
http_listen(int listen_fd, bool loopback)
{
	HttpConn   *l;
	int			flags;

	if (io_nlisteners >= HTTP_MAX_LISTENERS)
		return false;
	/* accepted until it would block (a connection gone meanwhile) */
	flags = fcntl(listen_fd, F_GETFL, 0);
	if (flags < 0 || fcntl(listen_fd, F_SETFL, flags | O_NONBLOCK) < 0)
		return false;
	l = &io_listeners[io_nlisteners++];
	memset(l, 0, sizeof(*l));
	l->listener = true;
	l->fd = listen_fd;
	l->loopback = loopback;
	return true;
}

/* Copy the settings the I/O thread reads (at start and after a reload). */
void
http_dispatch_config(void)
{
	pthread_mutex_lock(&io_config_lock);
	strlcpy(io_cors_origin, http_cors_origin ? http_cors_origin : "", sizeof(io_cors_origin));
	io_max_buffer = (uint64) http_max_buffer * 1024;
	io_max_connections = http_max_connections;
	io_fast_path = fast_path_applies();
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
	pg_atomic_write_u32(&http_queue->workers[my_index].nconn, 0);
	wake = role_release();
	for (int i = 0; i < http_queue->nworkers * HTTP_SLOTS_PER_WORKER; i++)
	{
		HttpSlot   *s = &http_queue->slots[i];

		if (s->owner == my_index && s->state != SLOT_RUNNING)
		{
			if (s->state == SLOT_PENDING)
			{
				role_unwait(s);
				http_queue->npending--;
			}
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
 * Start this worker's I/O thread on the sockets given to http_listen: its
 * notification socket, its slots, the thread (with
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
		{
			role_unwait(s);
			http_queue->npending--;
		}
		if (s->state != SLOT_RUNNING)
			s->state = SLOT_FREE;
	}
	http_queue->workers[index].pid = (uint32) MyProcPid;
	http_queue->workers[index].idle = false;
	pg_atomic_write_u32(&http_queue->workers[index].nconn, 0);
	queue_unlock();
	memset(io_slot_upload, 0, sizeof(io_slot_upload));

	http_dispatch_config();

	/*
	 * The I/O thread's epoll set (data.u32: 0 responses to send, 1 wake_fd,
	 * 2 the connections, through conn_ep), made here so that the main
	 * thread can turn the connections' entry off and on while it drives
	 * them.  The listeners are level-triggered in conn_ep (what one does
	 * not accept in a round, the next does).
	 */
	io_ep = epoll_create1(EPOLL_CLOEXEC);
	conn_ep = epoll_create1(EPOLL_CLOEXEC);
	if (io_ep < 0 || conn_ep < 0)
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
		ev.data.u32 = 2;
		if (epoll_ctl(io_ep, EPOLL_CTL_ADD, conn_ep, &ev) != 0)
			ereport(ERROR, (errmsg("stdesign: could not watch the HTTP connections: %m")));
		for (int i = 0; i < io_nlisteners; i++)
		{
			ev.events = EPOLLIN;
			ev.data.ptr = &io_listeners[i];
			if (epoll_ctl(conn_ep, EPOLL_CTL_ADD, io_listeners[i].fd, &ev) != 0)
				ereport(ERROR, (errmsg("stdesign: could not watch an HTTP listening socket: %m")));
		}
		/* connections handed over by the other workers */
		memset(&io_inbox, 0, sizeof(io_inbox));
		io_inbox.listener = true;
		io_inbox.inbox = true;
		io_inbox.fd = io_inbox_fds[index][0];
		ev.events = EPOLLIN;
		ev.data.ptr = &io_inbox;
		if (epoll_ctl(conn_ep, EPOLL_CTL_ADD, io_inbox.fd, &ev) != 0)
			ereport(ERROR, (errmsg("stdesign: could not watch the HTTP workers' inbox: %m")));
	}
	io_next_sweep = io_now_ms() + 1000;

	/* what the main thread waits on: idle and driving, or busy */
	plain_set = st_create_wait_event_set(3);
	AddWaitEventToSet(plain_set, WL_LATCH_SET, PGINVALID_SOCKET, MyLatch, NULL);
	AddWaitEventToSet(plain_set, WL_EXIT_ON_PM_DEATH, PGINVALID_SOCKET, NULL, NULL);
	AddWaitEventToSet(plain_set, WL_SOCKET_READABLE, io_work_fds[index], NULL, NULL);
	drive_set = st_create_wait_event_set(4);
	AddWaitEventToSet(drive_set, WL_LATCH_SET, PGINVALID_SOCKET, MyLatch, NULL);
	AddWaitEventToSet(drive_set, WL_EXIT_ON_PM_DEATH, PGINVALID_SOCKET, NULL, NULL);
	AddWaitEventToSet(drive_set, WL_SOCKET_READABLE, io_work_fds[index], NULL, NULL);
	AddWaitEventToSet(drive_set, WL_SOCKET_READABLE, conn_ep, NULL, (void *) &conn_ep);

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
		if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK, 0, io_inbox_fds[i]) != 0)
			io_inbox_fds[i][0] = io_inbox_fds[i][1] = -1;
		if (io_work_fds[i] < 0 || io_done_fds[i] < 0 || io_inbox_fds[i][0] < 0)
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
 * The main thread stops driving the connections, to run a request: the
 * I/O thread watches them again, and is woken when a connection has work
 * no event signals (a response to send), so that none of this worker's connections waits for the
 * request to end.  main_drives is written by the main thread only.
 */
static void
drive_end(void)
{
	bool		wake = false;

	if (!main_drives)
		return;
	pthread_mutex_lock(&conn_lock);
	main_drives = false;
	io_watch(true);
	wake = io_due_head != NULL;
	pthread_mutex_unlock(&conn_lock);
	if (wake)
		bump(wake_fd);
}

/* The idle main thread drives the connections (conn_lock held). */
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
	for (int i = 0; http_queue->npending > 0 && i < http_queue->nworkers * HTTP_SLOTS_PER_WORKER; i++)
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
		http_queue->npending--;
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
 * drives this worker's connections itself, and a request that completes on
 * one of them is claimed here (io_claim_direct), copied with malloc under
 * conn_lock, and parsed into *req once the lock is let go.
 */
bool
http_dispatch_wait(HttpRequest *req, long timeout)
{
	WaitEvent	events[4];
	TimestampTz start;
	bool		conn_events = false;

	if (!fast_path_applies() || io_nlisteners == 0)
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

		pthread_mutex_lock(&conn_lock);
		drive_begin();
		main_in_run = true;
		/* the connections' epoll set is read only when the wait said so */
		io_run_conns(conn_events);
		main_in_run = false;
		up = direct_taken;
		direct_taken = NULL;
		if (up != NULL)
		{
			/* the request's bytes leave the connection: no longer counted */
			direct_running = up;
			head = io_blob_head(&up->head, up->len, &head_len);
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
			wake = io_due_head != NULL;
		}
		else
			t = io_conns_timeout((int) Min(Max(left, 0), INT_MAX));
		pthread_mutex_unlock(&conn_lock);

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
		conn_events = false;
		for (int i = 0; i < n; i++)
		{
			if (events[i].user_data == NULL)
				other = work_maybe = true;
			else
				conn_events = true;
		}
		/* the latch, a queued request, or the caller's time is up */
		if (other || left <= 0 || (n == 0 && t >= left))
			return false;
	}
}

/*
 * Answer a request run directly: its response goes to its connection,
 * which the main thread sends itself, driving the connections on (so that
 * no thread is woken for it); the copy is made before the lock.
 */
static void
direct_reply(HttpRequest *req, int status, const char *body, size_t len)
{
	char	   *copy = malloc(Max(len, 1));

	if (copy != NULL)
		memcpy(copy, body, len);
	pthread_mutex_lock(&conn_lock);
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
		conn_run(up->conn);
	}
	pthread_mutex_unlock(&conn_lock);
	free(copy);					/* its connection is gone */
}

/*
 * Answer a request of this worker's own connections taken from the queue
 * (it came while the main thread was busy, and no other worker took it
 * first): the main thread sends the answer itself, as on the fast path,
 * rather than through the slot and a wake-up of its I/O thread.
 */
static void
own_reply(HttpRequest *req, int status, const char *body, size_t len)
{
	HttpSlot   *s = &http_queue->slots[req->slot];
	int			i = req->slot - my_index * HTTP_SLOTS_PER_WORKER;
	char	   *copy = malloc(Max(len, 1));
	HttpUpload *up;
	int			wake;
	bool		due;

	if (copy != NULL)
		memcpy(copy, body, len);
	pthread_mutex_lock(&conn_lock);
	up = io_slot_upload[i];
	io_slot_upload[i] = NULL;
	queue_lock();
	s->state = SLOT_FREE;
	wake = role_release();
	queue_unlock();
	if (up != NULL)
	{
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
		conn_run(up->conn);
	}
	/* the slot is free: a request waiting for one takes it */
	io_drain_waiting();
	due = io_due_head != NULL;
	pthread_mutex_unlock(&conn_lock);
	free(copy);
	wake_worker(wake);
	/* what is due now the I/O thread runs (this thread is not driving) */
	if (due)
		bump(wake_fd);
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
	if (s->owner == my_index && !req->check)
	{
		own_reply(req, status, body, len);
		return;
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
	{
		s->state = SLOT_PENDING;
		http_queue->npending++;
	}
	else
	{
		/* its owner is gone, and its connection */
		role_unwait(s);
		s->state = SLOT_FREE;
	}
	queue_unlock();
}
