-- Every function that reads a table's data or metadata checks the caller's
-- privilege on it: the audit list of docs/security.md (function ->
-- privilege), each function called by a role without the privilege (the
-- refusal) and by one with it (it works).  The traffic counters are off
-- under pg_regress (no shared_preload_libraries: a NOTICE, no rows); the
-- privilege is checked before that, and test/t/008_studio_traffic.pl
-- checks the counts themselves for each role.
--
-- Roles, with the grants docs/security.md ("What to grant") names:
--   regress_aud_none:   the schemas and SELECT on the catalog, no grant on the table
--   regress_aud_reader: and SELECT on the table's relation
--   regress_aud_rls:    and SELECT on the relation, where a policy hides rows
SELECT st_create_table('{
  "TableName": "Audited", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"},
                           {"AttributeName": "G", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [{"IndexName": "ByG", "KeySchema": [{"AttributeName": "G", "KeyType": "HASH"}],
                              "Projection": {"ProjectionType": "ALL"}}],
  "Tags": [{"Key": "team", "Value": "a"}]}') IS NOT NULL AS created;
SELECT st_put('{"PK": "SECRET#1", "SK": "A#1", "G": "hidden", "name": "s"}', 'Audited');
SELECT st_put('{"PK": "PUBLIC#1", "SK": "A#1", "G": "shown", "name": "p"}', 'Audited');
SELECT st_set_model('Audited', '{"entities": {"A": {"keys": {"PK": "{kind}#{id}", "SK": "A#{id}"},
  "attributes": {"kind": "S", "id": "S", "name": "S"}}},
  "patterns": {"by_kind": {"op": "Query", "pk": "{kind}#{id}", "rate": 1}}}') IS NOT NULL AS model_set;

CREATE ROLE regress_aud_none;
CREATE ROLE regress_aud_reader;
CREATE ROLE regress_aud_rls;
GRANT USAGE ON SCHEMA stdesign, stdesign_data TO regress_aud_none, regress_aud_reader, regress_aud_rls;
GRANT SELECT ON stdesign.tables, stdesign.indexes TO regress_aud_none, regress_aud_reader, regress_aud_rls;
GRANT SELECT ON stdesign_data."Audited" TO regress_aud_reader, regress_aud_rls;

-- 1. No privilege on the table: every reader of its items, keys, tags or
-- model refuses, with Postgres's error (key values never shown).
\set VERBOSITY terse
SET ROLE regress_aud_none;
SELECT * FROM st_partition_traffic('Audited');
SELECT * FROM st_hot_partitions('Audited');
SELECT * FROM st_partitions('Audited');
SELECT * FROM st_partition_skew('Audited');
SELECT st_describe_table('Audited');
SELECT st_table_create_json('Audited');
SELECT st_table_cloudformation('Audited');
SELECT st_table_tags('Audited');
SELECT st_api('ListTagsOfResource', '{"ResourceArn": "arn:aws:dynamodb:local:000000000000:table/Audited"}');
SELECT st_get_model('Audited');
SELECT * FROM st_check_model('Audited');
SELECT * FROM st_model_cost('Audited');
SELECT * FROM st_run_pattern('by_kind', '{"kind": "SECRET", "id": "1"}', 'Audited');
SELECT st_entity_of('{"PK": "SECRET#1", "SK": "A#1"}', 'Audited');
SELECT st_studio_html('Audited');
SELECT * FROM st_studio_text('Audited');
SELECT st_export_workbench(ARRAY['Audited']);
SELECT * FROM st_export('Audited');
SELECT * FROM stdesign.studio_scan('Audited', NULL, 10, false);
SELECT st_get('SECRET#1', 'A#1', 'Audited');
SELECT * FROM st_query('SECRET#1', "table" => 'Audited');
SELECT * FROM st_scan('Audited');
SELECT * FROM st_partiql('SELECT * FROM "Audited"');
SELECT st_batch_get('{"Audited": {"Keys": [{"PK": {"S": "SECRET#1"}, "SK": {"S": "A#1"}}]}}');
SELECT st_transact_get('[{"Get": {"TableName": "Audited", "Key": {"PK": {"S": "SECRET#1"}, "SK": {"S": "A#1"}}}}]');
SELECT * FROM stdesign.st_delegated_get('SECRET#1'::text, 'A#1'::text, 'Audited');
SELECT * FROM stdesign.st_delegated_query('SECRET#1'::text, 0, NULL::text, 0, NULL::text, false, 10, 'Audited');
RESET ROLE;
-- st_export_file: the table's privilege, checked before the file is created
SELECT '/tmp/stdesign_regress_audit_' || pg_backend_pid() || '.jsonl' AS path \gset
GRANT pg_write_server_files TO regress_aud_none;
SET ROLE regress_aud_none;
SELECT st_export_file('Audited', :'path');
RESET ROLE;
REVOKE pg_write_server_files FROM regress_aud_none;
SELECT pg_stat_file(:'path', true) IS NULL AS no_file;
SET ROLE regress_aud_none;
-- metadata of the catalog only: SELECT on stdesign.tables is enough
SELECT st_describe_ttl('Audited');
SELECT st_api('DescribeTimeToLive', '{"TableName": "Audited"}');
SELECT st_api('DescribeContinuousBackups', '{"TableName": "Audited"}')
  #>> '{ContinuousBackupsDescription,ContinuousBackupsStatus}' AS backups;
SELECT * FROM st_list_tables();
SELECT stdesign.query_sql('Audited', NULL, 0, 0, false) IS NOT NULL AS query_sql;
SELECT st_api('DescribeLimits', '{}') ? 'TableMaxReadCapacityUnits' AS limits;
RESET ROLE;

-- 2. SELECT on the relation: each works (the counters are off here).
SET ROLE regress_aud_reader;
SELECT * FROM st_partition_traffic('Audited');
SELECT * FROM st_hot_partitions('Audited');
SELECT index_name, partition_key, items FROM st_partitions('Audited') ORDER BY 1, 2;
SELECT index_name, partitions, items FROM st_partition_skew('Audited') ORDER BY 1;
SELECT st_describe_table('Audited') ->> 'ItemCount' AS items;
SELECT st_table_create_json('Audited') ->> 'TableName' AS create_json;
SELECT st_table_cloudformation('Audited') ->> 'Description' AS template;
SELECT st_table_tags('Audited');
SELECT st_api('ListTagsOfResource', '{"ResourceArn": "arn:aws:dynamodb:local:000000000000:table/Audited"}');
SELECT st_get_model('Audited') -> 'patterns' AS patterns;
SELECT kind, name, ok FROM st_check_model('Audited') ORDER BY 1, 2;
SELECT name, measured_with FROM st_check_model('Audited') WHERE kind = 'pattern';
SELECT pattern, operation FROM st_model_cost('Audited') ORDER BY 1;
SELECT * FROM st_run_pattern('by_kind', '{"kind": "SECRET", "id": "1"}', 'Audited');
SELECT st_entity_of('{"PK": "SECRET#1", "SK": "A#1"}', 'Audited');
SELECT st_studio_html('Audited') LIKE '%SECRET#1%' AS page_shows_items;
SELECT count(*) > 0 AS text_lines FROM st_studio_text('Audited');
SELECT jsonb_array_length(st_export_workbench(ARRAY['Audited']) #> '{DataModel,0,TableData}') AS exported_items;
SELECT count(*) AS exported FROM st_export('Audited');
SELECT count(*) AS scanned FROM stdesign.studio_scan('Audited', NULL, 10, false);
SELECT item ->> 'PK' AS pk FROM stdesign.st_delegated_get('SECRET#1'::text, 'A#1'::text, 'Audited');
RESET ROLE;

-- 3. SELECT, under a policy that hides SECRET#...: what reads items sees
-- only what the policy shows; the traffic counters, kept per key value and
-- not filtered by policies, are refused to every role the relation's
-- row-level security applies to (here both).
ALTER TABLE stdesign_data."Audited" ENABLE ROW LEVEL SECURITY;
CREATE POLICY everything ON stdesign_data."Audited" TO regress_aud_reader USING (true);
CREATE POLICY public_only ON stdesign_data."Audited" TO regress_aud_rls USING (pk LIKE 'PUBLIC#%');
SET ROLE regress_aud_reader;
SELECT * FROM st_partition_traffic('Audited');
SELECT * FROM st_hot_partitions('Audited');
RESET ROLE;
SET ROLE regress_aud_rls;
SELECT * FROM st_partition_traffic('Audited');
SELECT * FROM st_hot_partitions('Audited');
SELECT index_name, partition_key, items FROM st_partitions('Audited') ORDER BY 1, 2;
SELECT index_name, largest_partition FROM st_partition_skew('Audited') ORDER BY 1;
SELECT st_describe_table('Audited') ->> 'ItemCount' AS items;
SELECT * FROM st_run_pattern('by_kind', '{"kind": "SECRET", "id": "1"}', 'Audited');
-- the checks measure with parameters of the items the policy shows
SELECT name, measured_with FROM st_check_model('Audited') WHERE kind = 'pattern';
SELECT st_studio_html('Audited') LIKE '%SECRET#1%' AS page_shows_hidden;
SELECT * FROM st_export('Audited');
SELECT * FROM st_scan('Audited');
RESET ROLE;

-- 4. The owner, a superuser and a role with BYPASSRLS see past the
-- policies: the counters are theirs to read.
SELECT count(*) AS rows FROM st_partition_traffic('Audited');
ALTER ROLE regress_aud_rls BYPASSRLS;
SET ROLE regress_aud_rls;
SELECT count(*) AS rows FROM st_hot_partitions('Audited');
RESET ROLE;
\set VERBOSITY default

SELECT st_drop_table('Audited');
REVOKE ALL ON stdesign.tables, stdesign.indexes FROM regress_aud_none, regress_aud_reader, regress_aud_rls;
REVOKE ALL ON SCHEMA stdesign, stdesign_data FROM regress_aud_none, regress_aud_reader, regress_aud_rls;
DROP ROLE regress_aud_none, regress_aud_reader, regress_aud_rls;
