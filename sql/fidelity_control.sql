-- The control-plane calls tools make: tags (TagResource, UntagResource,
-- ListTagsOfResource, CreateTable's Tags, the SQL functions), DeletionProtection-
-- Enabled, DescribeContinuousBackups / UpdateContinuousBackups, DescribeLimits,
-- DescribeEndpoints, and a table's ARN wherever a TableName goes.

-- CreateTable with Tags and deletion protection; the ARN DescribeTable gives.
SELECT st_api('CreateTable', '{"TableName": "Ctl", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
  "Tags": [{"Key": "env", "Value": "test"}, {"Key": "team", "Value": "data"}],
  "DeletionProtectionEnabled": true}') -> 'TableDescription' AS d \gset
SELECT :'d'::jsonb ->> 'TableArn' AS arn, :'d'::jsonb -> 'DeletionProtectionEnabled' AS protected;
\set arn 'arn:aws:dynamodb:local:000000000000:table/Ctl'
SELECT st_api('ListTagsOfResource', jsonb_build_object('ResourceArn', :'arn'));
SELECT st_table_tags('Ctl');

-- TagResource: a key tagged again takes the new value; an empty value is fine.
SELECT st_api('TagResource', jsonb_build_object('ResourceArn', :'arn', 'Tags',
  '[{"Key": "env", "Value": "prod"}, {"Key": "empty", "Value": ""}, {"Key": "a b+-=._:/@", "Value": "é ü 1"}]'::jsonb));
SELECT st_api('ListTagsOfResource', jsonb_build_object('ResourceArn', :'arn'));
-- UntagResource: absent keys are no error.
SELECT st_api('UntagResource', jsonb_build_object('ResourceArn', :'arn', 'TagKeys', '["empty", "nothere"]'::jsonb));
SELECT st_untag_table('Ctl', ARRAY['a b+-=._:/@']);
SELECT st_tag_table('Ctl', '{"owner": "me"}');
SELECT st_table_tags('Ctl');

-- Bad tags: the model's lengths, then DynamoDB's rules.
\set VERBOSITY terse
SELECT st_api('TagResource', jsonb_build_object('ResourceArn', :'arn', 'Tags', '[{"Key": "", "Value": "v"}]'::jsonb));
SELECT st_api('TagResource', jsonb_build_object('ResourceArn', :'arn', 'Tags',
  jsonb_build_array(jsonb_build_object('Key', repeat('k', 129), 'Value', 'v'))));
SELECT st_api('TagResource', jsonb_build_object('ResourceArn', :'arn', 'Tags',
  jsonb_build_array(jsonb_build_object('Key', 'k', 'Value', repeat('v', 257)))));
SELECT st_api('TagResource', jsonb_build_object('ResourceArn', :'arn', 'Tags', '[{"Key": "k"}]'::jsonb));
SELECT st_api('TagResource', jsonb_build_object('ResourceArn', :'arn', 'Tags', '[{"Key": "k", "Value": 1}]'::jsonb));
SELECT st_api('TagResource', jsonb_build_object('ResourceArn', :'arn'));
SELECT st_api('TagResource', '{"Tags": []}');
SELECT st_api('TagResource', jsonb_build_object('ResourceArn', :'arn', 'Tags', '[{"Key": "aws:cost", "Value": "x"}]'::jsonb));
SELECT st_api('TagResource', jsonb_build_object('ResourceArn', :'arn', 'Tags', '[{"Key": "AWS:cost", "Value": "x"}]'::jsonb));
SELECT st_api('TagResource', jsonb_build_object('ResourceArn', :'arn', 'Tags', '[{"Key": "k!", "Value": "x"}]'::jsonb));
SELECT st_api('TagResource', jsonb_build_object('ResourceArn', :'arn', 'Tags', '[{"Key": "k", "Value": "x#"}]'::jsonb));
SELECT st_api('TagResource', jsonb_build_object('ResourceArn', :'arn', 'Tags', '[{"Value": "x"}]'::jsonb));
SELECT st_api('TagResource', jsonb_build_object('ResourceArn', :'arn', 'Tags', '[]'::jsonb));
SELECT st_api('TagResource', jsonb_build_object('ResourceArn', :'arn', 'Tags',
  '[{"Key": "dup", "Value": "1"}, {"Key": "other", "Value": "2"}, {"Key": "dup", "Value": "3"}]'::jsonb));
SELECT st_api('TagResource', jsonb_build_object('ResourceArn', :'arn', 'Tags', '[{"Key": "k", "Value": "🔑"}]'::jsonb));
SELECT st_api('TagResource', jsonb_build_object('ResourceArn', :'arn', 'Tags', '[{"Key": "a,b", "Value": "x"}]'::jsonb));
SELECT st_api('TagResource', jsonb_build_object('ResourceArn', :'arn', 'Tags', '[{"Key": "k", "Value": "100%"}]'::jsonb));
SELECT st_api('UntagResource', jsonb_build_object('ResourceArn', :'arn', 'TagKeys', '[]'::jsonb));
SELECT st_api('UntagResource', jsonb_build_object('ResourceArn', :'arn', 'TagKeys', '[""]'::jsonb));
SELECT st_api('UntagResource', jsonb_build_object('ResourceArn', :'arn', 'TagKeys',
  (SELECT jsonb_agg('k' || i) FROM generate_series(1, 51) i)));
-- A bad tag anywhere in a request: none of its tags is applied.
SELECT st_api('TagResource', jsonb_build_object('ResourceArn', :'arn', 'Tags',
  '[{"Key": "good", "Value": "g"}, {"Key": "aws:zzz", "Value": "x"}]'::jsonb));
SELECT st_table_tags('Ctl') ? 'good' AS applied;
-- Letters, digits and spaces of any script.
\set VERBOSITY default
SELECT st_api('TagResource', jsonb_build_object('ResourceArn', :'arn', 'Tags',
  '[{"Key": "ключ", "Value": "表 café x　y"}]'::jsonb));
SELECT st_api('UntagResource', jsonb_build_object('ResourceArn', :'arn', 'TagKeys', '["ключ"]'::jsonb));
\set VERBOSITY terse
-- 50 tags at most, counted after the update (3 there, 47 more fit, 48 do not).
SELECT st_api('TagResource', jsonb_build_object('ResourceArn', :'arn', 'Tags',
  (SELECT jsonb_agg(jsonb_build_object('Key', 'k' || i, 'Value', 'v')) FROM generate_series(1, 48) i)));
SELECT st_api('TagResource', jsonb_build_object('ResourceArn', :'arn', 'Tags',
  (SELECT jsonb_agg(jsonb_build_object('Key', 'k' || i, 'Value', 'v')) FROM generate_series(1, 47) i)));
SELECT jsonb_array_length(st_api('ListTagsOfResource', jsonb_build_object('ResourceArn', :'arn')) -> 'Tags') AS ntags;
SELECT st_api('TagResource', jsonb_build_object('ResourceArn', :'arn', 'Tags', '[{"Key": "one-more", "Value": "x"}]'::jsonb));
-- Re-tagging an existing key does not count twice.
SELECT st_api('TagResource', jsonb_build_object('ResourceArn', :'arn', 'Tags', '[{"Key": "k1", "Value": "new"}]'::jsonb));
-- ARNs: of no table here, of another region, account or resource, not an ARN.
SELECT st_api('ListTagsOfResource', '{"ResourceArn": "arn:aws:dynamodb:local:000000000000:table/Nope"}');
SELECT st_api('ListTagsOfResource', '{"ResourceArn": "arn:aws:dynamodb:us-east-1:000000000000:table/Ctl"}');
SELECT st_api('ListTagsOfResource', '{"ResourceArn": "arn:aws:dynamodb:local:123456789012:table/Ctl"}');
SELECT st_api('ListTagsOfResource', '{"ResourceArn": "arn:aws:dynamodb:local:000000000000:table/Ctl/index/x"}');
SELECT st_api('ListTagsOfResource', '{"ResourceArn": "Ctl"}');
SELECT st_api('ListTagsOfResource', '{"ResourceArn": "arn:aws:s3:::bucket"}');
SELECT st_api('ListTagsOfResource', '{"ResourceArn": "arn:aws:dynamodb:local:000000000000:table/Ctl/stream/2026-01-01T00:00:00.000"}');
SELECT st_api('ListTagsOfResource', '{"ResourceArn": ""}');
SELECT st_api('ListTagsOfResource', '{}');
SELECT st_api('UntagResource', jsonb_build_object('ResourceArn', :'arn'));
SELECT st_tag_table('Ctl', '["x"]');
SELECT st_tag_table('Ctl', '{"x": 1}');
SELECT st_tag_table('Nope', '{"x": "y"}');
SELECT st_untag_table('Ctl', ARRAY[NULL]);
SELECT st_untag_table('Ctl', NULL);
-- NextToken continues after the key it names.
SELECT st_api('ListTagsOfResource', jsonb_build_object('ResourceArn', :'arn', 'NextToken', 'team'));

-- CreateTable with a bad tag creates nothing.
\set VERBOSITY terse
SELECT st_api('CreateTable', '{"TableName": "Ctl3", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}], "Tags": [{"Key": "aws:x", "Value": "y"}]}');
\set VERBOSITY default
SELECT count(*) AS created FROM stdesign.tables WHERE table_name = 'Ctl3';

-- DeletionProtectionEnabled: DeleteTable, st_drop_table, and by ARN, refused.
SELECT st_api('DeleteTable', '{"TableName": "Ctl"}');
SELECT st_drop_table('Ctl');
SELECT st_api('DeleteTable', jsonb_build_object('TableName', :'arn'));
SELECT st_api('UpdateTable', '{"TableName": "Ctl", "DeletionProtectionEnabled": "yes"}');
SELECT st_api('CreateTable', '{"TableName": "Ctl2", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}], "DeletionProtectionEnabled": 1}');
SELECT st_create_table('{"TableName": "Ctl2", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}], "DeletionProtectionEnabled": "on"}');
\set VERBOSITY default
SELECT st_api('UpdateTable', '{"TableName": "Ctl", "DeletionProtectionEnabled": false}')
  #> '{TableDescription,DeletionProtectionEnabled}' AS protected;
SELECT st_describe_table('Ctl') -> 'DeletionProtectionEnabled' AS protected;
SELECT st_api('UpdateTable', '{"TableName": "Ctl", "DeletionProtectionEnabled": true}')
  #> '{TableDescription,DeletionProtectionEnabled}' AS protected;

-- Continuous backups: ENABLED always, point-in-time recovery as set.
SELECT st_api('DescribeContinuousBackups', '{"TableName": "Ctl"}');
SELECT d #>> '{PointInTimeRecoveryDescription,PointInTimeRecoveryStatus}' AS status,
       d #> '{PointInTimeRecoveryDescription,RecoveryPeriodInDays}' AS days,
       (d #>> '{PointInTimeRecoveryDescription,EarliestRestorableDateTime}')::numeric
         <= (d #>> '{PointInTimeRecoveryDescription,LatestRestorableDateTime}')::numeric AS window_ok,
       abs((d #>> '{PointInTimeRecoveryDescription,EarliestRestorableDateTime}')::numeric
           - extract(epoch FROM now())) < 60 AS from_now
  FROM (SELECT st_api('UpdateContinuousBackups', jsonb_build_object('TableName', :'arn',
          'PointInTimeRecoverySpecification', '{"PointInTimeRecoveryEnabled": true}'::jsonb))
          -> 'ContinuousBackupsDescription' AS d) s;
SELECT st_api('UpdateContinuousBackups', '{"TableName": "Ctl", "PointInTimeRecoverySpecification":
  {"PointInTimeRecoveryEnabled": true, "RecoveryPeriodInDays": 7}}')
  #> '{ContinuousBackupsDescription,PointInTimeRecoveryDescription,RecoveryPeriodInDays}' AS days;
SELECT st_api('UpdateContinuousBackups', '{"TableName": "Ctl", "PointInTimeRecoverySpecification":
  {"PointInTimeRecoveryEnabled": false}}');
\set VERBOSITY terse
SELECT st_api('UpdateContinuousBackups', '{"TableName": "Ctl", "PointInTimeRecoverySpecification":
  {"PointInTimeRecoveryEnabled": true, "RecoveryPeriodInDays": 36}}');
SELECT st_api('UpdateContinuousBackups', '{"TableName": "Ctl", "PointInTimeRecoverySpecification":
  {"PointInTimeRecoveryEnabled": true, "RecoveryPeriodInDays": 0}}');
SELECT st_api('UpdateContinuousBackups', '{"TableName": "Ctl", "PointInTimeRecoverySpecification":
  {"PointInTimeRecoveryEnabled": false, "RecoveryPeriodInDays": 7}}');
SELECT st_api('UpdateContinuousBackups', '{"TableName": "Ctl", "PointInTimeRecoverySpecification": {}}');
SELECT st_api('UpdateContinuousBackups', '{"TableName": "Ctl"}');
SELECT st_api('UpdateContinuousBackups', '{"TableName": "Ctl", "PointInTimeRecoverySpecification":
  {"PointInTimeRecoveryEnabled": "true"}}');
SELECT st_api('UpdateContinuousBackups', '{"TableName": "Nope", "PointInTimeRecoverySpecification":
  {"PointInTimeRecoveryEnabled": true}}');
SELECT st_api('DescribeContinuousBackups', '{"TableName": "Nope"}');
SELECT st_api('DescribeContinuousBackups', '{"TableName": "a;"}');
SELECT st_api('DescribeContinuousBackups', '{}');
\set VERBOSITY default

-- DescribeLimits: DynamoDB's default quotas; DescribeEndpoints from SQL.
SELECT st_api('DescribeLimits', '{}');
SELECT st_api('DescribeEndpoints', NULL::jsonb);

-- A table's ARN wherever a TableName goes.
SELECT st_api('PutItem', jsonb_build_object('TableName', :'arn', 'Item', '{"PK": {"S": "a"}, "v": {"N": "1"}}'::jsonb));
SELECT st_api('GetItem', jsonb_build_object('TableName', :'arn', 'Key', '{"PK": {"S": "a"}}'::jsonb));
SELECT st_api('UpdateItem', jsonb_build_object('TableName', :'arn', 'Key', '{"PK": {"S": "a"}}'::jsonb,
  'UpdateExpression', 'ADD v :one', 'ExpressionAttributeValues', '{":one": {"N": "1"}}'::jsonb, 'ReturnValues', 'UPDATED_NEW'));
SELECT st_api('Query', jsonb_build_object('TableName', :'arn', 'KeyConditionExpression', 'PK = :p',
  'ExpressionAttributeValues', '{":p": {"S": "a"}}'::jsonb)) -> 'Count' AS count;
SELECT st_api('Scan', jsonb_build_object('TableName', :'arn')) -> 'Count' AS count;
SELECT st_api('DescribeTable', jsonb_build_object('TableName', :'arn')) #>> '{Table,TableName}' AS name;
SELECT st_api('BatchGetItem', jsonb_build_object('RequestItems', jsonb_build_object(:'arn',
  '{"Keys": [{"PK": {"S": "a"}}]}'::jsonb)));
SELECT st_api('BatchWriteItem', jsonb_build_object('RequestItems', jsonb_build_object(:'arn',
  '[{"PutRequest": {"Item": {"PK": {"S": "b"}}}}]'::jsonb)));
SELECT st_api('TransactWriteItems', jsonb_build_object('TransactItems', jsonb_build_array(
  jsonb_build_object('Put', jsonb_build_object('TableName', :'arn', 'Item', '{"PK": {"S": "c"}}'::jsonb)))));
SELECT st_api('TransactGetItems', jsonb_build_object('TransactItems', jsonb_build_array(
  jsonb_build_object('Get', jsonb_build_object('TableName', :'arn', 'Key', '{"PK": {"S": "c"}}'::jsonb)))));
SELECT st_api('DeleteItem', jsonb_build_object('TableName', :'arn', 'Key', '{"PK": {"S": "b"}}'::jsonb,
  'ReturnValues', 'ALL_OLD'));
SELECT st_get('a', NULL, :'arn') AS item;
SELECT st_transact(jsonb_build_array(jsonb_build_object('Delete', jsonb_build_object('TableName', :'arn',
  'Key', '{"PK": {"S": "c"}}'::jsonb))));
-- Bad ARNs and names after resolution; a name keeps its own rules and messages.
\set VERBOSITY terse
SELECT st_api('GetItem', '{"TableName": "arn:aws:dynamodb:local:000000000000:table/Nope", "Key": {"PK": {"S": "a"}}}');
SELECT st_api('GetItem', '{"TableName": "arn:aws:dynamodb:eu-west-1:000000000000:table/Ctl", "Key": {"PK": {"S": "a"}}}');
SELECT st_api('GetItem', '{"TableName": "arn:aws:dynamodb:local:000000000000:table/Ctl/index/I", "Key": {"PK": {"S": "a"}}}');
SELECT st_api('GetItem', '{"TableName": "arn:aws:dynamodb:local:000000000000:table/", "Key": {"PK": {"S": "a"}}}');
SELECT st_api('GetItem', '{"TableName": "arn:aws:dynamodb:local:000000000000:table/a;b", "Key": {"PK": {"S": "a"}}}');
SELECT st_api('GetItem', '{"TableName": "arn:aws:dynamodb:local:000000000000:table/ab", "Key": {"PK": {"S": "a"}}}');
SELECT st_api('GetItem', '{"TableName": "arn:aws-cn:dynamodb:local:000000000000:table/Ctl", "Key": {"PK": {"S": "a"}}}');
SELECT st_api('GetItem', '{"TableName": "arn:aws:dynamodb:local:000000000000:backup/Ctl", "Key": {"PK": {"S": "a"}}}');
SELECT st_api('GetItem', '{"TableName": "arn:aws:s3:local:000000000000:table/Ctl", "Key": {"PK": {"S": "a"}}}');
SELECT st_api('GetItem', '{"TableName": "arn:aws:dynamodb:local:123456789012:table/Ctl", "Key": {"PK": {"S": "a"}}}');
SELECT st_api('GetItem', '{"TableName": "arn:aws:dynamodb", "Key": {"PK": {"S": "a"}}}');
SELECT st_api('GetItem', jsonb_build_object('TableName', 'arn:aws:dynamodb:local:000000000000:table/' || repeat('t', 256),
  'Key', '{"PK": {"S": "a"}}'::jsonb));
SELECT st_api('GetItem', jsonb_build_object('TableName', 'arn:' || repeat('x', 1021), 'Key', '{"PK": {"S": "a"}}'::jsonb));
SELECT st_api('GetItem', '{"TableName": "a;", "Key": {"PK": {"S": "a"}}, "ReturnConsumedCapacity": "X"}');
SELECT st_api('GetItem', '{"TableName": "ar", "Key": {"PK": {"S": "a"}}}');
SELECT st_api('BatchGetItem', '{"RequestItems": {"arn:aws:dynamodb:local:000000000000:table/x/y": {"Keys": [{"PK": {"S": "a"}}]}}}');
SELECT st_api('ListTables', '{"ExclusiveStartTableName": "arn:aws:dynamodb:local:000000000000:table/Ctl"}');
\set VERBOSITY default

-- BatchWriteItem: the whole request at most 16 MB of JSON.  25 items of
-- 400 KB stay under it; control characters, six bytes each once escaped
-- (\u0001), pass it: 8 items of 390,000 are more than 18,720,000 bytes.
SELECT st_api('BatchWriteItem', jsonb_build_object('RequestItems', jsonb_build_object('Ctl',
  (SELECT jsonb_agg(jsonb_build_object('PutRequest', jsonb_build_object('Item', jsonb_build_object(
     'PK', jsonb_build_object('S', 'big' || i), 'v', jsonb_build_object('S', repeat(chr(1), 390000))))))
     FROM generate_series(1, 6) i))));
SELECT count(*) AS written FROM st_scan('Ctl') AS s WHERE s ->> 'PK' LIKE 'big%';
\set VERBOSITY terse
SELECT st_api('BatchWriteItem', jsonb_build_object('RequestItems', jsonb_build_object('Ctl',
  (SELECT jsonb_agg(jsonb_build_object('PutRequest', jsonb_build_object('Item', jsonb_build_object(
     'PK', jsonb_build_object('S', 'big' || i), 'v', jsonb_build_object('S', repeat(chr(1), 390000))))))
     FROM generate_series(1, 8) i))));
\set VERBOSITY default

-- A GSI added and dropped by the table's ARN: the catalog keeps the name.
SELECT st_create_gsi(:'arn', 'ByV', 'v', pk_type => 'N') #>> '{GlobalSecondaryIndexes,0,IndexName}' AS added;
SELECT table_name, index_name FROM stdesign.indexes WHERE index_name = 'ByV';
SELECT st_drop_gsi(:'arn', 'ByV');
SELECT count(*) AS left_behind FROM stdesign.indexes WHERE index_name = 'ByV';

-- Tags go with their table.
SELECT st_api('UpdateTable', '{"TableName": "Ctl", "DeletionProtectionEnabled": false}') IS NOT NULL AS unprotected;
SELECT st_api('DeleteTable', jsonb_build_object('TableName', :'arn')) #>> '{TableDescription,TableStatus}' AS status;
SELECT count(*) AS tags_left FROM stdesign.tags WHERE table_name = 'Ctl';
