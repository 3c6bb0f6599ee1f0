-- The design studio's own operations (StDesign_Studio.<Op>, api_studio.c):
-- what the live page (/studio) calls beside DynamoDB's operations.  Each
-- runs the studio's SQL function as the caller, with its privileges and
-- its errors; bad JSON types and bounds are refused before it runs.
SELECT st_create_table('{"TableName": "Studio", "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"}],
  "BillingMode": "PAY_PER_REQUEST"}') ->> 'TableStatus' AS status;
SELECT st_api('StDesign_Studio.SetModel', '{"TableName": "Studio", "Model": {
  "entities": {"User": {"keys": {"PK": "USER#{id}", "SK": "PROFILE"}, "attributes": {"id": "S", "name": "S"}}},
  "patterns": {"get_user": {"op": "GetItem", "pk": "USER#{id}", "sk": "PROFILE", "rate": 10},
               "new_user": {"op": "PutItem", "entity": "User", "rate": 1}}}}') -> 'Model' -> 'entities' ? 'User' AS set;
SELECT st_api('StDesign_Studio.GetModel', '{"TableName": "Studio"}') #> '{Model,patterns,get_user,op}' AS op;
-- the table's definition without a pass over its items (counts 0)
SELECT r #> '{Table,KeySchema}' AS keys, r #> '{Table,ItemCount}' AS item_count
  FROM st_api('StDesign_Studio.DescribeTableDefinition', '{"TableName": "Studio"}') AS r;
-- a PutItem pattern writes its entity; a GetItem pattern reads it (typed)
SELECT st_api('StDesign_Studio.RunPattern', '{"TableName": "Studio", "Pattern": "new_user",
  "Parameters": {"id": {"S": "1"}, "name": {"S": "<b>Ann</b>"}}}');
SELECT st_api('StDesign_Studio.RunPattern', '{"TableName": "Studio", "Pattern": "get_user", "Parameters": {"id": {"S": "1"}}}');
SELECT c ->> 'name' AS name, c ->> 'kind' AS kind, c -> 'ok' AS ok
  FROM jsonb_array_elements(st_api('StDesign_Studio.CheckModel', '{"TableName": "Studio"}') -> 'Checks') AS c ORDER BY 2, 1;
SELECT c ->> 'pattern' AS pattern, c -> 'read_units' AS rcu, c -> 'write_units' AS wcu
  FROM jsonb_array_elements(st_api('StDesign_Studio.ModelCost', '{"TableName": "Studio", "Rates": {"get_user": 1}}') -> 'Costs') AS c ORDER BY 1;
SELECT jsonb_array_length(r -> 'Partitions') AS partitions, r #> '{Skew,0,items}' AS items
  FROM st_api('StDesign_Studio.Partitions', '{"TableName": "Studio", "Limit": 5, "SampleItems": 100}') AS r;
-- the model removed, and set again
SELECT st_api('StDesign_Studio.SetModel', '{"TableName": "Studio", "Model": null}');
SELECT st_api('StDesign_Studio.GetModel', '{"TableName": "Studio"}');

\set VERBOSITY terse
-- bad input: DynamoDB-style errors, nothing run
SELECT st_api('StDesign_Studio.GetModel', '{}');
SELECT st_api('StDesign_Studio.GetModel', '{"TableName": 7}');
SELECT st_api('StDesign_Studio.GetModel', '{"TableName": "NoSuchTable"}');
SELECT st_api('StDesign_Studio.SetModel', '{"TableName": "Studio", "Model": "text"}');
SELECT st_api('StDesign_Studio.SetModel', '{"TableName": "Studio", "Model": {"entities": {"E": {"keys": {"PK": "{a}{b}", "SK": "x"}}}}}');
SELECT st_api('StDesign_Studio.RunPattern', '{"TableName": "Studio"}');
SELECT st_api('StDesign_Studio.RunPattern', '{"TableName": "Studio", "Pattern": ["x"]}');
SELECT st_api('StDesign_Studio.RunPattern', '{"TableName": "Studio", "Pattern": "nope", "Parameters": []}');
SELECT st_api('StDesign_Studio.ModelCost', '{"TableName": "Studio", "Rates": 5}');
SELECT st_api('StDesign_Studio.ModelCost', '{"TableName": "Studio", "Prices": {"x": 1}}');
SELECT st_api('StDesign_Studio.Partitions', '{"TableName": "Studio", "Limit": 0}');
SELECT st_api('StDesign_Studio.Partitions', '{"TableName": "Studio", "SampleItems": 2.5}');
SELECT st_api('StDesign_Studio.HotPartitions', '{"TableName": "Studio", "Top": 100000}');
SELECT st_api('StDesign_Studio.HotPartitions', '{"TableName": "Studio", "Top": "10"}');
SELECT st_api('StDesign_Studio.GetModel', jsonb_build_object('TableName', repeat('x', 300)));
SELECT st_api('StDesign_Studio.Nope', '{}');
SELECT st_api('StDesign_Studio.', '{}');

-- a role without privileges on the table: refused as the SQL functions refuse it
SELECT st_api('StDesign_Studio.SetModel', '{"TableName": "Studio", "Model": {
  "entities": {"User": {"keys": {"PK": "USER#{id}", "SK": "PROFILE"}}},
  "patterns": {"get_user": {"op": "GetItem", "pk": "USER#{id}", "sk": "PROFILE"}}}}') IS NOT NULL AS set_again;
CREATE ROLE regress_studio_none;
GRANT USAGE ON SCHEMA stdesign TO regress_studio_none;
GRANT SELECT ON stdesign.tables, stdesign.indexes TO regress_studio_none;
SET ROLE regress_studio_none;
SELECT st_api('StDesign_Studio.GetModel', '{"TableName": "Studio"}');
SELECT st_api('StDesign_Studio.DescribeTableDefinition', '{"TableName": "Studio"}');
SELECT st_api('StDesign_Studio.RunPattern', '{"TableName": "Studio", "Pattern": "get_user", "Parameters": {"id": {"S": "1"}}}');
SELECT st_api('StDesign_Studio.CheckModel', '{"TableName": "Studio"}');
SELECT st_api('StDesign_Studio.Partitions', '{"TableName": "Studio"}');
SELECT st_api('StDesign_Studio.SetModel', '{"TableName": "Studio", "Model": null}');
RESET ROLE;
-- a function of the caller's own named like the studio's is never called
CREATE SCHEMA regress_studio_evil;
CREATE FUNCTION regress_studio_evil.st_get_model(text) RETURNS jsonb LANGUAGE sql AS $$ SELECT '"hijacked"'::jsonb $$;
SET search_path = regress_studio_evil, public;
SELECT st_api('StDesign_Studio.GetModel', '{"TableName": "Studio"}') #>> '{Model,patterns,get_user,op}' AS op;
RESET search_path;
\set VERBOSITY default
SELECT st_get_model('Studio') IS NOT NULL AS model_kept;
DROP SCHEMA regress_studio_evil CASCADE;
REVOKE ALL ON stdesign.tables, stdesign.indexes FROM regress_studio_none;
REVOKE ALL ON SCHEMA stdesign FROM regress_studio_none;
DROP ROLE regress_studio_none;
SELECT st_drop_table('Studio');
