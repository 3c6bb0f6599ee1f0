/*-------------------------------------------------------------------------
 *
 * stream_consumers.h
 *		Consumers of DynamoDB Streams in SQL: named checkpoints that move
 *		in the reader's transaction (stream_consumers.c), and the retention
 *		of the records (stream_retention.c).
 *
 *-------------------------------------------------------------------------
 */
#ifndef ST_STREAM_CONSUMERS_H
#define ST_STREAM_CONSUMERS_H

#include "postgres.h"

#include "utils/jsonb.h"
#include "utils/tuplestore.h"

/*
 * The current user's consumer name of the table's stream, starting at
 * start (TRIM_HORIZON: its oldest record kept; LATEST: after its last).
 * Needs SELECT on the table.  The answer: ConsumerName, TableName,
 * StreamArn, SequenceNumber (the position: the last record read).
 */
extern Jsonb *ops_stream_consumer_create(const char *name, const char *table_name, const char *start);

/* Drop the current user's consumer; false when it had none of the name. */
extern bool ops_stream_consumer_drop(const char *name);

/* Move the consumer to start of its table's latest stream. */
extern Jsonb *ops_stream_consumer_reset(const char *name, const char *start);

/*
 * The next records of the consumer (at most max, 1 to 1000), as GetRecords
 * gives them, with the consumer moved past them in this transaction; its
 * row stays locked until the transaction ends.  table_name, when not NULL,
 * must be the consumer's table.
 */
extern Jsonb **ops_stream_consumer_read(const char *name, const char *table_name, int max, int *n);

/*
 * Wait until the consumer has records to read or timeout seconds (0 to a
 * day) pass; true when it has.  READ COMMITTED only.
 */
extern bool ops_stream_consumer_wait(const char *name, double timeout);

/*
 * The table's latest stream (raises when it has none) and the position
 * of start in it (TRIM_HORIZON: 0, LATEST: its last record's), for a new
 * reader of it (the stream mappings').
 */
extern void ops_stream_start_position(const char *table_name, const char *start,
									  int64 *stream_id, int64 *position);

/* ---------- retention (stream_retention.c) ---------- */

/* stdesign.stream_retention: seconds a record is kept (a day by default). */
extern int	ops_stream_retention;

/* stdesign.stream_dead_letter_retention: seconds a dead letter is kept (four days by default). */
extern int	ops_stream_dead_letter_retention;

/* Define the retention's settings (from _PG_init). */
extern void ops_stream_retention_init(void);

/*
 * Delete at most batch rows of records older than the retention (a row
 * holds one record or several of one commit), with no lock that a writer
 * waits for; the number of records deleted, and in *rows of rows.
 * Called in a transaction of its own by the time-to-live worker until it
 * deletes fewer rows than batch.
 */
extern int64 ops_stream_trim_batch(int batch, int64 *rows);

/*
 * Remove the streams of deleted tables and the disabled streams whose
 * retention has passed and whose records are all gone; their number.
 */
extern int64 ops_stream_drop_aged(void);

/*
 * Delete at most batch dead letters of stream mappings older than their
 * retention, the oldest first; the number deleted.
 */
extern int64 ops_stream_dead_letters_trim(int batch);

/*
 * Into tupstore (desc: table_name, stream_label, stream_status, records,
 * bytes, oldest, newest): each stream of the table (NULL: of every table)
 * the current user may read.
 */
extern void ops_stream_stats(const char *table_name, Tuplestorestate *tupstore, TupleDesc desc);

#endif							/* ST_STREAM_CONSUMERS_H */
