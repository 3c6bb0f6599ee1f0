\set c random(1, :customers)
SELECT st_api('ExecuteStatement', jsonb_build_object('Statement', 'SELECT * FROM "Bench" WHERE PK = ? AND SK = ?',
              'Parameters', jsonb_build_array(jsonb_build_object('S', 'CUST#' || :c), '{"S": "PROFILE"}'::jsonb)));
