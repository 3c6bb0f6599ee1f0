-- Null and wrong-typed JSON in requests never takes the server down: every
-- entry point that reads a request's JSON answers DynamoDB's error, as a
-- role with no privilege at all can call them.  A JSON null among PartiQL
-- Parameters used to be dereferenced (a crash-restart of every
-- connection) through ExecuteStatement, BatchExecuteStatement,
-- ExecuteTransaction and st_partiql; the cases the API fuzzer
-- (test/fuzz/api_fuzz.py) found follow them.
--
-- A crash would restart the server and go through crash recovery, which
-- empties unlogged tables: the sentinel's row must still be there at the end.
CREATE UNLOGGED TABLE json_sentinel (alive text);
INSERT INTO json_sentinel VALUES ('before');
\set VERBOSITY terse
SELECT st_create_table('JsonThings') ->> 'TableName' AS created;
SELECT st_put('{"PK": "a", "SK": "1", "n": 1}', 'JsonThings');
CREATE ROLE regress_json_nobody;
SET ROLE regress_json_nobody;

-- 1. ExecuteStatement: null and wrong types among the Parameters, at every level.
SELECT st_api('ExecuteStatement', '{"Statement": "SELECT * FROM JsonThings WHERE PK = ?", "Parameters": [null]}');
SELECT st_api('ExecuteStatement', '{"Statement": "SELECT * FROM JsonThings WHERE PK = ?", "Parameters": [{"S": "a"}, null]}');
SELECT st_api('ExecuteStatement', '{"Statement": "SELECT * FROM JsonThings WHERE PK = ?", "Parameters": [null, null, null]}');
SELECT st_api('ExecuteStatement', '{"Statement": "SELECT * FROM JsonThings WHERE PK = ?", "Parameters": [1]}');
SELECT st_api('ExecuteStatement', '{"Statement": "SELECT * FROM JsonThings WHERE PK = ?", "Parameters": ["a"]}');
SELECT st_api('ExecuteStatement', '{"Statement": "SELECT * FROM JsonThings WHERE PK = ?", "Parameters": [true]}');
SELECT st_api('ExecuteStatement', '{"Statement": "SELECT * FROM JsonThings WHERE PK = ?", "Parameters": [[]]}');
SELECT st_api('ExecuteStatement', '{"Statement": "SELECT * FROM JsonThings WHERE PK = ?", "Parameters": [{}]}');
SELECT st_api('ExecuteStatement', '{"Statement": "SELECT * FROM JsonThings WHERE PK = ?", "Parameters": [{"S": null}]}');
SELECT st_api('ExecuteStatement', '{"Statement": "SELECT * FROM JsonThings WHERE PK = ?", "Parameters": [{"L": [null]}]}');
SELECT st_api('ExecuteStatement', '{"Statement": "SELECT * FROM JsonThings WHERE PK = ?", "Parameters": [{"M": {"a": null}}]}');
SELECT st_api('ExecuteStatement', '{"Statement": "SELECT * FROM JsonThings WHERE PK = ?", "Parameters": [{"SS": [null]}]}');
SELECT st_api('ExecuteStatement', '{"Statement": "SELECT * FROM JsonThings WHERE PK = ?", "Parameters": [{"L": [{"M": {"b": {"L": [null]}}}]}]}');
SELECT st_api('ExecuteStatement', '{"Statement": "SELECT * FROM JsonThings WHERE PK = ?", "Parameters": null}');
SELECT st_api('ExecuteStatement', '{"Statement": "SELECT * FROM JsonThings WHERE PK = ?", "Parameters": {}}');
SELECT st_api('ExecuteStatement', '{"Statement": "SELECT * FROM JsonThings WHERE PK = ?", "Parameters": "a"}');
SELECT st_api('ExecuteStatement', '{"Statement": null, "Parameters": [null]}');
SELECT st_api('ExecuteStatement', '{"Statement": 1}');
SELECT st_api('ExecuteStatement', '{"Statement": ["SELECT"]}');
SELECT st_api('ExecuteStatement', 'null');
SELECT st_api('ExecuteStatement', '[null]');

-- 2. BatchExecuteStatement: in a statement's Parameters, and the statements themselves.
SELECT st_api('BatchExecuteStatement', '{"Statements": [{"Statement": "SELECT * FROM JsonThings WHERE PK = ? AND SK = ?", "Parameters": [null, null]}]}');
SELECT st_api('BatchExecuteStatement', '{"Statements": [{"Statement": "SELECT * FROM JsonThings WHERE PK = ? AND SK = ?", "Parameters": [{"S": "a"}, {"S": "1"}]}, {"Statement": "SELECT * FROM JsonThings WHERE PK = ? AND SK = ?", "Parameters": [{"S": "b"}, null]}]}');
SELECT st_api('BatchExecuteStatement', '{"Statements": [{"Statement": "SELECT * FROM JsonThings WHERE PK = ? AND SK = ?", "Parameters": [{"N": null}, 7]}]}');
SELECT st_api('BatchExecuteStatement', '{"Statements": [null]}');
SELECT st_api('BatchExecuteStatement', '{"Statements": [null, null]}');
SELECT st_api('BatchExecuteStatement', '{"Statements": [{"Statement": null}]}');
SELECT st_api('BatchExecuteStatement', '{"Statements": [1]}');
SELECT st_api('BatchExecuteStatement', '{"Statements": ["SELECT"]}');
SELECT st_api('BatchExecuteStatement', '{"Statements": [[]]}');
SELECT st_api('BatchExecuteStatement', '{"Statements": {}}');
SELECT st_api('BatchExecuteStatement', '{"Statements": null}');

-- 3. ExecuteTransaction: the same.
SELECT st_api('ExecuteTransaction', '{"TransactStatements": [{"Statement": "SELECT * FROM JsonThings WHERE PK = ? AND SK = ?", "Parameters": [null]}]}');
SELECT st_api('ExecuteTransaction', '{"TransactStatements": [{"Statement": "SELECT * FROM JsonThings WHERE PK = ? AND SK = ?", "Parameters": [{"S": "a"}, null]}]}');
SELECT st_api('ExecuteTransaction', '{"TransactStatements": [{"Statement": "UPDATE JsonThings SET n = ? WHERE PK = ? AND SK = ?", "Parameters": [{"L": [null]}, {"S": "a"}, {"S": "1"}]}]}');
SELECT st_api('ExecuteTransaction', '{"TransactStatements": [{"Statement": "SELECT * FROM JsonThings WHERE PK = ?", "Parameters": [false]}]}');
SELECT st_api('ExecuteTransaction', '{"TransactStatements": [null]}');
SELECT st_api('ExecuteTransaction', '{"TransactStatements": [{"Statement": null, "Parameters": [null]}]}');
SELECT st_api('ExecuteTransaction', '{"TransactStatements": [{}]}');
SELECT st_api('ExecuteTransaction', '{"TransactStatements": [1.5]}');
SELECT st_api('ExecuteTransaction', '{"TransactStatements": "x"}');

-- 4. st_partiql: typed Parameters like the API's; plain ones take JSON null
-- as the NULL type (below, as the table's owner).
SELECT * FROM st_partiql('SELECT * FROM JsonThings WHERE PK = ?', '[null]', true);
SELECT * FROM st_partiql('SELECT * FROM JsonThings WHERE PK = ?', '[{"S": "a"}, null]', true);
SELECT * FROM st_partiql('SELECT * FROM JsonThings WHERE PK = ?', '["a"]', true);
SELECT * FROM st_partiql('SELECT * FROM JsonThings WHERE PK = ?', '[{"B": null}]', true);
SELECT * FROM st_partiql('SELECT * FROM JsonThings WHERE PK = ?', '[{"M": {"x": null}}]', true);
SELECT * FROM st_partiql('SELECT * FROM JsonThings WHERE PK = ?', 'null');
SELECT * FROM st_partiql('SELECT * FROM JsonThings WHERE PK = ?', '{"a": null}');
SELECT * FROM st_partiql('SELECT * FROM JsonThings WHERE PK = ?', '"a"');
SELECT * FROM st_partiql('SELECT * FROM JsonThings WHERE PK = ?', '["a", null]');
RESET ROLE;
-- as the table's owner, plain nulls are NULL values
SELECT * FROM st_partiql('SELECT * FROM JsonThings WHERE PK = ? AND n = ?', '["a", null]');
SELECT * FROM st_partiql('SELECT * FROM JsonThings WHERE PK = ? AND SK = ?', '["a", [null, {"x": null}]]');
SET ROLE regress_json_nobody;

-- 5. Null elements and members elsewhere in requests: each a DynamoDB error.
SELECT st_api('BatchGetItem', '{"RequestItems": {"JsonThings": {"Keys": [null]}}}');
SELECT st_api('BatchGetItem', '{"RequestItems": {"JsonThings": null}}');
SELECT st_api('BatchGetItem', '{"RequestItems": {"JsonThings": {"Keys": [{"PK": null, "SK": {"S": "1"}}]}}}');
SELECT st_api('BatchWriteItem', '{"RequestItems": {"JsonThings": [null]}}');
SELECT st_api('BatchWriteItem', '{"RequestItems": {"JsonThings": [{"PutRequest": null}]}}');
SELECT st_api('BatchWriteItem', '{"RequestItems": {"JsonThings": [{"PutRequest": {"Item": null}}]}}');
SELECT st_api('TransactWriteItems', '{"TransactItems": [null]}');
SELECT st_api('TransactWriteItems', '{"TransactItems": [{"Put": null}]}');
SELECT st_api('TransactWriteItems', '{"TransactItems": [{"Put": {"TableName": "JsonThings", "Item": {"PK": {"S": "a"}, "SK": {"S": "1"}, "x": {"L": [null]}}}}]}');
SELECT st_api('TransactGetItems', '{"TransactItems": [null]}');
SELECT st_api('TransactGetItems', '{"TransactItems": [{"Get": {"TableName": "JsonThings", "Key": null}}]}');
SELECT st_api('PutItem', '{"TableName": "JsonThings", "Item": {"PK": {"S": "a"}, "SK": {"S": "1"}, "x": null}}');
SELECT st_api('PutItem', '{"TableName": "JsonThings", "Item": {"PK": {"S": "a"}, "SK": {"S": "1"}, "x": {"M": {"y": null}}}}');
SELECT st_api('UpdateItem', '{"TableName": "JsonThings", "Key": {"PK": {"S": "a"}, "SK": {"S": "1"}}, "AttributeUpdates": {"x": {"Action": "PUT", "Value": null}}}');
SELECT st_api('Query', '{"TableName": "JsonThings", "KeyConditions": {"PK": {"ComparisonOperator": "EQ", "AttributeValueList": [null]}}}');
SELECT st_api('Scan', '{"TableName": "JsonThings", "ScanFilter": {"n": {"ComparisonOperator": "IN", "AttributeValueList": [null, {"N": "1"}]}}}');
SELECT st_api('CreateTable', '{"TableName": "JsonNew", "KeySchema": [null], "AttributeDefinitions": [null], "BillingMode": "PAY_PER_REQUEST"}');
SELECT st_api('TagResource', '{"ResourceArn": "arn:aws:dynamodb:local:000000000000:table/JsonThings", "Tags": [null]}');
SELECT st_api('UntagResource', '{"ResourceArn": "arn:aws:dynamodb:local:000000000000:table/JsonThings", "TagKeys": [null]}');
-- 6. What the API fuzzer found: a character outside an expression's or a
-- statement's language is quoted whole in the syntax error (it was cut to
-- its first byte, which is no UTF-8, and made the endpoint's JSON invalid).
SELECT st_api('GetItem', '{"TableName": "JsonThings", "Key": {"PK": {"S": "a"}, "SK": {"S": "1"}}, "ProjectionExpression": "n, \u00e9"}');
SELECT st_api('ExecuteStatement', '{"Statement": "SELECT * FROM JsonThings WHERE PK = \u00e9"}');
SELECT st_api('ExecuteStatement', '{"Statement": "\ud83d\ude00"}');
-- a quote cut to its first 100 bytes ends in half a character: '?' instead
SELECT st_api('ExecuteStatement', jsonb_build_object('Statement', 'SELECT * FROM JsonThings WHERE PK = ''' || repeat('é', 60)));
RESET ROLE;

SELECT st_get('a', '1', 'JsonThings');
SELECT st_drop_table('JsonThings');
DROP ROLE regress_json_nobody;
-- no crash-restart happened
SELECT alive FROM json_sentinel;
DROP TABLE json_sentinel;
