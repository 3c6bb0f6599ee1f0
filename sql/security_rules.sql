-- Rewrite rules on a table's relation apply to stdesign's writes as they
-- apply to the same statements written by hand: a write skips the executor
-- only when the statement would do nothing more (src/storage/row_write.c),
-- and a relation with rules gets the statement, which the rewriter rewrites.
SELECT st_create_table('Ruled') IS NOT NULL AS created;
CREATE TABLE rule_audit (n serial, op text, pk text, sk text, v text);

CREATE FUNCTION ruled_reset() RETURNS void LANGUAGE sql AS $$
  DELETE FROM rule_audit;
  SELECT st_put(jsonb_build_object('PK', 'a', 'SK', i::text, 'v', 'old'), 'Ruled')
    FROM generate_series(1, 9) AS i;
$$;
CREATE FUNCTION ruled_items() RETURNS TABLE (pk text, sk text, v text) LANGUAGE sql AS $$
  SELECT pk, sk, item #>> '{v,S}' FROM stdesign_data."Ruled" ORDER BY pk, sk
$$;
SELECT ruled_reset();

-- 1. ON DELETE DO INSTEAD NOTHING: no path deletes anything.
CREATE RULE keep AS ON DELETE TO stdesign_data."Ruled" DO INSTEAD NOTHING;
DELETE FROM stdesign_data."Ruled" WHERE pk = 'a' AND sk = '1';
SELECT st_delete('a', '2', 'Ruled');
SELECT st_delete('a', '3', 'Ruled', return_values => 'ALL_OLD');
SELECT st_delete('a', '4', 'Ruled', condition => 'attribute_exists(PK)');
SELECT st_batch_write('{"Ruled": [{"DeleteRequest": {"Key": {"PK": {"S": "a"}, "SK": {"S": "5"}}}}]}');
SELECT st_transact('[{"Delete": {"TableName": "Ruled", "Key": {"PK": {"S": "a"}, "SK": {"S": "6"}}}}]');
SELECT st_api('DeleteItem', '{"TableName": "Ruled", "Key": {"PK": {"S": "a"}, "SK": {"S": "7"}}}');
SELECT st_api('BatchWriteItem', '{"RequestItems": {"Ruled": [{"DeleteRequest": {"Key": {"PK": {"S": "a"}, "SK": {"S": "8"}}}}]}}');
SELECT st_api('TransactWriteItems', '{"TransactItems": [{"Delete": {"TableName": "Ruled", "Key": {"PK": {"S": "a"}, "SK": {"S": "9"}}}}]}');
SELECT * FROM ruled_items();
DROP RULE keep ON stdesign_data."Ruled";

-- 2. ON DELETE DO ALSO: every delete is audited, as the DELETE statement is.
CREATE RULE audit_delete AS ON DELETE TO stdesign_data."Ruled"
  DO ALSO INSERT INTO rule_audit (op, pk, sk, v) VALUES ('delete', old.pk, old.sk, old.item #>> '{v,S}');
DELETE FROM stdesign_data."Ruled" WHERE pk = 'a' AND sk = '1';
SELECT st_delete('a', '2', 'Ruled');
SELECT st_delete('a', '3', 'Ruled', return_values => 'ALL_OLD');
SELECT st_delete('a', '4', 'Ruled', condition => 'attribute_exists(PK)');
SELECT st_batch_write('{"Ruled": [{"DeleteRequest": {"Key": {"PK": {"S": "a"}, "SK": {"S": "5"}}}}]}');
SELECT st_transact('[{"Delete": {"TableName": "Ruled", "Key": {"PK": {"S": "a"}, "SK": {"S": "6"}}}}]');
SELECT st_api('DeleteItem', '{"TableName": "Ruled", "Key": {"PK": {"S": "a"}, "SK": {"S": "7"}}}');
SELECT st_api('BatchWriteItem', '{"RequestItems": {"Ruled": [{"DeleteRequest": {"Key": {"PK": {"S": "a"}, "SK": {"S": "8"}}}}]}}');
SELECT st_api('TransactWriteItems', '{"TransactItems": [{"Delete": {"TableName": "Ruled", "Key": {"PK": {"S": "a"}, "SK": {"S": "9"}}}}]}');
SELECT op, pk, sk, v FROM rule_audit ORDER BY n;
SELECT * FROM ruled_items();
DROP RULE audit_delete ON stdesign_data."Ruled";
SELECT ruled_reset();

-- 3. ON UPDATE DO INSTEAD NOTHING: no path changes an item.
CREATE RULE frozen AS ON UPDATE TO stdesign_data."Ruled" DO INSTEAD NOTHING;
UPDATE stdesign_data."Ruled" SET item = item || '{"v": {"S": "new"}}' WHERE pk = 'a' AND sk = '1';
SELECT st_update('a', '2', 'SET v = :v', 'Ruled', "values" => '{":v": "new"}', return_values => 'NONE');
SELECT st_update('a', '3', 'SET v = :v', 'Ruled', condition => 'attribute_exists(PK)',
                 "values" => '{":v": "new"}', return_values => 'NONE');
SELECT st_put('{"PK": "a", "SK": "4", "v": "new"}', 'Ruled', condition => 'attribute_exists(PK)');
SELECT st_transact('[{"Update": {"TableName": "Ruled", "Key": {"PK": {"S": "a"}, "SK": {"S": "5"}},
                      "UpdateExpression": "SET v = :v", "ExpressionAttributeValues": {":v": {"S": "new"}}}}]');
SELECT st_transact('[{"Put": {"TableName": "Ruled", "Item": {"PK": {"S": "a"}, "SK": {"S": "6"}, "v": {"S": "new"}},
                      "ConditionExpression": "attribute_exists(PK)"}}]');
SELECT st_api('UpdateItem', '{"TableName": "Ruled", "Key": {"PK": {"S": "a"}, "SK": {"S": "7"}},
                              "UpdateExpression": "SET v = :v", "ExpressionAttributeValues": {":v": {"S": "new"}}}');
SELECT st_api('PutItem', '{"TableName": "Ruled", "Item": {"PK": {"S": "a"}, "SK": {"S": "9"}, "v": {"S": "new"}},
                           "ConditionExpression": "attribute_exists(PK)"}');
-- Nothing was written, so no new item is returned (ALL_NEW is st_update's
-- default, UPDATED_NEW, UpdateItem's ReturnValues); ALL_OLD and
-- UPDATED_OLD return the item as it was, and still is.
SELECT st_update('a', '2', 'SET v = :v', 'Ruled', "values" => '{":v": "new"}');
SELECT st_update('a', '2', 'SET v = :v', 'Ruled', "values" => '{":v": "new"}', return_values => 'UPDATED_NEW');
SELECT st_update('a', '2', 'SET v = :v', 'Ruled', "values" => '{":v": "new"}', return_values => 'ALL_OLD');
SELECT st_update('a', '2', 'SET v = :v', 'Ruled', "values" => '{":v": "new"}', return_values => 'UPDATED_OLD');
SELECT st_api('UpdateItem', '{"TableName": "Ruled", "Key": {"PK": {"S": "a"}, "SK": {"S": "7"}},
                              "UpdateExpression": "SET v = :v", "ExpressionAttributeValues": {":v": {"S": "new"}},
                              "ReturnValues": "ALL_NEW"}');
SELECT * FROM ruled_items();
-- An upsert (INSERT ... ON CONFLICT) is refused on a relation with an
-- UPDATE (or INSERT) rule, by Postgres, whoever writes it: a Put without a
-- condition, BatchWriteItem's puts and st_put_all are upserts.
INSERT INTO stdesign_data."Ruled" (item) VALUES ('{"PK": {"S": "a"}, "SK": {"S": "8"}, "v": {"S": "new"}}')
  ON CONFLICT (stdesign.key_ix(pk), sk) DO UPDATE SET item = excluded.item;
SELECT st_put('{"PK": "a", "SK": "8", "v": "new"}', 'Ruled');
SELECT st_batch_write('{"Ruled": [{"PutRequest": {"Item": {"PK": {"S": "a"}, "SK": {"S": "8"}, "v": {"S": "new"}}}}]}');
SELECT st_put_all(jsonb_build_object('PK', 'a', 'SK', '8', 'v', 'new'), 'Ruled');
SELECT st_transact('[{"Put": {"TableName": "Ruled", "Item": {"PK": {"S": "a"}, "SK": {"S": "8"}, "v": {"S": "new"}}}}]');
DROP RULE frozen ON stdesign_data."Ruled";

-- 4. ON UPDATE DO ALSO: every replacement is audited.
CREATE RULE audit_update AS ON UPDATE TO stdesign_data."Ruled"
  DO ALSO INSERT INTO rule_audit (op, pk, sk, v) VALUES ('update', new.pk, new.sk, new.item #>> '{v,S}');
UPDATE stdesign_data."Ruled" SET item = item || '{"v": {"S": "new"}}' WHERE pk = 'a' AND sk = '1';
SELECT st_update('a', '2', 'SET v = :v', 'Ruled', "values" => '{":v": "new"}', return_values => 'NONE');
SELECT st_update('a', '3', 'SET v = :v', 'Ruled', condition => 'attribute_exists(PK)',
                 "values" => '{":v": "new"}', return_values => 'NONE');
SELECT st_put('{"PK": "a", "SK": "4", "v": "new"}', 'Ruled', condition => 'attribute_exists(PK)');
SELECT st_transact('[{"Update": {"TableName": "Ruled", "Key": {"PK": {"S": "a"}, "SK": {"S": "5"}},
                      "UpdateExpression": "SET v = :v", "ExpressionAttributeValues": {":v": {"S": "new"}}}}]');
SELECT st_transact('[{"Put": {"TableName": "Ruled", "Item": {"PK": {"S": "a"}, "SK": {"S": "6"}, "v": {"S": "new"}},
                      "ConditionExpression": "attribute_exists(PK)"}}]');
SELECT st_api('UpdateItem', '{"TableName": "Ruled", "Key": {"PK": {"S": "a"}, "SK": {"S": "7"}},
                              "UpdateExpression": "SET v = :v", "ExpressionAttributeValues": {":v": {"S": "new"}}}');
SELECT st_api('PutItem', '{"TableName": "Ruled", "Item": {"PK": {"S": "a"}, "SK": {"S": "9"}, "v": {"S": "new"}},
                           "ConditionExpression": "attribute_exists(PK)"}');
SELECT op, pk, sk, v FROM rule_audit ORDER BY n;
SELECT * FROM ruled_items();
DROP RULE audit_update ON stdesign_data."Ruled";
SELECT ruled_reset();

-- 5. ON INSERT DO INSTEAD NOTHING: a plain INSERT inserts nothing; every
-- stdesign write that may create an item is an INSERT ... ON CONFLICT,
-- which Postgres refuses on such a relation.
CREATE RULE no_insert AS ON INSERT TO stdesign_data."Ruled" DO INSTEAD NOTHING;
INSERT INTO stdesign_data."Ruled" (item) VALUES ('{"PK": {"S": "b"}, "SK": {"S": "1"}}');
SELECT st_put('{"PK": "b", "SK": "2"}', 'Ruled', condition => 'attribute_not_exists(PK)');
SELECT st_update('b', '3', 'SET v = :v', 'Ruled', "values" => '{":v": "new"}');
SELECT st_transact('[{"Put": {"TableName": "Ruled", "Item": {"PK": {"S": "b"}, "SK": {"S": "4"}},
                      "ConditionExpression": "attribute_not_exists(PK)"}}]');
-- Writes that replace or delete existing items are not INSERTs: they work.
SELECT st_update('a', '1', 'SET v = :v', 'Ruled', "values" => '{":v": "new"}', return_values => 'NONE');
SELECT st_delete('a', '2', 'Ruled');
SELECT * FROM ruled_items();
DROP RULE no_insert ON stdesign_data."Ruled";

-- Without rules the direct paths are back: everything still works.
SELECT st_delete('a', '3', 'Ruled');
SELECT st_put('{"PK": "b", "SK": "1", "v": "new"}', 'Ruled');
SELECT st_update('a', '4', 'SET v = :v', 'Ruled', "values" => '{":v": "newer"}', return_values => 'NONE');
SELECT * FROM ruled_items();

DROP FUNCTION ruled_reset();
DROP FUNCTION ruled_items();

-- 6. An inheritance child's rows are not the table's items.  The
-- statements a write runs when it cannot go direct (here because of DO
-- ALSO rules) name the relation with ONLY: a child row with the same ctid
-- or the same key as an item is never updated or deleted with it.
SELECT st_create_table('Inherited') IS NOT NULL AS created;
SELECT st_put(jsonb_build_object('PK', 'a', 'SK', i::text, 'v', 'old'), 'Inherited')
  FROM generate_series(1, 4) AS i;
CREATE TABLE inherited_child () INHERITS (stdesign_data."Inherited");
INSERT INTO inherited_child (pk, sk, item)
  SELECT pk, sk, jsonb_set(item, '{v,S}', '"child"') FROM ONLY stdesign_data."Inherited" ORDER BY ctid;
CREATE RULE audit_update AS ON UPDATE TO stdesign_data."Inherited"
  DO ALSO INSERT INTO rule_audit (op, pk, sk, v) VALUES ('update', new.pk, new.sk, new.item #>> '{v,S}');
CREATE RULE audit_delete AS ON DELETE TO stdesign_data."Inherited"
  DO ALSO INSERT INTO rule_audit (op, pk, sk, v) VALUES ('delete', old.pk, old.sk, old.item #>> '{v,S}');
DELETE FROM rule_audit;
-- the child's rows have the items' ctids and keys
SELECT tableoid::regclass AS relation, ctid, pk, sk, item #>> '{v,S}' AS v
  FROM stdesign_data."Inherited" ORDER BY sk, relation;
SELECT st_update('a', '1', 'SET v = :v', 'Inherited', "values" => '{":v": "new"}');
SELECT st_delete('a', '2', 'Inherited', condition => 'attribute_exists(PK)', return_values => 'ALL_OLD');
SELECT st_delete('a', '3', 'Inherited');
SELECT st_get('a', '4', 'Inherited');
SELECT op, pk, sk, v FROM rule_audit ORDER BY n;
SELECT tableoid::regclass AS relation, pk, sk, item #>> '{v,S}' AS v
  FROM stdesign_data."Inherited" ORDER BY sk, relation;
DROP TABLE inherited_child;
SELECT st_drop_table('Inherited');
DROP TABLE rule_audit;
SELECT st_drop_table('Ruled');
