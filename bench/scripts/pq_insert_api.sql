\set n random(1, 1000000000000000)
SELECT st_api('PutItem', jsonb_build_object('TableName', 'Bench',
              'Item', jsonb_build_object('PK', jsonb_build_object('S', 'NEW#' || :n), 'SK', '{"S": "ITEM"}'::jsonb,
                                         'v', jsonb_build_object('N', :n::text), 'entity_type', '{"S": "New"}'::jsonb),
              'ConditionExpression', 'attribute_not_exists(PK)'));
