-- Table and index names: every valid DynamoDB name creates, whatever other
-- tables and indexes exist, and only a table of the same name is a
-- conflict (ResourceInUseException).  Relations and indexes share one
-- namespace in stdesign_data: a table's relation is its name, its key index
-- "<table>:key", a secondary index "<table>/<index>" (characters no
-- DynamoDB name holds), and a name longer than 63 bytes is cut and given
-- 128 bits of the SHA-256 of the whole.

-- A table, and a table named like the first one's key index would be named
-- by Postgres' habit.
SELECT st_create_table('abc') ->> 'TableName' AS created;
SELECT st_create_table('abc_key') ->> 'TableName' AS created;
SELECT st_put('{"PK": "1", "SK": "a"}', 'abc') IS NULL AS put,
       st_put('{"PK": "1", "SK": "b"}', 'abc_key') IS NULL AS put;
SELECT st_get('1', 'a', 'abc') AS abc, st_get('1', 'b', 'abc_key') AS abc_key;

-- A table with a GSI, and a table named as table and index joined by a dot.
SELECT st_create_table('Orders') ->> 'TableName' AS created;
SELECT st_create_gsi('Orders', 'by_status', 'status') #>> '{GlobalSecondaryIndexes,0,IndexName}' AS gsi;
SELECT st_create_table('Orders.by_status') ->> 'TableName' AS created;
SELECT st_api('CreateTable', '{"TableName": "Orders.by_status.x", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
  "GlobalSecondaryIndexes": [{"IndexName": "abc", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
    "Projection": {"ProjectionType": "ALL"}}]}') #>> '{TableDescription,TableName}' AS created;
SELECT st_put('{"PK": "o1", "SK": "x", "status": "open"}', 'Orders') IS NULL AS put;
SELECT item ->> 'PK' AS pk FROM st_query('open', "table" => 'Orders', index => 'by_status') AS item;

-- The relations and indexes these made.
SELECT c.relname, c.relkind
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = 'stdesign_data' AND c.relkind IN ('r', 'i')
 ORDER BY c.relname COLLATE "C";
SELECT table_name, relation_name, key_index FROM stdesign.tables ORDER BY table_name COLLATE "C";
SELECT table_name, index_name, pg_index FROM stdesign.indexes ORDER BY 1, 2;

-- A real conflict is a table of the same name.
\set VERBOSITY terse
SELECT st_create_table('abc');
SELECT st_create_table('Orders.by_status');
\set VERBOSITY default

-- 150 names of 62 characters that share their first 54.
SELECT count(st_create_table(repeat('n', 54) || lpad(i::text, 8, '0'))) AS created
  FROM generate_series(1, 150) AS i;
SELECT count(*) AS tables, count(DISTINCT relation_name) AS relations, count(DISTINCT key_index) AS key_indexes,
       max(octet_length(relation_name)) AS longest_relation, max(octet_length(key_index)) AS longest_key_index
  FROM stdesign.tables WHERE table_name LIKE 'nnnn%';
SELECT count(*) AS relations_with_their_key_index
  FROM stdesign.tables t
  JOIN pg_index i ON i.indrelid = ('stdesign_data.' || quote_ident(t.relation_name))::regclass
                 AND i.indexrelid = ('stdesign_data.' || quote_ident(t.key_index))::regclass
 WHERE t.table_name LIKE 'nnnn%';
-- Each one works on its own.
SELECT count(st_put(jsonb_build_object('PK', table_name, 'SK', 's'), table_name) IS NULL) AS put FROM stdesign.tables
 WHERE table_name LIKE 'nnnn%';
SELECT count(*) AS own_items FROM stdesign.tables WHERE table_name LIKE 'nnnn%'
   AND st_get(table_name, 's', table_name) ->> 'PK' = table_name;
-- Which names: readable when they fit, else cut and hashed.
SELECT relation_name, key_index FROM stdesign.tables WHERE table_name = repeat('n', 54) || '00000001';
SELECT count(st_drop_table(table_name)) FROM stdesign.tables WHERE table_name LIKE 'nnnn%';

-- Longest names: a 255-character table with a 255-character GSI.
SELECT st_create_table(repeat('T', 255)) ->> 'TableName' = repeat('T', 255) AS created;
SELECT st_create_gsi(repeat('T', 255), repeat('I', 255), 'g') #>> '{GlobalSecondaryIndexes,0,IndexName}' = repeat('I', 255) AS gsi;
SELECT relation_name, key_index FROM stdesign.tables WHERE table_name = repeat('T', 255);
SELECT pg_index FROM stdesign.indexes WHERE table_name = repeat('T', 255);
SELECT st_drop_table(repeat('T', 255));

-- A relation that already holds a table's readable name (one left by an
-- older version, or restored without its catalog rows): the table takes the
-- hashed name instead.
CREATE TABLE stdesign_data."Taken" (x int);
CREATE TABLE stdesign_data."Taken:key" (x int);
SELECT st_create_table('Taken') ->> 'TableName' AS created;
SELECT relation_name, key_index FROM stdesign.tables WHERE table_name = 'Taken';
SELECT st_put('{"PK": "t", "SK": "1"}', 'Taken') IS NULL AS put;
SELECT st_get('t', '1', 'Taken') AS item;
SELECT st_drop_table('Taken');
DROP TABLE stdesign_data."Taken", stdesign_data."Taken:key";

SELECT st_drop_table(t) FROM unnest(ARRAY['abc', 'abc_key', 'Orders', 'Orders.by_status', 'Orders.by_status.x']) AS t;
SELECT count(*) AS left_over FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = 'stdesign_data';
