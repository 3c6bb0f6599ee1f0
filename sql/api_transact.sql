-- TransactWriteItems and TransactGetItems through st_api: DynamoDB's
-- request (TableName in every action, ClientRequestToken,
-- ReturnConsumedCapacity), its responses, cancellations and errors.

SELECT st_api('CreateTable', '{"TableName": "TxAccounts", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]}')
  #>> '{TableDescription,TableStatus}' AS status;
SELECT st_api('CreateTable', '{"TableName": "TxLedger", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "N"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}]}')
  #>> '{TableDescription,TableStatus}' AS status;

-- Four kinds of action across two tables: the response is {}.
SELECT st_api('TransactWriteItems', '{"TransactItems": [
  {"Put": {"TableName": "TxAccounts", "Item": {"id": {"S": "alice"}, "balance": {"N": "100"}},
           "ConditionExpression": "attribute_not_exists(id)"}},
  {"Put": {"TableName": "TxAccounts", "Item": {"id": {"S": "bob"}, "balance": {"N": "5"}}}},
  {"Put": {"TableName": "TxLedger", "Item": {"PK": {"S": "alice"}, "SK": {"N": "1"}, "amount": {"N": "100"}}}}]}');
SELECT st_api('TransactWriteItems', '{"TransactItems": [
  {"Update": {"TableName": "TxAccounts", "Key": {"id": {"S": "alice"}},
              "UpdateExpression": "SET balance = balance - :a",
              "ConditionExpression": "balance >= :a",
              "ExpressionAttributeValues": {":a": {"N": "30"}}}},
  {"Update": {"TableName": "TxAccounts", "Key": {"id": {"S": "bob"}},
              "UpdateExpression": "SET balance = balance + :a",
              "ExpressionAttributeValues": {":a": {"N": "30"}}}},
  {"ConditionCheck": {"TableName": "TxLedger", "Key": {"PK": {"S": "alice"}, "SK": {"N": "1"}},
                      "ConditionExpression": "attribute_exists(amount)"}},
  {"Delete": {"TableName": "TxLedger", "Key": {"PK": {"S": "nobody"}, "SK": {"N": "1"}}}}]}');
SELECT pk, item FROM stdesign_data."TxAccounts" ORDER BY pk;

-- A failed condition cancels everything; the reasons come in request order.
SELECT st_api('TransactWriteItems', '{"TransactItems": [
  {"Update": {"TableName": "TxAccounts", "Key": {"id": {"S": "bob"}},
              "UpdateExpression": "SET balance = balance - :a", "ConditionExpression": "balance >= :a",
              "ExpressionAttributeValues": {":a": {"N": "1000"}},
              "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}},
  {"Delete": {"TableName": "TxAccounts", "Key": {"id": {"S": "alice"}}}}]}');
SELECT count(*) AS accounts FROM stdesign_data."TxAccounts";

-- ClientRequestToken: a repeat changes nothing, a different request is refused.
SELECT st_api('TransactWriteItems', '{"ClientRequestToken": "tok-1", "TransactItems": [
  {"Update": {"TableName": "TxAccounts", "Key": {"id": {"S": "bob"}},
              "UpdateExpression": "ADD balance :one", "ExpressionAttributeValues": {":one": {"N": "1"}}}}]}');
SELECT st_api('TransactWriteItems', '{"ClientRequestToken": "tok-1", "TransactItems": [
  {"Update": {"TableName": "TxAccounts", "Key": {"id": {"S": "bob"}},
              "UpdateExpression": "ADD balance :one", "ExpressionAttributeValues": {":one": {"N": "1"}}}}]}');
SELECT item -> 'balance' AS bob_balance FROM stdesign_data."TxAccounts" WHERE pk = 'bob';
SELECT st_api('TransactWriteItems', '{"ClientRequestToken": "tok-1", "TransactItems": [
  {"Update": {"TableName": "TxAccounts", "Key": {"id": {"S": "bob"}},
              "UpdateExpression": "ADD balance :one", "ExpressionAttributeValues": {":one": {"N": "2"}}}}]}');
-- The repeat reports what reading its items cost.
SELECT st_api('TransactWriteItems', '{"ClientRequestToken": "tok-1", "ReturnConsumedCapacity": "TOTAL",
  "TransactItems": [
  {"Update": {"TableName": "TxAccounts", "Key": {"id": {"S": "bob"}},
              "UpdateExpression": "ADD balance :one", "ExpressionAttributeValues": {":one": {"N": "1"}}}}]}');
SELECT st_api('TransactWriteItems', jsonb_build_object('ClientRequestToken', repeat('t', 37), 'TransactItems',
  '[{"Delete": {"TableName": "TxAccounts", "Key": {"id": {"S": "x"}}}}]'::jsonb));

-- ConsumedCapacity: one entry per table, every write doubled.
SELECT st_api('TransactWriteItems', '{"ReturnConsumedCapacity": "TOTAL", "TransactItems": [
  {"Put": {"TableName": "TxLedger", "Item": {"PK": {"S": "bob"}, "SK": {"N": "2"}, "amount": {"N": "30"}}}},
  {"Put": {"TableName": "TxLedger", "Item": {"PK": {"S": "alice"}, "SK": {"N": "2"}, "amount": {"N": "-30"}}}},
  {"ConditionCheck": {"TableName": "TxAccounts", "Key": {"id": {"S": "bob"}}, "ConditionExpression": "balance > :z",
                      "ExpressionAttributeValues": {":z": {"N": "0"}}}}]}');
SELECT st_api('TransactWriteItems', '{"ReturnConsumedCapacity": "INDEXES", "TransactItems": [
  {"Delete": {"TableName": "TxLedger", "Key": {"PK": {"S": "bob"}, "SK": {"N": "2"}}}}]}');

-- TransactWriteItems errors.
SELECT st_api('TransactWriteItems', '{}');
SELECT st_api('TransactWriteItems', '{"TransactItems": []}');
SELECT st_api('TransactWriteItems', '{"TransactItems": [{"Put": {"Item": {"id": {"S": "x"}}}}]}');
SELECT st_api('TransactWriteItems', '{"TransactItems": [
  {"Put": {"TableName": "TxAccounts", "Item": {"id": {"S": "x"}}},
   "Delete": {"TableName": "TxAccounts", "Key": {"id": {"S": "x"}}}}]}');
SELECT st_api('TransactWriteItems', '{"TransactItems": [
  {"Put": {"TableName": "TxAccounts", "Item": {"id": {"S": "x"}}}},
  {"Delete": {"TableName": "TxAccounts", "Key": {"id": {"S": "x"}}}}]}');
SELECT st_api('TransactWriteItems', '{"TransactItems": [
  {"Put": {"TableName": "Missing", "Item": {"id": {"S": "x"}}}}]}');
SELECT st_api('TransactWriteItems', '{"TransactItems": [
  {"Delete": {"TableName": "TxAccounts", "Key": {"id": {"S": "x"}}}}], "ReturnItemCollectionMetrics": "ALL"}');
SELECT st_api('TransactWriteItems', '{"TransactItems": [
  {"Delete": {"TableName": "TxAccounts", "Key": {"id": {"S": "x"}}}}], "ClientRequestToken": 5}');
SELECT st_api('TransactWriteItems', jsonb_build_object('TransactItems',
  (SELECT jsonb_agg(jsonb_build_object('Delete', jsonb_build_object('TableName', 'TxAccounts',
     'Key', jsonb_build_object('id', jsonb_build_object('S', 'k' || i))))) FROM generate_series(1, 101) i)));

-- TransactGetItems: {"Responses": [...]}, {} for a missing item, projections.
SELECT st_api('TransactGetItems', '{"TransactItems": [
  {"Get": {"TableName": "TxAccounts", "Key": {"id": {"S": "alice"}}}},
  {"Get": {"TableName": "TxAccounts", "Key": {"id": {"S": "nobody"}}}},
  {"Get": {"TableName": "TxLedger", "Key": {"PK": {"S": "alice"}, "SK": {"N": "1"}},
           "ProjectionExpression": "#a", "ExpressionAttributeNames": {"#a": "amount"}}}]}');
SELECT st_api('TransactGetItems', '{"ReturnConsumedCapacity": "TOTAL", "TransactItems": [
  {"Get": {"TableName": "TxAccounts", "Key": {"id": {"S": "alice"}}}},
  {"Get": {"TableName": "TxAccounts", "Key": {"id": {"S": "nobody"}}}},
  {"Get": {"TableName": "TxLedger", "Key": {"PK": {"S": "alice"}, "SK": {"N": "1"}}}}]}');
SELECT st_api('TransactGetItems', '{}');
SELECT st_api('TransactGetItems', '{"TransactItems": [{"Get": {"Key": {"id": {"S": "alice"}}}}]}');
SELECT st_api('TransactGetItems', '{"TransactItems": [{"Put": {"TableName": "TxAccounts", "Item": {"id": {"S": "alice"}}}}]}');
SELECT st_api('TransactGetItems', '{"TransactItems": [
  {"Get": {"TableName": "TxAccounts", "Key": {"id": {"S": "alice"}}}},
  {"Get": {"TableName": "TxAccounts", "Key": {"id": {"S": "alice"}}}}]}');
SELECT st_api('TransactGetItems', '{"TransactItems": [{"Get": {"TableName": "TxAccounts", "Key": {"id": {"N": "1"}}}}]}');
SELECT st_api('TransactGetItems', '{"ReturnConsumedCapacity": "SOME", "TransactItems": [
  {"Get": {"TableName": "TxAccounts", "Key": {"id": {"S": "alice"}}}}]}');

SELECT st_api('DeleteTable', '{"TableName": "TxAccounts"}') #>> '{TableDescription,TableStatus}' AS status;
SELECT st_api('DeleteTable', '{"TableName": "TxLedger"}') #>> '{TableDescription,TableStatus}' AS status;
