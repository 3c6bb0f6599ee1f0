/*-------------------------------------------------------------------------
 *
 * api_streams.c
 *		The DynamoDB Streams API (X-Amz-Target DynamoDBStreams_20120810.*):
 *		ListStreams, DescribeStream, GetShardIterator, GetRecords.
 *
 * The requests are checked here against the Streams service's model (the
 * model's types, lengths, ranges and enums, in DynamoDB's words: "1
 * validation error detected: Value ... at 'field' failed to satisfy
 * constraint: ..."), then run by ops/stream_read.c.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/jsonb.h"

#include "api.h"
#include "json_req.h"
#include "ops/stream_read.h"

/* A string member within the model's lengths; NULL when absent and not required. */
static char *
string_member(Jsonb *request, const char *key, const char *path, int min, int max, bool required)
{
	char	   *v = api_jreq_member_text(request, key, key);
	int			len;

	if (v == NULL)
	{
		if (required)
			st_validation_null("%s", path);
		return NULL;
	}
	len = strlen(v);
	if (len < min)
		st_error(ST_ERR_VALIDATION,
				 "1 validation error detected: Value '%s' at '%s' failed to satisfy constraint: Member must have length greater than or equal to %d",
				 v, path, min);
	if (len > max)
		st_error(ST_ERR_VALIDATION,
				 "1 validation error detected: Value at '%s' failed to satisfy constraint: Member must have length less than or equal to %d",
				 path, max);
	return v;
}

/* Limit: 1 to max, dflt when absent. */
static int
limit_member(Jsonb *request, int max, int dflt)
{
	int64		limit = api_jreq_member_int(request, "Limit", "Limit", dflt);

	if (limit < 1)
		st_error(ST_ERR_VALIDATION,
				 "1 validation error detected: Value '" INT64_FORMAT "' at 'limit' failed to satisfy constraint: Member must have value greater than or equal to 1",
				 limit);
	if (limit > max)
		st_error(ST_ERR_VALIDATION,
				 "1 validation error detected: Value '" INT64_FORMAT "' at 'limit' failed to satisfy constraint: Member must have value less than or equal to %d",
				 limit, max);
	return (int) limit;
}

/* The lengths of the Streams model: StreamArn 37-1024, ShardId 28-65, SequenceNumber 21-40. */
#define ARN_MIN 37
#define ARN_MAX 1024
#define SHARD_MIN 28
#define SHARD_MAX 65
#define SEQ_MIN 21
#define SEQ_MAX 40

Jsonb *
api_list_streams(Jsonb *request)
{
	char	   *table = string_member(request, "TableName", "tableName", 3, 255, false);
	int			limit = limit_member(request, OPS_STREAMS_LIST_MAX, OPS_STREAMS_LIST_MAX);
	char	   *start = string_member(request, "ExclusiveStartStreamArn", "exclusiveStartStreamArn",
									  ARN_MIN, ARN_MAX, false);

	/* a table of that name need not exist (any more): its streams are listed */
	if (table)
		(void) catalog_table_name(table, "tableName");
	return ops_streams_list(table, limit, start);
}

Jsonb *
api_describe_stream(Jsonb *request)
{
	char	   *arn = string_member(request, "StreamArn", "streamArn", ARN_MIN, ARN_MAX, true);
	int			limit = limit_member(request, OPS_STREAM_SHARDS_MAX, OPS_STREAM_SHARDS_MAX);
	char	   *start = string_member(request, "ExclusiveStartShardId", "exclusiveStartShardId",
									  SHARD_MIN, SHARD_MAX, false);
	Jsonb	   *filter = api_jreq_member(request, "ShardFilter");
	char	   *child_of = NULL;

	if (filter)
	{
		char	   *type;

		if (!api_jreq_is_object(filter))
			st_error(ST_ERR_SERIALIZATION, "Unexpected value type for ShardFilter: expected a structure");
		type = api_jreq_member_text(filter, "Type", "Type");
		if (type && strcmp(type, "CHILD_SHARDS") != 0)
			st_error(ST_ERR_VALIDATION,
					 "1 validation error detected: Value '%s' at 'shardFilter.type' failed to satisfy constraint: Member must satisfy enum value set: [CHILD_SHARDS]",
					 strlen(type) > 64 ? "(too long)" : type);
		child_of = string_member(filter, "ShardId", "shardFilter.shardId", SHARD_MIN, SHARD_MAX, false);
		/* a filter names the shard whose children it lists */
		if (type && child_of == NULL)
			st_error(ST_ERR_VALIDATION,
					 "ShardFilter of type CHILD_SHARDS requires a ShardId");
		if (type == NULL)
			child_of = NULL;
	}
	return ops_stream_describe(arn, limit, start, child_of);
}

Jsonb *
api_get_shard_iterator(Jsonb *request)
{
	static const char *const types[] = {"TRIM_HORIZON", "LATEST", "AT_SEQUENCE_NUMBER", "AFTER_SEQUENCE_NUMBER"};
	char	   *arn = string_member(request, "StreamArn", "streamArn", ARN_MIN, ARN_MAX, true);
	char	   *shard = string_member(request, "ShardId", "shardId", SHARD_MIN, SHARD_MAX, true);
	char	   *type = api_jreq_member_text(request, "ShardIteratorType", "ShardIteratorType");
	char	   *seq = string_member(request, "SequenceNumber", "sequenceNumber", SEQ_MIN, SEQ_MAX, false);
	bool		known = false;

	if (type == NULL)
		st_validation_null("shardIteratorType");
	for (int i = 0; i < (int) lengthof(types); i++)
		known |= strcmp(type, types[i]) == 0;
	if (!known)
		st_error(ST_ERR_VALIDATION,
				 "1 validation error detected: Value '%s' at 'shardIteratorType' failed to satisfy constraint: Member must satisfy enum value set: [AFTER_SEQUENCE_NUMBER, AT_SEQUENCE_NUMBER, TRIM_HORIZON, LATEST]",
				 strlen(type) > 64 ? "(too long)" : type);
	return ops_stream_shard_iterator(arn, shard, type, seq);
}

Jsonb *
api_get_records(Jsonb *request)
{
	char	   *iterator = string_member(request, "ShardIterator", "shardIterator", 1, 2048, true);
	int			limit = limit_member(request, OPS_STREAM_RECORDS_MAX, OPS_STREAM_RECORDS_MAX);

	return ops_stream_get_records(iterator, limit);
}

/* GetRecords' answer as JSON text (the HTTP endpoint's) */
void
api_get_records_text(Jsonb *request, StringInfo out)
{
	char	   *iterator = string_member(request, "ShardIterator", "shardIterator", 1, 2048, true);
	int			limit = limit_member(request, OPS_STREAM_RECORDS_MAX, OPS_STREAM_RECORDS_MAX);

	ops_stream_get_records_text(iterator, limit, out);
}
