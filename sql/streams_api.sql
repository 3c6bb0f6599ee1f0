-- DynamoDB Streams, the DynamoDB-facing part: StreamSpecification in
-- CreateTable, UpdateTable and DescribeTable; ListStreams, DescribeStream,
-- GetShardIterator and GetRecords through st_api; shards that roll over;
-- iterators that cannot be forged or used by another role; roles without
-- grants.  What changes from run to run (labels, shard ids, sequence
-- numbers, iterators) is checked for shape and masked.

-- The stream's ARN of a table, its first shard, an iterator.
CREATE FUNCTION arn_of(t text) RETURNS text LANGUAGE sql AS $$
	SELECT st_api('DescribeTable', jsonb_build_object('TableName', t))->'Table'->>'LatestStreamArn' $$;
CREATE FUNCTION shards_of(t text) RETURNS jsonb LANGUAGE sql AS $$
	SELECT st_api('DescribeStream', jsonb_build_object('StreamArn', arn_of(t)))->'StreamDescription'->'Shards' $$;
CREATE FUNCTION iter(t text, shard int, kind text, seq text DEFAULT NULL) RETURNS text LANGUAGE sql AS $$
	SELECT st_api('GetShardIterator', jsonb_strip_nulls(jsonb_build_object('StreamArn', arn_of(t),
		'ShardId', shards_of(t)->shard->>'ShardId', 'ShardIteratorType', kind, 'SequenceNumber', seq)))->>'ShardIterator' $$;
-- A GetRecords answer without what changes: events, keys, images, and
-- whether a next iterator came.
CREATE FUNCTION records(it text, lim int DEFAULT 1000)
RETURNS TABLE (event text, keys jsonb, new_image jsonb, old_image jsonb, seq_ok boolean, has_next boolean)
LANGUAGE sql AS $$
	SELECT r->>'eventName', r->'dynamodb'->'Keys', r->'dynamodb'->'NewImage', r->'dynamodb'->'OldImage',
		   r->'dynamodb'->>'SequenceNumber' ~ '^[0-9]{21}$' AND r->>'eventSource' = 'aws:dynamodb'
		   AND r->>'eventVersion' = '1.1' AND r->'dynamodb'->>'StreamViewType' IS NOT NULL,
		   a ? 'NextShardIterator'
	  FROM st_api('GetRecords', jsonb_build_object('ShardIterator', it, 'Limit', lim)) a
	  LEFT JOIN LATERAL jsonb_array_elements(a->'Records') r ON true
$$;
CREATE FUNCTION mask(j jsonb) RETURNS jsonb LANGUAGE sql AS $$
	SELECT regexp_replace(regexp_replace(regexp_replace(j::text,
		'\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}', 'LABEL', 'g'),
		'shardId-\d{20}-[0-9a-f]{8}', 'SHARD', 'g'),
		'"\d{21}"', '"SEQ"', 'g')::jsonb - 'CreationDateTime' - 'TableId'
$$;
-- A statement's error, with the shard ids in it masked.
CREATE FUNCTION try(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE q;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	RETURN regexp_replace(SQLERRM, 'shardId-\d{20}-[0-9a-f]{8}', 'SHARD', 'g');
END $$;

-- CreateTable with a stream: its answer and DescribeTable carry it
SELECT mask(st_api('CreateTable', '{"TableName": "Carts", "BillingMode": "PAY_PER_REQUEST",
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"}],
  "StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_AND_OLD_IMAGES"}}'::jsonb)->'TableDescription')
  ?& array['StreamSpecification', 'LatestStreamLabel', 'LatestStreamArn'] AS create_answer;
SELECT mask(st_api('DescribeTable', '{"TableName": "Carts"}'::jsonb)->'Table')
  -> 'StreamSpecification' AS spec,
  mask(st_api('DescribeTable', '{"TableName": "Carts"}'::jsonb)->'Table') ->> 'LatestStreamArn' AS arn,
  mask(st_api('DescribeTable', '{"TableName": "Carts"}'::jsonb)->'Table') ->> 'LatestStreamLabel' AS label;
-- StreamEnabled false at creation: no stream
SELECT st_api('CreateTable', '{"TableName": "Unstreamed", "BillingMode": "PAY_PER_REQUEST",
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
  "StreamSpecification": {"StreamEnabled": false}}'::jsonb)->'TableDescription' ? 'LatestStreamArn' AS plain_has_stream;
-- DynamoDB's refusals
SELECT st_api('CreateTable', '{"TableName": "Bad1", "BillingMode": "PAY_PER_REQUEST",
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
  "StreamSpecification": {"StreamEnabled": true}}'::jsonb);
SELECT st_api('DescribeTable', '{"TableName": "Bad1"}'::jsonb);
SELECT st_api('CreateTable', '{"TableName": "Bad2", "BillingMode": "PAY_PER_REQUEST",
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
  "StreamSpecification": {"StreamEnabled": true, "StreamViewType": "EVERYTHING"}}'::jsonb);
SELECT st_api('CreateTable', '{"TableName": "Bad3", "BillingMode": "PAY_PER_REQUEST",
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
  "StreamSpecification": {"StreamViewType": "KEYS_ONLY"}}'::jsonb);
SELECT st_api('UpdateTable', '{"TableName": "Carts", "StreamSpecification": {"StreamEnabled": true, "StreamViewType": "KEYS_ONLY"}}'::jsonb);
SELECT st_api('UpdateTable', '{"TableName": "Unstreamed", "StreamSpecification": {"StreamEnabled": false}}'::jsonb);
SELECT st_api('UpdateTable', '{"TableName": "Unstreamed", "StreamSpecification": {"StreamEnabled": true}}'::jsonb);
SELECT st_api('UpdateTable', '{"TableName": "Unstreamed", "StreamSpecification": "yes"}'::jsonb);

-- writes, then the Streams API
SELECT st_put('{"PK": "c#1", "SK": "item#1", "qty": 1}', 'Carts') IS NULL AS put;
SELECT st_put('{"PK": "c#1", "SK": "item#1", "qty": 2}', 'Carts') IS NULL AS put;
SELECT st_delete('c#1', 'item#1', 'Carts') IS NULL AS deleted;
SELECT mask(st_api('ListStreams', '{"TableName": "Carts"}'::jsonb)) AS list_carts;
SELECT mask(st_api('ListStreams', '{"TableName": "Unstreamed"}'::jsonb)) AS list_plain;
SELECT mask(st_api('DescribeStream', jsonb_build_object('StreamArn', arn_of('Carts')))
	#- '{StreamDescription,CreationRequestDateTime}') AS described;
SELECT jsonb_typeof(st_api('DescribeStream', jsonb_build_object('StreamArn', arn_of('Carts')))
	->'StreamDescription'->'CreationRequestDateTime') AS creation_type;
SELECT * FROM records(iter('Carts', 0, 'TRIM_HORIZON'));
SELECT * FROM records(iter('Carts', 0, 'TRIM_HORIZON'), 2);
SELECT * FROM records(iter('Carts', 0, 'LATEST'));
-- AT and AFTER a record's number
SELECT st_api('GetRecords', jsonb_build_object('ShardIterator', iter('Carts', 0, 'TRIM_HORIZON')))
	->'Records'->1->'dynamodb'->>'SequenceNumber' AS second \gset
SELECT event, keys FROM records(iter('Carts', 0, 'AT_SEQUENCE_NUMBER', :'second'));
SELECT event, keys FROM records(iter('Carts', 0, 'AFTER_SEQUENCE_NUMBER', :'second'));
-- the next iterator goes on where the last record was
SELECT st_api('GetRecords', jsonb_build_object('ShardIterator', iter('Carts', 0, 'TRIM_HORIZON'), 'Limit', 1))
	->>'NextShardIterator' AS next \gset
SELECT event FROM records(:'next');
SELECT st_put('{"PK": "c#2", "SK": "item#1"}', 'Carts') IS NULL AS put;
SELECT event, keys FROM records(iter('Carts', 0, 'AFTER_SEQUENCE_NUMBER', :'second'));

-- bad input: DynamoDB's errors
SELECT st_api('DescribeStream', '{}'::jsonb);
SELECT st_api('DescribeStream', '{"StreamArn": "not an arn at all, but long enough to pass"}'::jsonb);
SELECT st_api('DescribeStream', '{"StreamArn": "arn:aws:dynamodb:local:000000000000:table/Carts/stream/2000-01-01T00:00:00.000"}'::jsonb);
SELECT st_api('DescribeStream', '{"StreamArn": "arn:aws:dynamodb:us-east-1:123456789012:table/Carts/stream/2000-01-01T00:00:00.000"}'::jsonb);
SELECT st_api('DescribeStream', '{"StreamArn": "short"}'::jsonb);
SELECT st_api('DescribeStream', jsonb_build_object('StreamArn', arn_of('Carts'), 'Limit', 0));
SELECT st_api('DescribeStream', jsonb_build_object('StreamArn', arn_of('Carts'), 'Limit', 101));
SELECT st_api('DescribeStream', jsonb_build_object('StreamArn', arn_of('Carts'), 'ShardFilter', '{"Type": "PARENT_SHARDS", "ShardId": "shardId-00000000000000000000-00000000"}'::jsonb));
SELECT st_api('DescribeStream', jsonb_build_object('StreamArn', 42));
SELECT st_api('ListStreams', '{"Limit": 0}'::jsonb);
SELECT st_api('ListStreams', '{"Limit": 101}'::jsonb);
SELECT st_api('ListStreams', '{"Limit": "ten"}'::jsonb);
SELECT st_api('GetShardIterator', jsonb_build_object('StreamArn', arn_of('Carts'), 'ShardId', shards_of('Carts')->0->>'ShardId'));
SELECT st_api('GetShardIterator', jsonb_build_object('StreamArn', arn_of('Carts'), 'ShardId', shards_of('Carts')->0->>'ShardId', 'ShardIteratorType', 'OLDEST'));
SELECT st_api('GetShardIterator', jsonb_build_object('StreamArn', arn_of('Carts'), 'ShardId', 'shardId-00000000000000000000-00000000', 'ShardIteratorType', 'LATEST'));
SELECT st_api('GetShardIterator', jsonb_build_object('StreamArn', arn_of('Carts'), 'ShardId', shards_of('Carts')->0->>'ShardId', 'ShardIteratorType', 'AT_SEQUENCE_NUMBER'));
SELECT try($q$SELECT st_api('GetShardIterator', jsonb_build_object('StreamArn', arn_of('Carts'), 'ShardId', shards_of('Carts')->0->>'ShardId', 'ShardIteratorType', 'AT_SEQUENCE_NUMBER', 'SequenceNumber', '000000000000000000000'))$q$) AS below_shard;
SELECT try($q$SELECT st_api('GetShardIterator', jsonb_build_object('StreamArn', arn_of('Carts'), 'ShardId', shards_of('Carts')->0->>'ShardId', 'ShardIteratorType', 'AT_SEQUENCE_NUMBER', 'SequenceNumber', '99999999999999999999999999999'))$q$) AS past_bigint;
SELECT st_api('GetShardIterator', jsonb_build_object('StreamArn', arn_of('Carts'), 'ShardId', shards_of('Carts')->0->>'ShardId', 'ShardIteratorType', 'AT_SEQUENCE_NUMBER', 'SequenceNumber', '12345678901234567890x'));
SELECT st_api('GetShardIterator', jsonb_build_object('StreamArn', arn_of('Carts'), 'ShardId', shards_of('Carts')->0->>'ShardId', 'ShardIteratorType', 'AT_SEQUENCE_NUMBER', 'SequenceNumber', '1'));
SELECT st_api('GetRecords', '{}'::jsonb);
SELECT st_api('GetRecords', '{"ShardIterator": "forged"}'::jsonb);
SELECT st_api('GetRecords', jsonb_build_object('ShardIterator', repeat('x', 2049)));
SELECT st_api('GetRecords', jsonb_build_object('ShardIterator', iter('Carts', 0, 'LATEST'), 'Limit', 0));
SELECT st_api('GetRecords', jsonb_build_object('ShardIterator', iter('Carts', 0, 'LATEST'), 'Limit', 1001));
-- a changed position, stream or role in an iterator breaks its MAC
SELECT st_api('GetRecords', jsonb_build_object('ShardIterator',
	regexp_replace(iter('Carts', 0, 'LATEST'), '~(\d+)~(\d+)~', '~\1~0~')));
SELECT st_api('GetRecords', jsonb_build_object('ShardIterator',
	regexp_replace(iter('Carts', 0, 'LATEST'), '.$', 'g')));
-- the operations of one service are not the other's
SELECT st_api('DynamoDB_20120810.GetRecords', '{}'::jsonb);
SELECT st_api('DynamoDBStreams_20120810.PutItem', '{}'::jsonb);
SELECT st_api('DynamoDBStreams_20120810.ListStreams', '{"TableName": "Unstreamed"}'::jsonb);

-- shards roll over: the first writer after the shard's lifetime closes it
SELECT iter('Carts', 0, 'LATEST') AS old_latest \gset
SET stdesign.stream_shard_lifetime = 1;
SELECT pg_sleep(1.2);
SELECT st_put('{"PK": "c#3", "SK": "item#1"}', 'Carts') IS NULL AS put;
RESET stdesign.stream_shard_lifetime;
SELECT jsonb_array_length(shards_of('Carts')) AS shards,
	   shards_of('Carts')->1->>'ParentShardId' = shards_of('Carts')->0->>'ShardId' AS child_of_first,
	   shards_of('Carts')->0->'SequenceNumberRange' ? 'EndingSequenceNumber' AS first_closed,
	   shards_of('Carts')->1->'SequenceNumberRange' ? 'EndingSequenceNumber' AS second_closed,
	   (shards_of('Carts')->0->'SequenceNumberRange'->>'EndingSequenceNumber')::numeric
		 < (shards_of('Carts')->1->'SequenceNumberRange'->>'StartingSequenceNumber')::numeric AS ordered;
-- the closed shard read to its end: no next iterator; the new write is in the child
SELECT event, keys, has_next FROM records(iter('Carts', 0, 'TRIM_HORIZON'));
SELECT event, keys, has_next FROM records(:'old_latest');
SELECT event, keys, has_next FROM records(iter('Carts', 1, 'TRIM_HORIZON'));
-- ShardFilter CHILD_SHARDS, Limit and ExclusiveStartShardId
SELECT jsonb_array_length(st_api('DescribeStream', jsonb_build_object('StreamArn', arn_of('Carts'),
	'ShardFilter', jsonb_build_object('Type', 'CHILD_SHARDS', 'ShardId', shards_of('Carts')->0->>'ShardId')))
	->'StreamDescription'->'Shards') AS children,
	   jsonb_array_length(st_api('DescribeStream', jsonb_build_object('StreamArn', arn_of('Carts'),
	'ShardFilter', jsonb_build_object('Type', 'CHILD_SHARDS', 'ShardId', shards_of('Carts')->1->>'ShardId')))
	->'StreamDescription'->'Shards') AS grandchildren;
SELECT d->'Shards'->0->>'ShardId' = shards_of('Carts')->0->>'ShardId' AS first_page,
	   d->>'LastEvaluatedShardId' = shards_of('Carts')->0->>'ShardId' AS last_evaluated
  FROM (SELECT st_api('DescribeStream', jsonb_build_object('StreamArn', arn_of('Carts'), 'Limit', 1))->'StreamDescription' d) x;
SELECT d->'Shards'->0->>'ShardId' = shards_of('Carts')->1->>'ShardId' AS second_page, d ? 'LastEvaluatedShardId' AS more
  FROM (SELECT st_api('DescribeStream', jsonb_build_object('StreamArn', arn_of('Carts'), 'Limit', 1,
	'ExclusiveStartShardId', shards_of('Carts')->0->>'ShardId'))->'StreamDescription' d) x;
-- a sequence number of the closed shard is not in the child
SELECT regexp_replace(try(format($q$SELECT st_api('GetShardIterator', jsonb_build_object('StreamArn', arn_of('Carts'), 'ShardId', shards_of('Carts')->1->>'ShardId',
	'ShardIteratorType', 'AT_SEQUENCE_NUMBER', 'SequenceNumber', %L))$q$, :'second')), '\d{21}', 'SEQ') AS not_in_child;

-- roles: reading needs SELECT on the table, checked on every call
CREATE ROLE stream_reader;
CREATE ROLE stream_nobody;
GRANT USAGE ON SCHEMA stdesign, stdesign_data TO stream_reader, stream_nobody;
GRANT SELECT ON stdesign.tables, stdesign.indexes TO stream_reader, stream_nobody;
SELECT arn_of('Carts') AS carts_arn, shards_of('Carts')->1->>'ShardId' AS child_shard \gset
SELECT iter('Carts', 1, 'TRIM_HORIZON') AS owner_iter \gset
SET ROLE stream_nobody;
SELECT st_api('ListStreams', '{}'::jsonb) AS nobody_list;
SELECT st_api('DescribeStream', jsonb_build_object('StreamArn', :'carts_arn'));
SELECT st_api('GetShardIterator', jsonb_build_object('StreamArn', :'carts_arn', 'ShardId', :'child_shard', 'ShardIteratorType', 'LATEST'));
-- another role's iterator is refused
SELECT st_api('GetRecords', jsonb_build_object('ShardIterator', :'owner_iter'));
RESET ROLE;
GRANT SELECT ON stdesign_data."Carts" TO stream_reader;
SET ROLE stream_reader;
SELECT jsonb_array_length(st_api('ListStreams', '{}'::jsonb)->'Streams') AS reader_sees;
SELECT st_api('GetShardIterator', jsonb_build_object('StreamArn', :'carts_arn', 'ShardId', :'child_shard', 'ShardIteratorType', 'TRIM_HORIZON'))->>'ShardIterator' AS reader_iter \gset
SELECT jsonb_array_length(st_api('GetRecords', jsonb_build_object('ShardIterator', :'reader_iter'))->'Records') AS reader_records;
RESET ROLE;
REVOKE SELECT ON stdesign_data."Carts" FROM stream_reader;
SET ROLE stream_reader;
SELECT st_api('GetRecords', jsonb_build_object('ShardIterator', :'reader_iter'));
RESET ROLE;

-- disabling: DISABLED, the shard closed, still readable; enabling again makes a new stream
SELECT mask(st_api('UpdateTable', '{"TableName": "Carts", "StreamSpecification": {"StreamEnabled": false}}'::jsonb)
	->'TableDescription') ?& array['StreamSpecification', 'LatestStreamArn'] AS disabled_answer;
SELECT st_api('UpdateTable', '{"TableName": "Carts", "StreamSpecification": {"StreamEnabled": false}}'::jsonb)
	->'TableDescription'->'StreamSpecification' AS disabling_again;
SELECT st_api('DescribeTable', '{"TableName": "Carts"}'::jsonb)->'Table' ? 'StreamSpecification' AS spec_after_disable;
SELECT st_api('DescribeStream', jsonb_build_object('StreamArn', :'carts_arn'))->'StreamDescription'->>'StreamStatus' AS status;
SELECT bool_and(s->'SequenceNumberRange' ? 'EndingSequenceNumber') AS all_closed
  FROM jsonb_array_elements(st_api('DescribeStream', jsonb_build_object('StreamArn', :'carts_arn'))->'StreamDescription'->'Shards') s;
SELECT pg_sleep(0.01);
SELECT st_api('UpdateTable', '{"TableName": "Carts", "StreamSpecification": {"StreamEnabled": true, "StreamViewType": "KEYS_ONLY"}}'::jsonb)
	->'TableDescription'->'StreamSpecification' AS reenabled;
SELECT arn_of('Carts') <> :'carts_arn' AS new_arn,
	   jsonb_array_length(st_api('ListStreams', '{"TableName": "Carts"}'::jsonb)->'Streams') AS carts_streams;
SELECT st_put('{"PK": "c#4", "SK": "item#1", "qty": 1}', 'Carts') IS NULL AS put;
SELECT * FROM records(iter('Carts', 0, 'TRIM_HORIZON'));

-- a deleted table's stream stays readable by its owner
SELECT st_api('DeleteTable', '{"TableName": "Carts"}'::jsonb)->'TableDescription'->>'TableStatus' AS deleting;
SELECT st_api('DescribeStream', jsonb_build_object('StreamArn', :'carts_arn'))->'StreamDescription'->>'StreamStatus' AS old_status;
SELECT count(*) AS old_records FROM jsonb_array_elements(st_api('GetRecords', jsonb_build_object('ShardIterator',
	st_api('GetShardIterator', jsonb_build_object('StreamArn', :'carts_arn', 'ShardId', :'child_shard', 'ShardIteratorType', 'TRIM_HORIZON'))->>'ShardIterator'))->'Records');
SET ROLE stream_reader;
SELECT st_api('DescribeStream', jsonb_build_object('StreamArn', :'carts_arn'));
RESET ROLE;
SELECT jsonb_array_length(st_api('ListStreams', '{"TableName": "Carts"}'::jsonb)->'Streams') AS after_delete;

-- GetRecords gives up to 1 MB of records: four records of 300 kB come as
-- three, then the fourth after the next iterator
SELECT st_api('CreateTable', '{"TableName": "BigRecords", "BillingMode": "PAY_PER_REQUEST",
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
  "StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_IMAGE"}}'::jsonb) IS NOT NULL AS big_created;
SELECT count(st_put(jsonb_build_object('PK', 'b#' || i, 'blob', repeat('x', 300000)), 'BigRecords') IS NULL) AS big_puts
  FROM generate_series(1, 4) i;
WITH first AS (SELECT st_api('GetRecords', jsonb_build_object('ShardIterator', iter('BigRecords', 0, 'TRIM_HORIZON'))) a),
	 second AS (SELECT st_api('GetRecords', jsonb_build_object('ShardIterator', a->>'NextShardIterator')) a FROM first)
SELECT (SELECT array_agg(r->'dynamodb'->'Keys'->'PK'->>'S') FROM first, jsonb_array_elements(a->'Records') r) AS first_page,
	   (SELECT sum(length(r::text)) BETWEEN 900000 AND 1048576 FROM first, jsonb_array_elements(a->'Records') r) AS first_within_1mb,
	   (SELECT array_agg(r->'dynamodb'->'Keys'->'PK'->>'S') FROM second, jsonb_array_elements(a->'Records') r) AS second_page,
	   (SELECT (r->'dynamodb'->>'SizeBytes')::int > 300000 FROM second, jsonb_array_elements(a->'Records') r) AS size_bytes,
	   (SELECT a ? 'NextShardIterator' FROM second) AS has_next;
-- st_stream_records, a consumer's st_stream_read and a mapping's batch are
-- bounded alike, before their images are read: the records that start
-- within the first MB of their SizeBytes (five of 300 kB: four, then one)
SELECT st_put(jsonb_build_object('PK', 'b#5', 'blob', repeat('y', 300000)), 'BigRecords') IS NULL AS fifth_put;
WITH first AS (SELECT array_agg(r->'dynamodb'->'Keys'->'PK'->>'S') AS keys,
					  max((r->'dynamodb'->>'SequenceNumber')::numeric) AS last
				 FROM st_stream_records('BigRecords', 0, 1000) r)
SELECT keys AS first_read,
	   (SELECT array_agg(r->'dynamodb'->'Keys'->'PK'->>'S') FROM st_stream_records('BigRecords', last, 1000) r) AS second_read
  FROM first;
SELECT st_stream_consumer_create('big', 'BigRecords', 'TRIM_HORIZON') IS NOT NULL AS consumer;
SELECT count(*) AS first_consumer_read FROM st_stream_read('big', 'BigRecords', 1000);
SELECT count(*) AS second_consumer_read FROM st_stream_read('big', 'BigRecords', 1000);
SELECT st_stream_consumer_drop('big') AS consumer_dropped;
SELECT st_api('DeleteTable', '{"TableName": "BigRecords"}'::jsonb) IS NOT NULL AS big_dropped;

-- A write and the disabling of its stream in one transaction: the write's
-- record is numbered at the commit, after the shard was closed, and is
-- still in the closed shard's range (a shard's records are those whose
-- numbers fall in its range): GetRecords gives it, the shard ends at it.
-- The same when the table is deleted in the write's transaction.
CREATE FUNCTION in_one_shard(t text) RETURNS TABLE (sk text, shards bigint, last_of_shard boolean)
LANGUAGE sql AS $$
	SELECT r.keys->'SK'->>'S',
		   (SELECT count(*) FROM stdesign.stream_shards x WHERE x.stream_id = r.stream_id
			 AND r.sequence_number > x.starting_sequence
			 AND r.sequence_number <= COALESCE(x.ending_sequence, r.sequence_number)),
		   r.sequence_number = (SELECT x.ending_sequence FROM stdesign.stream_shards x WHERE x.stream_id = r.stream_id)
	  FROM stdesign.stream_record_rows((SELECT max(stream_id) FROM stdesign.streams WHERE table_name = t)) r
	 ORDER BY r.sequence_number $$;
SELECT st_create_table('Closing') IS NOT NULL AS created;
SELECT st_stream_enable('Closing', 'KEYS_ONLY') IS NOT NULL AS enabled;
SELECT st_put('{"PK": "a", "SK": "before"}', 'Closing') IS NULL AS put;
BEGIN;
SELECT st_put('{"PK": "a", "SK": "with the disabling"}', 'Closing') IS NULL AS put;
SELECT st_stream_disable('Closing') IS NOT NULL AS disabled;
COMMIT;
SELECT * FROM in_one_shard('Closing');
SELECT event, keys, has_next FROM records(iter('Closing', 0, 'TRIM_HORIZON'));
SELECT shards_of('Closing')->0->'SequenceNumberRange' ? 'EndingSequenceNumber' AS closed;
SELECT st_stream_enable('Closing', 'KEYS_ONLY') IS NOT NULL AS enabled_again;
BEGIN;
SELECT st_put('{"PK": "a", "SK": "with the deletion"}', 'Closing') IS NULL AS put;
SELECT st_drop_table('Closing') IS NOT NULL AS dropped;
COMMIT;
SELECT * FROM in_one_shard('Closing');
DROP FUNCTION in_one_shard(text);
-- A record's eventID names its stream and sequence number
-- (src/common/st_record_id.c): 32 lower-case hex digits, no two alike,
-- the same from GetRecords (printed in C) and from the SQL reader
-- (st_stream_records, through stdesign.stream_event_id)
SELECT st_api('CreateTable', '{"TableName": "EventIds", "BillingMode": "PAY_PER_REQUEST",
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
  "StreamSpecification": {"StreamEnabled": true, "StreamViewType": "KEYS_ONLY"}}'::jsonb) IS NOT NULL AS ids_created;
SELECT count(st_put(jsonb_build_object('PK', 'e#' || i), 'EventIds') IS NULL) AS ids_puts
  FROM generate_series(1, 300) i;
WITH page AS (SELECT r FROM jsonb_array_elements(st_api('GetRecords', jsonb_build_object('ShardIterator',
		iter('EventIds', 0, 'TRIM_HORIZON')))->'Records') r),
	 in_sql AS (SELECT r FROM st_stream_records('EventIds', 0, 1000) r)
SELECT count(*) AS ids_records,
	   count(DISTINCT p.r->>'eventID') AS distinct_ids,
	   count(*) FILTER (WHERE p.r->>'eventID' ~ '^[0-9a-f]{32}$') AS hex_ids,
	   count(*) FILTER (WHERE p.r->>'eventID' = q.r->>'eventID') AS same_in_sql
  FROM page p JOIN in_sql q
	ON (q.r->'dynamodb'->>'SequenceNumber')::numeric = (p.r->'dynamodb'->>'SequenceNumber')::numeric;
-- the IDs of fixed pairs, as an independent implementation of the mix
-- computes them; any pair of bigints, NULL for NULL
SELECT stdesign.stream_event_id(1, 1) AS id_1_1,
	   stdesign.stream_event_id(7, 100000) AS id_7_100000,
	   stdesign.stream_event_id(-1, -1) AS id_minus_1,
	   stdesign.stream_event_id(NULL, 1) IS NULL AS id_null;
SELECT st_api('DeleteTable', '{"TableName": "EventIds"}'::jsonb) IS NOT NULL AS ids_dropped;

SELECT st_api('DeleteTable', '{"TableName": "Unstreamed"}'::jsonb) IS NOT NULL AS dropped;
DROP OWNED BY stream_reader, stream_nobody;
DROP ROLE stream_reader;
DROP ROLE stream_nobody;
