-- DynamoDB Streams: the records of a commit of several changes are stored
-- several to a row of stdesign.stream_records (src/storage/stream_batch.c);
-- every reader gives them one by one, exactly as when each had its row:
-- GetRecords stopping and going on inside a row, AT_ and
-- AFTER_SEQUENCE_NUMBER on a number inside one, LATEST, a rollover, the SQL
-- reader, st_stream_stats, the trimming; a record too large for a batch;
-- a batch row a superuser broke.

CREATE FUNCTION sb_arn(t text) RETURNS text LANGUAGE sql AS $$
	SELECT st_api('DescribeTable', jsonb_build_object('TableName', t))->'Table'->>'LatestStreamArn' $$;
CREATE FUNCTION sb_shards(t text) RETURNS jsonb LANGUAGE sql AS $$
	SELECT st_api('DescribeStream', jsonb_build_object('StreamArn', sb_arn(t)))->'StreamDescription'->'Shards' $$;
CREATE FUNCTION sb_iter(t text, shard int, kind text, seq text DEFAULT NULL) RETURNS text LANGUAGE sql AS $$
	SELECT st_api('GetShardIterator', jsonb_strip_nulls(jsonb_build_object('StreamArn', sb_arn(t),
		'ShardId', sb_shards(t)->shard->>'ShardId', 'ShardIteratorType', kind, 'SequenceNumber', seq)))->>'ShardIterator' $$;
-- Every record from an iterator on, page after page of at most lim, until
-- a page is empty or has no next iterator; numbered in the order read.
CREATE FUNCTION sb_drain(it text, lim int)
RETURNS TABLE (n int, id text, seq numeric, event text, keys jsonb, new_image jsonb, old_image jsonb, size int)
LANGUAGE plpgsql AS $$
DECLARE
	a jsonb;
	r jsonb;
	k int := 0;
BEGIN
	LOOP
		a := st_api('GetRecords', jsonb_build_object('ShardIterator', it, 'Limit', lim));
		IF jsonb_array_length(a->'Records') > lim THEN
			RAISE 'a page of % records for a limit of %', jsonb_array_length(a->'Records'), lim;
		END IF;
		FOR r IN SELECT x FROM jsonb_array_elements(a->'Records') x LOOP
			k := k + 1;
			n := k;
			id := r->>'eventID';
			seq := (r->'dynamodb'->>'SequenceNumber')::numeric;
			event := r->>'eventName';
			keys := r->'dynamodb'->'Keys';
			new_image := r->'dynamodb'->'NewImage';
			old_image := r->'dynamodb'->'OldImage';
			size := (r->'dynamodb'->>'SizeBytes')::int;
			RETURN NEXT;
		END LOOP;
		EXIT WHEN jsonb_array_length(a->'Records') = 0 OR NOT a ? 'NextShardIterator';
		it := a->>'NextShardIterator';
	END LOOP;
END $$;
-- The rows of a table's stream: how many, how many records they hold, how many are batches.
CREATE FUNCTION sb_rows(t text) RETURNS TABLE (stored_rows bigint, records bigint, batches bigint)
LANGUAGE sql AS $$
	SELECT count(*), sum(CASE WHEN r.batch IS NULL THEN 1 ELSE stdesign.stream_batch_records(r.batch) END),
		   count(r.batch)
	  FROM stdesign.streams s JOIN stdesign.stream_records r USING (stream_id)
	 WHERE s.table_name = t AND s.disabled_at IS NULL AND s.table_deleted_at IS NULL $$;
CREATE FUNCTION sb_try(q text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE q;
	RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
	RETURN regexp_replace(SQLERRM, 'shardId-\d{20}-[0-9a-f]{8}', 'SHARD', 'g');
END $$;

SELECT st_api('CreateTable', '{"TableName": "Batched", "BillingMode": "PAY_PER_REQUEST",
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"}],
  "StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_AND_OLD_IMAGES"}}'::jsonb) IS NOT NULL AS created;

-- an import of 250 items: one commit, its records in a few rows
SELECT st_import('Batched', string_agg(format('{"Item": {"PK": {"S": "p"}, "SK": {"S": "i%s"}, "pad": {"S": "%s"}, "n": {"N": "%s"}}}',
	lpad(i::text, 4, '0'), repeat('x', 40), i), E'\n' ORDER BY i)) AS imported
  FROM generate_series(1, 250) i;
SELECT stored_rows < 20 AS few_rows, records, batches > 0 AS batched FROM sb_rows('Batched');
-- a put alone: its own row, as before
SELECT st_put('{"PK": "p", "SK": "j0001", "n": 1}', 'Batched') IS NULL AS put;
SELECT r.batch IS NULL AS own_row, r.event_name, r.keys
  FROM stdesign.streams s JOIN stdesign.stream_records r USING (stream_id)
 WHERE s.table_name = 'Batched' ORDER BY r.sequence_number DESC LIMIT 1;

-- everything in one page: the records in the import's order, numbered one after the other
CREATE TEMP TABLE whole AS SELECT * FROM sb_drain(sb_iter('Batched', 0, 'TRIM_HORIZON'), 1000);
SELECT count(*) AS records, count(DISTINCT id) AS ids, count(DISTINCT seq) AS numbers,
	   bool_and(keys->'SK'->>'S' = CASE WHEN n <= 250 THEN 'i' || lpad(n::text, 4, '0') ELSE 'j0001' END) AS in_order,
	   bool_and(event = 'INSERT' AND old_image IS NULL AND new_image->'n'->>'N' = (CASE WHEN n <= 250 THEN n ELSE 1 END)::text) AS images,
	   (max(seq) FILTER (WHERE n <= 250)) - (min(seq) FILTER (WHERE n <= 250)) AS import_span,
	   bool_and(size > 0) AS sizes
  FROM whole;
SELECT count(*) AS out_of_order FROM (SELECT seq, lag(seq) OVER (ORDER BY n) AS prev FROM whole) x WHERE seq <= prev;
-- page by page, stopping inside the batches and going on from there:
-- every record once, in order, the same as in one page
SELECT l AS page_limit, (SELECT count(*) FROM whole w FULL JOIN sb_drain(sb_iter('Batched', 0, 'TRIM_HORIZON'), l) d ON d.n = w.n
						  WHERE ROW(w.*)::text IS DISTINCT FROM ROW(d.*)::text) AS differing
  FROM unnest(ARRAY[1, 2, 3, 7, 64, 100]) l;

-- a commit of more records than fit the transaction's memory (the rest
-- wait in a tuplestore, their images with short headers) and than one
-- block of numbers (a commit numbers 1000 records per number it takes
-- from the sequence)
SET work_mem = '64kB';
SELECT st_import('Batched', string_agg(format('{"Item": {"PK": {"S": "q"}, "SK": {"S": "%s"}, "pad": {"S": "%s"}}}',
	lpad(i::text, 4, '0'), repeat('y', i % 150)), E'\n' ORDER BY i)) AS imported
  FROM generate_series(1, 2500) i;
RESET work_mem;
CREATE TEMP TABLE many AS SELECT * FROM sb_drain(sb_iter('Batched', 0, 'AFTER_SEQUENCE_NUMBER',
	lpad((SELECT max(seq) FROM whole)::text, 21, '0')), 1000);
SELECT count(*) AS records, count(DISTINCT seq) AS numbers,
	   bool_and(keys->'SK'->>'S' = lpad(n::text, 4, '0') AND length(new_image->'pad'->>'S') = n % 150) AS in_order,
	   max(seq) - min(seq) AS span
  FROM many;
SELECT count(*) AS out_of_order FROM (SELECT seq, lag(seq) OVER (ORDER BY n) AS prev FROM many) x WHERE seq <= prev;
SELECT (SELECT count(*) FROM many w FULL JOIN sb_drain(sb_iter('Batched', 0, 'AFTER_SEQUENCE_NUMBER',
	lpad((SELECT max(seq) FROM whole)::text, 21, '0')), 7) d ON d.n = w.n
		 WHERE ROW(w.*)::text IS DISTINCT FROM ROW(d.*)::text) AS differing_by_seven;
SELECT count(*) FILTER (WHERE r.batch IS NOT NULL) > 1 AS batch_rows
  FROM stdesign.streams s JOIN stdesign.stream_records r USING (stream_id)
 WHERE s.table_name = 'Batched' AND r.sequence_number > (SELECT max(seq) FROM whole);
DELETE FROM stdesign.stream_records r USING stdesign.streams s
 WHERE s.stream_id = r.stream_id AND s.table_name = 'Batched' AND r.sequence_number > (SELECT max(seq) FROM whole);
SELECT count(*) AS removed_again FROM sb_drain(sb_iter('Batched', 0, 'AFTER_SEQUENCE_NUMBER',
	lpad((SELECT max(seq) FROM whole)::text, 21, '0')), 1000);
DROP TABLE many;

-- one commit writing two streams by turns: each stream's records take
-- every other number, packed with the gaps between them
SELECT st_api('CreateTable', '{"TableName": "Other", "BillingMode": "PAY_PER_REQUEST",
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"}],
  "StreamSpecification": {"StreamEnabled": true, "StreamViewType": "KEYS_ONLY"}}'::jsonb) IS NOT NULL AS created;
DO $$
BEGIN
	FOR i IN 1..300 LOOP
		PERFORM st_put(jsonb_build_object('PK', 'x', 'SK', lpad(i::text, 4, '0')), 'Batched');
		PERFORM st_put(jsonb_build_object('PK', 'x', 'SK', lpad(i::text, 4, '0')), 'Other');
	END LOOP;
END $$;
CREATE TEMP TABLE two AS
  SELECT 'Batched' AS t, d.* FROM sb_drain(sb_iter('Batched', 0, 'AFTER_SEQUENCE_NUMBER',
	lpad((SELECT max(seq) FROM whole)::text, 21, '0')), 1000) d
  UNION ALL
  SELECT 'Other', d.* FROM sb_drain(sb_iter('Other', 0, 'TRIM_HORIZON'), 1000) d;
SELECT t, count(*) AS records, max(seq) - min(seq) AS span, bool_and(keys->'SK'->>'S' = lpad(n::text, 4, '0')) AS in_order,
	   (SELECT count(*) FROM two o WHERE o.t <> x.t AND o.seq > min(x.seq) AND o.seq < max(x.seq)) AS the_other_between
  FROM two x GROUP BY t ORDER BY t;
SELECT t, (SELECT count(*) FROM (SELECT * FROM two w WHERE w.t = v.t) w
		   FULL JOIN sb_drain(CASE WHEN v.t = 'Other' THEN sb_iter('Other', 0, 'TRIM_HORIZON')
							  ELSE sb_iter('Batched', 0, 'AFTER_SEQUENCE_NUMBER', lpad((SELECT max(seq) FROM whole)::text, 21, '0')) END, 3) d
		   ON d.n = w.n WHERE ROW(w.seq, w.id, w.keys)::text IS DISTINCT FROM ROW(d.seq, d.id, d.keys)::text) AS differing_by_three
  FROM (VALUES ('Batched'), ('Other')) v(t);
SELECT s.table_name, count(*) FILTER (WHERE r.batch IS NOT NULL) AS batch_rows, count(*) FILTER (WHERE r.batch IS NULL) AS single_rows
  FROM stdesign.streams s JOIN stdesign.stream_records r USING (stream_id)
 WHERE s.table_name IN ('Batched', 'Other') AND s.table_deleted_at IS NULL
   AND r.sequence_number > (SELECT max(seq) FROM whole)
 GROUP BY s.table_name ORDER BY 1;
DELETE FROM stdesign.stream_records r USING stdesign.streams s
 WHERE s.stream_id = r.stream_id AND s.table_name = 'Batched' AND r.sequence_number > (SELECT max(seq) FROM whole);
SELECT st_api('DeleteTable', '{"TableName": "Other"}'::jsonb) IS NOT NULL AS other_dropped;
DROP TABLE two;

-- AT_ and AFTER_SEQUENCE_NUMBER on numbers inside a batch (its first, one
-- in the middle, its last)
SELECT w.n, kind,
	   (SELECT array_agg(sk) FROM (SELECT d.keys->'SK'->>'S' AS sk FROM sb_drain(sb_iter('Batched', 0, kind, lpad(w.seq::text, 21, '0')), 2) d
		 ORDER BY d.n LIMIT 3) d) AS first_read
  FROM whole w, (VALUES ('AT_SEQUENCE_NUMBER'), ('AFTER_SEQUENCE_NUMBER')) k(kind)
 WHERE w.n IN (1, 100, 250) ORDER BY w.n, kind DESC;
SELECT (SELECT array_agg(keys->'SK'->>'S' ORDER BY n) FROM sb_drain(sb_iter('Batched', 0, 'AT_SEQUENCE_NUMBER', lpad(w.seq::text, 21, '0')), 3) d) = 
	   (SELECT array_agg(keys->'SK'->>'S' ORDER BY n) FROM whole x WHERE x.n >= 137) AS at_137_to_the_end
  FROM whole w WHERE w.n = 137;

-- the SQL reader, after a number inside a batch, at most 3
SELECT (r->'dynamodb'->'Keys'->'SK'->>'S') AS sk, r->>'eventID' = w.id AS same_id
  FROM whole w0, st_stream_records('Batched', w0.seq, 3) WITH ORDINALITY x(r, o)
  JOIN whole w ON w.seq = (r->'dynamodb'->>'SequenceNumber')::numeric
 WHERE w0.n = 41 ORDER BY o;

-- LATEST after a batch commit: nothing; then the next commit's records, all of them
SELECT sb_iter('Batched', 0, 'LATEST') AS latest \gset
SELECT count(*) AS after_latest FROM sb_drain(:'latest', 2);
SELECT st_api('BatchWriteItem', '{"RequestItems": {"Batched": [
  {"PutRequest": {"Item": {"PK": {"S": "b"}, "SK": {"S": "1"}}}},
  {"PutRequest": {"Item": {"PK": {"S": "b"}, "SK": {"S": "2"}}}},
  {"DeleteRequest": {"Key": {"PK": {"S": "p"}, "SK": {"S": "i0001"}}}},
  {"PutRequest": {"Item": {"PK": {"S": "p"}, "SK": {"S": "i0002"}, "n": {"N": "-2"}}}}]}}'::jsonb) AS batch_write;
SELECT n, event, keys, new_image, old_image->'n' AS old_n FROM sb_drain(:'latest', 3) ORDER BY n;

-- TransactWriteItems: a put, an update, a delete, read one record a page
SELECT sb_iter('Batched', 0, 'LATEST') AS latest \gset
SELECT st_api('TransactWriteItems', '{"TransactItems": [
  {"Put": {"TableName": "Batched", "Item": {"PK": {"S": "t"}, "SK": {"S": "1"}, "v": {"S": "new"}}}},
  {"Update": {"TableName": "Batched", "Key": {"PK": {"S": "p"}, "SK": {"S": "i0003"}},
              "UpdateExpression": "SET n = :n", "ExpressionAttributeValues": {":n": {"N": "33"}}}},
  {"Delete": {"TableName": "Batched", "Key": {"PK": {"S": "b"}, "SK": {"S": "1"}}}}]}'::jsonb) AS transact;
SELECT n, event, keys, new_image->'n' AS new_n, old_image->'n' AS old_n FROM sb_drain(:'latest', 1) ORDER BY n;
-- the stream whole again, one record a page against all in one
DROP TABLE whole;
CREATE TEMP TABLE whole AS SELECT * FROM sb_drain(sb_iter('Batched', 0, 'TRIM_HORIZON'), 1000);
SELECT count(*) AS records FROM whole;
SELECT (SELECT count(*) FROM whole w FULL JOIN sb_drain(sb_iter('Batched', 0, 'TRIM_HORIZON'), 1) d ON d.n = w.n
		 WHERE ROW(w.*)::text IS DISTINCT FROM ROW(d.*)::text) AS differing_by_one;

-- a record too large for a batch, in a commit of several: its own row,
-- between the rows of the records before and after it
SELECT sb_iter('Batched', 0, 'LATEST') AS latest \gset
SELECT st_api('BatchWriteItem', jsonb_build_object('RequestItems', jsonb_build_object('Batched', jsonb_build_array(
  jsonb_build_object('PutRequest', jsonb_build_object('Item', '{"PK": {"S": "big"}, "SK": {"S": "1"}}'::jsonb)),
  jsonb_build_object('PutRequest', jsonb_build_object('Item', '{"PK": {"S": "big"}, "SK": {"S": "2"}}'::jsonb)),
  jsonb_build_object('PutRequest', jsonb_build_object('Item', jsonb_build_object('PK', '{"S": "big"}'::jsonb,
	'SK', '{"S": "3"}'::jsonb, 'blob', jsonb_build_object('S', repeat('z', 9000))))),
  jsonb_build_object('PutRequest', jsonb_build_object('Item', '{"PK": {"S": "big"}, "SK": {"S": "4"}}'::jsonb)),
  jsonb_build_object('PutRequest', jsonb_build_object('Item', '{"PK": {"S": "big"}, "SK": {"S": "5"}}'::jsonb))))))
  AS big_write;
SELECT r.batch IS NULL AS own_row, CASE WHEN r.batch IS NULL THEN 1 ELSE stdesign.stream_batch_records(r.batch) END AS records,
	   r.keys->'SK'->>'S' AS sk
  FROM stdesign.streams s JOIN stdesign.stream_records r USING (stream_id)
 WHERE s.table_name = 'Batched' AND r.sequence_number > (SELECT max(seq) FROM whole)
 ORDER BY r.sequence_number;
SELECT n, keys->'SK'->>'S' AS sk, length(new_image->'blob'->>'S') AS blob FROM sb_drain(:'latest', 2) ORDER BY n;

-- st_stream_stats counts records, not rows
SELECT records, (SELECT count(*) FROM sb_drain(sb_iter('Batched', 0, 'TRIM_HORIZON'), 1000)) AS read,
	   (SELECT records FROM sb_rows('Batched')) AS stored
  FROM st_stream_stats('Batched');

-- a batch at a rollover: the commit after the shard's lifetime closes it
-- and numbers all its records in the child
SET stdesign.stream_shard_lifetime = 1;
SELECT pg_sleep(1.2);
SELECT st_import('Batched', string_agg(format('{"Item": {"PK": {"S": "roll"}, "SK": {"S": "%s"}}}', lpad(i::text, 2, '0')),
	E'\n' ORDER BY i)) AS imported
  FROM generate_series(1, 20) i;
RESET stdesign.stream_shard_lifetime;
SELECT jsonb_array_length(sb_shards('Batched')) AS shards,
	   sb_shards('Batched')->0->'SequenceNumberRange' ? 'EndingSequenceNumber' AS first_closed,
	   (sb_shards('Batched')->0->'SequenceNumberRange'->>'EndingSequenceNumber')::numeric
		 = (SELECT max(seq) FROM sb_drain(sb_iter('Batched', 0, 'TRIM_HORIZON'), 1000)) AS first_ends_at_its_last,
	   (sb_shards('Batched')->1->'SequenceNumberRange'->>'StartingSequenceNumber')::numeric
		 < (SELECT min(seq) FROM sb_drain(sb_iter('Batched', 1, 'TRIM_HORIZON'), 1000)) AS child_starts_below;
SELECT count(*) AS in_first, count(*) FILTER (WHERE keys->'PK'->>'S' = 'roll') AS rolled_in_first
  FROM sb_drain(sb_iter('Batched', 0, 'TRIM_HORIZON'), 1000);
SELECT string_agg(keys->'SK'->>'S', ',' ORDER BY n) AS child
  FROM sb_drain(sb_iter('Batched', 1, 'TRIM_HORIZON'), 3);
-- the closed parent read to its end: no next iterator
SELECT a ? 'NextShardIterator' AS parent_goes_on, jsonb_array_length(a->'Records') AS parent_rest
  FROM st_api('GetRecords', jsonb_build_object('ShardIterator', sb_iter('Batched', 0, 'AFTER_SEQUENCE_NUMBER',
	sb_shards('Batched')->0->'SequenceNumberRange'->>'EndingSequenceNumber'), 'Limit', 1)) a;
SELECT count(*) AS last_batch_of_parent
  FROM sb_drain(sb_iter('Batched', 0, 'AT_SEQUENCE_NUMBER',
	sb_shards('Batched')->0->'SequenceNumberRange'->>'EndingSequenceNumber'), 1);

-- roles: the record rows and the batch count are the catalog owner's
CREATE ROLE regress_st_batch_user;
GRANT USAGE ON SCHEMA stdesign TO regress_st_batch_user;
SET ROLE regress_st_batch_user;
SELECT sb_try('SELECT count(*) FROM stdesign.stream_record_rows(1)') AS record_rows;
SELECT sb_try($$SELECT stdesign.stream_batch_records('\x0100000000000000'::bytea)$$) AS batch_records;
SELECT sb_try('SELECT count(*) FROM stdesign.stream_records') AS records_table;
RESET ROLE;
REVOKE USAGE ON SCHEMA stdesign FROM regress_st_batch_user;
DROP ROLE regress_st_batch_user;

-- a batch row a superuser broke: an error, never a read past its end
SELECT st_api('CreateTable', '{"TableName": "Broken", "BillingMode": "PAY_PER_REQUEST",
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
  "StreamSpecification": {"StreamEnabled": true, "StreamViewType": "NEW_IMAGE"}}'::jsonb) IS NOT NULL AS created;
SELECT st_import('Broken', string_agg(format('{"Item": {"PK": {"S": "k%s"}}}', i), E'\n')) AS imported
  FROM generate_series(1, 3) i;
SELECT stored_rows, records, batches FROM sb_rows('Broken');
CREATE TEMP TABLE good AS
  SELECT r.batch FROM stdesign.streams s JOIN stdesign.stream_records r USING (stream_id) WHERE s.table_name = 'Broken';
CREATE FUNCTION sb_break_with(b bytea) RETURNS TABLE (get_records text, sql_reader text, stats text) LANGUAGE plpgsql AS $$
BEGIN
	UPDATE stdesign.stream_records r SET batch = b FROM stdesign.streams s
	 WHERE s.stream_id = r.stream_id AND s.table_name = 'Broken';
	get_records := sb_try(format('SELECT st_api(%L, %L)', 'GetRecords',
		jsonb_build_object('ShardIterator', sb_iter('Broken', 0, 'TRIM_HORIZON'))));
	sql_reader := sb_try('SELECT st_stream_records(''Broken'')');
	stats := sb_try('SELECT st_stream_stats(''Broken'')');
	RETURN NEXT;
END $$;
-- the unbroken: read
SELECT b.* FROM good, sb_break_with(good.batch) b;
-- too short; no records; more records than bytes; numbers past the row's;
-- an image longer than the batch; an image's header not 4 bytes; bytes
-- after the records; an event that is none; offsets going back
SELECT what, b.*
  FROM good, LATERAL (VALUES
	('short', substring(good.batch FROM 1 FOR 6)),
	('no records', overlay(good.batch PLACING '\x00000000'::bytea FROM 1 FOR 4)),
	('more records', overlay(good.batch PLACING '\x09000000'::bytea FROM 1 FOR 4)),
	('span', overlay(good.batch PLACING '\xffffff7f'::bytea FROM 5 FOR 4)),
	('image length', overlay(good.batch PLACING '\xfcffff00'::bytea FROM 21 FOR 4)),
	('short image header', overlay(good.batch PLACING '\x03'::bytea FROM 21 FOR 1)),
	('trailing', good.batch || '\x00000000'::bytea),
	('event', overlay(good.batch PLACING '\x07'::bytea FROM 17 FOR 1)),
	('order', overlay(good.batch PLACING '\x02000000'::bytea FROM 9 FOR 4)),
	('image not jsonb', overlay(good.batch PLACING '\xffffff2f'::bytea FROM 25 FOR 4)),
	('image entry past its data', overlay(good.batch PLACING '\xffffff5f'::bytea FROM 33 FOR 4))) v(what, bad),
	LATERAL sb_break_with(v.bad) b;
-- put right
SELECT b.* FROM good, sb_break_with(good.batch) b;
-- a batch reaching back over the rows before it (its first number at or
-- below their last, the offsets otherwise in order): an error, not the
-- same records twice or out of order
CREATE FUNCTION sb_le32(b bytea, p int) RETURNS bigint LANGUAGE sql AS
  'SELECT get_byte(b, p) + (get_byte(b, p + 1) << 8) + (get_byte(b, p + 2) << 16) + (get_byte(b, p + 3)::bigint << 24)';
CREATE FUNCTION sb_put32(b bytea, p int, v bigint) RETURNS bytea LANGUAGE sql AS
  'SELECT set_byte(set_byte(set_byte(set_byte(b, p, (v & 255)::int), p + 1, ((v >> 8) & 255)::int),
		  p + 2, ((v >> 16) & 255)::int), p + 3, ((v >> 24) & 255)::int)';
CREATE FUNCTION sb_respan(b bytea, span bigint) RETURNS bytea LANGUAGE plpgsql AS $$
DECLARE
	n int := sb_le32(b, 0);
	pos int := 8;
	p int;
	flags int;
BEGIN
	FOR i IN 1..n LOOP
		flags := get_byte(b, pos + 9);
		p := pos + 12;
		p := p + ((sb_le32(b, p) >> 2) + 3) / 4 * 4;
		IF flags & 2 <> 0 THEN p := p + ((sb_le32(b, p) >> 2) + 3) / 4 * 4; END IF;
		IF flags & 4 <> 0 THEN p := p + ((sb_le32(b, p) >> 2) + 3) / 4 * 4; END IF;
		IF i = n THEN b := sb_put32(b, pos, span); END IF;
		pos := p;
	END LOOP;
	RETURN sb_put32(b, 4, span);
END $$;
SELECT st_import('Broken', string_agg(format('{"Item": {"PK": {"S": "m%s"}}}', i), E'\n')) AS imported_again
  FROM generate_series(1, 3) i;
SELECT stored_rows, records, batches FROM sb_rows('Broken');
-- the second batch's span made to reach one number below the first's last
UPDATE stdesign.stream_records r
   SET batch = sb_respan(r.batch, r.sequence_number - (SELECT min(x.sequence_number) FROM stdesign.stream_records x
														 WHERE x.stream_id = r.stream_id) + 1)
  FROM stdesign.streams s
 WHERE s.stream_id = r.stream_id AND s.table_name = 'Broken'
   AND r.sequence_number = (SELECT max(x.sequence_number) FROM stdesign.stream_records x WHERE x.stream_id = r.stream_id);
SELECT sb_try(format('SELECT st_api(%L, %L)', 'GetRecords',
		jsonb_build_object('ShardIterator', sb_iter('Broken', 0, 'TRIM_HORIZON')))) AS overlapping_get_records,
	   sb_try('SELECT st_stream_records(''Broken'')') AS overlapping_sql_reader,
	   sb_try('SELECT count(*) FROM st_stream_stats(''Broken'')') AS overlapping_stats;
DELETE FROM stdesign.stream_records r USING stdesign.streams s
 WHERE s.stream_id = r.stream_id AND s.table_name = 'Broken'
   AND r.sequence_number = (SELECT max(x.sequence_number) FROM stdesign.stream_records x WHERE x.stream_id = r.stream_id);
DROP FUNCTION sb_respan(bytea, bigint);
DROP FUNCTION sb_put32(bytea, int, bigint);
DROP FUNCTION sb_le32(bytea, int);
SELECT count(*) AS read_again FROM sb_drain(sb_iter('Broken', 0, 'TRIM_HORIZON'), 2);
-- the count of a batch's records (stats, trimming), on random bytes and on
-- the batch with each byte changed in turn: a count or an error, never a
-- read past the end
SELECT setseed(0.25);
SELECT count(*) AS tried, count(*) FILTER (WHERE r = 'ok' OR r LIKE '%malformed%') AS count_or_error
  FROM (SELECT sb_try(format('SELECT stdesign.stream_batch_records(%L::bytea)',
		  decode(COALESCE((SELECT string_agg(lpad(to_hex((random() * 255)::int), 2, '0'), '')
						   FROM generate_series(1, k % 64)), ''), 'hex'))) AS r
		  FROM generate_series(1, 200) k) x;
SELECT count(*) AS tried, count(*) FILTER (WHERE r = 'ok' OR r LIKE '%malformed%') AS count_or_error
  FROM good, generate_series(0, length(good.batch) - 1) i,
	   LATERAL sb_try(format('SELECT stdesign.stream_batch_records(%L::bytea)',
		 set_byte(good.batch, i, (get_byte(good.batch, i) + 1 + (random() * 254)::int) % 256))) r;

-- trimming: whole rows go, their records counted; TRIM_HORIZON then starts after them
SELECT lpad(seq::text, 21, '0') AS trimmed_seq FROM sb_drain(sb_iter('Batched', 1, 'TRIM_HORIZON'), 1000) WHERE n = 10 \gset
-- more than one trim batch (1000 rows) past the retention, a batch row
-- among the first: the trim goes on to the last row (it counted records
-- against its batch of rows, and stopped after the first)
SELECT st_api('CreateTable', '{"TableName": "ManyRows", "BillingMode": "PAY_PER_REQUEST",
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
  "StreamSpecification": {"StreamEnabled": true, "StreamViewType": "KEYS_ONLY"}}'::jsonb) IS NOT NULL AS many_created;
SELECT st_import('ManyRows', string_agg(format('{"Item": {"PK": {"S": "b%s"}}}', i), E'\n')) AS many_imported
  FROM generate_series(1, 5) i;
DO $$
BEGIN
	FOR i IN 1..1100 LOOP
		PERFORM st_put(jsonb_build_object('PK', 'p' || i), 'ManyRows');
		COMMIT;					-- a commit, a row, each
	END LOOP;
END $$;
SELECT stored_rows, records, batches FROM sb_rows('ManyRows');
SET stdesign.stream_retention = 1;
SELECT pg_sleep(1.1);
SELECT records AS before_trim FROM sb_rows('Batched') \gset
SELECT stdesign.stream_trim() >= :before_trim + 3 AS trimmed;
RESET stdesign.stream_retention;
SELECT stored_rows, records, batches FROM sb_rows('ManyRows');
SELECT st_api('DeleteTable', '{"TableName": "ManyRows"}'::jsonb) IS NOT NULL AS many_dropped;
SELECT stored_rows, records FROM sb_rows('Batched');
SELECT records FROM st_stream_stats('Batched');
-- the parent, all trimmed, is gone; a number inside the child's trimmed batch is trimmed
SELECT jsonb_array_length(sb_shards('Batched')) AS shards_left,
	   sb_try(format('SELECT st_api(%L, %L)', 'GetShardIterator', jsonb_build_object('StreamArn', sb_arn('Batched'),
	'ShardId', sb_shards('Batched')->0->>'ShardId', 'ShardIteratorType', 'AT_SEQUENCE_NUMBER',
	'SequenceNumber', :'trimmed_seq'))) AS inside_a_trimmed_batch,
	   (SELECT count(*) FROM sb_drain(sb_iter('Batched', 0, 'TRIM_HORIZON'), 5)) AS from_trim_horizon;

SELECT st_api('DeleteTable', '{"TableName": "Batched"}'::jsonb) IS NOT NULL AS dropped,
	   st_api('DeleteTable', '{"TableName": "Broken"}'::jsonb) IS NOT NULL AS dropped_broken;
DROP FUNCTION sb_break_with(bytea);
DROP FUNCTION sb_try(text);
DROP FUNCTION sb_rows(text);
DROP FUNCTION sb_drain(text, int);
DROP FUNCTION sb_iter(text, int, text, text);
DROP FUNCTION sb_shards(text);
DROP FUNCTION sb_arn(text);
