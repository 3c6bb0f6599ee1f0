\set c random(1, :customers)
-- chr(58) is ':' (pgbench would read a colon-name inside the SQL as one of its variables)
SELECT st_api('Query', jsonb_build_object('TableName', 'Bench', 'KeyConditionExpression', 'PK = ' || chr(58) || 'pk',
              'ExpressionAttributeValues', jsonb_build_object(chr(58) || 'pk', jsonb_build_object('S', 'CUST#' || :c))));
