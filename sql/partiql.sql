-- PartiQL for DynamoDB: ExecuteStatement's statements through st_partiql and
-- st_api, how they are planned (GetItem, Query in key order, Scan), pages
-- and NextToken.

SELECT st_create_table('Music', 'Artist', 'SongTitle') IS NOT NULL AS created;
SELECT st_create_gsi('Music', 'ByYear', 'Year', 'SongTitle', pk_type => 'N') IS NOT NULL AS gsi;

-- INSERT: literals of every kind, and ? parameters (plain values here).
SELECT * FROM st_partiql($$INSERT INTO "Music" VALUE {'Artist': 'Acme Band', 'SongTitle': 'Happy Day',
    'Year': 2019, 'Price': 1.99, 'Genres': <<'pop', 'rock'>>, 'Ratings': <<5, 4>>,
    'Awards': ['Grammy', 2020, true, null], 'Details': {'Length': 201, 'Live': false}}$$);
SELECT * FROM st_partiql($$INSERT INTO "Music" VALUE {'Artist': ?, 'SongTitle': ?, 'Year': ?, 'Price': ?}$$,
                         '["Acme Band", "Blue Sky", 2021, 0.99]');
SELECT * FROM st_partiql($$insert into Music value {'Artist': 'Acme Band', 'SongTitle': 'Calm Sea', 'Year': 2019}$$);
SELECT * FROM st_partiql($$INSERT INTO "Music" VALUE {'Artist': 'Zed', 'SongTitle': 'Alpha', 'Year': 2021, 'Tags': ?}$$,
                         '[{"SS": ["a", "b"]}]', typed => true);
SELECT * FROM st_partiql($$INSERT INTO "Music" VALUE {'Artist': 'Zed', 'SongTitle': 'Beta'}$$);
SELECT st_partiql($$INSERT INTO "Music" VALUE {'Artist': 'Zed', 'SongTitle': 'Beta'}$$);

-- SELECT *, whole key: a GetItem.
SELECT * FROM st_partiql($$SELECT * FROM "Music" WHERE Artist = 'Acme Band' AND SongTitle = 'Happy Day'$$);
SELECT * FROM st_partiql($$SELECT * FROM "Music" WHERE "Artist" = ? AND "SongTitle" = ?$$,
                         '[{"S": "Zed"}, {"S": "Alpha"}]', typed => true);
-- a miss, and a key value of another type: no item
SELECT count(*) FROM st_partiql($$SELECT * FROM "Music" WHERE Artist = 'Zed' AND SongTitle = 'Gamma'$$);
SELECT count(*) FROM st_partiql($$SELECT * FROM "Music" WHERE Artist = 7 AND SongTitle = 'Alpha'$$);

-- The partition key: a Query, in sort-key order; ORDER BY the sort key.
SELECT item->>'SongTitle' AS title FROM st_partiql($$SELECT * FROM "Music" WHERE Artist = 'Acme Band'$$) AS item;
SELECT item->>'SongTitle' AS title FROM st_partiql($$SELECT * FROM "Music" WHERE Artist = 'Acme Band' ORDER BY SongTitle DESC$$) AS item;
SELECT item->>'SongTitle' AS title FROM st_partiql($$SELECT * FROM "Music" WHERE Artist = 'Acme Band' ORDER BY "SongTitle" ASC$$) AS item;
-- sort-key conditions narrow the range; more than one, and other conditions, filter
SELECT item->>'SongTitle' AS title FROM st_partiql($$SELECT * FROM "Music" WHERE Artist = 'Acme Band' AND SongTitle > 'B'$$) AS item;
SELECT item->>'SongTitle' AS title FROM st_partiql($$SELECT * FROM "Music" WHERE 'Acme Band' = Artist AND 'C' > SongTitle$$) AS item;
SELECT item->>'SongTitle' AS title FROM st_partiql($$SELECT * FROM "Music" WHERE Artist = 'Acme Band' AND SongTitle BETWEEN 'Blue' AND 'Happy Day'$$) AS item;
SELECT item->>'SongTitle' AS title FROM st_partiql($$SELECT * FROM "Music" WHERE Artist = 'Acme Band' AND begins_with(SongTitle, 'Ca')$$) AS item;
SELECT item->>'SongTitle' AS title FROM st_partiql($$SELECT * FROM "Music" WHERE Artist = 'Acme Band' AND SongTitle >= 'B' AND SongTitle < 'H'$$) AS item;
SELECT item->>'SongTitle' AS title FROM st_partiql($$SELECT * FROM "Music" WHERE Artist = 'Acme Band' AND (SongTitle = 'Calm Sea' OR Year = 2021)$$) AS item;
SELECT count(*) AS reversed_between FROM st_partiql($$SELECT * FROM "Music" WHERE Artist = 'Acme Band' AND SongTitle BETWEEN 'Z' AND 'A'$$);
-- IN on the partition key: one Query per partition, in the list's order
SELECT item->>'Artist' AS artist, item->>'SongTitle' AS title
  FROM st_partiql($$SELECT * FROM "Music" WHERE Artist IN ['Zed', 'Acme Band', 'Zed', 'Nobody']$$) AS item;
SELECT item FROM st_partiql($$SELECT Artist, SongTitle FROM "Music" WHERE Artist IN (?, ?) AND Year = 2021$$, '["Acme Band", "Zed"]') AS item;

-- Anything else: a Scan (table key order) with the WHERE as its filter.
SELECT item->>'SongTitle' AS title FROM st_partiql($$SELECT * FROM "Music" WHERE Year = 2019$$) AS item;
SELECT item->>'SongTitle' AS title FROM st_partiql($$SELECT * FROM "Music" WHERE Artist = 'Zed' OR Price < 1$$) AS item;
SELECT count(*) AS everything FROM st_partiql($$SELECT * FROM "Music"$$);

-- Operators and functions.
SELECT item->>'SongTitle' AS title FROM st_partiql($$SELECT * FROM "Music" WHERE Price <> 1.99$$) AS item;
SELECT item->>'SongTitle' AS title FROM st_partiql($$SELECT * FROM "Music" WHERE Price IS MISSING$$) AS item;
SELECT item->>'SongTitle' AS title FROM st_partiql($$SELECT * FROM "Music" WHERE Price IS NOT MISSING AND NOT Year = 2019$$) AS item;
SELECT item->>'SongTitle' AS title FROM st_partiql($$SELECT * FROM "Music" WHERE Awards[3] IS NULL$$) AS item;
SELECT item->>'SongTitle' AS title FROM st_partiql($$SELECT * FROM "Music" WHERE Awards[0] IS NOT NULL$$) AS item;
SELECT item->>'SongTitle' AS title FROM st_partiql($$SELECT * FROM "Music" WHERE contains(Genres, 'rock') AND size(Ratings) = 2$$) AS item;
SELECT item->>'SongTitle' AS title FROM st_partiql($$SELECT * FROM "Music" WHERE attribute_type(Tags, 'SS') OR attribute_exists(Details.Length)$$) AS item;
SELECT item->>'SongTitle' AS title FROM st_partiql($$SELECT * FROM "Music" WHERE attribute_not_exists(Year)$$) AS item;
SELECT item->>'SongTitle' AS title FROM st_partiql($$SELECT * FROM "Music" WHERE Year IN [2020, 2021] AND Details.Live <> true$$) AS item;
SELECT item->>'SongTitle' AS title FROM st_partiql($$SELECT * FROM "Music" WHERE Year NOT IN [2019] AND Year BETWEEN 2000 AND 2030$$) AS item;
SELECT item->>'SongTitle' AS title FROM st_partiql($$SELECT * FROM "Music" WHERE Details."Length" > 200 AND Details['Live'] = false$$) AS item;
-- a double-quoted name is an attribute, a single-quoted one a string; keywords in any case
SELECT count(*) FROM st_partiql($$select * from "Music" where "Artist" = "SongTitle"$$);
SELECT count(*) FROM st_partiql($$SeLeCt * FrOm "Music" WhErE Artist = 'Zed'$$);
-- identifiers are case-sensitive: artist is not Artist
SELECT count(*) FROM st_partiql($$SELECT * FROM "Music" WHERE artist = 'Zed'$$);

-- Projections: top-level and nested paths.
SELECT item FROM st_partiql($$SELECT SongTitle, Details.Length, Awards[1], Nope FROM "Music" WHERE Artist = 'Acme Band' AND SongTitle = 'Happy Day'$$) AS item;

-- A secondary index: FROM "Table"."Index".
SELECT item->>'SongTitle' AS title FROM st_partiql($$SELECT * FROM "Music"."ByYear" WHERE "Year" = 2019$$) AS item;
SELECT item->>'SongTitle' AS title FROM st_partiql($$SELECT SongTitle FROM "Music"."ByYear" WHERE "Year" = 2019 AND SongTitle = 'Calm Sea'$$) AS item;
SELECT item->>'SongTitle' AS title FROM st_partiql($$SELECT * FROM "Music"."ByYear" WHERE "Year" = 2021 ORDER BY SongTitle DESC$$) AS item;
SELECT count(*) AS in_index FROM st_partiql($$SELECT * FROM "Music"."ByYear"$$);
-- an index that projects only keys returns (and filters on) only what it holds
SELECT st_create_gsi('Music', 'ByPrice', 'Price', NULL, pk_type => 'N', projection => 'KEYS_ONLY') IS NOT NULL AS gsi;
SELECT item FROM st_partiql($$SELECT * FROM "Music"."ByPrice" WHERE Price = 1.99$$) AS item;
SELECT count(*) AS not_projected FROM st_partiql($$SELECT * FROM "Music"."ByPrice" WHERE Price = 1.99 AND Year = 2019$$);
SELECT item FROM st_partiql($$SELECT * FROM "Music"."ByPrice" WHERE Artist = 'Acme Band'$$) AS item;

-- UPDATE: SET and REMOVE, arithmetic, list_append, set_add, set_delete,
-- nested paths, RETURNING each kind.
SELECT * FROM st_partiql($$UPDATE "Music" SET Price = Price + 1 SET Awards = list_append(Awards, ['Emmy'])
    WHERE Artist = 'Acme Band' AND SongTitle = 'Happy Day' RETURNING MODIFIED NEW *$$);
SELECT * FROM st_partiql($$UPDATE "Music" SET Genres = set_add(Genres, <<'jazz'>>), Details.Length = 180
    REMOVE Ratings WHERE Artist = 'Acme Band' AND SongTitle = 'Happy Day' RETURNING MODIFIED OLD *$$);
SELECT * FROM st_partiql($$UPDATE "Music" SET Genres = set_delete(Genres, <<'pop'>>)
    WHERE Artist = 'Acme Band' AND SongTitle = 'Happy Day' RETURNING ALL NEW *$$);
SELECT * FROM st_partiql($$UPDATE "Music" SET Year = ? WHERE Artist = ? AND SongTitle = ? AND Year = ? RETURNING ALL OLD *$$,
                         '[2022, "Acme Band", "Blue Sky", 2021]');
SELECT * FROM st_partiql($$UPDATE "Music" REMOVE Nothing WHERE Artist = 'Acme Band' AND SongTitle = 'Blue Sky' RETURNING MODIFIED NEW *$$);
SELECT * FROM st_partiql($$UPDATE "Music" SET Plays = if_not_exists(Plays, 0) + 1 WHERE Artist = 'Zed' AND SongTitle = 'Beta' RETURNING ALL NEW *$$);
SELECT * FROM st_partiql($$UPDATE "Music" SET Price = 5 WHERE Artist = 'Zed' AND SongTitle = 'Beta'$$);
-- the item must exist; extra conditions must hold
SELECT st_partiql($$UPDATE "Music" SET Price = 5 WHERE Artist = 'Zed' AND SongTitle = 'Nope'$$);
SELECT st_partiql($$UPDATE "Music" SET Price = 6 WHERE Artist = 'Zed' AND SongTitle = 'Beta' AND Price > 10$$);
SELECT item->'Price' AS price FROM st_partiql($$SELECT Price FROM "Music" WHERE Artist = 'Zed' AND SongTitle = 'Beta'$$) AS item;

-- DELETE: a missing item is no error; conditions must hold; RETURNING ALL OLD *.
SELECT * FROM st_partiql($$DELETE FROM "Music" WHERE Artist = 'Zed' AND SongTitle = 'Nope'$$);
SELECT st_partiql($$DELETE FROM "Music" WHERE Artist = 'Zed' AND SongTitle = 'Beta' AND Price = 1$$);
SELECT * FROM st_partiql($$DELETE FROM "Music" WHERE Artist = 'Zed' AND SongTitle = 'Beta' AND Price = 5 RETURNING ALL OLD *$$);
SELECT count(*) FROM st_partiql($$SELECT * FROM "Music" WHERE Artist = 'Zed'$$);

-- st_api('ExecuteStatement'): typed Parameters, Items typed, capacity.
SELECT st_api('ExecuteStatement', '{"Statement": "SELECT SongTitle FROM \"Music\" WHERE Artist = ?",
  "Parameters": [{"S": "Acme Band"}], "ReturnConsumedCapacity": "TOTAL"}');
SELECT st_api('ExecuteStatement', '{"Statement": "INSERT INTO \"Music\" VALUE {''Artist'': ''Zed'', ''SongTitle'': ?}",
  "Parameters": [{"S": "Delta"}], "ReturnConsumedCapacity": "TOTAL"}');
SELECT st_api('ExecuteStatement', '{"Statement": "UPDATE \"Music\" SET Plays = ? WHERE Artist = ''Zed'' AND SongTitle = ''Delta'' RETURNING ALL NEW *",
  "Parameters": [{"N": "3"}]}');
SELECT st_api('ExecuteStatement', '{"Statement": "DELETE FROM \"Music\" WHERE Artist = ''Zed'' AND SongTitle = ''Delta''"}');
SELECT st_api('ExecuteStatement', '{"Statement": "SELECT * FROM \"Music\" WHERE Artist = ''Zed'' AND SongTitle = ''Alpha''", "ConsistentRead": true}');

-- Pages: Limit items read per page, NextToken resumes exactly, across the
-- partitions of an IN list too.
SELECT st_create_table('Pages', 'pk', 'sk', sk_type => 'N') IS NOT NULL AS created;
SELECT count(*) AS inserted FROM generate_series(1, 25) AS i
 WHERE NOT EXISTS (SELECT FROM st_partiql($$INSERT INTO "Pages" VALUE {'pk': ?, 'sk': ?, 'odd': ?}$$,
                                          jsonb_build_array('p' || (i % 3), i, i % 2 = 1)));
CREATE FUNCTION pages(statement text, page_limit int) RETURNS TABLE (page int, items text, last_key jsonb)
LANGUAGE plpgsql AS $$
DECLARE
	req jsonb := jsonb_build_object('Statement', statement, 'Limit', page_limit);
	res jsonb;
	n int := 0;
BEGIN
	LOOP
		res := st_api('ExecuteStatement', req);
		n := n + 1;
		page := n;
		SELECT string_agg(i->'pk'->>'S' || ':' || (i->'sk'->>'N'), ' ') INTO items
		  FROM jsonb_array_elements(res->'Items') AS i;
		last_key := res->'LastEvaluatedKey';
		RETURN NEXT;
		EXIT WHEN res->'NextToken' IS NULL OR n > 50;
		req := req || jsonb_build_object('NextToken', res->'NextToken');
	END LOOP;
END $$;
SELECT * FROM pages('SELECT * FROM "Pages" WHERE pk = ''p1''', 3);
SELECT * FROM pages('SELECT * FROM "Pages" WHERE pk IN [''p2'', ''p0''] AND sk > 10 ORDER BY sk DESC', 4);
SELECT * FROM pages('SELECT * FROM "Pages" WHERE odd = true', 7);
-- every page together is the whole answer, each item once
SELECT count(*) AS items, count(DISTINCT x) AS distinct_items
  FROM pages('SELECT * FROM "Pages"', 2) AS p, regexp_split_to_table(p.items, ' ') AS x;
-- a page ends at 1 MB as well: 30 items of 100 KB
SELECT count(*) AS inserted FROM generate_series(1, 30) AS i
 WHERE NOT EXISTS (SELECT FROM st_partiql($$INSERT INTO "Pages" VALUE {'pk': 'big', 'sk': ?, 'blob': ?}$$,
                                          jsonb_build_array(i, repeat('x', 100000))));
SELECT jsonb_array_length(r->'Items') AS first_page, r->'LastEvaluatedKey' AS last_key
  FROM st_api('ExecuteStatement', '{"Statement": "SELECT * FROM \"Pages\" WHERE pk = ''big''"}') AS r;
SELECT count(*) AS all_pages FROM st_partiql($$SELECT sk FROM "Pages" WHERE pk = 'big'$$);

-- NextToken is checked: altered, truncated, from another statement, not a token.
SELECT st_api('ExecuteStatement', '{"Statement": "SELECT * FROM \"Pages\" WHERE pk = ''p1''", "Limit": 2}') ->> 'NextToken' AS token \gset
SELECT length(:'token') > 40 AS opaque;
SELECT jsonb_array_length(st_api('ExecuteStatement', jsonb_build_object('Statement', 'SELECT * FROM "Pages" WHERE pk = ''p1''',
  'Limit', 2, 'NextToken', :'token')) -> 'Items') AS resumed;
SELECT st_api('ExecuteStatement', jsonb_build_object('Statement', 'SELECT * FROM "Pages" WHERE pk = ''p1''',
  'NextToken', overlay(:'token' placing (CASE WHEN substr(:'token', 40, 1) = 'A' THEN 'B' ELSE 'A' END) from 40 for 1)));
SELECT st_api('ExecuteStatement', jsonb_build_object('Statement', 'SELECT * FROM "Pages" WHERE pk = ''p1''',
  'NextToken', left(:'token', 50)));
SELECT st_api('ExecuteStatement', jsonb_build_object('Statement', 'SELECT * FROM "Pages" WHERE pk = ''p2''',
  'NextToken', :'token'));
SELECT st_api('ExecuteStatement', '{"Statement": "SELECT * FROM \"Pages\"", "NextToken": "garbage"}');

-- The planning rule, seen in the relation's statistics: a key query reads
-- through the key's btree (index scans, no sequential scan).
BEGIN;
CREATE TEMP TABLE before AS
  SELECT seq_scan, idx_scan FROM pg_stat_xact_user_tables WHERE relname = 'Pages';
SELECT count(*) FROM st_partiql($$SELECT * FROM "Pages" WHERE pk = 'p1' AND sk BETWEEN 4 AND 10$$);
SELECT count(*) FROM st_partiql($$SELECT * FROM "Pages" WHERE pk = 'p1' AND sk = 4$$);
SELECT count(*) FROM st_partiql($$SELECT * FROM "Pages" WHERE pk IN ['p1', 'p2']$$);
SELECT a.seq_scan - b.seq_scan AS seq_scans, a.idx_scan - b.idx_scan >= 4 AS index_scans
  FROM pg_stat_xact_user_tables AS a, before AS b WHERE a.relname = 'Pages';
ROLLBACK;

-- Parsed statements are cached: running one again parses nothing.
SELECT count(*) FROM st_partiql($$SELECT * FROM "Pages" WHERE pk = ?$$, '["p1"]');
SELECT (stdesign.cache_stats() ->> 'partiql_parses')::int AS parses \gset
SELECT count(*) FROM st_partiql($$SELECT * FROM "Pages" WHERE pk = ?$$, '["p2"]');
SELECT (stdesign.cache_stats() ->> 'partiql_parses')::int - :parses AS parsed_again;

-- The cache is bounded: after 1,500 distinct statements it is one context
-- of bounded size (it starts again after 512 parses).
SELECT count(*) AS matches FROM generate_series(1, 1500) AS i,
  LATERAL st_partiql(format($$SELECT * FROM "Pages" WHERE pk = 'q%s'$$, i)) AS r;
SELECT count(*) AS caches, max(total_bytes) < 4 * 1024 * 1024 AS bounded
  FROM pg_backend_memory_contexts WHERE name = 'stdesign PartiQL cache';

DROP FUNCTION pages(text, int);
SELECT st_drop_table('Music');
SELECT st_drop_table('Pages');
