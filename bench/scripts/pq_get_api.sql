\set c random(1, :customers)
SELECT st_api('GetItem', jsonb_build_object('TableName', 'Bench',
              'Key', jsonb_build_object('PK', jsonb_build_object('S', 'CUST#' || :c), 'SK', '{"S": "PROFILE"}'::jsonb)));
