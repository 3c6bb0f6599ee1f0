-- The guide's tip: put a generic type attribute on every item
-- (type = "Order", "Customer", ...) so that a query over a partition that
-- holds several entity types can filter on it.  "type" is a DynamoDB
-- reserved word: expressions reach it through a #name placeholder.
\set VERBOSITY terse

SELECT st_create_table('SeedTypes') ->> 'TableName' AS created;
SET stdesign.default_table = 'SeedTypes';

-- One customer's item collection: the customer, two addresses, three orders.
SELECT st_put('{"PK": "CUST#1", "SK": "A#home", "type": "Address", "city": "Lyon"}');
SELECT st_put('{"PK": "CUST#1", "SK": "A#work", "type": "Address", "city": "Paris"}');
SELECT st_put('{"PK": "CUST#1", "SK": "CUST#1", "type": "Customer", "name": "Ada"}');
SELECT st_put('{"PK": "CUST#1", "SK": "O#2026-01-05", "type": "Order", "amount": 20, "status": "SHIPPED"}');
SELECT st_put('{"PK": "CUST#1", "SK": "O#2026-02-11", "type": "Order", "amount": 75, "status": "PENDING"}');
SELECT st_put('{"PK": "CUST#1", "SK": "O#2026-03-02", "type": "Order", "amount": 5, "status": "PENDING"}');
SELECT st_put('{"PK": "CUST#2", "SK": "O#2026-01-09", "type": "Order", "amount": 99, "status": "PENDING"}');

-- All items of the partition, then only its orders, filtered on the type.
SELECT item ->> 'SK' AS sk, item ->> 'type' AS type FROM st_query('CUST#1') AS item;
SELECT item ->> 'SK' AS sk, item -> 'amount' AS amount
  FROM st_query('CUST#1', filter => '#t = :t', names => '{"#t": "type"}', "values" => '{":t": "Order"}') AS item;
-- The same filter combined with other conditions, a sort-key range, IN.
SELECT item ->> 'SK' AS sk
  FROM st_query('CUST#1', filter => '#t = :t AND #s = :s AND amount > :min',
                names => '{"#t": "type", "#s": "status"}',
                "values" => '{":t": "Order", ":s": "PENDING", ":min": 10}') AS item;
SELECT item ->> 'SK' AS sk
  FROM st_query('CUST#1', sk_from => 'A#', sk_to => 'CUST#~', filter => '#t IN (:a, :c)',
                names => '{"#t": "type"}', "values" => '{":a": "Address", ":c": "Customer"}') AS item;
SELECT item ->> 'name' AS name
  FROM st_query('CUST#1', filter => '#t = :t', names => '{"#t": "type", "#n": "name"}',
                "values" => '{":t": "Customer"}', projection => '#n') AS item;
-- Across partitions, a scan filters the same way.
SELECT item ->> 'PK' AS pk, item ->> 'SK' AS sk
  FROM st_scan(filter => '#t = :t AND #s = :s', names => '{"#t": "type", "#s": "status"}',
               "values" => '{":t": "Order", ":s": "PENDING"}') AS item;
-- "limit" still counts the items read before the filter.
SELECT item ->> 'SK' AS sk
  FROM st_query('CUST#1', "limit" => 3, filter => '#t = :t', names => '{"#t": "type"}',
                "values" => '{":t": "Order"}') AS item;
SELECT item ->> 'SK' AS sk
  FROM st_query('CUST#1', "limit" => 3, forward => false, filter => '#t = :t', names => '{"#t": "type"}',
                "values" => '{":t": "Order"}') AS item;

-- Written bare, type is refused as a reserved word; so is status.
SELECT st_query('CUST#1', filter => 'type = :t', "values" => '{":t": "Order"}');
SELECT st_query('CUST#1', filter => '#t = :t AND status = :s', names => '{"#t": "type"}',
                "values" => '{":t": "Order", ":s": "PENDING"}');
SELECT st_scan(filter => 'type = :t', "values" => '{":t": "Order"}');
SELECT st_get('CUST#1', 'CUST#1', projection => 'type');
SELECT st_get('CUST#1', 'CUST#1', projection => '#t', names => '{"#t": "type"}');

SELECT st_drop_table(t) FROM st_list_tables() AS t;
