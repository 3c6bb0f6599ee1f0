-- A user trigger on a table calling st_* on that same table, after an
-- invalidation of its relation (ANALYZE, GRANT): the nested call loads a new
-- definition of the table, and the outer call's definition and the plans it
-- is executing stay where they are until it is done (before, the nested
-- call freed them under it: a use after free that valgrind reports, and a
-- crash when the memory was reused).  Every write path is the outer call
-- once: st_put, st_update, st_transact, st_batch_write, st_put_all.
-- A crash would empty the unlogged sentinel (crash recovery).
CREATE UNLOGGED TABLE crash_sentinel (alive text);
INSERT INTO crash_sentinel VALUES ('before');
CREATE ROLE regress_nest_user;
SELECT st_create_table('Nest') ->> 'TableName' AS created;
CREATE TABLE nest_log (what text, seen jsonb);
CREATE FUNCTION nest_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF NEW.item ? 'analyze_it' THEN
		EXECUTE 'ANALYZE stdesign_data."Nest"';
	END IF;
	IF NEW.item ? 'grant_it' THEN
		EXECUTE 'GRANT SELECT ON stdesign_data."Nest" TO regress_nest_user';
	END IF;
	IF NEW.sk <> 'side' THEN
		INSERT INTO nest_log VALUES (NEW.sk, st_get(NEW.pk, NEW.sk, 'Nest'));
		PERFORM st_put(jsonb_build_object('PK', NEW.pk, 'SK', 'side', 'from', NEW.sk), 'Nest');
		INSERT INTO nest_log SELECT NEW.sk || ' query', jsonb_agg(q ->> 'SK') FROM st_query(NEW.pk, "table" => 'Nest') AS q;
	END IF;
	RETURN NULL;
END $$;
CREATE TRIGGER nest AFTER INSERT OR UPDATE ON stdesign_data."Nest" FOR EACH ROW EXECUTE FUNCTION nest_trigger();
-- How many definitions were replaced while an outer call held them: each
-- write below must add some (else it would not test what it says).
CREATE FUNCTION kept() RETURNS bigint LANGUAGE sql AS $$
	SELECT (stdesign.cache_stats() ->> 'definitions_kept_in_use')::bigint $$;
SELECT kept() AS kept \gset
SELECT st_put('{"PK": "n", "SK": "1", "analyze_it": true}', 'Nest');
SELECT kept() > :kept AS kept_in_use, kept() AS kept \gset
\echo kept in use: :kept_in_use
SELECT st_update('n', '1', 'SET grant_it = :t', 'Nest', "values" => '{":t": true}');
SELECT kept() > :kept AS kept_in_use, kept() AS kept \gset
\echo kept in use: :kept_in_use
SELECT st_put('{"PK": "n", "SK": "2", "analyze_it": true}', 'Nest', return_values => 'ALL_OLD');
SELECT kept() > :kept AS kept_in_use, kept() AS kept \gset
\echo kept in use: :kept_in_use
SELECT st_transact('[{"Put": {"TableName": "Nest", "Item": {"PK": {"S": "n"}, "SK": {"S": "3"}, "analyze_it": {"BOOL": true}}}},
                     {"Update": {"TableName": "Nest", "Key": {"PK": {"S": "n"}, "SK": {"S": "2"}},
                                 "UpdateExpression": "SET grant_it = :t", "ExpressionAttributeValues": {":t": {"BOOL": true}}}}]');
SELECT kept() > :kept AS kept_in_use, kept() AS kept \gset
\echo kept in use: :kept_in_use
SELECT st_batch_write('{"Nest": [{"PutRequest": {"Item": {"PK": {"S": "n"}, "SK": {"S": "4"}, "analyze_it": {"BOOL": true}}}},
                                 {"PutRequest": {"Item": {"PK": {"S": "n"}, "SK": {"S": "5"}, "grant_it": {"BOOL": true}}}}]}');
SELECT kept() > :kept AS kept_in_use, kept() AS kept \gset
\echo kept in use: :kept_in_use
SELECT st_put_all(jsonb_build_object('PK', 'n', 'SK', '6' || i, 'analyze_it', true), 'Nest') AS loaded
  FROM generate_series(1, 3) AS i;
SELECT kept() > :kept AS kept_in_use, kept() AS kept \gset
\echo kept in use: :kept_in_use
SELECT what, seen FROM nest_log ORDER BY what, seen::text;
SELECT sk, item ? 'analyze_it' AS analyzed, item ? 'grant_it' AS granted, item #>> '{from,S}' AS side_from
  FROM stdesign_data."Nest" ORDER BY sk;
DROP TRIGGER nest ON stdesign_data."Nest";
DROP FUNCTION nest_trigger();
DROP TABLE nest_log;
DROP FUNCTION kept();
SELECT st_drop_table('Nest');
DROP ROLE regress_nest_user;
SELECT alive FROM crash_sentinel;
DROP TABLE crash_sentinel;
