-- DynamoDB Streams against hostile roles (a security review): who reads
-- the stream of a deleted table.

CREATE ROLE regress_st_hostile_giver;
CREATE ROLE regress_st_hostile_taker;
GRANT USAGE ON SCHEMA stdesign, stdesign_data TO regress_st_hostile_giver, regress_st_hostile_taker;
GRANT SELECT ON stdesign.tables, stdesign.indexes TO regress_st_hostile_giver, regress_st_hostile_taker;

-- The stream of a deleted table is read by the role that owned its
-- relation when it was deleted, not by the one that owned it at the
-- enabling and gave it away since: that one must not read what the new
-- owner wrote.
SELECT st_create_table('Given') IS NOT NULL AS created;
SELECT format('%I.%I', 'stdesign_data', relation_name) AS rel FROM stdesign.tables WHERE table_name = 'Given' \gset
ALTER TABLE :rel OWNER TO regress_st_hostile_giver;
SET ROLE regress_st_hostile_giver;
SELECT st_stream_enable('Given') ->> 'LatestStreamArn' AS arn \gset
RESET ROLE;
SELECT table_owner, table_owner_name FROM stdesign.streams WHERE table_name = 'Given';
ALTER TABLE :rel OWNER TO regress_st_hostile_taker;
SELECT st_put('{"PK": "secret", "SK": "1", "pw": "hunter2"}', 'Given') IS NULL AS put;
SELECT st_api('DescribeStream', jsonb_build_object('StreamArn', :'arn'))
	->'StreamDescription'->'Shards'->0->>'ShardId' AS shard \gset
SET ROLE regress_st_hostile_taker;
SELECT st_api('DeleteTable', '{"TableName": "Given"}'::jsonb)->'TableDescription'->>'TableStatus' AS deleting;
-- the owner at the deletion reads it
SELECT r->'dynamodb'->'NewImage'->'pw' AS pw
  FROM jsonb_array_elements(st_api('GetRecords', jsonb_build_object('ShardIterator',
	st_api('GetShardIterator', jsonb_build_object('StreamArn', :'arn', 'ShardId', :'shard',
		   'ShardIteratorType', 'TRIM_HORIZON'))->>'ShardIterator'))->'Records') r;
SELECT count(*) AS listed FROM jsonb_array_elements(st_api('ListStreams', '{"TableName": "Given"}'::jsonb)->'Streams');
RESET ROLE;
-- the owner at the enabling does not
SET ROLE regress_st_hostile_giver;
SELECT st_api('GetShardIterator', jsonb_build_object('StreamArn', :'arn', 'ShardId', :'shard',
			  'ShardIteratorType', 'TRIM_HORIZON'));
SELECT st_api('DescribeStream', jsonb_build_object('StreamArn', :'arn'));
SELECT count(*) AS listed FROM jsonb_array_elements(st_api('ListStreams', '{"TableName": "Given"}'::jsonb)->'Streams');
RESET ROLE;

-- The owner is checked by its OID and the name it had (as backups'): a
-- dropped role's OID given to a new role, or a restore where OIDs differ,
-- hands the stream to nobody but superusers.  Simulated by changing the
-- recorded name.
SELECT table_owner, table_owner_name FROM stdesign.streams WHERE table_name = 'Given';
UPDATE stdesign.streams SET table_owner_name = 'regress_st_hostile_gone' WHERE table_name = 'Given';
SET ROLE regress_st_hostile_taker;
SELECT st_api('GetShardIterator', jsonb_build_object('StreamArn', :'arn', 'ShardId', :'shard',
			  'ShardIteratorType', 'TRIM_HORIZON'));
SELECT count(*) AS listed FROM jsonb_array_elements(st_api('ListStreams', '{"TableName": "Given"}'::jsonb)->'Streams');
RESET ROLE;
SELECT st_api('DescribeStream', jsonb_build_object('StreamArn', :'arn'))
	->'StreamDescription'->>'StreamStatus' AS superuser_describes;

DROP OWNED BY regress_st_hostile_giver, regress_st_hostile_taker;
DROP ROLE regress_st_hostile_giver;
DROP ROLE regress_st_hostile_taker;
