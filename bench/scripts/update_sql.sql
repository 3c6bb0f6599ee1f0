\set c random(1, :customers)
UPDATE hand SET item = jsonb_set(item, '{visits}',
                                 jsonb_build_object('N', (coalesce((item #>> '{visits,N}')::numeric, 0) + 1)::text))
 WHERE pk = 'CUST#' || :c AND sk = 'PROFILE';
