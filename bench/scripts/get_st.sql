\set c random(1, :customers)
\set o random(0, :orders_per)
SELECT st_get('CUST#' || :c, CASE WHEN :o = 0 THEN 'PROFILE' ELSE 'ORDER#2026-' || lpad(:o::text, 4, '0') END, 'Bench', typed => true);
