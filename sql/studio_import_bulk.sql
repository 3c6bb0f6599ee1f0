-- The bulk path of the export format's import: into a table that is empty
-- when the import begins, new keys are inserted as COPY inserts rows, their
-- index entries sorted and written at the end (a table with a GSI), or
-- with each chunk (a table with an LSI, whose item collections are checked
-- per chunk); a key written again (here 1,500 lines later, in another
-- chunk) replaces the earlier item; a bad line anywhere writes nothing;
-- user triggers and row security send the writes through statements.

SELECT st_create_table('{
  "TableName": "BulkGsi",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "N"},
                           {"AttributeName": "G", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [{"IndexName": "ByG", "KeySchema": [{"AttributeName": "G", "KeyType": "HASH"},
                                                                {"AttributeName": "SK", "KeyType": "RANGE"}],
                              "Projection": {"ProjectionType": "ALL"}}],
  "BillingMode": "PAY_PER_REQUEST"}'::jsonb) IS NOT NULL AS created;
SELECT st_create_table('{
  "TableName": "BulkLsi",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "N"},
                           {"AttributeName": "G", "AttributeType": "S"}, {"AttributeName": "L", "AttributeType": "N"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [{"IndexName": "ByG", "KeySchema": [{"AttributeName": "G", "KeyType": "HASH"}],
                              "Projection": {"ProjectionType": "KEYS_ONLY"}}],
  "LocalSecondaryIndexes": [{"IndexName": "ByL", "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"},
                                                               {"AttributeName": "L", "KeyType": "RANGE"}],
                             "Projection": {"ProjectionType": "ALL"}}],
  "BillingMode": "PAY_PER_REQUEST"}'::jsonb) IS NOT NULL AS created;

-- 3,000 lines in no key order: 2,999 keys, line 2,001 repeating line 501's
-- key (SK 1531) with other attributes (with L: it joins the LSI); every
-- third item in the GSI, every other one in the LSI.
CREATE TEMP TABLE lines AS
SELECT i, jsonb_build_object('Item',
         jsonb_build_object('PK', jsonb_build_object('S', 'P#' || (k * 7919 % 97)),
                            'SK', jsonb_build_object('N', k::text),
                            'v', jsonb_build_object('S', 'line ' || i))
         || CASE WHEN i % 3 = 0 THEN jsonb_build_object('G', jsonb_build_object('S', 'g' || (k % 5))) ELSE '{}' END
         || CASE WHEN i % 2 = 0 OR i = 2001 THEN jsonb_build_object('L', jsonb_build_object('N', (k % 11)::text)) ELSE '{}' END)::text AS line
  FROM generate_series(1, 3000) AS i, LATERAL (SELECT CASE WHEN i = 2001 THEN 501 * 1237 % 3001 ELSE (i * 1237) % 3001 END AS k) AS kk;
SELECT count(DISTINCT line::jsonb #> '{Item,SK}') AS distinct_keys FROM lines;
SELECT st_import('BulkGsi', string_agg(line, E'\n' ORDER BY i)) AS imported FROM lines;
SELECT st_import('BulkLsi', string_agg(line, E'\n' ORDER BY i)) AS imported FROM lines;

-- Every item once, the later line winning; the indexes hold exactly the
-- items with their keys (the replaced item's entries replaced).
SELECT (SELECT count(*) FROM st_scan('BulkGsi')) AS gsi_table_items,
       (SELECT count(*) FROM st_scan('BulkGsi', 'ByG')) AS in_gsi,
       (SELECT count(*) FROM st_scan('BulkLsi')) AS lsi_table_items,
       (SELECT count(*) FROM st_scan('BulkLsi', 'ByG')) AS in_lsi_tables_gsi,
       (SELECT count(*) FROM st_scan('BulkLsi', 'ByL')) AS in_lsi;
SELECT count(*) FILTER (WHERE line::jsonb #> '{Item,G}' IS NOT NULL) AS expected_in_gsi,
       count(*) FILTER (WHERE line::jsonb #> '{Item,L}' IS NOT NULL) AS expected_in_lsi
  FROM lines WHERE i <> 501;
SELECT st_get('P#' || (1531 * 7919 % 97), '1531', 'BulkGsi');
SELECT st_get('P#' || (1531 * 7919 % 97), '1531', 'BulkLsi');
SELECT count(*) AS in_gsi_g0, min((item ->> 'SK')::numeric) AS lowest FROM st_query('g0', "table" => 'BulkGsi', index => 'ByG') AS item;
SELECT count(*) AS in_lsi_of_p0 FROM st_query('P#0', "table" => 'BulkLsi', index => 'ByL');
-- What was imported exports as the lines read (but the replaced one).
SELECT count(*) AS differing_lines
  FROM ((SELECT line::jsonb FROM lines WHERE i <> 501 EXCEPT ALL SELECT line::jsonb FROM st_export('BulkGsi') AS line)
        UNION ALL
        (SELECT line::jsonb FROM st_export('BulkGsi') AS line EXCEPT ALL SELECT line::jsonb FROM lines WHERE i <> 501)) AS d;
-- The table has items now: a second import replaces them, looking first.
SELECT st_import('BulkGsi', '{"Item": {"PK": {"S": "P#0"}, "SK": {"N": "0"}, "v": {"S": "again"}, "G": {"S": "g9"}}}') AS imported;
SELECT * FROM st_query('g9', "table" => 'BulkGsi', index => 'ByG');
SELECT count(*) AS items FROM st_scan('BulkGsi');

-- A bad line after 2,500 good ones (two chunks already written, their
-- index entries still pending): the error names it, nothing is written.
SELECT st_table_create_json('BulkGsi') AS gsi_def \gset
SELECT st_drop_table('BulkGsi');
SELECT st_create_table(:'gsi_def') IS NOT NULL AS created;
SELECT st_import('BulkGsi', string_agg(line, E'\n' ORDER BY i) || E'\n{"Item": {"PK": {"S": "x"}, "SK": {"S": "not a number"}}}')
  FROM lines WHERE i <= 2500;
SELECT count(*) AS items_after_the_bad_line FROM st_scan('BulkGsi');
-- A key the load writes twice in one chunk: the last line wins there too.
SELECT st_import('BulkGsi', E'{"Item": {"PK": {"S": "d"}, "SK": {"N": "1"}, "v": {"S": "first"}, "G": {"S": "g"}}}\n'
                            '{"Item": {"PK": {"S": "d"}, "SK": {"N": "1"}, "v": {"S": "second"}}}') AS imported;
SELECT * FROM st_scan('BulkGsi');
SELECT count(*) AS in_gsi FROM st_scan('BulkGsi', 'ByG');

-- A user trigger on the data table fires for every imported item (the
-- import writes through statements then), and a row security policy holds.
CREATE TABLE bulk_audit (pk text, sk numeric);
CREATE FUNCTION bulk_audit_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO bulk_audit VALUES (NEW.pk, NEW.sk);
  RETURN NEW;
END $$;
SELECT st_drop_table('BulkLsi') IS NOT NULL AS dropped;
SELECT st_create_table(jsonb_set(:'gsi_def', '{TableName}', '"BulkLsi"')) IS NOT NULL AS created;
CREATE TRIGGER audit AFTER INSERT ON stdesign_data."BulkLsi" FOR EACH ROW EXECUTE FUNCTION bulk_audit_row();
SELECT st_import('BulkLsi', string_agg(line, E'\n' ORDER BY i)) AS imported FROM lines WHERE i <= 1200;
SELECT count(*) AS audited, count(DISTINCT (pk, sk)) AS distinct_audited FROM bulk_audit;
SELECT count(*) AS items FROM st_scan('BulkLsi');
DROP TRIGGER audit ON stdesign_data."BulkLsi";

SELECT st_drop_table('BulkLsi') IS NOT NULL AS dropped;
SELECT st_create_table(jsonb_set(:'gsi_def', '{TableName}', '"BulkLsi"')) IS NOT NULL AS created;
ALTER TABLE stdesign_data."BulkLsi" ENABLE ROW LEVEL SECURITY;
CREATE POLICY not_p1 ON stdesign_data."BulkLsi" USING (true) WITH CHECK (pk <> 'P#1');
CREATE ROLE regress_bulk_importer;
GRANT USAGE ON SCHEMA stdesign, stdesign_data TO regress_bulk_importer;
GRANT SELECT ON ALL TABLES IN SCHEMA stdesign TO regress_bulk_importer;
GRANT ALL ON ALL TABLES IN SCHEMA stdesign_data TO regress_bulk_importer;
GRANT SELECT ON lines TO regress_bulk_importer;
SET ROLE regress_bulk_importer;
SELECT st_import('BulkLsi', string_agg(line, E'\n' ORDER BY i)) AS imported FROM lines WHERE i <= 1200;
SELECT count(*) AS items_under_the_policy FROM st_scan('BulkLsi');
SELECT st_import('BulkLsi', string_agg(line, E'\n' ORDER BY i)) AS imported
  FROM lines WHERE i <= 1200 AND line::jsonb #>> '{Item,PK,S}' <> 'P#1';
SELECT count(*) AS items FROM st_scan('BulkLsi');
RESET ROLE;
DROP OWNED BY regress_bulk_importer;
DROP ROLE regress_bulk_importer;

-- Later files list every table: leave none behind.
SELECT count(st_drop_table(t)) AS dropped FROM unnest(ARRAY['BulkGsi', 'BulkLsi']) AS t;
DROP TABLE bulk_audit;
DROP FUNCTION bulk_audit_row();
