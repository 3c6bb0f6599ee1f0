-- The seeds' CloudFormation template: the table's Properties as JSON (two
-- GSIs, PAY_PER_REQUEST, and fields stdesign keeps but has no use for).

SELECT st_create_table('{
  "TableName": "AppTable",
  "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [
    {"AttributeName": "PK", "AttributeType": "S"},
    {"AttributeName": "SK", "AttributeType": "S"},
    {"AttributeName": "GSI1PK", "AttributeType": "S"},
    {"AttributeName": "GSI1SK", "AttributeType": "S"},
    {"AttributeName": "GSI2PK", "AttributeType": "S"},
    {"AttributeName": "GSI2SK", "AttributeType": "S"}
  ],
  "KeySchema": [
    {"AttributeName": "PK", "KeyType": "HASH"},
    {"AttributeName": "SK", "KeyType": "RANGE"}
  ],
  "GlobalSecondaryIndexes": [
    {"IndexName": "GSI1",
     "KeySchema": [{"AttributeName": "GSI1PK", "KeyType": "HASH"},
                   {"AttributeName": "GSI1SK", "KeyType": "RANGE"}],
     "Projection": {"ProjectionType": "ALL"}},
    {"IndexName": "GSI2",
     "KeySchema": [{"AttributeName": "GSI2PK", "KeyType": "HASH"},
                   {"AttributeName": "GSI2SK", "KeyType": "RANGE"}],
     "Projection": {"ProjectionType": "ALL"}}
  ],
  "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": true},
  "SSESpecification": {"SSEEnabled": true},
  "Tags": [{"Key": "Environment", "Value": "production"}]
}'::jsonb) AS d \gset
SELECT :'d'::jsonb ->> 'TableName' AS name,
       :'d'::jsonb ->> 'TableStatus' AS status,
       :'d'::jsonb -> 'KeySchema' AS key_schema,
       :'d'::jsonb -> 'ProvisionedThroughput' AS throughput,
       jsonb_path_query_array(:'d'::jsonb, '$.AttributeDefinitions[*].AttributeName') AS attributes;
SELECT g->>'IndexName' AS index, g->>'IndexStatus' AS status, g->'KeySchema' AS key_schema,
       g->'Projection' AS projection
  FROM jsonb_array_elements(:'d'::jsonb -> 'GlobalSecondaryIndexes') AS g;

SELECT st_describe_table('AppTable') -> 'BillingModeSummary' ->> 'BillingMode' AS billing;

-- The whole template works too: its one AWS::DynamoDB::Table resource.
SELECT st_create_table('{
  "AWSTemplateFormatVersion": "2010-09-09",
  "Description": "DynamoDB single-table design",
  "Resources": {
    "SingleTable": {
      "Type": "AWS::DynamoDB::Table",
      "Properties": {
        "TableName": "AppTable2",
        "BillingMode": "PAY_PER_REQUEST",
        "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"},
                                 {"AttributeName": "SK", "AttributeType": "S"}],
        "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"},
                      {"AttributeName": "SK", "KeyType": "RANGE"}]
      }
    }
  }
}'::jsonb) ->> 'TableName' AS created;

-- Both GSIs are maintained: an item with GSI2 keys only is in GSI2 only.
SELECT st_put('{"PK": "A#1", "SK": "A#1", "GSI1PK": "G1", "GSI1SK": "x", "GSI2PK": "G2", "GSI2SK": "y"}', 'AppTable');
SELECT st_put('{"PK": "A#2", "SK": "A#2", "GSI2PK": "G2", "GSI2SK": "z"}', 'AppTable');
SELECT item->>'PK' FROM st_query('G1', "table" => 'AppTable', index => 'GSI1') AS item;
SELECT item->>'PK' FROM st_query('G2', "table" => 'AppTable', index => 'GSI2') AS item;

SELECT st_list_tables();
SELECT st_drop_table('AppTable');
SELECT st_drop_table('AppTable2');
