\set c random(1, :customers)
SELECT st_update('CUST#' || :c, 'PROFILE', 'SET visits = if_not_exists(visits, ' || chr(58) || 'z) + ' || chr(58) || 'one',
                 'Bench', condition => 'attribute_exists(PK)',
                 "values" => jsonb_build_object(chr(58) || 'z', '{"N": "0"}'::jsonb, chr(58) || 'one', '{"N": "1"}'::jsonb),
                 return_values => 'NONE', typed => true);
