/*-------------------------------------------------------------------------
 *
 * stream_read.h
 *		DynamoDB Streams' read API: ListStreams, DescribeStream,
 *		GetShardIterator and GetRecords over stdesign's streams, shards and
 *		records.
 *
 *-------------------------------------------------------------------------
 */
#ifndef ST_STREAM_READ_H
#define ST_STREAM_READ_H

#include "postgres.h"

#include "lib/stringinfo.h"
#include "utils/jsonb.h"

/* The Limits: ListStreams and DescribeStream 1 to 100, GetRecords 1 to 1000. */
#define OPS_STREAMS_LIST_MAX 100
#define OPS_STREAM_SHARDS_MAX 100
#define OPS_STREAM_RECORDS_MAX 1000

/* stdesign.stream_iterator_lifetime: seconds a shard iterator is good for (15 minutes). */
extern int	ops_stream_iterator_lifetime;

/*
 * ListStreams: the streams the caller may read (of table_name only when
 * given), after the stream exclusive_start (an ARN, or NULL), at most
 * limit; the answer as DynamoDB Streams gives it.
 */
extern Jsonb *ops_streams_list(const char *table_name, int limit, const char *exclusive_start);

/*
 * DescribeStream of the stream arn: its shards after exclusive_start_shard
 * (or NULL), at most limit, the children of child_of only when it is not
 * NULL (ShardFilter CHILD_SHARDS).
 */
extern Jsonb *ops_stream_describe(const char *arn, int limit, const char *exclusive_start_shard,
								  const char *child_of);

/*
 * GetShardIterator: type is TRIM_HORIZON, LATEST, AT_SEQUENCE_NUMBER or
 * AFTER_SEQUENCE_NUMBER (sequence given for the last two, else NULL).
 */
extern Jsonb *ops_stream_shard_iterator(const char *arn, const char *shard_id, const char *type,
										const char *sequence);

/* GetRecords: at most limit records from the iterator's position. */
extern Jsonb *ops_stream_get_records(const char *iterator, int limit);

/*
 * The same answer as JSON text, appended to out (the HTTP endpoint sends
 * it as it is): the text that ops_stream_get_records' Jsonb prints.
 */
extern void ops_stream_get_records_text(const char *iterator, int limit, StringInfo out);

#endif							/* ST_STREAM_READ_H */
