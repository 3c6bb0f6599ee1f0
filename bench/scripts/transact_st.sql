\set s random(1, 1000000000)
\set k random(1, 1000)
SELECT st_transact(jsonb_build_array(
  jsonb_build_object('Put', jsonb_build_object('TableName', 'Bench', 'Item',
    jsonb_build_object('PK', jsonb_build_object('S', 'STUDENT#' || :s), 'SK', jsonb_build_object('S', 'COURSE#' || :k)))),
  jsonb_build_object('Put', jsonb_build_object('TableName', 'Bench', 'Item',
    jsonb_build_object('PK', jsonb_build_object('S', 'COURSE#' || :k), 'SK', jsonb_build_object('S', 'STUDENT#' || :s))))));
