-- Design studio on the seeds' e-commerce model (single-table-design-patterns):
-- the model (entities with key templates, access patterns 1-6 and more),
-- items written as entities, every pattern run, checked and costed, and the
-- page in both forms.

SELECT st_create_table('{
  "TableName": "ECommerceTable",
  "AttributeDefinitions": [
    {"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"},
    {"AttributeName": "GSI1PK", "AttributeType": "S"}, {"AttributeName": "GSI1SK", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [{"IndexName": "GSI1",
    "KeySchema": [{"AttributeName": "GSI1PK", "KeyType": "HASH"}, {"AttributeName": "GSI1SK", "KeyType": "RANGE"}],
    "Projection": {"ProjectionType": "ALL"}}],
  "BillingMode": "PAY_PER_REQUEST"}'::jsonb) ->> 'TableName' AS created;

-- No model yet.
SELECT st_get_model('ECommerceTable') IS NULL AS no_model;
\set VERBOSITY terse
SELECT * FROM st_run_pattern('get_customer', '{"customer_id": "123"}', 'ECommerceTable');
\set VERBOSITY default

SELECT st_set_model('ECommerceTable', '{
  "description": "The seeds e-commerce model: customers, their orders, the orders line items",
  "type_attribute": "entity_type",
  "entities": {
    "Customer": {
      "keys": {"PK": "CUST#{customer_id}", "SK": "CUST#{customer_id}"},
      "attributes": {"customer_id": "S", "name": "S", "email": "S", "created_at": "S"},
      "required": ["customer_id", "name", "email"]
    },
    "Order": {
      "keys": {"PK": "CUST#{customer_id}", "SK": "ORDER#{order_date}#{order_id}",
               "GSI1PK": "ORDER#{order_id}", "GSI1SK": "STATUS#{status}"},
      "attributes": {"customer_id": "S", "order_id": "S", "order_date": "S", "total": "N",
                     "status": "S", "created_at": "S"},
      "required": ["customer_id", "order_id", "order_date", "status"]
    },
    "OrderItem": {
      "keys": {"PK": "ORDER#{order_id}", "SK": "ITEM#{sku}",
               "GSI1PK": "PROD#{sku}", "GSI1SK": "ORDER#{order_id}"},
      "attributes": {"order_id": "S", "sku": "S", "product_name": "S", "quantity": "N", "price": "N"},
      "required": ["order_id", "sku", "quantity"]
    }
  },
  "patterns": {
    "get_customer": {"op": "GetItem", "pk": "CUST#{customer_id}", "sk": "CUST#{customer_id}", "rate": 100},
    "orders_for_customer": {"op": "Query", "pk": "CUST#{customer_id}", "sk": {"begins_with": "ORDER#"}, "rate": 50},
    "get_order": {"op": "GetItem", "pk": "CUST#{customer_id}", "sk": "ORDER#{order_date}#{order_id}", "rate": 20},
    "order_items": {"op": "Query", "pk": "ORDER#{order_id}", "sk": {"begins_with": "ITEM#"}, "rate": 30},
    "orders_in_range": {"op": "Query", "pk": "CUST#{customer_id}",
                        "sk": {"between": ["ORDER#{from}", "ORDER#{to}"]}, "rate": 5,
                        "example": {"customer_id": "123", "from": "2026-07-01", "to": "2026-07-31#~"}},
    "order_status": {"op": "Query", "index": "GSI1", "pk": "ORDER#{order_id}", "sk": {"begins_with": "STATUS#"}, "rate": 10},
    "orders_with_product": {"op": "Query", "index": "GSI1", "pk": "PROD#{sku}", "rate": 2,
                            "projection": "PK, product_name, quantity"},
    "new_order": {"op": "PutItem", "entity": "Order", "rate": 3}
  }
}') IS NOT NULL AS stored;
SELECT jsonb_object_keys(st_get_model('ECommerceTable') -> 'patterns') AS pattern ORDER BY 1;

-- Entities: the keys come from the templates, the type attribute is added.
SELECT st_put_entity('Customer', '{"customer_id": "123", "name": "Jane Smith", "email": "jane@example.com",
                                   "created_at": "2026-01-15T10:30:00Z"}', 'ECommerceTable');
SELECT st_put_entity('Customer', '{"customer_id": "456", "name": "Rahul Rao", "email": "rahul@example.com",
                                   "created_at": "2026-02-01T09:00:00Z"}', 'ECommerceTable') ->> 'PK' AS pk;
SELECT e ->> 'PK' AS pk, e ->> 'SK' AS sk, e ->> 'GSI1PK' AS gsi1pk, e ->> 'GSI1SK' AS gsi1sk
  FROM jsonb_array_elements('[
 {"customer_id": "123", "order_id": "001", "order_date": "2026-07-06", "total": 149.99, "status": "pending", "created_at": "2026-07-06T14:00:00Z"},
 {"customer_id": "123", "order_id": "000", "order_date": "2026-06-20", "total": 20, "status": "shipped", "created_at": "2026-06-20T08:00:00Z"},
 {"customer_id": "123", "order_id": "002", "order_date": "2026-07-28", "total": 35.5, "status": "shipped", "created_at": "2026-07-28T16:45:00Z"},
 {"customer_id": "123", "order_id": "003", "order_date": "2026-08-02", "total": 12.00, "status": "pending", "created_at": "2026-08-02T11:10:00Z"},
 {"customer_id": "456", "order_id": "004", "order_date": "2026-07-10", "total": 99, "status": "delivered", "created_at": "2026-07-10T10:00:00Z"}]') AS o,
       LATERAL st_put_entity('Order', o, 'ECommerceTable') AS e;
SELECT e ->> 'PK' AS pk, e ->> 'SK' AS sk, e ->> 'GSI1PK' AS gsi1pk, e ->> 'entity_type' AS type
  FROM jsonb_array_elements('[
 {"order_id": "001", "sku": "SKU-ABC", "product_name": "Wireless Headphones", "quantity": 1, "price": 99.99},
 {"order_id": "001", "sku": "SKU-XYZ", "product_name": "USB-C Cable", "quantity": 2, "price": 25.00},
 {"order_id": "002", "sku": "SKU-ABC", "product_name": "Wireless Headphones", "quantity": 1, "price": 35.5}]') AS o,
       LATERAL st_put_entity('OrderItem', o, 'ECommerceTable') AS e;
-- typed in, typed out
SELECT st_put_entity('OrderItem', '{"order_id": {"S": "002"}, "sku": {"S": "SKU-Q"}, "quantity": {"N": "3"}}',
                     'ECommerceTable', typed => true) -> 'SK' AS typed_sk;
SELECT count(*) AS removed FROM st_delete('ORDER#002', 'ITEM#SKU-Q', 'ECommerceTable') AS d;

-- Which entity is each stored item?  By its type attribute, or else by its key.
SELECT i ->> 'PK' AS pk, i ->> 'SK' AS sk, st_entity_of(i, 'ECommerceTable') AS entity
  FROM st_scan('ECommerceTable') AS i;
SELECT st_entity_of('{"PK": "CUST#9", "SK": "ORDER#2026-01-01#9"}', 'ECommerceTable') AS by_key,
       st_entity_of('{"PK": "CUST#9", "SK": "CUST#9"}', 'ECommerceTable') AS by_key_customer,
       st_entity_of('{"PK": "X#9", "SK": "Y"}', 'ECommerceTable') AS none,
       st_entity_of('{"PK": {"S": "ORDER#1"}, "SK": {"S": "ITEM#A"}}', 'ECommerceTable', typed => true) AS typed,
       st_entity_of(NULL, 'ECommerceTable') AS null_item;

-- Patterns 1-6 of the guide, run; each returns what the equivalent st_get / st_query returns.
SELECT i ->> 'name' AS name FROM st_run_pattern('get_customer', '{"customer_id": "123"}', 'ECommerceTable') AS i;
SELECT (SELECT array_agg(i) FROM st_run_pattern('get_customer', '{"customer_id": "123"}', 'ECommerceTable') AS i)
     = ARRAY[st_get('CUST#123', 'CUST#123', 'ECommerceTable')] AS same_as_st_get;
SELECT count(*) AS missing FROM st_run_pattern('get_customer', '{"customer_id": "999"}', 'ECommerceTable');
SELECT i ->> 'SK' AS sk, i -> 'total' AS total
  FROM st_run_pattern('orders_for_customer', '{"customer_id": "123"}', 'ECommerceTable') AS i;
SELECT (SELECT array_agg(i) FROM st_run_pattern('orders_for_customer', '{"customer_id": "123"}', 'ECommerceTable') AS i)
     = (SELECT array_agg(i) FROM st_query('CUST#123', 'ORDER#', 'ECommerceTable') AS i) AS same_as_st_query;
SELECT i ->> 'order_id' AS order_id
  FROM st_run_pattern('get_order', '{"customer_id": "123", "order_date": "2026-07-06", "order_id": "001"}', 'ECommerceTable') AS i;
SELECT i ->> 'SK' AS sk, i ->> 'product_name' AS product, i -> 'quantity' AS qty
  FROM st_run_pattern('order_items', '{"order_id": "001"}', 'ECommerceTable') AS i;
SELECT i ->> 'SK' AS sk
  FROM st_run_pattern('orders_in_range', '{"customer_id": "123", "from": "2026-07-01", "to": "2026-07-31#~"}', 'ECommerceTable') AS i;
SELECT i ->> 'SK' AS sk, i ->> 'GSI1SK' AS status
  FROM st_run_pattern('order_status', '{"order_id": "001"}', 'ECommerceTable') AS i;
-- the projection: only the attributes named
SELECT i FROM st_run_pattern('orders_with_product', '{"sku": "SKU-ABC"}', 'ECommerceTable') AS i;
-- typed parameters and items
SELECT i -> 'SK' AS sk FROM st_run_pattern('order_items', '{"order_id": {"S": "002"}}', 'ECommerceTable', typed => true) AS i;
-- a PutItem pattern writes its entity, as st_put_entity does
SELECT i ->> 'SK' AS sk FROM st_run_pattern('new_order', '{"customer_id": "456", "order_id": "005",
    "order_date": "2026-09-01", "status": "pending", "total": 5}', 'ECommerceTable') AS i;
SELECT count(*) AS orders_of_456 FROM st_run_pattern('orders_for_customer', '{"customer_id": "456"}', 'ECommerceTable');
SELECT count(*) AS removed FROM st_delete('CUST#456', 'ORDER#2026-09-01#005', 'ECommerceTable') AS d;

-- The checks: every pattern served by a key (no Scan), every entity read,
-- GSI1 used, every stored item of an entity.
SELECT kind, name, operation, index_name, entities, read_per_call, returned_per_call, ok, findings
  FROM st_check_model('ECommerceTable');

-- The cost: per call by DynamoDB's capacity rules, a month at each pattern's rate.
SELECT pattern, operation, index_name, calls_per_second, read_units, write_units,
       on_demand_monthly, provisioned_monthly, note
  FROM st_model_cost('ECommerceTable');
-- rates given as a parameter replace the model's; prices by name
SELECT pattern, calls_per_second, read_units, on_demand_monthly, provisioned_monthly
  FROM st_model_cost('ECommerceTable', '{"get_customer": 1000}') WHERE pattern = 'get_customer' OR pattern IS NULL;
-- by hand: 1000 calls/s x 0.5 RRU x 730 h x 3600 s x $0.125 per million; provisioned 500 RCU x 730 h x $0.00013
SELECT round(1000 * 0.5 * 730 * 3600 * 0.125 / 1e6, 4) AS on_demand, round(500 * 730 * 0.00013, 4) AS provisioned;
-- a price row of your own
INSERT INTO stdesign.prices (name, on_demand_read_per_million, on_demand_write_per_million,
                             provisioned_rcu_hour, provisioned_wcu_hour, storage_gb_month, source, as_of)
VALUES ('half', 0.0625, 0.3125, 0.000065, 0.000325, 0.125, 'test: half of us-east-1', '2026-01-01');
SELECT on_demand_monthly, provisioned_monthly FROM st_model_cost('ECommerceTable', prices => 'half') WHERE pattern IS NULL;
DELETE FROM stdesign.prices WHERE name = 'half';

-- A pattern that reads more than it returns, and one that scans, are flagged.
SELECT st_set_model('ECommerceTable', st_get_model('ECommerceTable') #- '{patterns,new_order}'
  || jsonb_build_object('patterns', st_get_model('ECommerceTable') -> 'patterns' || '{
    "pending_of_customer": {"op": "Query", "pk": "CUST#{customer_id}", "sk": {"begins_with": "ORDER#"},
                            "filter": "#s = :s", "names": {"#s": "status"}, "values": {":s": "pending"}, "rate": 1},
    "all_pending": {"op": "Scan", "filter": "#s = :s", "names": {"#s": "status"}, "values": {":s": "{status}"}}}')) IS NOT NULL AS stored;
SELECT name, operation, read_per_call, returned_per_call, ok, findings
  FROM st_check_model('ECommerceTable') WHERE name IN ('pending_of_customer', 'all_pending', 'new_order');
SELECT i ->> 'SK' AS sk FROM st_run_pattern('pending_of_customer', '{"customer_id": "123"}', 'ECommerceTable') AS i;
SELECT count(*) AS pending FROM st_run_pattern('all_pending', '{"status": "pending"}', 'ECommerceTable');
SELECT pattern, calls_per_second, note FROM st_model_cost('ECommerceTable') WHERE pattern = 'all_pending';

-- An item of no entity is reported.
SELECT st_put('{"PK": "STRAY#1", "SK": "STRAY#1"}', 'ECommerceTable') IS NULL AS put;
SELECT kind, ok, findings FROM st_check_model('ECommerceTable') WHERE kind = 'items';
SELECT count(*) AS removed FROM st_delete('STRAY#1', 'STRAY#1', 'ECommerceTable') AS d;

-- What each pattern was measured with (measured_with: the parameters of
-- each call): its example when that reads items (orders_in_range), else
-- parameters read back from the stored items of the entities it reads, so
-- that every call reads something; a Scan's, for its filter; none for a
-- PutItem (its write units are those of the entity's stored items).
SELECT name, read_per_call, returned_per_call, measured_with
  FROM st_check_model('ECommerceTable') WHERE kind = 'pattern' ORDER BY name;

-- Measured on a table without items, then with some.
SELECT st_create_table('Measured') ->> 'TableName' AS created;
SELECT st_set_model('Measured', '{
  "entities": {"Customer": {"keys": {"PK": "CUST#{id}", "SK": "CUST#{id}"}},
               "Order": {"keys": {"PK": "CUST#{id}", "SK": "ORDER#{day}#{n}"}},
               "Config": {"keys": {"PK": "CONFIG", "SK": "CONFIG"}}},
  "patterns": {"customer": {"op": "GetItem", "pk": "CUST#{id}", "sk": "CUST#{id}"},
               "orders_of": {"op": "Query", "pk": "CUST#{id}", "sk": {"begins_with": "ORDER#"}},
               "orders_between": {"op": "Query", "pk": "CUST#{id}", "sk": {"between": ["ORDER#{from}", "ORDER#{to}"]}},
               "stale_example": {"op": "Query", "pk": "CUST#{id}", "sk": {"begins_with": "ORDER#"},
                                 "example": {"id": "9"}, "rate": 1},
               "config": {"op": "GetItem", "pk": "CONFIG", "sk": "CONFIG"}}}') IS NOT NULL AS stored;
-- no items: nothing to read parameters from; an example, or a key without
-- parameters, is measured as it is, and each says that it read nothing
SELECT name, read_per_call, returned_per_call, measured_with, ok, findings
  FROM st_check_model('Measured') WHERE kind = 'pattern' ORDER BY name;
SELECT s AS line FROM st_studio_text('Measured') AS s WHERE s LIKE '  stale_example:%';
-- items: customer 1 with three orders, customer 2 with none, the config
SELECT count(*) AS stored FROM jsonb_array_elements('[
  {"PK": "CUST#1", "SK": "CUST#1"}, {"PK": "CUST#1", "SK": "ORDER#2026-07-01#1"},
  {"PK": "CUST#1", "SK": "ORDER#2026-07-02#2"}, {"PK": "CUST#1", "SK": "ORDER#2026-07-09#3"},
  {"PK": "CUST#2", "SK": "CUST#2"}, {"PK": "CONFIG", "SK": "CONFIG"}]') AS i,
       LATERAL st_put(i, 'Measured') AS p;
-- every call reads an item: customer 2, without orders, is not measured
-- for the orders; a between's bounds are read back from an order's sort
-- key; the example that reads nothing gives way to stored items, and says so
SELECT name, read_per_call, returned_per_call, measured_with, ok, findings
  FROM st_check_model('Measured') WHERE kind = 'pattern' ORDER BY name;
SELECT pattern, read_units, note FROM st_model_cost('Measured') WHERE pattern = 'stale_example';
SELECT s AS line FROM st_studio_text('Measured') AS s WHERE s LIKE '  orders_of:%';
SELECT st_drop_table('Measured');

-- The text form.
SELECT * FROM st_studio_text('ECommerceTable');

-- The page: one document, no external resources, every entity drawn.
SELECT st_studio_html('ECommerceTable') AS html \gset
SELECT left(:'html', 15) AS doctype, right(:'html', 14) AS ending,
       :'html' ~ '(src|href)\s*=' AS has_external_refs,
       :'html' ~ '<link|@import|url\(' AS has_external_css,
       (SELECT count(*) FROM regexp_matches(:'html', '<tr class="item', 'g')) AS item_rows,
       (SELECT count(*) FROM regexp_matches(:'html', '<tbody class="part"', 'g')) AS partitions,
       :'html' LIKE '%Wireless Headphones%' AS shows_items,
       :'html' LIKE '%orders_for_customer%' AS shows_patterns,
       :'html' LIKE '%<svg class="chart"%' AS has_chart,
       :'html' LIKE '%Sampled:%' AS sampled;
-- the traffic counters are off here (stdesign is not preloaded): the page
-- leaves them out, without st_partition_traffic's notice (008_studio_traffic.pl
-- shows them); each pattern says what it was measured with
SELECT :'html' LIKE '%Traffic counted%' AS shows_traffic,
       :'html' LIKE '%<br><span class="note">measured with {&quot;customer_id&quot;: &quot;123&quot;} and 1 more</span>%' AS shows_measured_with;
-- the page's views: a partition of one item is one line (no line of its
-- own), header cells name the keys, the indexes' key attributes are marked,
-- an index's view shows the table's keys beside its own, key conditions are
-- written as a reader writes them, counts agree in number, no stray status
SELECT (SELECT count(*) FROM regexp_matches(:'html', '<tbody class="part1">', 'g')) AS one_line_partitions,
       :'html' LIKE '%<tr class="hdr e0"><th>PK</th><th>SK</th><th>entity</th>%' AS header_cells,
       :'html' LIKE '%<th class="gsikey" title="an index key">GSI1PK</th>%' AS index_keys_marked,
       :'html' LIKE '%<thead><tr><th>GSI1PK</th><th>GSI1SK</th><th>PK</th><th>SK</th><th>entity</th>%' AS base_keys_in_index_view,
       :'html' LIKE '%<code>PK = CUST#{customer_id} and begins_with(SK, ORDER#)</code>%' AS readable_condition,
       :'html' LIKE '%SK between ORDER#{from} and ORDER#{to}%' AS readable_between,
       :'html' ~ '[^0-9]1 items' AS says_1_items,
       :'html' LIKE '%>ready<%' AS stray_ready;
-- the key condition as text
SELECT stdesign.studio_key_condition('{"pk": "A#{a}", "sk": "B#{b}"}', 'PK', 'SK') AS eq,
       stdesign.studio_key_condition('{"pk": "A#{a}", "sk": {">=": "B#"}, "filter": "#s = :s"}', 'PK', 'SK') AS cmp,
       stdesign.studio_key_condition('{"op": "PutItem", "entity": "Order"}', 'PK', 'SK') AS put,
       stdesign.studio_key_condition('{"op": "Scan"}', 'PK', NULL) AS scan;
-- an attribute only a key holds, read back from its template for the page
SELECT stdesign.studio_from_template('CUST#{customer_id}', 'CUST#123', 'customer_id') AS customer,
       stdesign.studio_from_template('ORDER#{order_date}#{order_id}', 'ORDER#2026-07-06#001', 'order_id') AS order_id,
       stdesign.studio_from_template('A.{x}', 'AB1', 'x') AS dot_is_literal,
       stdesign.studio_from_template('A#{x}', 'A#1', 'y') AS other_name,
       stdesign.studio_from_template('A#{x}', 'B#1', 'x') AS no_fit;
-- a small sample says so
SELECT st_studio_html('ECommerceTable', max_items => 3) LIKE '%Sampled: the first 3 items%' AS sampled_note;
\set VERBOSITY terse
SELECT st_studio_html('ECommerceTable', max_items => 0);
SELECT st_studio_html('NoSuchTable');
\set VERBOSITY default

-- Item content is escaped: an item cannot put markup or script into the page.
SELECT st_put_entity('Customer', '{"customer_id": "<b>x</b>", "name": "<script>alert(1)</script>",
                                   "email": "\"><img src=x onerror=alert(2)>"}', 'ECommerceTable') ->> 'PK' AS pk;
SELECT st_studio_html('ECommerceTable') AS html \gset
SELECT :'html' LIKE '%<script>alert%' AS raw_script, :'html' LIKE '%<img%' AS raw_img,
       :'html' LIKE '%<b>x%' AS raw_markup,
       :'html' LIKE '%&lt;script&gt;alert(1)&lt;/script&gt;%' AS escaped_script,
       :'html' LIKE '%&quot;&gt;&lt;img src=x onerror=alert(2)&gt;%' AS escaped_img;
SELECT stdesign.html_escape('<a href=''x''>&"</a>') AS escaped, stdesign.html_escape(NULL) AS of_null;

-- Who may read and change a model: reading needs SELECT on the table,
-- changing it the ownership of the table's relation.
CREATE ROLE regress_studio_reader;
CREATE ROLE regress_studio_none;
GRANT USAGE ON SCHEMA stdesign, stdesign_data TO regress_studio_reader, regress_studio_none;
GRANT SELECT ON stdesign.tables, stdesign.indexes TO regress_studio_reader, regress_studio_none;
GRANT SELECT, INSERT ON stdesign_data."ECommerceTable" TO regress_studio_reader;
SET ROLE regress_studio_reader;
SELECT jsonb_typeof(st_get_model('ECommerceTable')) AS readable;
SELECT count(*) AS orders FROM st_run_pattern('orders_for_customer', '{"customer_id": "123"}', 'ECommerceTable');
\set VERBOSITY terse
SELECT st_set_model('ECommerceTable', '{"entities": {}}');
SELECT st_set_model('ECommerceTable', NULL);
SELECT count(*) FROM stdesign.models;
RESET ROLE;
SET ROLE regress_studio_none;
SELECT st_get_model('ECommerceTable');
SELECT * FROM st_run_pattern('orders_for_customer', '{"customer_id": "123"}', 'ECommerceTable');
SELECT st_entity_of('{"PK": "CUST#1", "SK": "CUST#1"}', 'ECommerceTable');
SELECT count(*) FROM st_check_model('ECommerceTable');
SELECT st_put_entity('Customer', '{"customer_id": "7", "name": "n", "email": "e"}', 'ECommerceTable');
\set VERBOSITY default
RESET ROLE;
REVOKE ALL ON stdesign_data."ECommerceTable" FROM regress_studio_reader;
REVOKE ALL ON stdesign.tables, stdesign.indexes FROM regress_studio_reader, regress_studio_none;
REVOKE ALL ON SCHEMA stdesign, stdesign_data FROM regress_studio_reader, regress_studio_none;
DROP ROLE regress_studio_reader;
DROP ROLE regress_studio_none;

-- Removing the model; dropping the table removes its model too.
SELECT st_set_model('ECommerceTable', NULL) IS NULL AS removed;
SELECT st_get_model('ECommerceTable') IS NULL AS no_model;
SELECT st_set_model('ECommerceTable', '{
  "description": "The seeds e-commerce model: customers, their orders, the orders line items",
  "type_attribute": "entity_type",
  "entities": {
    "Customer": {
      "keys": {"PK": "CUST#{customer_id}", "SK": "CUST#{customer_id}"},
      "attributes": {"customer_id": "S", "name": "S", "email": "S", "created_at": "S"},
      "required": ["customer_id", "name", "email"]
    },
    "Order": {
      "keys": {"PK": "CUST#{customer_id}", "SK": "ORDER#{order_date}#{order_id}",
               "GSI1PK": "ORDER#{order_id}", "GSI1SK": "STATUS#{status}"},
      "attributes": {"customer_id": "S", "order_id": "S", "order_date": "S", "total": "N",
                     "status": "S", "created_at": "S"},
      "required": ["customer_id", "order_id", "order_date", "status"]
    },
    "OrderItem": {
      "keys": {"PK": "ORDER#{order_id}", "SK": "ITEM#{sku}",
               "GSI1PK": "PROD#{sku}", "GSI1SK": "ORDER#{order_id}"},
      "attributes": {"order_id": "S", "sku": "S", "product_name": "S", "quantity": "N", "price": "N"},
      "required": ["order_id", "sku", "quantity"]
    }
  },
  "patterns": {
    "get_customer": {"op": "GetItem", "pk": "CUST#{customer_id}", "sk": "CUST#{customer_id}", "rate": 100},
    "orders_for_customer": {"op": "Query", "pk": "CUST#{customer_id}", "sk": {"begins_with": "ORDER#"}, "rate": 50},
    "get_order": {"op": "GetItem", "pk": "CUST#{customer_id}", "sk": "ORDER#{order_date}#{order_id}", "rate": 20},
    "order_items": {"op": "Query", "pk": "ORDER#{order_id}", "sk": {"begins_with": "ITEM#"}, "rate": 30},
    "orders_in_range": {"op": "Query", "pk": "CUST#{customer_id}",
                        "sk": {"between": ["ORDER#{from}", "ORDER#{to}"]}, "rate": 5,
                        "example": {"customer_id": "123", "from": "2026-07-01", "to": "2026-07-31#~"}},
    "order_status": {"op": "Query", "index": "GSI1", "pk": "ORDER#{order_id}", "sk": {"begins_with": "STATUS#"}, "rate": 10},
    "orders_with_product": {"op": "Query", "index": "GSI1", "pk": "PROD#{sku}", "rate": 2,
                            "projection": "PK, product_name, quantity"},
    "new_order": {"op": "PutItem", "entity": "Order", "rate": 3}
  }
}') IS NOT NULL AS stored;
SELECT st_drop_table('ECommerceTable');
SELECT count(*) AS models_left FROM stdesign.models;
