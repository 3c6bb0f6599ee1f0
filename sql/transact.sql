-- st_transact (TransactWriteItems) and st_transact_get (TransactGetItems):
-- request validation, CancellationReasons in request order, the
-- ClientRequestToken, plain values, and composition with the caller's
-- Postgres transaction (ROLLBACK, savepoints, exception blocks).
-- VERBOSITY default: a cancellation's DETAIL carries the reasons.
\set VERBOSITY default

SELECT st_create_table('TxTable') ->> 'TableName' AS created;
SET stdesign.default_table = 'TxTable';

-- Two accounts and a profile, written by one transaction (typed values).
SELECT st_transact('[
  {"Put": {"TableName": "TxTable", "Item": {"PK": {"S": "ACCT#1"}, "SK": {"S": "ACCT"}, "balance": {"N": "100"}}}},
  {"Put": {"Item": {"PK": {"S": "ACCT#2"}, "SK": {"S": "ACCT"}, "balance": {"N": "50"}}}},
  {"Put": {"Item": {"PK": {"S": "USER#1"}, "SK": {"S": "PROFILE"}, "name": {"S": "Ada"}, "tags": {"SS": ["a", "b"]}}}}
]');
SELECT pk, sk, item FROM stdesign_data."TxTable" ORDER BY pk, sk;

-- A transfer: both updates or neither.
SELECT st_transact('[
  {"Update": {"Key": {"PK": {"S": "ACCT#1"}, "SK": {"S": "ACCT"}},
              "UpdateExpression": "SET balance = balance - :a",
              "ConditionExpression": "balance >= :a",
              "ExpressionAttributeValues": {":a": {"N": "30"}}}},
  {"Update": {"Key": {"PK": {"S": "ACCT#2"}, "SK": {"S": "ACCT"}},
              "UpdateExpression": "SET balance = balance + :a",
              "ExpressionAttributeValues": {":a": {"N": "30"}}}}
]');
SELECT st_get('ACCT#1', 'ACCT') ->> 'balance' AS acct1, st_get('ACCT#2', 'ACCT') ->> 'balance' AS acct2;

-- ---------- cancellation: reasons in request order ----------

-- The second and fourth actions fail; ALL_OLD returns the item of the
-- second, NONE (the default) of the fourth does not; the others are None.
SELECT st_transact('[
  {"Put": {"Item": {"PK": {"S": "NEW#1"}, "SK": {"S": "X"}}}},
  {"Update": {"Key": {"PK": {"S": "ACCT#1"}, "SK": {"S": "ACCT"}},
              "UpdateExpression": "SET balance = balance - :a",
              "ConditionExpression": "balance >= :a",
              "ExpressionAttributeValues": {":a": {"N": "1000"}},
              "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}},
  {"Delete": {"Key": {"PK": {"S": "USER#1"}, "SK": {"S": "PROFILE"}}}},
  {"ConditionCheck": {"Key": {"PK": {"S": "ACCT#2"}, "SK": {"S": "ACCT"}},
                      "ConditionExpression": "attribute_not_exists(PK)"}}
]');
-- Nothing was applied: no NEW#1, ACCT#1 unchanged, USER#1 still there.
SELECT st_get('NEW#1', 'X') AS new1, st_get('ACCT#1', 'ACCT') ->> 'balance' AS acct1,
       st_get('USER#1', 'PROFILE') ->> 'name' AS user1;

-- A ConditionCheck on a missing item with ALL_OLD: no Item in its reason.
SELECT st_transact('[
  {"ConditionCheck": {"Key": {"PK": {"S": "GHOST"}, "SK": {"S": "X"}},
                      "ConditionExpression": "attribute_exists(PK)",
                      "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}},
  {"Put": {"Item": {"PK": {"S": "NEW#2"}, "SK": {"S": "X"}}}}
]');
SELECT count(*) AS rows_for_ghost FROM stdesign_data."TxTable" WHERE pk IN ('GHOST', 'NEW#2');

-- An update that cannot apply to this item (a string plus a number) is a
-- ValidationError reason; the Put before it is a None.
SELECT st_transact('[
  {"Put": {"Item": {"PK": {"S": "NEW#3"}, "SK": {"S": "X"}}}},
  {"Update": {"Key": {"PK": {"S": "USER#1"}, "SK": {"S": "PROFILE"}},
              "UpdateExpression": "SET n = #n + :one",
              "ExpressionAttributeNames": {"#n": "name"},
              "ExpressionAttributeValues": {":one": {"N": "1"}}}}
]');
SELECT st_get('NEW#3', 'X') AS new3, st_get('USER#1', 'PROFILE') AS user1;

-- Passing checks: a ConditionCheck on an existing and on a missing item,
-- a Delete of a missing item, an Update that creates its item.
SELECT st_transact('[
  {"ConditionCheck": {"Key": {"PK": {"S": "ACCT#2"}, "SK": {"S": "ACCT"}},
                      "ConditionExpression": "balance > :z",
                      "ExpressionAttributeValues": {":z": {"N": "0"}}}},
  {"ConditionCheck": {"Key": {"PK": {"S": "GHOST"}, "SK": {"S": "X"}},
                      "ConditionExpression": "attribute_not_exists(PK)"}},
  {"Delete": {"Key": {"PK": {"S": "GHOST"}, "SK": {"S": "Y"}}}},
  {"Update": {"Key": {"PK": {"S": "CNT"}, "SK": {"S": "X"}},
              "UpdateExpression": "ADD hits :one",
              "ExpressionAttributeValues": {":one": {"N": "1"}}}}
]');
-- Neither a ConditionCheck nor a Delete leaves a row behind for a missing item.
SELECT pk, sk, item FROM stdesign_data."TxTable" WHERE pk IN ('GHOST', 'CNT') ORDER BY pk, sk;

-- Delete with a condition.
SELECT st_put('{"PK": "TMP", "SK": "X", "state": "open"}');
SELECT st_transact('[{"Delete": {"Key": {"PK": {"S": "TMP"}, "SK": {"S": "X"}},
                                  "ConditionExpression": "#s = :closed",
                                  "ExpressionAttributeNames": {"#s": "state"},
                                  "ExpressionAttributeValues": {":closed": {"S": "closed"}}}}]');
SELECT st_transact('[{"Delete": {"Key": {"PK": {"S": "TMP"}, "SK": {"S": "X"}},
                                  "ConditionExpression": "#s = :open",
                                  "ExpressionAttributeNames": {"#s": "state"},
                                  "ExpressionAttributeValues": {":open": {"S": "open"}}}}]');
SELECT st_get('TMP', 'X') AS tmp;

-- ---------- validation ----------

\set VERBOSITY terse
SELECT st_transact(NULL);
SELECT st_transact('[]');
SELECT st_transact('{"Put": {}}');
SELECT st_transact(jsonb_agg(jsonb_build_object('Put', jsonb_build_object('Item',
         jsonb_build_object('PK', jsonb_build_object('S', 'MANY#' || i), 'SK', jsonb_build_object('S', 'X'))))))
  FROM generate_series(1, 101) AS i;
-- 100 actions are fine.
SELECT st_transact(jsonb_agg(jsonb_build_object('Put', jsonb_build_object('Item',
         jsonb_build_object('PK', jsonb_build_object('S', 'MANY#' || i), 'SK', jsonb_build_object('S', 'X'))))))
  FROM generate_series(1, 100) AS i;
SELECT count(*) AS many FROM stdesign_data."TxTable" WHERE pk LIKE 'MANY#%';
-- Two actions on one item (a Put and a ConditionCheck).
SELECT st_transact('[
  {"Put": {"Item": {"PK": {"S": "ACCT#1"}, "SK": {"S": "ACCT"}, "balance": {"N": "0"}}}},
  {"ConditionCheck": {"Key": {"PK": {"S": "ACCT#1"}, "SK": {"S": "ACCT"}},
                      "ConditionExpression": "attribute_exists(PK)"}}
]');
-- Two operations in one element, none, an unknown one, not an object.
SELECT st_transact('[{"Put": {"Item": {"PK": {"S": "a"}, "SK": {"S": "b"}}},
                      "Delete": {"Key": {"PK": {"S": "a"}, "SK": {"S": "b"}}}}]');
SELECT st_transact('[{}]');
SELECT st_transact('[{"Get": {"Key": {"PK": {"S": "a"}, "SK": {"S": "b"}}}}]');
SELECT st_transact('["Put"]');
-- Unknown table.
SELECT st_transact('[{"Put": {"TableName": "NoSuchTable", "Item": {"PK": {"S": "a"}, "SK": {"S": "b"}}}}]');
-- Missing Item, Key, UpdateExpression, ConditionExpression.
SELECT st_transact('[{"Put": {"TableName": "TxTable"}}]');
SELECT st_transact('[{"Delete": {}}]');
SELECT st_transact('[{"Update": {"Key": {"PK": {"S": "a"}, "SK": {"S": "b"}}}}]');
SELECT st_transact('[{"Put": {"Item": {"PK": {"S": "a"}, "SK": {"S": "b"}}}},
                     {"ConditionCheck": {"Key": {"PK": {"S": "a"}, "SK": {"S": "c"}}}}]');
-- A key that is not the table's key; an item without its sort key.
SELECT st_transact('[{"Delete": {"Key": {"PK": {"S": "a"}}}}]');
SELECT st_transact('[{"Put": {"Item": {"PK": {"S": "a"}}}}]');
-- Bad ReturnValuesOnConditionCheckFailure.
SELECT st_transact('[{"ConditionCheck": {"Key": {"PK": {"S": "a"}, "SK": {"S": "b"}},
                                         "ConditionExpression": "attribute_exists(PK)",
                                         "ReturnValuesOnConditionCheckFailure": "ALL_NEW"}}]');
-- An update of a key attribute.
SELECT st_transact('[{"Update": {"Key": {"PK": {"S": "ACCT#1"}, "SK": {"S": "ACCT"}},
                                  "UpdateExpression": "SET SK = :s",
                                  "ExpressionAttributeValues": {":s": {"S": "OTHER"}}}}]');
-- A value placeholder that is not defined, and one that is not used.
SELECT st_transact('[{"Update": {"Key": {"PK": {"S": "ACCT#1"}, "SK": {"S": "ACCT"}},
                                  "UpdateExpression": "SET balance = :nope"}}]');
SELECT st_transact('[{"Put": {"Item": {"PK": {"S": "a"}, "SK": {"S": "b"}},
                               "ExpressionAttributeValues": {":unused": {"N": "1"}}}}]');
-- Typed values are required unless plain => true.
SELECT st_transact('[{"Put": {"Item": {"PK": "a", "SK": "b"}}}]');
-- Every failed validation left the table as it was.
SELECT count(*) AS rows FROM stdesign_data."TxTable";
\set VERBOSITY default

-- ---------- ClientRequestToken ----------

SELECT st_transact('[{"Update": {"Key": {"PK": {"S": "CNT"}, "SK": {"S": "X"}},
                                  "UpdateExpression": "ADD hits :one",
                                  "ExpressionAttributeValues": {":one": {"N": "1"}}}}]',
                   client_request_token => 'token-1');
-- The same request again: {} and nothing applied a second time.
SELECT st_transact('[{"Update": {"Key": {"PK": {"S": "CNT"}, "SK": {"S": "X"}},
                                  "UpdateExpression": "ADD hits :one",
                                  "ExpressionAttributeValues": {":one": {"N": "1"}}}}]',
                   client_request_token => 'token-1');
SELECT st_get('CNT', 'X') ->> 'hits' AS hits;
-- A different request under the same token.
SELECT st_transact('[{"Update": {"Key": {"PK": {"S": "CNT"}, "SK": {"S": "X"}},
                                  "UpdateExpression": "ADD hits :two",
                                  "ExpressionAttributeValues": {":two": {"N": "2"}}}}]',
                   client_request_token => 'token-1');
SELECT st_get('CNT', 'X') ->> 'hits' AS hits;
-- After ten minutes a token is forgotten: the other request then runs.
UPDATE stdesign.transact_tokens SET created_at = created_at - interval '11 minutes' WHERE token = 'token-1';
SELECT st_transact('[{"Update": {"Key": {"PK": {"S": "CNT"}, "SK": {"S": "X"}},
                                  "UpdateExpression": "ADD hits :two",
                                  "ExpressionAttributeValues": {":two": {"N": "2"}}}}]',
                   client_request_token => 'token-1');
SELECT st_get('CNT', 'X') ->> 'hits' AS hits;
-- Token length: 36 characters is the maximum, an empty one is refused.
SELECT st_transact('[{"Put": {"Item": {"PK": {"S": "TOK"}, "SK": {"S": "36"}}}}]',
                   client_request_token => repeat('t', 36));
SELECT st_transact('[{"Put": {"Item": {"PK": {"S": "TOK"}, "SK": {"S": "37"}}}}]',
                   client_request_token => repeat('t', 37));
SELECT st_transact('[{"Put": {"Item": {"PK": {"S": "TOK"}, "SK": {"S": "0"}}}}]',
                   client_request_token => '');
-- A cancelled request does not keep its token: after the cause is gone,
-- the same request under the same token runs.
SELECT st_transact('[{"ConditionCheck": {"Key": {"PK": {"S": "FLAG"}, "SK": {"S": "X"}},
                                         "ConditionExpression": "attribute_exists(PK)"}},
                     {"Put": {"Item": {"PK": {"S": "TOK"}, "SK": {"S": "after-flag"}}}}]',
                   client_request_token => 'token-2');
SELECT st_put('{"PK": "FLAG", "SK": "X"}');
SELECT st_transact('[{"ConditionCheck": {"Key": {"PK": {"S": "FLAG"}, "SK": {"S": "X"}},
                                         "ConditionExpression": "attribute_exists(PK)"}},
                     {"Put": {"Item": {"PK": {"S": "TOK"}, "SK": {"S": "after-flag"}}}}]',
                   client_request_token => 'token-2');
SELECT item->>'SK' AS sk FROM st_query('TOK') AS item;
-- A token used inside a transaction that rolls back is forgotten too.
BEGIN;
SELECT st_transact('[{"Put": {"Item": {"PK": {"S": "TOK"}, "SK": {"S": "rolled-back"}}}}]',
                   client_request_token => 'token-3');
ROLLBACK;
SELECT st_transact('[{"Put": {"Item": {"PK": {"S": "TOK"}, "SK": {"S": "other"}}}}]',
                   client_request_token => 'token-3');
SELECT item->>'SK' AS sk FROM st_query('TOK') AS item;

-- ---------- plain => true ----------

SELECT st_transact('[
  {"Put": {"Item": {"PK": "PLAIN#1", "SK": "X", "n": 1.50, "ok": true, "l": [1, "two"], "m": {"k": null}}}},
  {"Update": {"Key": {"PK": "ACCT#2", "SK": "ACCT"},
              "UpdateExpression": "SET balance = balance + :a, note = :note",
              "ExpressionAttributeValues": {":a": 5, ":note": "plain"}}}
]', plain => true);
SELECT st_get('PLAIN#1', 'X') AS plain1, st_get('ACCT#2', 'ACCT') AS acct2;
SELECT item FROM stdesign_data."TxTable" WHERE pk = 'PLAIN#1';
-- With plain => true the cancellation's Item is plain too.
SELECT st_transact('[{"ConditionCheck": {"Key": {"PK": "PLAIN#1", "SK": "X"},
                                         "ConditionExpression": "n > :big",
                                         "ExpressionAttributeValues": {":big": 10},
                                         "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}}]',
                   plain => true);

-- ---------- composition with the caller's Postgres transaction ----------

CREATE TABLE tx_ledger (id int PRIMARY KEY, note text);
BEGIN;
INSERT INTO tx_ledger VALUES (1, 'in the same transaction');
SELECT st_transact('[{"Put": {"Item": {"PK": {"S": "LEDGER#1"}, "SK": {"S": "X"}}}},
                     {"Update": {"Key": {"PK": {"S": "ACCT#1"}, "SK": {"S": "ACCT"}},
                                 "UpdateExpression": "SET balance = :z",
                                 "ExpressionAttributeValues": {":z": {"N": "0"}}}}]');
SELECT (SELECT count(*) FROM tx_ledger) AS ledger, st_get('LEDGER#1', 'X') IS NOT NULL AS item_seen,
       st_get('ACCT#1', 'ACCT') ->> 'balance' AS acct1;
ROLLBACK;
-- Both the relational row and the items are gone.
SELECT (SELECT count(*) FROM tx_ledger) AS ledger, st_get('LEDGER#1', 'X') AS item,
       st_get('ACCT#1', 'ACCT') ->> 'balance' AS acct1;

-- A savepoint: the cancelled st_transact is undone with its savepoint,
-- the work before it stays and commits.
BEGIN;
INSERT INTO tx_ledger VALUES (2, 'before the savepoint');
SELECT st_transact('[{"Put": {"Item": {"PK": {"S": "LEDGER#2"}, "SK": {"S": "X"}}}}]');
SAVEPOINT s1;
SELECT st_transact('[{"Put": {"Item": {"PK": {"S": "LEDGER#3"}, "SK": {"S": "X"}}}},
                     {"ConditionCheck": {"Key": {"PK": {"S": "LEDGER#2"}, "SK": {"S": "X"}},
                                         "ConditionExpression": "attribute_not_exists(PK)"}}]');
ROLLBACK TO SAVEPOINT s1;
INSERT INTO tx_ledger VALUES (3, 'after the savepoint');
COMMIT;
SELECT id, note FROM tx_ledger ORDER BY id;
SELECT pk FROM stdesign_data."TxTable" WHERE pk LIKE 'LEDGER#%' ORDER BY pk;

-- An exception block: the handler sees SQLSTATE SD005 and the reasons, and
-- the block's writes (relational and items) are undone.
DO $$
DECLARE
  d text;
BEGIN
  BEGIN
    INSERT INTO tx_ledger VALUES (4, 'inside the block');
    PERFORM st_transact('[{"Put": {"Item": {"PK": {"S": "LEDGER#4"}, "SK": {"S": "X"}}}}]');
    PERFORM st_transact('[{"Update": {"Key": {"PK": {"S": "ACCT#2"}, "SK": {"S": "ACCT"}},
                                      "UpdateExpression": "SET balance = balance - :a",
                                      "ConditionExpression": "balance >= :a",
                                      "ExpressionAttributeValues": {":a": {"N": "1000000"}}}}]');
  EXCEPTION WHEN SQLSTATE 'SD005' THEN
    GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL;
    RAISE NOTICE 'caught %: %', SQLSTATE, d;
  END;
END $$;
SELECT id FROM tx_ledger WHERE id = 4;
SELECT st_get('LEDGER#4', 'X') AS ledger4;
-- And when the handler goes on in the same block, a later st_transact works.
DO $$
BEGIN
  BEGIN
    PERFORM st_transact('[{"ConditionCheck": {"Key": {"PK": {"S": "NOPE"}, "SK": {"S": "X"}},
                                              "ConditionExpression": "attribute_exists(PK)"}},
                          {"Put": {"Item": {"PK": {"S": "LEDGER#5"}, "SK": {"S": "X"}}}}]');
  EXCEPTION WHEN SQLSTATE 'SD005' THEN
    PERFORM st_transact('[{"Put": {"Item": {"PK": {"S": "LEDGER#6"}, "SK": {"S": "X"}}}}]');
  END;
END $$;
SELECT pk FROM stdesign_data."TxTable" WHERE pk LIKE 'LEDGER#%' OR pk = 'NOPE' ORDER BY pk;
DROP TABLE tx_ledger;

-- ---------- st_transact_get ----------

SELECT st_transact_get('[
  {"Get": {"Key": {"PK": {"S": "ACCT#2"}, "SK": {"S": "ACCT"}}}},
  {"Get": {"TableName": "TxTable", "Key": {"PK": {"S": "MISSING"}, "SK": {"S": "X"}}}},
  {"Get": {"Key": {"PK": {"S": "USER#1"}, "SK": {"S": "PROFILE"}},
           "ProjectionExpression": "#n, tags", "ExpressionAttributeNames": {"#n": "name"}}}
]');
SELECT st_transact_get('[{"Get": {"Key": {"PK": "PLAIN#1", "SK": "X"}, "ProjectionExpression": "l[1], m.k"}}]',
                       plain => true);
\set VERBOSITY terse
SELECT st_transact_get(NULL);
SELECT st_transact_get('[]');
SELECT st_transact_get(jsonb_agg(jsonb_build_object('Get', jsonb_build_object('Key',
         jsonb_build_object('PK', jsonb_build_object('S', 'MANY#' || i), 'SK', jsonb_build_object('S', 'X'))))))
  FROM generate_series(1, 101) AS i;
SELECT st_transact_get('[{"Get": {"Key": {"PK": {"S": "a"}, "SK": {"S": "b"}}}},
                         {"Get": {"Key": {"PK": {"S": "a"}, "SK": {"S": "b"}}}}]');
SELECT st_transact_get('[{"Put": {"Item": {"PK": {"S": "a"}, "SK": {"S": "b"}}}}]');
SELECT st_transact_get('[{"Get": {}}]');
SELECT st_transact_get('[{"Get": {"Key": {"PK": {"S": "a"}}}}]');
SELECT st_transact_get('[{"Get": {"TableName": "NoSuchTable", "Key": {"PK": {"S": "a"}, "SK": {"S": "b"}}}}]');
SELECT st_transact_get('[{"Get": {"Key": {"PK": {"S": "a"}, "SK": {"S": "b"}}, "ProjectionExpression": "#missing"}}]');
\set VERBOSITY default

RESET stdesign.default_table;
SELECT st_drop_table('TxTable');
-- The tokens of this test go with its table.
DELETE FROM stdesign.transact_tokens
 WHERE token IN ('token-1', 'token-2', 'token-3', repeat('t', 36));
