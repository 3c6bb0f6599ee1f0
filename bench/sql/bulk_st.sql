-- One timed bulk load through stdesign (included by load.sql).
SELECT clock_timestamp() AS started \gset
SELECT st_put_all(item, 'Bench', true) AS st_put_all_rows FROM items \gset
INSERT INTO bulk_times VALUES ('st_put_all', extract(epoch FROM clock_timestamp() - :'started') * 1000, :st_put_all_rows);
