-- Time to live: UpdateTimeToLive and DescribeTimeToLive with DynamoDB's
-- rules and messages (st_api and the friendly functions agree), and
-- st_expire, the worker's expiry on demand: expired Number attributes go,
-- everything else stays; GSIs and triggers see ordinary deletes.

SELECT st_create_table('Expiring') IS NOT NULL AS created;
SELECT st_create_gsi('Expiring', 'ByOwner', 'owner') IS NOT NULL AS gsi;

-- A new table: DISABLED, no AttributeName; DescribeTable says nothing of it.
SELECT st_api('DescribeTimeToLive', '{"TableName": "Expiring"}');
SELECT st_describe_ttl('Expiring');
SELECT st_describe_table('Expiring') ? 'TimeToLiveDescription' AS in_describe_table;

-- The model's checks, before the table is looked up.
SELECT st_api('UpdateTimeToLive', '{"TableName": "Missing"}');
SELECT st_api('UpdateTimeToLive', '{"TableName": "Missing", "TimeToLiveSpecification": {}}');
SELECT st_api('UpdateTimeToLive', '{"TableName": "Missing", "TimeToLiveSpecification": {"Enabled": true}}');
SELECT st_api('UpdateTimeToLive', '{"TableName": "Missing", "TimeToLiveSpecification": {"AttributeName": "ttl"}}');
SELECT st_api('UpdateTimeToLive', '{"TableName": "Expiring", "TimeToLiveSpecification": {"Enabled": true, "AttributeName": ""}}');
SELECT st_api('UpdateTimeToLive', jsonb_build_object('TableName', 'Expiring',
  'TimeToLiveSpecification', jsonb_build_object('Enabled', true, 'AttributeName', repeat('a', 256))));
SELECT st_api('UpdateTimeToLive', '{"TableName": "Expiring", "TimeToLiveSpecification": {"Enabled": "yes", "AttributeName": "ttl"}}');
SELECT st_api('UpdateTimeToLive', '{"TableName": "Expiring", "TimeToLiveSpecification": {"Enabled": true, "AttributeName": 5}}');
SELECT st_api('UpdateTimeToLive', '{"TableName": "Expiring", "TimeToLiveSpecification": [true]}');
SELECT st_api('UpdateTimeToLive', '{"TableName": "x", "TimeToLiveSpecification": {"Enabled": true, "AttributeName": "ttl"}}');
SELECT st_api('DescribeTimeToLive', '{}');
SELECT st_api('DescribeTimeToLive', '{"TableName": "a;b"}');
-- Then the table.
SELECT st_api('UpdateTimeToLive', '{"TableName": "Missing", "TimeToLiveSpecification": {"Enabled": true, "AttributeName": "ttl"}}');
SELECT st_api('DescribeTimeToLive', '{"TableName": "Missing"}');
SELECT st_describe_ttl('Missing');
SELECT st_describe_ttl(NULL);
SELECT st_update_ttl(NULL, 'ttl');
SELECT st_update_ttl('Expiring', NULL);
SELECT st_update_ttl('Expiring', 'ttl', NULL);

-- Disabling what is disabled; then enabling (the response echoes the
-- specification); enabling again, or naming another attribute, is refused.
SELECT st_update_ttl('Expiring', 'expires', false);
SELECT st_api('UpdateTimeToLive', '{"TableName": "Expiring", "TimeToLiveSpecification": {"Enabled": true, "AttributeName": "expires"}}');
SELECT st_api('DescribeTimeToLive', '{"TableName": "Expiring"}');
SELECT st_describe_ttl('Expiring');
SELECT st_update_ttl('Expiring', 'expires');
SELECT st_update_ttl('Expiring', 'other');
SELECT st_update_ttl('Expiring', 'other', false);
-- The setting is kept in the catalog.
SELECT ttl_attribute, ttl_enabled, ttl_updated_at IS NOT NULL AS stamped
  FROM stdesign.tables WHERE table_name = 'Expiring';

-- Items: expired a minute ago (3, one of them a fraction of a second), in
-- an hour, a string, a number set, nested in a map, no attribute, six
-- years ago, and NULL.
SELECT extract(epoch FROM now())::bigint AS now \gset
SELECT count(*) FILTER (WHERE st_put(i, "table" => 'Expiring') IS NULL) AS put FROM (VALUES
  (jsonb_build_object('PK', 'p', 'SK', 'past1', 'owner', 'o', 'expires', :now - 60)),
  (jsonb_build_object('PK', 'p', 'SK', 'past2', 'owner', 'o', 'expires', :now - 3600)),
  (jsonb_build_object('PK', 'q', 'SK', 'past3', 'owner', 'o', 'expires', (:now - 2)::numeric + 0.25)),
  (jsonb_build_object('PK', 'p', 'SK', 'future', 'owner', 'o', 'expires', :now + 3600)),
  (jsonb_build_object('PK', 'p', 'SK', 'string', 'owner', 'o', 'expires', (:now - 60)::text)),
  (jsonb_build_object('PK', 'p', 'SK', 'nested', 'owner', 'o', 'm', jsonb_build_object('expires', :now - 60))),
  (jsonb_build_object('PK', 'p', 'SK', 'none', 'owner', 'o')),
  (jsonb_build_object('PK', 'p', 'SK', 'ancient', 'owner', 'o', 'expires', :now - 6 * 365 * 86400)),
  (jsonb_build_object('PK', 'p', 'SK', 'null', 'owner', 'o', 'expires', NULL))) AS v(i);
SELECT st_put(jsonb_build_object('PK', jsonb_build_object('S', 'p'), 'SK', jsonb_build_object('S', 'numberset'),
                                 'owner', jsonb_build_object('S', 'o'),
                                 'expires', jsonb_build_object('NS', jsonb_build_array((:now - 60)::text))),
              "table" => 'Expiring', typed => true) IS NULL AS put_set;

-- Expired items stay readable until deleted.
SELECT st_get('p', 'past1', 'Expiring') ->> 'SK' AS still_readable;

-- A delete trigger sees each deletion.
CREATE TABLE expired_log (sk text);
CREATE FUNCTION log_expired() RETURNS trigger LANGUAGE plpgsql AS
  $$ BEGIN INSERT INTO expired_log VALUES (OLD.item -> 'SK' ->> 'S'); RETURN OLD; END $$;
CREATE TRIGGER log_expired AFTER DELETE ON stdesign_data."Expiring" FOR EACH ROW EXECUTE FUNCTION log_expired();

SELECT st_expire('Expiring');
SELECT sk FROM expired_log ORDER BY sk;
SELECT string_agg(sk, ' ' ORDER BY sk) AS left FROM stdesign_data."Expiring";
SELECT count(*) AS in_gsi FROM st_query('o', "table" => 'Expiring', index => 'ByOwner');
SELECT st_expire('Expiring') AS nothing_more;

-- Bad input.
SELECT st_expire(NULL);
SELECT st_expire('Missing');
SELECT st_expire('no way');

-- Disabled: nothing is deleted; the description says DISABLED.
SELECT st_update(pk => 'p', sk => 'future', "update" => 'SET expires = :e', "table" => 'Expiring',
                 "values" => jsonb_build_object(':e', :now - 10)) ->> 'expires' = (:now - 10)::text AS now_expired;
SELECT st_api('UpdateTimeToLive', '{"TableName": "Expiring", "TimeToLiveSpecification": {"Enabled": false, "AttributeName": "expires"}}');
SELECT st_describe_ttl('Expiring');
SELECT st_expire('Expiring') AS while_disabled;
-- Enabled on another attribute: only that one counts.
SELECT st_update_ttl('Expiring', 'm');
SELECT st_expire('Expiring') AS other_attribute;
SELECT st_update_ttl('Expiring', 'm', false) IS NOT NULL AS disabled;
SELECT st_update_ttl('Expiring', 'expires') IS NOT NULL AS enabled;
SELECT st_expire('Expiring') AS expired_future;

-- An expired item that a concurrent transaction changes is decided when
-- locked: here in one transaction, the item updated to a later expiry
-- before st_expire stays.
BEGIN;
SELECT st_put(jsonb_build_object('PK', 'r', 'SK', 'renewed', 'expires', :now - 60), "table" => 'Expiring') IS NULL AS put;
SELECT st_update(pk => 'r', sk => 'renewed', "update" => 'SET expires = :e', "table" => 'Expiring',
                 "values" => jsonb_build_object(':e', :now + 60)) IS NOT NULL AS renewed;
SELECT st_expire('Expiring') AS renewed_stays;
ROLLBACK;

-- Only the table's owner may change the setting; anyone may describe it;
-- st_expire needs the privileges of the deletes.
CREATE ROLE ttl_reader;
GRANT USAGE ON SCHEMA stdesign, stdesign_data TO ttl_reader;
GRANT SELECT, UPDATE ON stdesign.tables TO ttl_reader;
GRANT SELECT ON stdesign.indexes TO ttl_reader;
\set VERBOSITY terse
SET ROLE ttl_reader;
SELECT st_describe_ttl('Expiring');
SELECT st_update_ttl('Expiring', 'expires', false);
SELECT st_expire('Expiring');
RESET ROLE;
\set VERBOSITY default
REVOKE ALL ON stdesign.tables, stdesign.indexes FROM ttl_reader;
REVOKE ALL ON SCHEMA stdesign, stdesign_data FROM ttl_reader;
DROP ROLE ttl_reader;

-- The time-to-live index: enabling creates a partial btree over the
-- attribute's expiry, which DescribeTable and the catalog's indexes do not
-- show; the expiry query is a range scan of it; disabling drops it, enabling
-- again (on another attribute) creates it anew.
SELECT indexrelid::regclass AS index, pg_get_indexdef(indexrelid) AS definition
  FROM pg_index WHERE indrelid = 'stdesign_data."Expiring"'::regclass ORDER BY indexrelid::regclass::text COLLATE "C";
SELECT jsonb_path_query_array(st_describe_table('Expiring'), '$.GlobalSecondaryIndexes[*].IndexName') AS described_gsis,
       st_describe_table('Expiring') ? 'LocalSecondaryIndexes' AS described_lsis;
SELECT index_name FROM stdesign.indexes WHERE table_name = 'Expiring';
-- The query of st_expire, with the index (sequential scans off: the table
-- is small): each of the 16 shards' range of expiry seconds, the exact
-- times checked on the items.
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT item FROM stdesign_data."Expiring"
  WHERE stdesign.ttl_shard(pk, sk) OPERATOR(pg_catalog.=) ANY ('{0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15}'::pg_catalog.int4[])
    AND stdesign.ttl_second(item, 'expires'::pg_catalog.text) OPERATOR(pg_catalog.<=) CAST(pg_catalog.floor(1000.5) AS pg_catalog.int8)
    AND stdesign.ttl_second(item, 'expires'::pg_catalog.text) OPERATOR(pg_catalog.>=) CAST(pg_catalog.floor(0) AS pg_catalog.int8)
    AND stdesign.ttl_expiry(item, 'expires'::pg_catalog.text) OPERATOR(pg_catalog.<) 1000.5
    AND stdesign.ttl_expiry(item, 'expires'::pg_catalog.text) OPERATOR(pg_catalog.>=) 0
  LIMIT 1000 FOR UPDATE SKIP LOCKED;
-- and st_expire's own statement: the index's scans count goes up.
SELECT pg_stat_force_next_flush();
SELECT idx_scan AS scans_before FROM pg_stat_user_indexes
  WHERE indexrelname = 'Expiring:ttl' \gset
SELECT st_put(jsonb_build_object('PK', 'i', 'SK', 'indexed', 'expires', :now - 5), "table" => 'Expiring') IS NULL AS put;
SELECT st_expire('Expiring') AS expired_through_index;
SELECT pg_stat_force_next_flush();
SELECT idx_scan > :scans_before AS index_scanned FROM pg_stat_user_indexes
  WHERE indexrelname = 'Expiring:ttl';
RESET enable_seqscan;
-- Disabled: the index is dropped; enabled again, created again.
SELECT st_update_ttl('Expiring', 'expires', false) IS NOT NULL AS disabled;
SELECT count(*) AS ttl_indexes FROM pg_class WHERE relname = 'Expiring:ttl';
-- An index of the user's own may hold the name: the time-to-live index
-- takes the hashed form, and disabling drops it alone.
CREATE INDEX "Expiring:ttl" ON stdesign_data."Expiring" (sk);
SELECT st_update_ttl('Expiring', 'until') IS NOT NULL AS enabled_on_until;
SELECT indexrelid::regclass AS index, pg_get_indexdef(indexrelid) AS definition
  FROM pg_index WHERE indrelid = 'stdesign_data."Expiring"'::regclass AND indexrelid::regclass::text LIKE '%ttl%' ORDER BY indexrelid::regclass::text COLLATE "C";
SELECT st_update_ttl('Expiring', 'until', false) IS NOT NULL AS disabled;
SELECT indexrelid::regclass AS index
  FROM pg_index WHERE indrelid = 'stdesign_data."Expiring"'::regclass AND indexrelid::regclass::text LIKE '%ttl%' ORDER BY indexrelid::regclass::text COLLATE "C";
DROP INDEX stdesign_data."Expiring:ttl";
SELECT st_update_ttl('Expiring', 'until') IS NOT NULL AS enabled_on_until;
SELECT pg_get_indexdef('stdesign_data."Expiring:ttl"'::regclass) AS definition;

-- The index's expression never fails a write, whatever the attribute holds:
-- what is not a number the expiry query accepted is NULL (not indexed,
-- never deleted), and so are numbers too large or small for numeric (and
-- for any window of expiry).
SELECT left(v, 24) AS "N", length(v) AS length, left(e::text, 24) AS expiry, length(e::text) AS expiry_length
  FROM (VALUES ('1700000000'), ('-5'), ('.5'), ('0012.50e1'), ('1E+3'), ('-0'), ('0e99999999999'),
               ('1e1000'), ('1e1001'), ('1e-1000'), ('1e-1001'), ('1e999999999999999999999'),
               ('1' || repeat('0', 999)), ('1' || repeat('0', 1000)), ('1' || repeat('0', 1000) || 'e-1000'),
               ('5.'), ('1.2.3'), ('+5'), (' 5'), ('1e'), ('e5'), ('-'), (''), ('NaN'), ('Infinity'), ('0x10'), ('1_000')) AS t(v),
       LATERAL stdesign.ttl_expiry(jsonb_build_object('a', jsonb_build_object('N', v)), 'a') AS e;
-- Integers of up to 18 digits take a shorter path: the same number, with
-- the same text, as numeric_in's on both sides of the bound.
SELECT v AS "N", e::text AS expiry, e::text = v::numeric::text AS same
  FROM (VALUES ('0'), ('-0'), ('007'), ('-000'), ('1893456000'), ('999999999999999999'),
               ('-999999999999999999'), ('1000000000000000000'), ('-1000000000000000000'),
               ('000000000000000001'), ('0000000000000000001'), ('9223372036854775807'),
               ('99999999999999999999')) AS t(v),
       LATERAL stdesign.ttl_expiry(jsonb_build_object('a', jsonb_build_object('N', v)), 'a') AS e;
-- ttl_second, the index's key: the same number's whole second, rounded
-- down, for every number below 10^18 in magnitude; NULL beyond.
SELECT left(v, 24) AS "N", s AS second,
       s IS NOT DISTINCT FROM CASE WHEN abs(e) < 1e18 THEN floor(e)::int8 END AS floor_of_expiry
  FROM (VALUES ('1700000000'), ('1700000000.999'), ('-1.5'), ('-0.5'), ('0.5'), ('-0'), ('0.000'), ('-0e5'),
               ('17e8'), ('1.7E+9'), ('170000000000e-2'), ('1700000000999e-3'), ('-1700000000001e-3'),
               ('999999999999999999'), ('999999999999999999.5'), ('-999999999999999999.5'),
               ('1e17'), ('1e18'), ('-1e18'), ('0000000000000000001'), ('1' || repeat('0', 999)),
               ('1e-1000'), ('-1e-1000'), ('1e1000'), ('NaN'), ('')) AS t(v),
       LATERAL stdesign.ttl_second(jsonb_build_object('a', jsonb_build_object('N', v)), 'a') AS s,
       LATERAL stdesign.ttl_expiry(jsonb_build_object('a', jsonb_build_object('N', v)), 'a') AS e;
SELECT stdesign.ttl_expiry(i, 'a') AS expiry FROM (VALUES ('{"a": {"N": 5}}'::jsonb), ('{"a": {"S": "5"}}'), ('{"a": {"NS": ["5"]}}'),
  ('{"a": 5}'), ('{"a": "5"}'), ('{"a": null}'), ('{"b": {"N": "5"}}'), ('[{"a": {"N": "5"}}]'), ('"a"'), ('{"a": {"N": "5", "S": "x"}}')) AS t(i);
-- Rows written by plain SQL: the set_keys trigger refuses numbers DynamoDB
-- would not store; with triggers off (a superuser's replica role) nothing
-- is checked, and the writes still succeed: expiry skips what is not a
-- number it knows.
INSERT INTO stdesign_data."Expiring" (item) VALUES
  (jsonb_build_object('PK', jsonb_build_object('S', 'h'), 'SK', jsonb_build_object('S', 'huge'), 'until', jsonb_build_object('N', '1e5000')));
SET session_replication_role = replica;
INSERT INTO stdesign_data."Expiring" (pk, sk, item)
  SELECT i -> 'PK' ->> 'S', i -> 'SK' ->> 'S', i FROM (VALUES
  (jsonb_build_object('PK', jsonb_build_object('S', 'h'), 'SK', jsonb_build_object('S', 'huge'), 'until', jsonb_build_object('N', '1e5000'))),
  (jsonb_build_object('PK', jsonb_build_object('S', 'h'), 'SK', jsonb_build_object('S', 'nan'), 'until', jsonb_build_object('N', 'NaN'))),
  (jsonb_build_object('PK', jsonb_build_object('S', 'h'), 'SK', jsonb_build_object('S', 'number'), 'until', jsonb_build_object('N', 17))),
  (jsonb_build_object('PK', jsonb_build_object('S', 'h'), 'SK', jsonb_build_object('S', 'past'), 'until', jsonb_build_object('N', (:now - 60)::text)))) AS v(i);
RESET session_replication_role;
SELECT st_expire('Expiring') AS expired_one;
SELECT string_agg(item -> 'SK' ->> 'S', ' ' ORDER BY item -> 'SK' ->> 'S') AS left_in_h
  FROM stdesign_data."Expiring" WHERE item -> 'PK' ->> 'S' = 'h';

-- The index's shards: a hash of the key columns' bytes, 0 to 15, the same
-- for the same key; items of every shard expire.  The function takes key
-- columns only (text, numeric, bytea): anything else is refused.
SELECT count(DISTINCT stdesign.ttl_shard('p' || i, 's'::text)) AS shards_of_text,
       count(DISTINCT stdesign.ttl_shard(i::numeric)) AS shards_of_numbers,
       count(DISTINCT stdesign.ttl_shard(('\x' || lpad(to_hex(i), 8, '0'))::bytea, 'x'::text)) AS shards_of_binaries,
       min(least(stdesign.ttl_shard('p' || i, 's'::text), stdesign.ttl_shard(i::numeric))) AS least,
       max(greatest(stdesign.ttl_shard('p' || i, 's'::text), stdesign.ttl_shard(i::numeric))) AS greatest,
       bool_and(stdesign.ttl_shard('p' || i, 's'::text) = stdesign.ttl_shard('p' || i, 's'::text)) AS stable
  FROM generate_series(1, 1000) i;
SELECT stdesign.ttl_shard(NULL::text) IS NULL AS strict, stdesign.ttl_shard(repeat('k', 100000)) BETWEEN 0 AND 15 AS long_key;
SELECT stdesign.ttl_shard(1);
SELECT stdesign.ttl_shard('p'::text, 2::int8);
SELECT stdesign.ttl_shard('unknown');
SELECT count(*) AS put FROM generate_series(1, 200) i,
  LATERAL st_put(jsonb_build_object('PK', 'shard', 'SK', 's' || i, 'until', :now - 30), "table" => 'Expiring') AS p;
SELECT count(DISTINCT stdesign.ttl_shard(pk, sk)) AS shards_holding_expired FROM stdesign_data."Expiring" WHERE pk = 'shard';
SELECT st_expire('Expiring') AS expired_in_every_shard;
SELECT count(*) AS left_in_shard FROM stdesign_data."Expiring" WHERE pk = 'shard';
-- A table without a sort key: the shard of the partition key alone, a
-- binary one here.
SELECT st_create_table('ExpiringHash', sk => NULL, pk_type => 'B') IS NOT NULL AS created;
SELECT st_update_ttl('ExpiringHash', 'until') IS NOT NULL AS enabled;
SELECT pg_get_indexdef('stdesign_data."ExpiringHash:ttl"'::regclass) AS definition;
SELECT count(*) AS put FROM generate_series(1, 100) i,
  LATERAL st_api('PutItem', jsonb_build_object('TableName', 'ExpiringHash', 'Item', jsonb_build_object(
    'PK', jsonb_build_object('B', encode(int4send(i), 'base64')),
    'until', jsonb_build_object('N', (:now - 10 - i)::text)))) AS p;
SELECT count(DISTINCT stdesign.ttl_shard(pk)) AS shards_holding_expired FROM stdesign_data."ExpiringHash";
SELECT st_expire('ExpiringHash') AS expired;
SELECT count(*) AS left FROM stdesign_data."ExpiringHash";
-- On a table without a sort key the index is over ttl_shard(pk): disabling
-- drops it too.
SELECT st_update_ttl('ExpiringHash', 'until', false) IS NOT NULL AS disabled;
SELECT count(*) AS ttl_indexes FROM pg_class WHERE relname LIKE 'ExpiringHash:ttl%';
SELECT st_update_ttl('ExpiringHash', 'until') IS NOT NULL AS enabled;
SELECT pg_get_indexdef('stdesign_data."ExpiringHash:ttl"'::regclass) AS definition;
-- An index as earlier builds made it (over ttl_expiry alone) still serves
-- the expiry query, and disabling drops it as a time-to-live index.
DROP INDEX stdesign_data."ExpiringHash:ttl";
CREATE INDEX "ExpiringHash:ttl" ON stdesign_data."ExpiringHash" (stdesign.ttl_expiry(item, 'until'::text))
  WHERE stdesign.ttl_expiry(item, 'until'::text) IS NOT NULL;
SELECT st_api('PutItem', jsonb_build_object('TableName', 'ExpiringHash', 'Item', jsonb_build_object(
    'PK', jsonb_build_object('B', 'AA=='), 'until', jsonb_build_object('N', (:now - 10)::text)))) AS put;
SELECT pg_stat_force_next_flush();
SELECT idx_scan AS scans_before FROM pg_stat_user_indexes WHERE indexrelname = 'ExpiringHash:ttl' \gset
SET enable_seqscan = off;
SELECT st_expire('ExpiringHash') AS expired_through_old_index;
RESET enable_seqscan;
SELECT pg_stat_force_next_flush();
SELECT idx_scan > :scans_before AS old_index_scanned FROM pg_stat_user_indexes WHERE indexrelname = 'ExpiringHash:ttl';
SELECT st_update_ttl('ExpiringHash', 'until', false) IS NOT NULL AS disabled;
SELECT count(*) AS ttl_indexes FROM pg_class WHERE relname = 'ExpiringHash:ttl';
SELECT st_drop_table('ExpiringHash') IS NOT NULL AS dropped;

-- Disabling drops the index it made and nothing else: an owner's own
-- index under the index's name, over the same functions but another
-- attribute, or the right one without the predicate, is not it and stays
-- (the time-to-live index then takes the other form of the name).
-- on_off_left(t): time to live enabled on "until" and disabled again; the
-- time-to-live-named indexes of t's relation left.
CREATE FUNCTION on_off_left(t text) RETURNS SETOF regclass LANGUAGE plpgsql AS $$
BEGIN
	PERFORM st_update_ttl(t, 'until');
	PERFORM st_update_ttl(t, 'until', false);
	RETURN QUERY SELECT indexrelid::regclass FROM pg_index
	  WHERE indrelid = format('stdesign_data.%I', t)::regclass AND indexrelid::regclass::text LIKE '%ttl%';
END $$;
SELECT st_create_table('OwnIndex') IS NOT NULL AS created;
CREATE INDEX "OwnIndex:ttl" ON stdesign_data."OwnIndex"
  (stdesign.ttl_shard(pk, sk), stdesign.ttl_second(item, 'other'::text))
  WHERE stdesign.ttl_second(item, 'other'::text) IS NOT NULL;
SELECT on_off_left('OwnIndex') AS another_attribute;
DROP INDEX stdesign_data."OwnIndex:ttl";
CREATE INDEX "OwnIndex:ttl" ON stdesign_data."OwnIndex"
  (stdesign.ttl_shard(pk, sk), stdesign.ttl_second(item, 'until'::text));
SELECT st_update_ttl('OwnIndex', 'until') IS NOT NULL AS enabled;
SELECT count(*) AS ttl_indexes FROM pg_index
  WHERE indrelid = 'stdesign_data."OwnIndex"'::regclass AND indexrelid::regclass::text LIKE '%ttl%';
SELECT st_update_ttl('OwnIndex', 'until', false) IS NOT NULL AS disabled;
SELECT indexrelid::regclass AS index, indpred IS NULL AS no_predicate FROM pg_index
  WHERE indrelid = 'stdesign_data."OwnIndex"'::regclass AND indexrelid::regclass::text LIKE '%ttl%';
-- The index as st_update_ttl makes it, made by the owner under the name,
-- is taken for it (the same index in every part): none left.
DROP INDEX stdesign_data."OwnIndex:ttl";
CREATE INDEX "OwnIndex:ttl" ON stdesign_data."OwnIndex"
  (stdesign.ttl_shard(pk, sk), stdesign.ttl_second(item, 'until'::text))
  WHERE stdesign.ttl_second(item, 'until'::text) IS NOT NULL;
SELECT on_off_left('OwnIndex') AS the_same_index;
-- Column orderings of its own, or an exclusion constraint's index, under
-- the name: not it (disabling leaves them, without an error).
CREATE INDEX "OwnIndex:ttl" ON stdesign_data."OwnIndex"
  (stdesign.ttl_shard(pk, sk) DESC, stdesign.ttl_second(item, 'until'::text))
  WHERE stdesign.ttl_second(item, 'until'::text) IS NOT NULL;
SELECT on_off_left('OwnIndex') AS descending;
DROP INDEX stdesign_data."OwnIndex:ttl";
ALTER TABLE stdesign_data."OwnIndex" ADD CONSTRAINT "OwnIndex:ttl" EXCLUDE USING btree
  (stdesign.ttl_shard(pk, sk) WITH =, stdesign.ttl_second(item, 'until'::text) WITH =)
  WHERE (stdesign.ttl_second(item, 'until'::text) IS NOT NULL);
SELECT on_off_left('OwnIndex') AS exclusion_constraint;
ALTER TABLE stdesign_data."OwnIndex" DROP CONSTRAINT "OwnIndex:ttl";
-- Another relation's index under the name: not it (and, its table
-- checked first, never opened).
CREATE TABLE stdesign_data.own_other (x int);
CREATE INDEX "OwnIndex:ttl" ON stdesign_data.own_other (x);
SELECT on_off_left('OwnIndex') AS left_on_own_index;
SELECT indrelid::regclass AS "table", indexrelid::regclass AS index FROM pg_index
  WHERE indexrelid::regclass::text LIKE '%OwnIndex:ttl%';
DROP TABLE stdesign_data.own_other;
DROP FUNCTION on_off_left(text);
SELECT st_drop_table('OwnIndex') IS NOT NULL AS dropped;

-- DeleteTable takes the setting with it: a new table of that name starts
-- DISABLED, without the index.
SELECT st_drop_table('Expiring');
SELECT count(*) AS ttl_indexes FROM pg_class WHERE relname = 'Expiring:ttl';
SELECT st_create_table('Expiring') IS NOT NULL AS created_again;
SELECT st_describe_ttl('Expiring');
SELECT st_drop_table('Expiring');
DROP TABLE expired_log;
DROP FUNCTION log_expired();
