-- TransactWriteItems holds the key of a missing item without writing a row
-- (src/ops/transact.c): a ConditionCheck or a Delete of a missing item
-- writes nothing, so no trigger fires, no INSERT privilege or row-security
-- policy is involved, and logical decoding sees nothing (checked by
-- test/t/002_tableam_recovery.pl).  The key is held by a lock of the
-- transaction until it ends.
SELECT st_create_table('TxHold') IS NOT NULL AS created;
SELECT st_put('{"PK": "have", "SK": "it", "owner": "regress_tx_deleter", "v": 1}', 'TxHold');
CREATE FUNCTION tx_request(action text, sk text, cond text DEFAULT NULL) RETURNS jsonb LANGUAGE sql AS $$
  SELECT jsonb_strip_nulls(jsonb_build_object(action, jsonb_build_object('TableName', 'TxHold',
    CASE action WHEN 'Put' THEN 'Item' ELSE 'Key' END,
    jsonb_build_object('PK', jsonb_build_object('S', CASE WHEN sk = 'it' THEN 'have' ELSE 'miss' END),
                       'SK', jsonb_build_object('S', sk))
      || CASE WHEN action = 'Put' THEN '{"owner": {"S": "regress_tx_deleter"}}'::jsonb ELSE '{}' END,
    'ConditionExpression', cond,
    'UpdateExpression', CASE action WHEN 'Update' THEN 'SET v = :one' END,
    'ExpressionAttributeValues', CASE action WHEN 'Update' THEN '{":one": {"N": "1"}}'::jsonb END)))
$$;

-- Triggers see what is written, and only that.
CREATE TABLE tx_seen (n serial, op text, level text, sk text, v text);
CREATE FUNCTION tx_seen_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO tx_seen (op, level, sk, v)
    SELECT TG_OP, 'row', r.sk, r.item #>> '{v,N}'
      FROM (SELECT (CASE WHEN TG_OP = 'DELETE' THEN OLD ELSE NEW END).*) AS r;
  RETURN NULL;
END $$;
CREATE FUNCTION tx_seen_statement() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO tx_seen (op, level) VALUES (TG_OP, 'statement');
  RETURN NULL;
END $$;
CREATE TRIGGER seen_row AFTER INSERT OR UPDATE OR DELETE ON stdesign_data."TxHold"
  FOR EACH ROW EXECUTE FUNCTION tx_seen_row();
CREATE TRIGGER seen_statement AFTER INSERT OR UPDATE OR DELETE ON stdesign_data."TxHold"
  FOR EACH STATEMENT EXECUTE FUNCTION tx_seen_statement();

-- A ConditionCheck and a Delete of missing items, a ConditionCheck of an
-- existing one: nothing is written, no trigger fires.
SELECT st_transact(jsonb_build_array(tx_request('ConditionCheck', 'a', 'attribute_not_exists(PK)'),
                                     tx_request('Delete', 'b'),
                                     tx_request('ConditionCheck', 'it', 'attribute_exists(PK)')));
SELECT st_api('TransactWriteItems', jsonb_build_object('TransactItems',
  jsonb_build_array(tx_request('ConditionCheck', 'a', 'attribute_not_exists(PK)'), tx_request('Delete', 'b')),
  'ReturnConsumedCapacity', 'TOTAL'));
SELECT op, level, sk, v FROM tx_seen ORDER BY n;
-- A Put and an Update of missing items: each one INSERT of the whole item.
SELECT st_transact(jsonb_build_array(tx_request('Put', 'c', 'attribute_not_exists(PK)'),
                                     tx_request('Update', 'd')));
SELECT op, level, sk, v FROM tx_seen ORDER BY n;
SELECT pk, sk, st_to_plain(item) AS item FROM stdesign_data."TxHold" ORDER BY pk, sk;
DELETE FROM tx_seen;

-- The held keys: advisory locks of the transaction (objsubid 21332, the
-- relation as classid), and one flag per relation (21333).  A Put's key is
-- let go once the item is inserted (its index entry holds it).
BEGIN;
SELECT st_transact(jsonb_build_array(tx_request('ConditionCheck', 'a', 'attribute_not_exists(PK)'),
                                     tx_request('Delete', 'b'), tx_request('Put', 'e')));
SELECT objsubid, count(*), bool_and(classid = 'stdesign_data."TxHold"'::regclass::oid) AS on_the_table,
       bool_and(mode = CASE objsubid WHEN 21332 THEN 'ExclusiveLock' ELSE 'ShareLock' END) AS mode
  FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() GROUP BY objsubid ORDER BY objsubid;
-- The transaction itself may still write the keys it holds.
SELECT st_put('{"PK": "miss", "SK": "a", "v": 7}', 'TxHold');
SELECT st_get('miss', 'a', 'TxHold');
COMMIT;
SELECT count(*) AS advisory_locks_after_commit FROM pg_locks WHERE locktype = 'advisory';
-- Written: the Put and the st_put, each an INSERT ... ON CONFLICT DO UPDATE
-- (whose statement fires both INSERT and UPDATE statement triggers).
SELECT op, level, sk, v FROM tx_seen ORDER BY n;
DELETE FROM tx_seen;
-- A cancelled transaction lets go too.
SELECT st_transact(jsonb_build_array(tx_request('ConditionCheck', 'f', 'attribute_not_exists(PK)'),
                                     tx_request('ConditionCheck', 'it', 'attribute_not_exists(PK)')));
SELECT count(*) AS advisory_locks_after_cancel FROM pg_locks WHERE locktype = 'advisory';
-- Many transactions in one statement pile no lock up for their Puts.
BEGIN;
SELECT count(st_transact(jsonb_build_array(jsonb_build_object('Put', jsonb_build_object('TableName', 'TxHold',
         'Item', jsonb_build_object('PK', jsonb_build_object('S', 'many'), 'SK', jsonb_build_object('S', i::text)),
         'ConditionExpression', 'attribute_not_exists(PK)'))))) AS transactions
  FROM generate_series(1, 3000) AS i;
SELECT count(*) FILTER (WHERE objsubid = 21332) AS key_locks FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid();
ROLLBACK;
DELETE FROM tx_seen;

-- Privileges: each action needs what its statement would.  A ConditionCheck
-- locks the item (as SELECT ... FOR UPDATE: SELECT and UPDATE), whether it
-- exists or not; it never needs INSERT.  A Delete needs DELETE, even of a
-- missing item (as a DELETE matching no row does); a Put, INSERT.
CREATE ROLE regress_tx_reader;
CREATE ROLE regress_tx_checker;
CREATE ROLE regress_tx_deleter;
GRANT USAGE ON SCHEMA stdesign, stdesign_data TO regress_tx_reader, regress_tx_checker, regress_tx_deleter;
GRANT SELECT ON ALL TABLES IN SCHEMA stdesign TO regress_tx_reader, regress_tx_checker, regress_tx_deleter;
GRANT SELECT ON stdesign_data."TxHold" TO regress_tx_reader;
GRANT SELECT, UPDATE ON stdesign_data."TxHold" TO regress_tx_checker;
GRANT SELECT, UPDATE, DELETE ON stdesign_data."TxHold" TO regress_tx_deleter;
GRANT INSERT ON tx_seen TO regress_tx_deleter;
GRANT USAGE ON SEQUENCE tx_seen_n_seq TO regress_tx_deleter;
SET ROLE regress_tx_reader;
SELECT pk FROM stdesign_data."TxHold" WHERE pk = 'nothing' FOR UPDATE;
SELECT st_transact(jsonb_build_array(tx_request('ConditionCheck', 'a', 'attribute_exists(PK)')));
RESET ROLE;
SET ROLE regress_tx_checker;
SELECT st_transact(jsonb_build_array(tx_request('ConditionCheck', 'g', 'attribute_not_exists(PK)'),
                                     tx_request('ConditionCheck', 'it', 'attribute_exists(PK)')));
SELECT st_transact(jsonb_build_array(tx_request('ConditionCheck', 'g', 'attribute_not_exists(PK)'),
                                     tx_request('ConditionCheck', 'it', 'attribute_not_exists(PK)')));
DELETE FROM stdesign_data."TxHold" WHERE pk = 'nothing';
SELECT st_transact(jsonb_build_array(tx_request('Delete', 'g')));
SELECT st_transact(jsonb_build_array(tx_request('Put', 'g')));
RESET ROLE;
SET ROLE regress_tx_deleter;
SELECT st_transact(jsonb_build_array(tx_request('Delete', 'g'), tx_request('Delete', 'e')));
RESET ROLE;
SELECT op, level, sk FROM tx_seen ORDER BY n;
DELETE FROM tx_seen;

-- Row-level security: a Delete of a missing item meets no policy (there
-- is no row); a Put is checked against the item written, not against a
-- stand-in holding only the key.
ALTER TABLE stdesign_data."TxHold" ENABLE ROW LEVEL SECURITY;
CREATE POLICY mine ON stdesign_data."TxHold" USING (item #>> '{owner,S}' = current_user);
GRANT INSERT ON stdesign_data."TxHold" TO regress_tx_deleter;
SET ROLE regress_tx_deleter;
SELECT st_transact(jsonb_build_array(tx_request('Delete', 'h'), tx_request('ConditionCheck', 'i', 'attribute_not_exists(PK)')));
SELECT st_transact(jsonb_build_array(tx_request('Put', 'j', 'attribute_not_exists(PK)')));
SELECT st_transact(jsonb_build_array(jsonb_build_object('Put', jsonb_build_object('TableName', 'TxHold',
  'Item', '{"PK": {"S": "miss"}, "SK": {"S": "k"}, "owner": {"S": "someone else"}}'::jsonb))));
SELECT st_transact(jsonb_build_array(jsonb_build_object('Put', jsonb_build_object('TableName', 'TxHold',
  'Item', '{"PK": {"S": "miss"}, "SK": {"S": "k"}, "owner": {"S": "someone else"}}'::jsonb,
  'ConditionExpression', 'attribute_not_exists(PK)'))));
RESET ROLE;
SELECT op, level, sk FROM tx_seen ORDER BY n;
SELECT pk, sk FROM stdesign_data."TxHold" ORDER BY pk, sk;

DROP POLICY mine ON stdesign_data."TxHold";
ALTER TABLE stdesign_data."TxHold" DISABLE ROW LEVEL SECURITY;
DROP TRIGGER seen_row ON stdesign_data."TxHold";
DROP TRIGGER seen_statement ON stdesign_data."TxHold";
REVOKE ALL ON stdesign_data."TxHold" FROM regress_tx_reader, regress_tx_checker, regress_tx_deleter;
REVOKE ALL ON ALL TABLES IN SCHEMA stdesign FROM regress_tx_reader, regress_tx_checker, regress_tx_deleter;
REVOKE ALL ON SCHEMA stdesign, stdesign_data FROM regress_tx_reader, regress_tx_checker, regress_tx_deleter;
REVOKE ALL ON tx_seen FROM regress_tx_deleter;
REVOKE ALL ON SEQUENCE tx_seen_n_seq FROM regress_tx_deleter;
DROP ROLE regress_tx_reader;
DROP ROLE regress_tx_checker;
DROP ROLE regress_tx_deleter;
DROP TABLE tx_seen;
DROP FUNCTION tx_seen_row();
DROP FUNCTION tx_seen_statement();
DROP FUNCTION tx_request(text, text, text);
SELECT st_drop_table('TxHold');
