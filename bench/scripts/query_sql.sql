\set c random(1, :customers)
SELECT item FROM hand WHERE pk = 'CUST#' || :c AND sk >= 'ORDER#' AND sk < 'ORDER$' ORDER BY sk;
