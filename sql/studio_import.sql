-- The design studio's import and export: DynamoDB's export format (JSON
-- lines, {"Item": {...}} per line) in and out, exact on a round trip of
-- 10^5 items of every type; bad lines, all or nothing; server files and
-- their privileges; NoSQL Workbench's data model in and out.

SELECT st_create_table('{
  "TableName": "RoundTripA",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "N"},
                           {"AttributeName": "G", "AttributeType": "B"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [{"IndexName": "ByG", "KeySchema": [{"AttributeName": "G", "KeyType": "HASH"}],
                              "Projection": {"ProjectionType": "ALL"}}],
  "BillingMode": "PAY_PER_REQUEST"}'::jsonb) IS NOT NULL AS created;
SELECT st_create_table(jsonb_set(st_table_create_json('RoundTripA'), '{TableName}', '"RoundTripB"')) IS NOT NULL AS created;

-- 10^5 items with every type: strings with escapes and non-ASCII, numbers
-- (negative, fractional, large), binary, booleans, null, lists, maps, sets.
SELECT st_put_all(jsonb_build_object(
         'PK', jsonb_build_object('S', 'P#' || (i % 997)),
         'SK', jsonb_build_object('N', (i * 7 - 350000)::text || CASE WHEN i % 3 = 0 THEN '.25' ELSE '' END),
         's', jsonb_build_object('S', 'ünïcødé ☃ ' || md5(i::text) || E' tab\t "quoted" back\\slash\n'),
         'n', jsonb_build_object('N', CASE WHEN i % 5 = 0 THEN '1E+30' ELSE (i * 1.5)::text END),
         'b', jsonb_build_object('B', encode(decode(md5(i::text), 'hex'), 'base64')),
         'ok', jsonb_build_object('BOOL', i % 2 = 0),
         'z', '{"NULL": true}'::jsonb,
         'l', jsonb_build_object('L', jsonb_build_array(jsonb_build_object('S', 'a'), jsonb_build_object('N', i::text),
                                                        jsonb_build_object('L', '[]'::jsonb))),
         'm', jsonb_build_object('M', jsonb_build_object('k', jsonb_build_object('S', 'v' || i),
                                                         'deep', jsonb_build_object('M', '{"x": {"BOOL": false}}'::jsonb))),
         'ss', jsonb_build_object('SS', jsonb_build_array('x' || i, 'y')),
         'ns', jsonb_build_object('NS', jsonb_build_array(i::text, '0.5')),
         'bs', jsonb_build_object('BS', jsonb_build_array('AAE=', 'AQI=')))
       || CASE WHEN i % 4 = 0 THEN jsonb_build_object('G', jsonb_build_object('B', encode(int4send(i % 11), 'base64'))) ELSE '{}' END,
       'RoundTripA', true)
  FROM generate_series(1, 100000) AS i;

-- Export as lines to the client, import them into the other table; export
-- to a server file (as COPY TO a file would), import it into a third: the
-- same stored items, the same GSI, the same lines.
SELECT st_import('RoundTripB', string_agg(line, E'\n')) AS imported FROM st_export('RoundTripA') AS line;
SELECT '/tmp/stdesign_regress_export_' || pg_backend_pid() || '.jsonl' AS path \gset
SELECT st_export_file('RoundTripA', :'path') AS written;
SELECT st_create_table(jsonb_set(st_table_create_json('RoundTripA'), '{TableName}', '"RoundTripC"')) IS NOT NULL AS created;
SELECT st_import_file('RoundTripC', :'path') AS read;
SELECT (SELECT count(*) FROM stdesign_data."RoundTripA") AS a, (SELECT count(*) FROM stdesign_data."RoundTripB") AS b,
       (SELECT count(*) FROM stdesign_data."RoundTripC") AS c;
SELECT count(*) AS differing_rows
  FROM ((SELECT pk, sk, item FROM stdesign_data."RoundTripA" EXCEPT ALL SELECT pk, sk, item FROM stdesign_data."RoundTripB")
        UNION ALL
        (SELECT pk, sk, item FROM stdesign_data."RoundTripA" EXCEPT ALL SELECT pk, sk, item FROM stdesign_data."RoundTripC")) AS d;
SELECT count(*) AS differing_lines
  FROM (SELECT * FROM st_export('RoundTripA') EXCEPT ALL SELECT * FROM st_export('RoundTripC')) AS d;
SELECT count(*) AS in_gsi FROM st_scan('RoundTripC', 'ByG');
-- One line as it is written: typed AttributeValues under "Item".
SELECT line::jsonb #> '{Item,SK}' AS sk, line::jsonb #> '{Item,ss}' AS ss, line::jsonb #> '{Item,z}' AS z,
       line::jsonb #> '{Item,s}' AS s, (SELECT array_agg(k ORDER BY k) FROM jsonb_object_keys(line::jsonb) AS k) AS top_level
  FROM st_export('RoundTripA') AS line LIMIT 1;
SELECT st_drop_table('RoundTripA');
SELECT st_drop_table('RoundTripB');
SELECT st_drop_table('RoundTripC');

-- Importing replaces items with the same key, the last line winning, and
-- skips blank lines (CRLF line ends too).
SELECT st_create_table('Imp') IS NOT NULL AS created;
SELECT st_import('Imp', E'{"Item": {"PK": {"S": "a"}, "SK": {"S": "1"}, "v": {"N": "1"}}}\r\n'
                        || E'\n   \n'
                        || E'{"Item": {"PK": {"S": "a"}, "SK": {"S": "1"}, "v": {"N": "2"}}}\n'
                        || '{"Item": {"PK": {"S": "b"}, "SK": {"S": "1"}}}') AS imported;
SELECT * FROM st_scan('Imp');
SELECT st_import('Imp', '') AS nothing;

-- Bad lines: the error names the line, and nothing is written.
SELECT st_import('Imp', E'{"Item": {"PK": {"S": "c"}, "SK": {"S": "1"}}}\n{"Item": {"PK": {"S": "d"}, "SK": {"S": "1"}}\n');
SELECT st_import('Imp', E'{"Item": {"PK": {"S": "c"}, "SK": {"S": "1"}}}\n[1, 2]');
SELECT st_import('Imp', '"just a string"');
SELECT st_import('Imp', '{"PK": {"S": "c"}, "SK": {"S": "1"}}');
SELECT st_import('Imp', '{"Item": {"PK": {"S": "c"}, "SK": {"S": "1"}}, "Other": 1}');
SELECT st_import('Imp', '{"Item": [1]}');
SELECT st_import('Imp', E'\n\n{"Item": {"PK": {"S": 5}, "SK": {"S": "1"}}}');
SELECT st_import('Imp', '{"Item": {"PK": {"N": "5"}, "SK": {"S": "1"}}}');
SELECT st_import('Imp', '{"Item": {"PK": {"S": "c"}}}');
SELECT st_import('Imp', '{"Item": {"PK": {"S": ""}, "SK": {"S": "1"}}}');
SELECT st_import('Imp', '{"Item": {"PK": {"S": "c"}, "SK": {"S": "1"}, "x": {"Q": "1"}}}');
SELECT st_import('Imp', '{"Item": {"PK": {"S": "c"}, "SK": {"S": "1"}, "x": {"S": "\u0000"}}}');
SELECT st_import('Imp', '{"Item": {"PK": {"S": "c"}, "SK": {"S": "1"}, "x": {"SS": ["a", "a"]}}}');
SELECT st_import('Imp', '{"Item": {"PK": {"S": "c"}, "SK": {"S": "1"}, "big": {"S": "' || repeat('x', 409600) || '"}}}');
SELECT st_import('Imp', '{"Item": {"PK": {"S": "c"}, "SK": {"S": "1"}, "huge": {"S": "' || repeat('x', 5000000) || '"}}}');
-- JSON itself: the reader of the lines is stdesign's own, so its edges too.
SELECT st_import('Imp', '{"Item": {"PK": {"S": "c"}, "SK": {"S": "1"}}} trailing');
SELECT st_import('Imp', '{"Item": {"PK": {"S": "c"}, "SK": {"S": "1"}, "x": {"S": "\ud800"}}}');
SELECT st_import('Imp', '{"Item": {"PK": {"S": "c"}, "SK": {"S": "1"}, "x": {"S": "\q"}}}');
SELECT st_import('Imp', E'{"Item": {"PK": {"S": "c"}, "SK": {"S": "1"}, "x": {"S": "tab\there"}}}');
SELECT st_import('Imp', '{"Item": {"PK": {"S": "c"}, "SK": {"S": "1"}, "x": {"S": "a", "N": "1"}}}');
SELECT st_import('Imp', '{"Item": {"PK": {"S": "c"}, "SK": {"S": "1"}, "x": {"NULL": false}}}');
SELECT st_import('Imp', '{"Item": {"PK": {"S": "c"}, "SK": {"S": "1"}, "x": {"N": "1e999"}}}');
SELECT st_import('Imp', '{"Item": {"PK": {"S": "c"}, "SK": {"S": "1"}, "x": {"B": "not base64!"}}}');
SELECT st_import('Imp', '{"Item": {"PK": {"S": "c"}, "SK": {"S": "1"}, "x": {"L": [01]}}}');
SELECT st_import('Imp', '{"Item": {"PK": {"S": "c"}, "SK": {"S": "1"}, "x": ' || repeat('{"L": [', 70) || repeat(']}', 70) || '}}');
SELECT st_import('Imp', '{"Item": {"PK": {"S": "c"}, "SK": {"S": "1"}, "x": ' || repeat('[', 100000) || '}}');
-- What a DynamoDB client would accept: unknown members skipped, escapes
-- decoded (surrogate pairs too), a duplicate name keeps the last value.
SELECT st_import('Imp', '{"Item": {"PK": {"S": "dup"}, "SK": {"S": "1"}, "x": {"S": "first"}, "x": {"S": "last", "unknown": [1, {"a": null}]}, '
                        || '"e": {"S": "\u00e9\ud83d\ude00\n\/"}, "n": {"N": "-0012.50"}}}' || E'\n'
                        || '{"Item": {"PK": {"S": "first"}, "SK": {"S": "1"}}, "Item": {"PK": {"S": "dup2"}, "SK": {"S": "1"}}}') AS imported;
SELECT * FROM st_scan('Imp', typed => true);
SELECT st_import('Imp', NULL);
SELECT st_import('NoSuchTable', '{"Item": {"PK": {"S": "c"}, "SK": {"S": "1"}}}');
SELECT count(*) AS items_after_the_bad_lines FROM st_scan('Imp');

-- A NUL byte in a file (a text argument cannot hold one).
SELECT '/tmp/stdesign_regress_nul_' || pg_backend_pid() || '.jsonl' AS nulpath \gset
SELECT lo_from_bytea(0, convert_to(E'{"Item": {"PK": {"S": "c"}, "SK": {"S": "1"}}}\n{"Item": {"PK": {"S": "c', 'UTF8')
                        || '\x00'::bytea || convert_to('"}, "SK": {"S": "2"}}}', 'UTF8')) AS lo \gset
SELECT lo_export(:lo, :'nulpath') = 1 AS written;
SELECT lo_unlink(:lo) = 1 AS unlinked;
SELECT st_import_file('Imp', :'nulpath');
SELECT lo_from_bytea(0, convert_to(E'{"Item": {"PK": {"S": "', 'UTF8') || '\xff'::bytea
                        || convert_to('"}, "SK": {"S": "2"}}}', 'UTF8')) AS lo \gset
SELECT lo_export(:lo, :'nulpath') = 1 AS written;
SELECT lo_unlink(:lo) = 1 AS unlinked;
SELECT st_import_file('Imp', :'nulpath');
SELECT st_import_file('Imp', '/nonexistent/file.jsonl');
SELECT st_import_file('Imp', '/tmp');
SELECT st_export_file('Imp', 'relative.jsonl');
SELECT st_import_file('Imp', NULL);

-- Server files need the roles COPY needs.
CREATE ROLE regress_studio_importer;
GRANT ALL ON ALL TABLES IN SCHEMA stdesign_data TO regress_studio_importer;
SET ROLE regress_studio_importer;
SELECT st_import_file('Imp', :'path');
SELECT st_export_file('Imp', :'path');
RESET ROLE;
GRANT pg_read_server_files TO regress_studio_importer;
SET ROLE regress_studio_importer;
SELECT st_export_file('Imp', :'path');
RESET ROLE;
DROP OWNED BY regress_studio_importer;
DROP ROLE regress_studio_importer;

-- Progress shows as a COPY's does (here: after the import, nothing running).
SELECT count(*) AS running FROM pg_stat_progress_copy;

-- NoSQL Workbench: the seeds' e-commerce model, written for this test.
\set model `cat test/data/ecommerce_workbench_model.json`
SELECT st_import_workbench(:'model');
SELECT jsonb_pretty(st_table_create_json('WorkbenchECommerce'));
SELECT * FROM st_query('CUST#123', 'ORDER#', 'WorkbenchECommerce');
SELECT * FROM st_query('STATUS#SHIPPED', "table" => 'WorkbenchECommerce', index => 'GSI1');
SELECT * FROM st_partitions('WorkbenchECommerce');
-- Exported back: the model's tables, keys, GSIs and items.
SELECT st_export_workbench(ARRAY['WorkbenchECommerce'], 'ECommerce single-table design') AS exported \gset
SELECT jsonb_pretty(:'exported'::jsonb #- '{ModelMetadata,DateCreated}' #- '{ModelMetadata,DateLastModified}' #- '{DataModel,0,TableData}');
SELECT (:'exported'::jsonb #> '{DataModel,0,TableData}') @> (:'model'::jsonb #> '{DataModel,0,TableData}')
   AND (:'model'::jsonb #> '{DataModel,0,TableData}') @> (:'exported'::jsonb #> '{DataModel,0,TableData}') AS same_items,
       jsonb_array_length(:'exported'::jsonb #> '{DataModel,0,TableData}') AS items;
-- And imported again, under another name: the same table.
SELECT st_drop_table('WorkbenchECommerce');
SELECT st_import_workbench(:'exported');
SELECT count(*) AS items FROM st_scan('WorkbenchECommerce');
SELECT jsonb_array_length(st_export_workbench() -> 'DataModel') AS tables_in_full_export;
SELECT jsonb_array_length(st_export_workbench(ARRAY['Imp'], max_items => 1) #> '{DataModel,0,TableData}') AS limited;

-- Bad models: nothing is created.
SELECT st_import_workbench('[]');
SELECT st_import_workbench('{"ModelName": "x"}');
SELECT st_import_workbench('{"DataModel": [{"TableName": "NoKeys"}]}');
SELECT st_import_workbench('{"DataModel": [{"TableName": "BadData", "KeyAttributes": {"PartitionKey": {"AttributeName": "PK", "AttributeType": "S"}}, "TableData": {}}]}');
SELECT st_import_workbench('{"DataModel": [{"TableName": "BadItem", "KeyAttributes": {"PartitionKey": {"AttributeName": "PK", "AttributeType": "S"}}, "TableData": [{"PK": {"N": "1"}}]}]}');
SELECT st_import_workbench('{"DataModel": [{"TableName": "BadType", "KeyAttributes": {"PartitionKey": {"AttributeName": "PK", "AttributeType": "X"}}}]}');
SELECT st_import_workbench('{"DataModel": [{"TableName": "Imp", "KeyAttributes": {"PartitionKey": {"AttributeName": "PK", "AttributeType": "S"}}}]}');
SELECT st_import_workbench(NULL);
SELECT st_list_tables();

-- Later files list every table: leave none behind.
SELECT count(st_drop_table(t)) AS dropped FROM unnest(ARRAY['Imp', 'WorkbenchECommerce']) AS t;
SELECT count(*) AS left_behind FROM st_list_tables();
