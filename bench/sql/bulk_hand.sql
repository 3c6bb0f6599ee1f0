-- One timed bulk load of the hand-made table (included by load.sql).
SELECT clock_timestamp() AS started \gset
INSERT INTO hand (pk, sk, item) SELECT item->'PK'->>'S', item->'SK'->>'S', item FROM items;
INSERT INTO bulk_times VALUES ('INSERT ... SELECT', extract(epoch FROM clock_timestamp() - :'started') * 1000,
                               (SELECT count(*) FROM hand));
