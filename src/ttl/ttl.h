/*-------------------------------------------------------------------------
 *
 * ttl.h
 *		The time-to-live worker: a background worker that deletes the
 *		expired items of every table with time to live enabled, in one
 *		database, every stdesign.ttl_interval seconds.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ST_TTL_H
#define ST_TTL_H

#include "postgres.h"

/* The settings. */
extern int	ttl_interval;		/* seconds between rounds */
extern int	ttl_batch_size;		/* items deleted per transaction */
extern char *ttl_database;		/* "": stdesign.http_database's */

/*
 * Define the settings and, when the library is being preloaded, register
 * the worker (from _PG_init).
 */
extern void ttl_init(void);

/* The worker's entry point (bgw_function_name). */
extern PGDLLEXPORT void ttl_worker_main(Datum arg);

/*
 * The database the workers serve: stdesign.ttl_database, else the HTTP
 * endpoint's (stdesign.http_database, "postgres" by default).
 */
extern const char *ttl_served_database(void);

/* ---------- the stream worker (stream_worker.c) ---------- */

/* stdesign.stream_mapping_retry_delay: ms before a failed batch's first retry. */
extern int	ttl_stream_retry_delay;

/* Define its setting and, when preloading, register the worker (from _PG_init). */
extern void ttl_stream_worker_init(void);

/* The stream worker's entry point. */
extern PGDLLEXPORT void ttl_stream_worker_main(Datum arg);

/* Its shared memory (the library preloaded): the batch it is running. */
extern void ttl_stream_shmem_request(void);
extern void ttl_stream_shmem_startup(void);

#endif							/* ST_TTL_H */
