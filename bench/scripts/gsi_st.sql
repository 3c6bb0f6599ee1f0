\set g random(0, 499)
SELECT * FROM st_query('STATUS#pending#' || :g, "table" => 'Bench', index => 'GSI1', "limit" => 20, typed => true);
