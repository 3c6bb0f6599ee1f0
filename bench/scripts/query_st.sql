\set c random(1, :customers)
SELECT * FROM st_query('CUST#' || :c, 'ORDER#', 'Bench', typed => true);
