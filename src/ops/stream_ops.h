/*-------------------------------------------------------------------------
 *
 * stream_ops.h
 *		DynamoDB Streams' operations on a table's stream: enabling,
 *		disabling, reading its records.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ST_STREAM_OPS_H
#define ST_STREAM_OPS_H

#include "postgres.h"

#include "utils/jsonb.h"
#include "utils/numeric.h"

#include "item/av.h"

/*
 * UpdateTable's StreamSpecification: enable a new stream of view_type
 * (StreamViewType) on the table, or disable its enabled one.  Both need
 * the ownership of the table's relation.  The answer: the table's
 * StreamSpecification, LatestStreamLabel and LatestStreamArn.
 */
extern Jsonb *ops_stream_enable(const char *table_name, const char *view_type);
extern Jsonb *ops_stream_disable(const char *table_name);

/*
 * The records of the table's latest stream with sequence numbers above
 * after, at most max (1 to 1000), in order, as GetRecords gives them:
 * *n of them in a palloc'd array.  Needs SELECT on the table's relation.
 */
extern Jsonb **ops_stream_records(const char *table_name, Numeric after, int max, int *n);

/*
 * The same, of stream stream_id after sequence number after, read as the
 * catalog's owner: the caller has checked the reader's right
 * (ops_stream_check_read).  *last: the last record's sequence number, or
 * after when none.
 */
extern Jsonb **ops_stream_records_of(int64 stream_id, int64 after, int max, int *n, int64 *last);

/*
 * May the current user read the table's stream?  SELECT on its relation
 * and no row-level security applying to it there; raises otherwise.
 */
struct StTable;
extern void ops_stream_check_read(struct StTable *t);

/*
 * The bytes of records one read returns: "GetRecords can retrieve a maximum
 * of 1 MB of data or 1000 stream records, whichever comes first" (DynamoDB
 * Streams API reference, GetRecords): the records that start within the
 * first MB of their SizeBytes, for GetRecords (stream_read.c) and for the
 * reads of SQL consumers and mappings (ops_stream_records_of) alike.
 */
#define ST_STREAM_RECORDS_MAX_BYTES (1024 * 1024)

/* A batch's size as GetRecords' Limit: 1 to 1000; raises otherwise. */
extern void ops_stream_check_max(int max);

/* A stream's ARN: the table's ARN, "/stream/" and its label. */
extern char *ops_stream_arn(const char *table_name, const char *label);

/*
 * DescribeTable's stream fields of the table (its latest stream, when it
 * has one): StreamSpecification while enabled, LatestStreamLabel and
 * LatestStreamArn, set in the map description.
 */
extern void ops_stream_describe_table(const char *table_name, Av *description);

/*
 * The table's latest stream that its deletion did not leave behind (the
 * enabled one, or the last disabled one while it is kept): false when it
 * has none.  with_last also reads the stream's latest record's sequence
 * number (has_last false when it has none).  Read as the catalog's owner,
 * in a snapshot of now; the caller has checked the reader's right.
 */
typedef struct OpsStreamLatest
{
	int64		stream_id;
	char	   *label;
	char	   *view_type;
	bool		enabled;
	bool		has_last;
	int64		last;
} OpsStreamLatest;

extern bool ops_stream_latest(const char *table_name, bool with_last, OpsStreamLatest *latest);

/*
 * The table was deleted (its streams marked table_deleted_at): their open
 * shards are closed, their records stay readable by the table's owner.
 */
extern void ops_stream_table_deleted(const char *table_name);

/*
 * For a trimmer of stdesign.stream_records: delete the closed shards that
 * have no record left (their records all aged out), as the catalog's
 * owner; returns how many.  Disabling a stream and deleting its table
 * close its open shard.
 */
extern int64 ops_stream_drop_trimmed_shards(void);

#endif							/* ST_STREAM_OPS_H */
