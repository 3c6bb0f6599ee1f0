\set s random(1, 1000000000)
\set k random(1, 1000)
BEGIN;
INSERT INTO hand VALUES ('STUDENT#' || :s, 'COURSE#' || :k,
  jsonb_build_object('PK', jsonb_build_object('S', 'STUDENT#' || :s), 'SK', jsonb_build_object('S', 'COURSE#' || :k)))
  ON CONFLICT (pk, sk) DO UPDATE SET item = excluded.item;
INSERT INTO hand VALUES ('COURSE#' || :k, 'STUDENT#' || :s,
  jsonb_build_object('PK', jsonb_build_object('S', 'COURSE#' || :k), 'SK', jsonb_build_object('S', 'STUDENT#' || :s)))
  ON CONFLICT (pk, sk) DO UPDATE SET item = excluded.item;
COMMIT;
