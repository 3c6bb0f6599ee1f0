-- The seeds' composite sort keys: REGION#COUNTRY#STATE#CITY, queried at
-- each level of the hierarchy by prefix.

SELECT st_create_table('SalesTable') ->> 'TableName' AS created;

SELECT st_put(item::jsonb) FROM (VALUES
  ('{"PK": "SALES#2026", "SK": "NA#US#CA#SanFrancisco", "revenue": 50000, "units": 120}'),
  ('{"PK": "SALES#2026", "SK": "NA#US#CA#LosAngeles", "revenue": 75000, "units": 200}'),
  ('{"PK": "SALES#2026", "SK": "NA#US#NY#NewYork", "revenue": 120000, "units": 350}'),
  ('{"PK": "SALES#2026", "SK": "EU#DE#BY#Munich", "revenue": 45000, "units": 90}'),
  ('{"PK": "SALES#2026", "SK": "NA#CA#ON#Toronto", "revenue": 30000, "units": 70}'),
  ('{"PK": "SALES#2025", "SK": "NA#US#CA#SanFrancisco", "revenue": 1, "units": 1}')
) AS v(item);

-- Whole partition, in byte order of the sort key.
SELECT item->>'SK' AS sk FROM st_query('SALES#2026') AS item;
-- Region.
SELECT item->>'SK' AS sk, item->'revenue' AS revenue FROM st_query('SALES#2026', 'NA#') AS item;
-- Country.
SELECT item->>'SK' AS sk FROM st_query('SALES#2026', 'NA#US#') AS item;
-- State.
SELECT item->>'SK' AS sk FROM st_query('SALES#2026', 'NA#US#CA#') AS item;
-- City: exact.
SELECT item->>'SK' AS sk FROM st_query('SALES#2026', 'NA#US#CA#LosAngeles') AS item;
-- A prefix that matches nothing.
SELECT count(*) FROM st_query('SALES#2026', 'SA#');
-- Sum of revenue per level, in SQL over the query.
SELECT sum((item->>'revenue')::numeric) AS na_revenue FROM st_query('SALES#2026', 'NA#') AS item;

SELECT st_drop_table('SalesTable');
