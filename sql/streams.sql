-- DynamoDB Streams, the capture: every path that changes an item writes
-- exactly one record per change, in order, and none for a write that
-- changes nothing; rolled-back transactions and savepoints leave none;
-- the view type shapes the images.

-- The records of a table's stream after a sequence number, without what
-- changes from run to run (sequence numbers are replaced by their rank
-- among those returned, the time and eventID are checked for shape).
CREATE FUNCTION stream_dump(t text, after numeric DEFAULT 0)
RETURNS TABLE (n bigint, event text, keys jsonb, new_image jsonb, old_image jsonb,
			   size integer, view text, ttl boolean, shape_ok boolean)
LANGUAGE sql AS $$
	SELECT row_number() OVER (ORDER BY (r->'dynamodb'->>'SequenceNumber')::numeric),
		   r->>'eventName', r->'dynamodb'->'Keys', r->'dynamodb'->'NewImage',
		   r->'dynamodb'->'OldImage', (r->'dynamodb'->>'SizeBytes')::int,
		   r->'dynamodb'->>'StreamViewType', r ? 'userIdentity',
		   r->>'eventID' ~ '^[0-9a-f]{32}$' AND r->>'eventVersion' = '1.1'
		   AND r->>'eventSource' = 'aws:dynamodb' AND r->>'awsRegion' = 'local'
		   AND r->'dynamodb'->>'SequenceNumber' ~ '^[1-9][0-9]*$'
		   AND jsonb_typeof(r->'dynamodb'->'ApproximateCreationDateTime') = 'number'
		   AND abs((r->'dynamodb'->>'ApproximateCreationDateTime')::numeric
				   - extract(epoch FROM now())) < 600
	  FROM st_stream_records(t, after) AS r
$$;
-- The latest sequence number of a table's stream (0 when none).
CREATE FUNCTION stream_last(t text) RETURNS numeric LANGUAGE sql AS $$
	SELECT coalesce(max((r->'dynamodb'->>'SequenceNumber')::numeric), 0)
	  FROM st_stream_records(t, 0) AS r
$$;

SELECT st_create_table('Orders') IS NOT NULL AS created;
SELECT st_stream_enable('Orders', 'NEW_AND_OLD_IMAGES') - 'LatestStreamArn' - 'LatestStreamLabel' AS enabled;
SELECT (st_stream_enable('Orders', 'KEYS_ONLY')) AS again;
SELECT label ~ '^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}$' AS label_shape,
	   shard_id ~ '^shardId-\d{20}-[0-9a-f]{8}$' AS shard_shape
  FROM stdesign.streams WHERE table_name = 'Orders';

-- st_put: a new item (INSERT), a changed one (MODIFY), the same again (nothing)
SELECT st_put('{"PK": "c#1", "SK": "o#1", "total": 10}', 'Orders') IS NULL AS put;
SELECT st_put('{"PK": "c#1", "SK": "o#1", "total": 12}', 'Orders') IS NULL AS put;
SELECT st_put('{"PK": "c#1", "SK": "o#1", "total": 12}', 'Orders') IS NULL AS same_put;
-- st_update: a change, then one that sets what is there
SELECT st_update('c#1', 'o#1', 'SET #s = :s', 'Orders', names => '{"#s": "status"}', "values" => '{":s": "NEW"}') IS NOT NULL AS updated;
SELECT st_update('c#1', 'o#1', 'SET #s = :s', 'Orders', names => '{"#s": "status"}', "values" => '{":s": "NEW"}') IS NOT NULL AS same_update;
-- st_delete: the item, then a missing one
SELECT st_delete('c#1', 'o#1', 'Orders') IS NULL AS deleted;
SELECT st_delete('c#1', 'o#1', 'Orders') IS NULL AS deleted_missing;
SELECT * FROM stream_dump('Orders');

-- st_api: PutItem, UpdateItem, DeleteItem
SELECT stream_last('Orders') AS mark \gset
SELECT st_api('PutItem', '{"TableName": "Orders", "Item": {"PK": {"S": "c#2"}, "SK": {"S": "o#1"}, "n": {"N": "1"}}}');
SELECT st_api('PutItem', '{"TableName": "Orders", "Item": {"PK": {"S": "c#2"}, "SK": {"S": "o#1"}, "n": {"N": "1"}}}');
SELECT st_api('UpdateItem', '{"TableName": "Orders", "Key": {"PK": {"S": "c#2"}, "SK": {"S": "o#1"}},
  "UpdateExpression": "ADD n :one", "ExpressionAttributeValues": {":one": {"N": "1"}}}');
SELECT st_api('UpdateItem', '{"TableName": "Orders", "Key": {"PK": {"S": "c#2"}, "SK": {"S": "o#1"}},
  "UpdateExpression": "SET n = :two", "ExpressionAttributeValues": {":two": {"N": "2"}}}');
SELECT st_api('DeleteItem', '{"TableName": "Orders", "Key": {"PK": {"S": "c#2"}, "SK": {"S": "o#1"}}}');
SELECT st_api('DeleteItem', '{"TableName": "Orders", "Key": {"PK": {"S": "c#2"}, "SK": {"S": "o#1"}}}');
SELECT * FROM stream_dump('Orders', :mark);

-- BatchWriteItem: two puts (one new, one the same as stored) and a delete
SELECT st_put('{"PK": "c#3", "SK": "o#1", "v": 1}', 'Orders') IS NULL AS put;
SELECT st_put('{"PK": "c#3", "SK": "o#2", "v": 2}', 'Orders') IS NULL AS put;
SELECT stream_last('Orders') AS mark \gset
SELECT st_api('BatchWriteItem', '{"RequestItems": {"Orders": [
  {"PutRequest": {"Item": {"PK": {"S": "c#3"}, "SK": {"S": "o#3"}, "v": {"N": "3"}}}},
  {"PutRequest": {"Item": {"PK": {"S": "c#3"}, "SK": {"S": "o#1"}, "v": {"N": "1"}}}},
  {"DeleteRequest": {"Key": {"PK": {"S": "c#3"}, "SK": {"S": "o#2"}}}},
  {"DeleteRequest": {"Key": {"PK": {"S": "c#3"}, "SK": {"S": "o#9"}}}}]}}');
SELECT * FROM stream_dump('Orders', :mark);

-- TransactWriteItems: a put, an update, a delete and a condition check
SELECT stream_last('Orders') AS mark \gset
SELECT st_api('TransactWriteItems', '{"TransactItems": [
  {"Put": {"TableName": "Orders", "Item": {"PK": {"S": "c#4"}, "SK": {"S": "o#1"}}}},
  {"Update": {"TableName": "Orders", "Key": {"PK": {"S": "c#3"}, "SK": {"S": "o#1"}},
              "UpdateExpression": "SET v = :v", "ExpressionAttributeValues": {":v": {"N": "100"}}}},
  {"Delete": {"TableName": "Orders", "Key": {"PK": {"S": "c#3"}, "SK": {"S": "o#3"}}}},
  {"ConditionCheck": {"TableName": "Orders", "Key": {"PK": {"S": "c#4"}, "SK": {"S": "o#0"}},
                      "ConditionExpression": "attribute_not_exists(PK)"}}]}');
SELECT * FROM stream_dump('Orders', :mark);
-- a cancelled transaction writes nothing
SELECT stream_last('Orders') AS mark \gset
SELECT st_api('TransactWriteItems', '{"TransactItems": [
  {"Put": {"TableName": "Orders", "Item": {"PK": {"S": "c#5"}, "SK": {"S": "o#1"}}}},
  {"ConditionCheck": {"TableName": "Orders", "Key": {"PK": {"S": "c#4"}, "SK": {"S": "o#1"}},
                      "ConditionExpression": "attribute_not_exists(PK)"}}]}');
SELECT count(*) AS after_cancelled FROM stream_dump('Orders', :mark);

-- PartiQL: INSERT, UPDATE (a change, then the same), DELETE
SELECT stream_last('Orders') AS mark \gset
SELECT st_api('ExecuteStatement', '{"Statement": "INSERT INTO \"Orders\" VALUE {''PK'': ''c#6'', ''SK'': ''o#1'', ''q'': 1}"}');
SELECT st_api('ExecuteStatement', '{"Statement": "UPDATE \"Orders\" SET q = 2 WHERE PK = ''c#6'' AND SK = ''o#1''"}');
SELECT st_api('ExecuteStatement', '{"Statement": "UPDATE \"Orders\" SET q = 2 WHERE PK = ''c#6'' AND SK = ''o#1''"}');
SELECT st_api('ExecuteStatement', '{"Statement": "DELETE FROM \"Orders\" WHERE PK = ''c#6'' AND SK = ''o#1''"}');
SELECT * FROM stream_dump('Orders', :mark);

-- Plain SQL on the table's relation: INSERT, UPDATE (a change, the same
-- item, a new key), DELETE, each row a record
SELECT format('%I.%I', 'stdesign_data', relation_name) AS rel FROM stdesign.tables WHERE table_name = 'Orders' \gset
SELECT stream_last('Orders') AS mark \gset
INSERT INTO :rel (item) VALUES ('{"PK": {"S": "c#7"}, "SK": {"S": "o#1"}}'), ('{"PK": {"S": "c#7"}, "SK": {"S": "o#2"}}');
UPDATE :rel SET item = item || '{"x": {"BOOL": true}}' WHERE pk = 'c#7' AND sk = 'o#1';
UPDATE :rel SET item = item WHERE pk = 'c#7';
UPDATE :rel SET item = '{"PK": {"S": "c#8"}, "SK": {"S": "o#2"}}' WHERE pk = 'c#7' AND sk = 'o#2';
DELETE FROM :rel WHERE pk IN ('c#7', 'c#8');
SELECT * FROM stream_dump('Orders', :mark);

-- Rolled back: a transaction, a savepoint (the rest of the transaction kept)
SELECT stream_last('Orders') AS mark \gset
BEGIN;
SELECT st_put('{"PK": "c#9", "SK": "rolled back"}', 'Orders') IS NULL AS put;
ROLLBACK;
BEGIN;
SELECT st_put('{"PK": "c#9", "SK": "kept 1"}', 'Orders') IS NULL AS put;
SAVEPOINT a;
SELECT st_put('{"PK": "c#9", "SK": "in a"}', 'Orders') IS NULL AS put;
SAVEPOINT b;
INSERT INTO :rel (item) VALUES ('{"PK": {"S": "c#9"}, "SK": {"S": "in b"}}');
RELEASE b;
ROLLBACK TO a;
SELECT st_put('{"PK": "c#9", "SK": "kept 2"}', 'Orders') IS NULL AS put;
SAVEPOINT c;
SELECT st_put('{"PK": "c#9", "SK": "kept 3"}', 'Orders') IS NULL AS put;
RELEASE c;
SAVEPOINT d;
SELECT st_delete('c#9', 'kept 1', 'Orders') IS NULL AS deleted;
ROLLBACK TO d;
COMMIT;
SELECT n, event, keys FROM stream_dump('Orders', :mark);
-- nothing of a transaction is visible before it commits
BEGIN;
SELECT st_put('{"PK": "c#10", "SK": "pending"}', 'Orders') IS NULL AS put;
SELECT count(*) AS visible_before_commit FROM stream_dump('Orders', :mark);
COMMIT;
SELECT count(*) AS visible_after_commit FROM stream_dump('Orders', :mark);
-- A PL/pgSQL exception block is a subtransaction too
SELECT stream_last('Orders') AS mark \gset
DO $$
BEGIN
	PERFORM st_put('{"PK": "c#11", "SK": "kept"}', 'Orders');
	BEGIN
		PERFORM st_put('{"PK": "c#11", "SK": "dropped"}', 'Orders');
		RAISE EXCEPTION 'undo';
	EXCEPTION WHEN raise_exception THEN NULL;
	END;
END $$;
SELECT n, event, keys FROM stream_dump('Orders', :mark);
-- A transaction cannot be prepared with records pending
BEGIN;
SELECT st_put('{"PK": "c#12", "SK": "prepared"}', 'Orders') IS NULL AS put;
PREPARE TRANSACTION 'streams';
SELECT count(*) AS c12 FROM st_query('c#12', "table" => 'Orders');

-- Sequence numbers grow within the stream, in the order of the changes
SELECT bool_and(s > lag) AS increasing, count(*) > 20 AS many
  FROM (SELECT (r->'dynamodb'->>'SequenceNumber')::numeric AS s,
			   lag((r->'dynamodb'->>'SequenceNumber')::numeric) OVER () AS lag
		  FROM st_stream_records('Orders', 0) r) x WHERE lag IS NOT NULL;
SELECT count(*) AS at_most_5 FROM st_stream_records('Orders', 0, 5);

-- Time to live: st_expire's deletions carry userIdentity
SELECT st_api('UpdateTimeToLive', '{"TableName": "Orders", "TimeToLiveSpecification": {"Enabled": true, "AttributeName": "ttl"}}') IS NOT NULL AS ttl_on;
SELECT st_put(jsonb_build_object('PK', 'c#13', 'SK', 'old', 'ttl', extract(epoch FROM now())::int - 100), 'Orders') IS NULL AS put;
SELECT st_put(jsonb_build_object('PK', 'c#13', 'SK', 'later', 'ttl', extract(epoch FROM now())::int + 10000), 'Orders') IS NULL AS put;
SELECT stream_last('Orders') AS mark \gset
SELECT st_expire('Orders');
SELECT n, event, keys, ttl FROM stream_dump('Orders', :mark);
SELECT r->'userIdentity' AS user_identity FROM st_stream_records('Orders', :mark) r;

-- View types: disable, enable again with another view type: a new stream
SELECT st_stream_disable('Orders') -> 'StreamSpecification' AS disabled;
SELECT st_stream_disable('Orders');
SELECT st_put('{"PK": "c#14", "SK": "unstreamed"}', 'Orders') IS NULL AS put;
SELECT count(*) AS streams, count(*) FILTER (WHERE disabled_at IS NULL) AS enabled
  FROM stdesign.streams WHERE table_name = 'Orders';
SELECT st_stream_enable('Orders', 'KEYS_ONLY') -> 'StreamSpecification' AS keys_only;
SELECT st_put('{"PK": "c#14", "SK": "k", "a": 1}', 'Orders') IS NULL AS put;
SELECT st_put('{"PK": "c#14", "SK": "k", "a": 2}', 'Orders') IS NULL AS put;
SELECT st_delete('c#14', 'k', 'Orders') IS NULL AS deleted;
SELECT * FROM stream_dump('Orders');
SELECT st_stream_disable('Orders') IS NOT NULL AS disabled;
SELECT st_stream_enable('Orders', 'NEW_IMAGE') -> 'StreamSpecification' AS new_image;
SELECT st_put('{"PK": "c#14", "SK": "k", "a": 1}', 'Orders') IS NULL AS put;
SELECT st_put('{"PK": "c#14", "SK": "k", "a": 2}', 'Orders') IS NULL AS put;
SELECT st_delete('c#14', 'k', 'Orders') IS NULL AS deleted;
SELECT * FROM stream_dump('Orders');
SELECT st_stream_disable('Orders') IS NOT NULL AS disabled;
SELECT st_stream_enable('Orders', 'OLD_IMAGE') -> 'StreamSpecification' AS old_image;
SELECT st_put('{"PK": "c#14", "SK": "k", "a": 1}', 'Orders') IS NULL AS put;
SELECT st_put('{"PK": "c#14", "SK": "k", "a": 2}', 'Orders') IS NULL AS put;
SELECT st_delete('c#14', 'k', 'Orders') IS NULL AS deleted;
SELECT * FROM stream_dump('Orders');

-- A hash-only table, and a bulk put through st_batch_write
SELECT st_create_table('Hashed', 'id', NULL) IS NOT NULL AS created;
SELECT st_stream_enable('Hashed', 'NEW_AND_OLD_IMAGES') -> 'StreamSpecification' AS enabled;
SELECT count(*) FROM (SELECT st_put(jsonb_build_object('id', 'k' || i, 'i', i), 'Hashed')
					  FROM generate_series(1, 300) i) x;
SELECT count(*) AS records, count(DISTINCT r->'dynamodb'->'Keys') AS keys,
	   bool_and(r->>'eventName' = 'INSERT') AS all_inserts
  FROM st_stream_records('Hashed', 0, 1000) r;
-- A transaction larger than work_mem (its records spill to a file), with a
-- savepoint rolled back in the middle and another kept
BEGIN;
SET LOCAL work_mem = '64kB';
SELECT count(*) FROM (SELECT st_put(jsonb_build_object('id', 'big' || i, 'pad', repeat('x', 200)), 'Hashed')
					  FROM generate_series(1, 1000) i) x;
SAVEPOINT s1;
SELECT count(*) FROM (SELECT st_put(jsonb_build_object('id', 'gone' || i), 'Hashed')
					  FROM generate_series(1, 700) i) x;
ROLLBACK TO s1;
SAVEPOINT s2;
SELECT count(*) FROM (SELECT st_put(jsonb_build_object('id', 'late' || i), 'Hashed')
					  FROM generate_series(1, 500) i) x;
RELEASE s2;
COMMIT;
WITH page1 AS (SELECT r FROM st_stream_records('Hashed', 0, 1000) r),
	 mark AS (SELECT max((r->'dynamodb'->>'SequenceNumber')::numeric) AS m FROM page1),
	 page2 AS (SELECT r FROM st_stream_records('Hashed', (SELECT m FROM mark), 1000) r),
	 page3 AS (SELECT r FROM st_stream_records('Hashed',
		(SELECT max((r->'dynamodb'->>'SequenceNumber')::numeric) FROM page2), 1000) r),
	 allr AS (SELECT r FROM page1 UNION ALL SELECT r FROM page2 UNION ALL SELECT r FROM page3)
SELECT count(*) AS records,
	   count(*) FILTER (WHERE r->'dynamodb'->'Keys'->'id'->>'S' LIKE 'big%') AS big,
	   count(*) FILTER (WHERE r->'dynamodb'->'Keys'->'id'->>'S' LIKE 'gone%') AS gone,
	   count(*) FILTER (WHERE r->'dynamodb'->'Keys'->'id'->>'S' LIKE 'late%') AS late,
	   count(DISTINCT r->'dynamodb'->>'SequenceNumber') AS distinct_numbers
  FROM allr;
SELECT st_drop_table('Hashed');
-- the stream of a deleted table is kept, marked
SELECT count(*) AS kept_after_drop FROM stdesign.streams s, stdesign.stream_record_rows(s.stream_id) r
 WHERE s.table_name = 'Hashed';
SELECT table_deleted_at IS NOT NULL AS marked, disabled_at IS NULL AS not_disabled
  FROM stdesign.streams WHERE table_name = 'Hashed';

-- Bad arguments
SELECT st_stream_enable('Orders', 'ALL');
SELECT st_stream_enable('Orders', NULL);
SELECT st_stream_enable('Missing', 'KEYS_ONLY');
SELECT st_stream_disable('Missing');
SELECT * FROM st_stream_records('Missing');
SELECT * FROM st_stream_records('Orders', -1);
SELECT * FROM st_stream_records('Orders', 1.5);
SELECT * FROM st_stream_records('Orders', NULL);
SELECT * FROM st_stream_records('Orders', 0, 0);
SELECT * FROM st_stream_records('Orders', 0, 1001);
SELECT * FROM st_stream_records('Orders', 0, NULL);
SELECT count(*) FROM st_stream_records('Orders', 99999999999999999999999999999);
SELECT * FROM st_stream_records('Orders', repeat('9', 1000)::numeric);
SELECT st_create_table('NoStream') IS NOT NULL AS created;
SELECT * FROM st_stream_records('NoStream');

-- Roles: without SELECT nothing is read; without ownership nothing changes;
-- the catalog is not readable directly
CREATE ROLE regress_st_stream_reader;
CREATE ROLE regress_st_stream_stranger;
GRANT SELECT ON ALL TABLES IN SCHEMA stdesign_data TO regress_st_stream_reader;
GRANT USAGE ON SCHEMA stdesign, stdesign_data TO regress_st_stream_reader, regress_st_stream_stranger;
GRANT SELECT ON stdesign.tables, stdesign.indexes TO regress_st_stream_reader, regress_st_stream_stranger;
SET ROLE regress_st_stream_stranger;
SELECT * FROM st_stream_records('Orders');
SELECT st_stream_disable('Orders');
SELECT st_stream_enable('NoStream', 'KEYS_ONLY');
SELECT count(*) FROM stdesign.stream_records;
SELECT count(*) FROM stdesign.streams;
INSERT INTO stdesign.streams VALUES (99, 'Orders', 'x', 'KEYS_ONLY', 'x', now());
-- nor can it call the capture trigger's function on a table of its own
CREATE TEMP TABLE mine (pk text, sk text, item jsonb);
CREATE TRIGGER mine_capture AFTER INSERT ON mine FOR EACH ROW EXECUTE FUNCTION stdesign.stream_capture('1', 'KEYS_ONLY', 'PK', 'SK');
DROP TABLE mine;
RESET ROLE;
SET ROLE regress_st_stream_reader;
SELECT count(*) > 0 AS reads FROM st_stream_records('Orders');
SELECT count(*) FROM stdesign.stream_records;
INSERT INTO stdesign.stream_records VALUES (1, 1, now(), 'INSERT', '{}', NULL, NULL, 0, false);
RESET ROLE;
-- row-level security on the relation: the stream is refused to those it applies to
ALTER TABLE :rel ENABLE ROW LEVEL SECURITY;
SET ROLE regress_st_stream_reader;
SELECT * FROM st_stream_records('Orders');
RESET ROLE;
ALTER TABLE :rel DISABLE ROW LEVEL SECURITY;
REVOKE ALL ON ALL TABLES IN SCHEMA stdesign_data FROM regress_st_stream_reader;
REVOKE ALL ON stdesign.tables, stdesign.indexes FROM regress_st_stream_reader, regress_st_stream_stranger;
REVOKE ALL ON SCHEMA stdesign, stdesign_data FROM regress_st_stream_reader, regress_st_stream_stranger;
DROP ROLE regress_st_stream_reader;
DROP ROLE regress_st_stream_stranger;

SELECT st_drop_table('Orders');
SELECT st_drop_table('NoStream');

-- A table made again under a deleted table's name has no stream: the old
-- stream's records are not read through the new table
SELECT st_create_table('Hashed') IS NOT NULL AS made_again;
SELECT * FROM st_stream_records('Hashed');
SELECT st_drop_table('Hashed');

-- An item that is no map, written by plain SQL, is refused (before
-- anything reads it as one), with or without a stream
SELECT st_create_table('Plain') IS NOT NULL AS created;
SELECT format('%I.%I', 'stdesign_data', relation_name) AS plain_rel FROM stdesign.tables WHERE table_name = 'Plain' \gset
INSERT INTO :plain_rel (item) VALUES ('["PK", {"S": "x"}]');
INSERT INTO :plain_rel (item) VALUES ('5');
SELECT st_stream_enable('Plain', 'NEW_IMAGE') -> 'StreamSpecification' AS enabled;
INSERT INTO :plain_rel (item) VALUES ('[]');
INSERT INTO :plain_rel (item) VALUES ('{"PK": {"S": "x"}, "SK": {"S": "y"}}');
SELECT count(*) AS records FROM st_stream_records('Plain');
SELECT st_drop_table('Plain');

-- st_create_table(definition) turns the stream on as CreateTable does: a
-- CreateTable request's StreamSpecification, a CloudFormation table's
-- (its StreamViewType alone), in Properties or in a template
SELECT d->'StreamSpecification' AS spec, d ? 'LatestStreamArn' AS has_arn, d ? 'LatestStreamLabel' AS has_label
  FROM st_create_table('{"TableName": "SqlStreamed", "BillingMode": "PAY_PER_REQUEST",
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
  "StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_IMAGE"}}'::jsonb) AS d;
SELECT st_put('{"PK": "a", "n": 1}', 'SqlStreamed') IS NULL AS put;
SELECT r->>'eventName' AS event, r->'dynamodb'->'Keys' AS keys, r->'dynamodb'->'NewImage' AS new_image
  FROM st_stream_records('SqlStreamed') r;
-- the stored request does not keep it (a restored backup has no stream, as DynamoDB's)
SELECT st_table_create_json('SqlStreamed') ? 'StreamSpecification' AS kept;
SELECT st_drop_table('SqlStreamed') IS NOT NULL AS dropped;
SELECT d->'StreamSpecification' AS spec
  FROM st_create_table('{"Type": "AWS::DynamoDB::Table", "Properties": {"TableName": "CfnStreamed",
  "BillingMode": "PAY_PER_REQUEST",
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
  "StreamSpecification": {"StreamViewType": "KEYS_ONLY"}}}'::jsonb) AS d;
SELECT st_drop_table('CfnStreamed') IS NOT NULL AS dropped;
SELECT d->'StreamSpecification' AS spec
  FROM st_create_table('{"Resources": {"T": {"Type": "AWS::DynamoDB::Table", "Properties": {"TableName": "CfnStreamed",
  "BillingMode": "PAY_PER_REQUEST",
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
  "StreamSpecification": {"StreamViewType": "NEW_AND_OLD_IMAGES"}}}}}'::jsonb) AS d;
SELECT st_drop_table('CfnStreamed') IS NOT NULL AS dropped;
-- StreamEnabled false: no stream
SELECT d ? 'StreamSpecification' AS has_spec
  FROM st_create_table('{"TableName": "SqlUnstreamed", "BillingMode": "PAY_PER_REQUEST",
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
  "StreamSpecification": {"StreamEnabled": false}}'::jsonb) AS d;
SELECT st_drop_table('SqlUnstreamed') IS NOT NULL AS dropped;
-- refused, and no table made: no view type, a view type of another type,
-- a specification that is no structure
SELECT st_create_table('{"TableName": "SqlBadStream", "BillingMode": "PAY_PER_REQUEST",
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
  "StreamSpecification": {"StreamEnabled": true}}'::jsonb);
SELECT st_create_table('{"Type": "AWS::DynamoDB::Table", "Properties": {"TableName": "SqlBadStream",
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
  "StreamSpecification": {}}}'::jsonb);
SELECT st_create_table('{"Type": "AWS::DynamoDB::Table", "Properties": {"TableName": "SqlBadStream",
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
  "StreamSpecification": {"StreamViewType": 7}}}'::jsonb);
SELECT st_create_table('{"TableName": "SqlBadStream",
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
  "StreamSpecification": "on"}'::jsonb);
SELECT st_create_table('{"TableName": "SqlBadStream", "BillingMode": "PAY_PER_REQUEST",
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
  "StreamSpecification": {"StreamEnabled": true, "StreamViewType": "EVERYTHING"}}'::jsonb);
SELECT count(*) AS bad_tables FROM stdesign.tables WHERE table_name = 'SqlBadStream';
