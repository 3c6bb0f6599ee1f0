-- Design studio: the CloudFormation table of the seeds (two GSIs,
-- PAY_PER_REQUEST), modelled as users, posts and comments; a third index
-- with an INCLUDE projection shows the projection check, an unused index
-- and an unread entity are reported.
SELECT st_create_table('{
  "TableName": "AppTable",
  "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [
    {"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"},
    {"AttributeName": "GSI1PK", "AttributeType": "S"}, {"AttributeName": "GSI1SK", "AttributeType": "S"},
    {"AttributeName": "GSI2PK", "AttributeType": "S"}, {"AttributeName": "GSI2SK", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [
    {"IndexName": "GSI1", "KeySchema": [{"AttributeName": "GSI1PK", "KeyType": "HASH"},
                                        {"AttributeName": "GSI1SK", "KeyType": "RANGE"}],
     "Projection": {"ProjectionType": "ALL"}},
    {"IndexName": "GSI2", "KeySchema": [{"AttributeName": "GSI2PK", "KeyType": "HASH"},
                                        {"AttributeName": "GSI2SK", "KeyType": "RANGE"}],
     "Projection": {"ProjectionType": "ALL"}}]}'::jsonb) ->> 'TableName' AS created;
SELECT st_create_gsi('AppTable', 'GSI3', 'GSI3PK', 'GSI3SK', projection => 'INCLUDE',
                     non_key_attributes => ARRAY['title']) IS NOT NULL AS gsi3;

SELECT st_set_model('AppTable', '{
  "type_attribute": "type",
  "entities": {
    "User": {"keys": {"PK": "USER#{user_id}", "SK": "PROFILE", "GSI1PK": "EMAIL#{email}", "GSI1SK": "USER#{user_id}"},
             "attributes": {"user_id": "S", "email": "S", "name": "S"}, "required": ["email"]},
    "Post": {"keys": {"PK": "USER#{user_id}", "SK": "POST#{created_at}#{post_id}",
                      "GSI2PK": "POST#{post_id}", "GSI2SK": "POST#{post_id}",
                      "GSI3PK": "TAG#{tag}", "GSI3SK": "{created_at}"},
             "attributes": {"user_id": "S", "post_id": "S", "created_at": "S", "title": "S", "body": "S", "tag": "S"}},
    "Comment": {"keys": {"PK": "POST#{post_id}", "SK": "COMMENT#{created_at}#{comment_id}"},
                "attributes": {"post_id": "S", "comment_id": "S", "created_at": "S", "text": "S"}}
  },
  "patterns": {
    "user_by_email": {"op": "Query", "index": "GSI1", "pk": "EMAIL#{email}", "rate": 10},
    "posts_of_user": {"op": "Query", "pk": "USER#{user_id}", "sk": {"begins_with": "POST#"}, "forward": false, "limit": 10, "rate": 50},
    "posts_by_tag": {"op": "Query", "index": "GSI3", "pk": "TAG#{tag}", "rate": 5},
    "post_titles_by_tag": {"op": "Query", "index": "GSI3", "pk": "TAG#{tag}", "projection": "title, GSI3SK", "rate": 5}
  }
}') IS NOT NULL AS stored;

SELECT st_put_entity('User', '{"user_id": "u1", "email": "ada@example.com", "name": "Ada"}', 'AppTable') ->> 'GSI1PK' AS gsi1pk;
SELECT e ->> 'SK' AS sk, e ->> 'GSI3PK' AS gsi3pk FROM generate_series(1, 3) AS n,
       LATERAL st_put_entity('Post', jsonb_build_object('user_id', 'u1', 'post_id', 'p' || n, 'created_at', '2026-03-0' || n,
                                                         'title', 'Post ' || n, 'body', repeat('words ', 200 * n), 'tag', 'db'),
                             'AppTable') AS e;
SELECT st_put_entity('Comment', '{"post_id": "p1", "comment_id": "c1", "created_at": "2026-03-02", "text": "Nice"}', 'AppTable') ->> 'PK' AS pk;

SELECT i ->> 'name' AS name FROM st_run_pattern('user_by_email', '{"email": "ada@example.com"}', 'AppTable') AS i;
SELECT i ->> 'SK' AS sk FROM st_run_pattern('posts_of_user', '{"user_id": "u1"}', 'AppTable') AS i;
-- an INCLUDE index returns its projection, as DynamoDB's Query does: the
-- keys and title, no body
SELECT i ->> 'title' AS title, i ? 'body' AS has_body, i ? 'GSI3PK' AS has_key
  FROM st_run_pattern('posts_by_tag', '{"tag": "db"}', 'AppTable') AS i;
SELECT i FROM st_run_pattern('post_titles_by_tag', '{"tag": "db"}', 'AppTable') AS i;

-- posts_by_tag returns whole posts, which GSI3 does not hold; no pattern
-- reads comments or uses GSI2; reading the index's entries costs less than
-- reading the items (3 posts of 1-3.6 KB from the table would be 1.0 RCU)
SELECT kind, name, index_name, entities, read_per_call, returned_per_call, ok, findings FROM st_check_model('AppTable');
SELECT pattern, index_name, calls_per_second, read_units, on_demand_monthly, provisioned_monthly FROM st_model_cost('AppTable');
SELECT (SELECT sum(st_item_size(i)) FROM st_query('USER#u1', 'POST#', 'AppTable') AS i) AS post_bytes;

SELECT st_drop_table('AppTable');
