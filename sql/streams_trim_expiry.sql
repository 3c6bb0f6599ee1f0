-- DynamoDB Streams' ExpiredIteratorException and TrimmedDataAccessException,
-- made to happen in seconds: stdesign.stream_iterator_lifetime and
-- stdesign.stream_retention (superuser settings, in seconds) shortened,
-- and stdesign.stream_trim() deleting the aged records now instead of at
-- the time-to-live worker's next round.  (Runs after the other streams
-- tests: the trim deletes every stream's records older than a second.)

CREATE FUNCTION te_try(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE q;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	RETURN regexp_replace(SQLERRM, '[A-Z][a-z]{2} [A-Z][a-z]{2} \d\d \d\d:\d\d:\d\d UTC \d{4}', 'DATE', 'g');
END $$;

SELECT st_api('CreateTable', '{"TableName": "Expiring", "BillingMode": "PAY_PER_REQUEST",
	"AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
	"KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
	"StreamSpecification": {"StreamEnabled": true, "StreamViewType": "KEYS_ONLY"}}')->'TableDescription'->'StreamSpecification';
SELECT st_api('PutItem', '{"TableName": "Expiring", "Item": {"PK": {"S": "a"}}}');
SELECT st_api('PutItem', '{"TableName": "Expiring", "Item": {"PK": {"S": "b"}}}');
CREATE TEMP TABLE s AS
SELECT arn, st_api('DescribeStream', jsonb_build_object('StreamArn', arn))->'StreamDescription'->'Shards'->0->>'ShardId' AS shard
  FROM (SELECT st_api('DescribeTable', '{"TableName": "Expiring"}')->'Table'->>'LatestStreamArn' AS arn) a;
CREATE TEMP TABLE it AS
SELECT st_api('GetShardIterator', jsonb_build_object('StreamArn', arn, 'ShardId', shard,
	'ShardIteratorType', 'TRIM_HORIZON'))->>'ShardIterator' AS it FROM s;
CREATE TEMP TABLE seqs AS
SELECT (r->'dynamodb'->>'SequenceNumber') AS seq, r->'dynamodb'->'Keys'->'PK'->>'S' AS pk
  FROM it, jsonb_array_elements(st_api('GetRecords', jsonb_build_object('ShardIterator', it))->'Records') r;
SELECT pk FROM seqs ORDER BY seq;

-- ExpiredIteratorException: the iterator older than the lifetime
SET stdesign.stream_iterator_lifetime = 1;
SELECT pg_sleep(1.2);
SELECT te_try(format('SELECT st_api(%L, %L)', 'GetRecords', jsonb_build_object('ShardIterator', it))) AS expired FROM it;
-- a fresh iterator is good
SELECT jsonb_array_length(st_api('GetRecords', jsonb_build_object('ShardIterator',
	st_api('GetShardIterator', jsonb_build_object('StreamArn', arn, 'ShardId', shard,
		'ShardIteratorType', 'TRIM_HORIZON'))->>'ShardIterator'))->'Records') AS fresh FROM s;
RESET stdesign.stream_iterator_lifetime;
-- the default, 15 minutes: the old iterator is good again
SELECT current_setting('stdesign.stream_iterator_lifetime') AS lifetime,
	   jsonb_array_length(st_api('GetRecords', jsonb_build_object('ShardIterator', it))->'Records') AS records FROM it;

-- TrimmedDataAccessException: the records older than the retention trimmed
SET stdesign.stream_retention = 1;
SELECT stdesign.stream_trim() >= 2 AS trimmed;
SELECT te_try(format('SELECT st_api(%L, %L)', 'GetRecords', jsonb_build_object('ShardIterator', it))) AS trimmed_iterator FROM it;
SELECT te_try(format('SELECT st_api(%L, %L)', 'GetShardIterator', jsonb_build_object('StreamArn', arn, 'ShardId', shard,
	'ShardIteratorType', 'AT_SEQUENCE_NUMBER', 'SequenceNumber', (SELECT min(seq) FROM seqs)))) AS trimmed_at FROM s;
SELECT te_try(format('SELECT st_api(%L, %L)', 'GetShardIterator', jsonb_build_object('StreamArn', arn, 'ShardId', shard,
	'ShardIteratorType', 'AFTER_SEQUENCE_NUMBER', 'SequenceNumber', (SELECT min(seq) FROM seqs)))) AS trimmed_after FROM s;
-- TRIM_HORIZON now starts after the trimmed records: a later write, alone
SELECT st_api('PutItem', '{"TableName": "Expiring", "Item": {"PK": {"S": "c"}}}');
SELECT r->>'eventName' AS event, r->'dynamodb'->'Keys' AS keys
  FROM s, jsonb_array_elements(st_api('GetRecords', jsonb_build_object('ShardIterator',
	st_api('GetShardIterator', jsonb_build_object('StreamArn', arn, 'ShardId', shard,
		'ShardIteratorType', 'TRIM_HORIZON'))->>'ShardIterator'))->'Records') r;
RESET stdesign.stream_retention;

-- only a superuser sets them
CREATE ROLE stream_te_user;
SET ROLE stream_te_user;
SET stdesign.stream_iterator_lifetime = 1;
SET stdesign.stream_retention = 1;
RESET ROLE;
DROP ROLE stream_te_user;
-- nor out of range (the message's range is written differently from 18 on)
SELECT te_try('SET stdesign.stream_iterator_lifetime = 0') ~ '^0 s is outside the valid range' AS zero_refused,
	   te_try('SET stdesign.stream_iterator_lifetime = ''3000000s''') ~ '^3000000 s is outside the valid range' AS huge_refused;

SELECT st_drop_table('Expiring');
