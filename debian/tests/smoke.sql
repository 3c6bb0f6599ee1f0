-- The installed package: the extension is created from it and answers
-- DynamoDB's JSON API (st_api).  ON_ERROR_STOP makes any error a failure.
CREATE EXTENSION stdesign;
SELECT st_api('CreateTable', '{"TableName": "Smoke",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
  "BillingMode": "PAY_PER_REQUEST"}') -> 'TableDescription' ->> 'TableStatus';
SELECT st_api('PutItem', '{"TableName": "Smoke",
  "Item": {"PK": {"S": "k1"}, "n": {"N": "42"}}}');
DO $$
DECLARE
	got jsonb := st_api('GetItem', '{"TableName": "Smoke", "Key": {"PK": {"S": "k1"}}}');
BEGIN
	IF got -> 'Item' IS DISTINCT FROM '{"PK": {"S": "k1"}, "n": {"N": "42"}}'::jsonb THEN
		RAISE EXCEPTION 'GetItem returned %', got;
	END IF;
END $$;
SELECT 'stdesign smoke test passed' AS result;
