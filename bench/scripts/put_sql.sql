\set n random(1, 1000000000)
INSERT INTO hand (pk, sk, item)
VALUES ('NEW#' || :n, 'ITEM', jsonb_build_object('PK', jsonb_build_object('S', 'NEW#' || :n), 'SK', jsonb_build_object('S', 'ITEM'),
                                                 'v', jsonb_build_object('N', :n::text), 'entity_type', '{"S": "New"}'::jsonb))
ON CONFLICT (pk, sk) DO UPDATE SET item = excluded.item;
