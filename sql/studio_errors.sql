-- Design studio: every way a model, an entity, a pattern call or an
-- argument can be wrong, with DynamoDB-style errors (ValidationException)
-- and never a crash.
SELECT st_create_table('ErrTable') ->> 'TableName' AS created;
SELECT st_create_gsi('ErrTable', 'GSI1', 'GSI1PK', 'GSI1SK') IS NOT NULL AS gsi;
SELECT st_create_table('HashOnly', 'id', NULL) ->> 'TableName' AS created;
SELECT st_create_table('NumTable', 'PK', 'SK', 'S', 'N') ->> 'TableName' AS created;
\set VERBOSITY terse

-- arguments
SELECT st_set_model(NULL, '{}');
SELECT st_set_model('NoSuchTable', '{"entities": {}}');
SELECT st_get_model('NoSuchTable');
SELECT st_get_model(NULL);
-- the document's shape
SELECT st_set_model('ErrTable', '[]');
SELECT st_set_model('ErrTable', '"text"');
SELECT st_set_model('ErrTable', '{}');
SELECT st_set_model('ErrTable', '{"entities": {}}');
SELECT st_set_model('ErrTable', '{"entities": []}');
SELECT st_set_model('ErrTable', '{"entities": {"A": {"keys": {"PK": "A", "SK": "A"}}}, "extra": 1}');
SELECT st_set_model('ErrTable', '{"entities": {"A": "not an object"}}');
SELECT st_set_model('ErrTable', '{"entities": {"A": {"keys": {"PK": "A", "SK": "A"}, "colour": "red"}}}');
SELECT st_set_model('ErrTable', '{"entities": {"A": {}}}');
SELECT st_set_model('ErrTable', '{"entities": {"A": {"keys": []}}}');
SELECT st_set_model('ErrTable', '{"entities": {"": {"keys": {"PK": "A", "SK": "A"}}}}');
SELECT st_set_model('ErrTable', jsonb_build_object('entities', jsonb_build_object(repeat('e', 256), '{"keys": {"PK": "A", "SK": "A"}}'::jsonb)));
SELECT st_set_model('ErrTable', '{"type_attribute": 5, "entities": {"A": {"keys": {"PK": "A", "SK": "A"}}}}');
-- key templates
SELECT st_set_model('ErrTable', '{"entities": {"A": {"keys": {"PK": "A#{id"}}}}');
SELECT st_set_model('ErrTable', '{"entities": {"A": {"keys": {"PK": "A#id}"}}}}');
SELECT st_set_model('ErrTable', '{"entities": {"A": {"keys": {"PK": "A#{}", "SK": "A"}}}}');
SELECT st_set_model('ErrTable', '{"entities": {"A": {"keys": {"PK": "A#{a{b}}", "SK": "A"}}}}');
SELECT st_set_model('ErrTable', '{"entities": {"A": {"keys": {"PK": "A#{a}{b}", "SK": "A"}}}}');
SELECT st_set_model('ErrTable', '{"entities": {"A": {"keys": {"PK": "", "SK": "A"}}}}');
SELECT st_set_model('ErrTable', '{"entities": {"A": {"keys": {"PK": 5, "SK": "A"}}}}');
SELECT st_set_model('ErrTable', jsonb_build_object('entities', jsonb_build_object('A', jsonb_build_object('keys',
         jsonb_build_object('PK', repeat('x', 3000), 'SK', 'A')))));
SELECT st_set_model('ErrTable', jsonb_build_object('entities', jsonb_build_object('A', jsonb_build_object('keys',
         jsonb_build_object('PK', (SELECT string_agg('{p' || i || '}', '#') FROM generate_series(1, 33) AS i), 'SK', 'A')))));
SELECT st_set_model('ErrTable', jsonb_build_object('entities', jsonb_build_object('A', jsonb_build_object('keys',
         jsonb_build_object('PK', '{' || repeat('p', 300) || '}', 'SK', 'A')))));
-- unknown placeholders, key attributes and indexes
SELECT st_set_model('ErrTable', '{"entities": {"A": {"keys": {"PK": "A#{id}", "SK": "A"}, "attributes": {"name": "S"}}}}');
SELECT st_set_model('ErrTable', '{"entities": {"A": {"keys": {"PK": "A#{SK}", "SK": "A"}}}}');
SELECT st_set_model('ErrTable', '{"entities": {"A": {"keys": {"PK": "A", "SK": "A", "GSI9PK": "X"}}}}');
SELECT st_set_model('ErrTable', '{"entities": {"A": {"keys": {"PK": "A"}}}}');
SELECT st_set_model('ErrTable', '{"entities": {"A": {"keys": {"SK": "A"}}}}');
SELECT st_set_model('ErrTable', '{"entities": {"A": {"keys": {"PK": "A", "SK": "A", "GSI1PK": "G"}}}}');
SELECT st_set_model('ErrTable', '{"entities": {"A": {"keys": {"PK": "A", "SK": "A"}, "attributes": {"x": "STRING"}}}}');
SELECT st_set_model('ErrTable', '{"entities": {"A": {"keys": {"PK": "A", "SK": "A"}, "attributes": {"x": 1}}}}');
SELECT st_set_model('ErrTable', '{"entities": {"A": {"keys": {"PK": "A", "SK": "A"}, "attributes": {"x": "S"}, "required": ["y"]}}}');
SELECT st_set_model('ErrTable', '{"entities": {"A": {"keys": {"PK": "A", "SK": "A"}, "required": "x"}}}');
SELECT st_set_model('NumTable', '{"entities": {"A": {"keys": {"PK": "A", "SK": "N#{n}"}}}}');
-- collisions: two entities that can form the same key in one partition
SELECT st_set_model('ErrTable', '{"entities": {
  "Order": {"keys": {"PK": "CUST#{id}", "SK": "ORDER#{order_id}"}},
  "Return": {"keys": {"PK": "CUST#{id}", "SK": "ORDER#{order_id}#RETURN"}}}}');
SELECT st_set_model('ErrTable', '{"entities": {
  "A": {"keys": {"PK": "{anything}", "SK": "{x}"}},
  "B": {"keys": {"PK": "B#{id}", "SK": "B"}}}}');
SELECT st_set_model('ErrTable', '{"entities": {
  "A": {"keys": {"PK": "P", "SK": "S"}},
  "B": {"keys": {"PK": "P", "SK": "S"}}}}');
SELECT st_set_model('HashOnly', '{"entities": {
  "A": {"keys": {"id": "USER#{user}"}},
  "B": {"keys": {"id": "USER#{user}#X"}}}}');
-- a literal prefix and a literal suffix can meet: ORDER#1#META is both
SELECT st_set_model('ErrTable', '{"entities": {
  "A": {"keys": {"PK": "CUST#{id}", "SK": "ORDER#{x}"}},
  "C": {"keys": {"PK": "CUST#{id}", "SK": "{x}#META"}}}}');
-- these do not collide: different literal prefixes, or suffixes, or partitions
SELECT st_set_model('ErrTable', '{"entities": {
  "A": {"keys": {"PK": "CUST#{id}", "SK": "ORDER#{x}"}},
  "B": {"keys": {"PK": "CUST#{id}", "SK": "ITEM#{x}"}},
  "E": {"keys": {"PK": "SHOP#{id}", "SK": "{x}"}}}}') IS NOT NULL AS no_collision;
SELECT st_set_model('ErrTable', '{"entities": {
  "C": {"keys": {"PK": "CUST#{id}", "SK": "{x}#META"}},
  "D": {"keys": {"PK": "CUST#{id}", "SK": "{x}#DATA"}}}}') IS NOT NULL AS no_collision;
SELECT st_set_model('ErrTable', NULL) IS NULL AS removed;
-- patterns
SELECT st_set_model('ErrTable', '{"entities": {"A": {"keys": {"PK": "A", "SK": "A"}}}, "patterns": []}');
SELECT st_set_model('ErrTable', '{"entities": {"A": {"keys": {"PK": "A", "SK": "A"}}}, "patterns": {"p": {}}}');
SELECT st_set_model('ErrTable', '{"entities": {"A": {"keys": {"PK": "A", "SK": "A"}}}, "patterns": {"p": {"op": "DeleteItem"}}}');
SELECT st_set_model('ErrTable', '{"entities": {"A": {"keys": {"PK": "A", "SK": "A"}}}, "patterns": {"p": {"op": "Query"}}}');
SELECT st_set_model('ErrTable', '{"entities": {"A": {"keys": {"PK": "A", "SK": "A"}}}, "patterns": {"p": {"op": "Query", "index": "GSI9", "pk": "X"}}}');
SELECT st_set_model('ErrTable', '{"entities": {"A": {"keys": {"PK": "A", "SK": "A"}}}, "patterns": {"p": {"op": "GetItem", "pk": "A"}}}');
SELECT st_set_model('ErrTable', '{"entities": {"A": {"keys": {"PK": "A", "SK": "A"}}}, "patterns": {"p": {"op": "GetItem", "index": "GSI1", "pk": "A", "sk": "A"}}}');
SELECT st_set_model('ErrTable', '{"entities": {"A": {"keys": {"PK": "A", "SK": "A"}}}, "patterns": {"p": {"op": "Query", "pk": "A", "sk": {"like": "A%"}}}}');
SELECT st_set_model('ErrTable', '{"entities": {"A": {"keys": {"PK": "A", "SK": "A"}}}, "patterns": {"p": {"op": "Query", "pk": "A", "sk": {"between": ["A"]}}}}');
SELECT st_set_model('ErrTable', '{"entities": {"A": {"keys": {"PK": "A", "SK": "A"}}}, "patterns": {"p": {"op": "Query", "pk": "A", "sk": {"=": "A", "<": "B"}}}}');
SELECT st_set_model('ErrTable', '{"entities": {"A": {"keys": {"PK": "A", "SK": "A"}}}, "patterns": {"p": {"op": "Query", "pk": "A", "sk": 5}}}');
SELECT st_set_model('ErrTable', '{"entities": {"A": {"keys": {"PK": "A", "SK": "A"}}}, "patterns": {"p": {"op": "Query", "pk": "A", "index": "GSI1", "consistent": true}}}');
SELECT st_set_model('ErrTable', '{"entities": {"A": {"keys": {"PK": "A", "SK": "A"}}}, "patterns": {"p": {"op": "Query", "pk": "A", "limit": 0}}}');
SELECT st_set_model('ErrTable', '{"entities": {"A": {"keys": {"PK": "A", "SK": "A"}}}, "patterns": {"p": {"op": "Query", "pk": "A", "limit": 1.5}}}');
SELECT st_set_model('ErrTable', '{"entities": {"A": {"keys": {"PK": "A", "SK": "A"}}}, "patterns": {"p": {"op": "Query", "pk": "A", "rate": -1}}}');
SELECT st_set_model('ErrTable', '{"entities": {"A": {"keys": {"PK": "A", "SK": "A"}}}, "patterns": {"p": {"op": "Query", "pk": "A", "rate": "fast"}}}');
SELECT st_set_model('ErrTable', '{"entities": {"A": {"keys": {"PK": "A", "SK": "A"}}}, "patterns": {"p": {"op": "PutItem"}}}');
SELECT st_set_model('ErrTable', '{"entities": {"A": {"keys": {"PK": "A", "SK": "A"}}}, "patterns": {"p": {"op": "PutItem", "entity": "B"}}}');
SELECT st_set_model('ErrTable', '{"entities": {"A": {"keys": {"PK": "A", "SK": "A"}}}, "patterns": {"p": {"op": "Query", "pk": "A", "returns": ["B"]}}}');
SELECT st_set_model('ErrTable', '{"entities": {"A": {"keys": {"PK": "A", "SK": "A"}}}, "patterns": {"p": {"op": "Scan", "pk": "A"}}}');
SELECT st_set_model('ErrTable', '{"entities": {"A": {"keys": {"PK": "A", "SK": "A"}}}, "patterns": {"p": {"op": "GetItem", "pk": "A", "sk": "A", "filter": "x = :x"}}}');
SELECT st_set_model('ErrTable', '{"entities": {"A": {"keys": {"PK": "A", "SK": "A"}}}, "patterns": {"p": {"op": "Query", "pk": "A", "names": {"#a": 1}}}}');
SELECT st_set_model('HashOnly', '{"entities": {"A": {"keys": {"id": "A#{x}"}}}, "patterns": {"p": {"op": "Query", "pk": "A#{x}", "sk": {"begins_with": "B"}}}}');
SELECT st_set_model('NumTable', '{"entities": {"A": {"keys": {"PK": "A", "SK": "{n}"}}}, "patterns": {"p": {"op": "Query", "pk": "A", "sk": {"begins_with": "{n}"}}}}');
-- NUL cannot reach a model: jsonb refuses it first
SELECT st_set_model('ErrTable', '{"entities": {"A\u0000": {"keys": {"PK": "A", "SK": "A"}}}}');
-- nothing was stored by any of these
SELECT count(*) AS models FROM stdesign.models WHERE table_name IN ('ErrTable', 'HashOnly', 'NumTable');

-- a valid model, then wrong calls
SELECT st_set_model('ErrTable', '{"entities": {
  "User": {"keys": {"PK": "USER#{id}", "SK": "USER#{id}"}, "attributes": {"id": "S", "age": "N", "tags": "SS", "any": "any"},
           "required": ["id"]}},
  "patterns": {"user": {"op": "GetItem", "pk": "USER#{id}", "sk": "USER#{id}"},
               "by_age": {"op": "Query", "pk": "USER#{id}", "filter": "age > :a", "values": {":a": "{age}"}},
               "new_user": {"op": "PutItem", "entity": "User"}}}') IS NOT NULL AS stored;
SELECT st_put_entity(NULL, '{}', 'ErrTable');
SELECT st_put_entity('User', NULL, 'ErrTable');
SELECT st_put_entity('Nobody', '{"id": "1"}', 'ErrTable');
SELECT st_put_entity('User', '[1]', 'ErrTable');
SELECT st_put_entity('User', '{"age": 5}', 'ErrTable');
SELECT st_put_entity('User', '{"id": 5}', 'ErrTable');
SELECT st_put_entity('User', '{"id": "1", "age": "old"}', 'ErrTable');
SELECT st_put_entity('User', '{"id": "1", "tags": ["a", "b"]}', 'ErrTable');
SELECT st_put_entity('User', '{"id": "1", "PK": "X"}', 'ErrTable');
SELECT st_put_entity('User', '{"id": "1", "entity_type": "Admin"}', 'ErrTable');
SELECT st_put_entity('User', '{"id": {"a": 1}}', 'ErrTable');
-- an empty value still forms a key ("USER#"), as DynamoDB takes it
SELECT st_put_entity('User', '{"id": ""}', 'ErrTable') ->> 'PK' AS pk;
SELECT st_put_entity('User', jsonb_build_object('id', repeat('x', 3000)), 'ErrTable');
SELECT st_put_entity('User', '{"id": "1", "any": {"x": [1, 2]}, "other": true}', 'ErrTable') ->> 'PK' AS ok_pk;
SELECT st_put_entity('User', '{"id": {"S": "1"}, "tags": {"SS": ["a", "b"]}, "age": {"N": "7"}}', 'ErrTable', typed => true) -> 'tags' AS typed_set;
SELECT st_put_entity('User', '{"id": {"S": "1"}, "tags": {"L": [{"S": "a"}]}}', 'ErrTable', typed => true);
SELECT * FROM st_run_pattern(NULL, '{}', 'ErrTable');
SELECT * FROM st_run_pattern('nobody', '{}', 'ErrTable');
SELECT * FROM st_run_pattern('user', '{}', 'ErrTable');
SELECT * FROM st_run_pattern('user', '[]', 'ErrTable');
SELECT * FROM st_run_pattern('user', '{"id": true}', 'ErrTable');
SELECT * FROM st_run_pattern('by_age', '{"id": "1"}', 'ErrTable');
SELECT count(*) FROM st_run_pattern('by_age', '{"id": "1", "age": 3}', 'ErrTable');
SELECT count(*) FROM st_run_pattern('user', NULL, 'ErrTable');
SELECT * FROM st_run_pattern('user', '{"id": "1"}', 'HashOnly');
SELECT st_entity_of('{"PK": 1}', 'HashOnly');
SELECT st_entity_of('[1]', 'ErrTable');
SELECT * FROM st_check_model('HashOnly');
SELECT * FROM st_check_model(NULL);
SELECT * FROM st_model_cost('ErrTable', '{"nobody": 1}');
SELECT * FROM st_model_cost('ErrTable', '{"user": -1}');
SELECT * FROM st_model_cost('ErrTable', '{"user": "x"}');
SELECT * FROM st_model_cost('ErrTable', prices => 'mars-1');
SELECT * FROM st_model_cost('ErrTable', prices => NULL);
-- a Scan whose filter needs a parameter no stored item holds is still measured (without its filter)
SELECT st_set_model('ErrTable', '{"entities": {"A": {"keys": {"PK": "A#{id}", "SK": "A"}}},
  "patterns": {"s": {"op": "Scan", "filter": "#c = :c", "names": {"#c": "colour"}, "values": {":c": "{colour}"},
                     "projection": "#c"}}}') IS NOT NULL AS stored;
SELECT name, read_per_call, returned_per_call, ok, findings FROM st_check_model('ErrTable') WHERE kind = 'pattern';
-- the model follows the table's indexes: one it names is dropped
SELECT st_set_model('ErrTable', '{"entities": {"A": {"keys": {"PK": "A", "SK": "A", "GSI1PK": "G", "GSI1SK": "G"}}},
  "patterns": {"g": {"op": "Query", "index": "GSI1", "pk": "G"}}}') IS NOT NULL AS stored;
SELECT st_drop_gsi('ErrTable', 'GSI1');
SELECT * FROM st_run_pattern('g', '{}', 'ErrTable');

-- filters and projections are checked when the model is set, as a call
-- would check them: syntax, #names and :values, key attributes in a
-- Query's filter, and what a KEYS_ONLY or INCLUDE GSI projects
SELECT st_create_table('ExprTable') ->> 'TableName' AS created;
SELECT st_create_gsi('ExprTable', 'Keys', 'GSI1PK', projection => 'KEYS_ONLY') IS NOT NULL AS gsi;
SELECT st_create_gsi('ExprTable', 'Incl', 'GSI2PK', projection => 'INCLUDE', non_key_attributes => '{title}') IS NOT NULL AS gsi;
SELECT st_create_gsi('ExprTable', 'Whole', 'GSI3PK') IS NOT NULL AS gsi;
SELECT st_set_model('ExprTable', '{"entities": {"A": {"keys": {"PK": "A#{id}", "SK": "A"}}},
  "patterns": {"p": {"op": "Query", "pk": "A#{id}", "filter": "#s = = :s", "names": {"#s": "status"}, "values": {":s": "x"}}}}');
SELECT st_set_model('ExprTable', '{"entities": {"A": {"keys": {"PK": "A#{id}", "SK": "A"}}},
  "patterns": {"p": {"op": "Scan", "filter": "begins_with(title)"}}}');
SELECT st_set_model('ExprTable', '{"entities": {"A": {"keys": {"PK": "A#{id}", "SK": "A"}}},
  "patterns": {"p": {"op": "Scan", "projection": "title,,body"}}}');
SELECT st_set_model('ExprTable', '{"entities": {"A": {"keys": {"PK": "A#{id}", "SK": "A"}}},
  "patterns": {"p": {"op": "GetItem", "pk": "A#{id}", "sk": "A", "projection": "title["}}}');
SELECT st_set_model('ExprTable', '{"entities": {"A": {"keys": {"PK": "A#{id}", "SK": "A"}}},
  "patterns": {"p": {"op": "Scan", "filter": "#s = :s", "values": {":s": "x"}}}}');
SELECT st_set_model('ExprTable', '{"entities": {"A": {"keys": {"PK": "A#{id}", "SK": "A"}}},
  "patterns": {"p": {"op": "Scan", "filter": "title = :s"}}}');
SELECT st_set_model('ExprTable', '{"entities": {"A": {"keys": {"PK": "A#{id}", "SK": "A"}}},
  "patterns": {"p": {"op": "Scan", "filter": "title = :s", "values": {":s": "x", ":t": "y"}}}}');
SELECT st_set_model('ExprTable', '{"entities": {"A": {"keys": {"PK": "A#{id}", "SK": "A"}}},
  "patterns": {"p": {"op": "GetItem", "pk": "A#{id}", "sk": "A", "names": {"#t": "title"}}}}');
SELECT st_set_model('ExprTable', '{"entities": {"A": {"keys": {"PK": "A#{id}", "SK": "A"}}},
  "patterns": {"p": {"op": "Query", "pk": "A#{id}", "filter": "SK = :s", "values": {":s": "A"}}}}');
SELECT st_set_model('ExprTable', '{"entities": {"A": {"keys": {"PK": "A#{id}", "SK": "A", "GSI1PK": "K#{id}"}}},
  "patterns": {"p": {"op": "Query", "index": "Keys", "pk": "K#{id}", "projection": "PK, title"}}}');
SELECT st_set_model('ExprTable', '{"entities": {"A": {"keys": {"PK": "A#{id}", "SK": "A", "GSI2PK": "I#{id}"}}},
  "patterns": {"p": {"op": "Scan", "index": "Incl", "projection": "title, #b.x", "names": {"#b": "body"}}}}');
-- nothing was stored by any of these
SELECT count(*) AS models FROM stdesign.models WHERE table_name = 'ExprTable';
-- what the indexes project, the table, or an ALL index may be asked for
SELECT st_set_model('ExprTable', '{"entities": {
    "A": {"keys": {"PK": "A#{id}", "SK": "A", "GSI1PK": "K#{id}", "GSI2PK": "I#{id}", "GSI3PK": "W#{id}"},
          "attributes": {"id": "S", "title": "S", "body": "S", "status": "S"}}},
  "patterns": {
    "keys": {"op": "Query", "index": "Keys", "pk": "K#{id}", "projection": "PK, SK, GSI1PK"},
    "incl": {"op": "Query", "index": "Incl", "pk": "I#{id}", "projection": "title, SK", "filter": "attribute_exists(title)"},
    "whole": {"op": "Query", "index": "Whole", "pk": "W#{id}", "projection": "body"},
    "table": {"op": "GetItem", "pk": "A#{id}", "sk": "A", "projection": "#b", "names": {"#b": "body"}},
    "typo": {"op": "Query", "pk": "A#{id}", "filter": "#s = :s AND colour <> :c", "names": {"#s": "staus"},
             "values": {":s": "{status}", ":c": "red"}, "projection": "title, bdy.x[1], entity_type"}}}') IS NOT NULL AS stored;
SELECT st_put_entity('A', '{"id": "1", "title": "T", "body": "B", "status": "new"}', 'ExprTable') ->> 'PK' AS pk;
SELECT i FROM st_run_pattern('keys', '{"id": "1"}', 'ExprTable') AS i;
SELECT i FROM st_run_pattern('incl', '{"id": "1"}', 'ExprTable') AS i;
-- without a projection a pattern on a KEYS_ONLY index returns the index's
-- entries (DynamoDB's ALL_PROJECTED_ATTRIBUTES, as st_api's Query); st_query,
-- the SQL convenience, returns whole items from any index (docs/differences.md)
--
SELECT st_set_model('ExprTable', jsonb_set(st_get_model('ExprTable'), '{patterns,entries}',
                                           '{"op": "Query", "index": "Keys", "pk": "K#{id}"}')) IS NOT NULL AS stored;
SELECT i FROM st_run_pattern('entries', '{"id": "1"}', 'ExprTable') AS i;
SELECT st_api('Query', '{"TableName": "ExprTable", "IndexName": "Keys", "KeyConditionExpression": "GSI1PK = :k",
                         "ExpressionAttributeValues": {":k": {"S": "K#1"}}}') -> 'Items' AS api_items;
SELECT i FROM st_query('K#1', "table" => 'ExprTable', index => 'Keys') AS i;
-- attributes no entity declares are flagged by the checks (an entity
-- without "attributes" may hold any, and is not flagged)
SELECT name, ok, findings FROM st_check_model('ExprTable') WHERE kind = 'pattern' ORDER BY name;
\set VERBOSITY default

SELECT st_drop_table('ErrTable');
SELECT st_drop_table('HashOnly');
SELECT st_drop_table('NumTable');
SELECT st_drop_table('ExprTable');
