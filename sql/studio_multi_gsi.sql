-- Design studio: an entity and a GSI whose key has several attributes
-- (DynamoDB's multi-attribute keys).  Each key attribute of such an index
-- is either formed by one of the entity's templates or is one of its plain
-- attributes; an entity that forms some of them gives all of them, or its
-- items never enter the index.  Placeholders may name the plain ones.
\set VERBOSITY terse
SELECT st_api('CreateTable', '{"TableName": "StMulti", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"},
    {"AttributeName": "tenant", "AttributeType": "S"}, {"AttributeName": "tier", "AttributeType": "N"},
    {"AttributeName": "day", "AttributeType": "N"}, {"AttributeName": "ref", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [{"IndexName": "ByTenant", "Projection": {"ProjectionType": "KEYS_ONLY"},
    "KeySchema": [{"AttributeName": "tenant", "KeyType": "HASH"}, {"AttributeName": "tier", "KeyType": "HASH"},
      {"AttributeName": "day", "KeyType": "RANGE"}, {"AttributeName": "ref", "KeyType": "RANGE"}]}]}') IS NOT NULL;

-- Order: tenant and tier plain, day plain, ref a template (placeholders may
-- name tenant, a plain key attribute of the multi-attribute index).
SELECT st_set_model('StMulti', '{
  "type_attribute": "entity_type",
  "entities": {
    "Order": {
      "keys": {"PK": "TENANT#{tenant}", "SK": "ORDER#{order_id}", "ref": "ORD#{order_id}"},
      "attributes": {"tenant": "S", "tier": "N", "day": "N", "order_id": "S", "total": "N"},
      "required": ["tenant", "tier", "day"]
    },
    "Note": {
      "keys": {"PK": "TENANT#{tenant}", "SK": "NOTE#{note_id}"},
      "attributes": {"tenant": "S", "note_id": "S", "text": "S"}
    }
  },
  "patterns": {
    "orders_of_tenant": {"op": "Scan", "index": "ByTenant", "filter": "tenant = :t", "values": {":t": "{tenant}"},
                         "projection": "PK, SK, tenant, tier, #d, #r", "names": {"#d": "day", "#r": "ref"},
                         "example": {"tenant": "acme"}},
    "orders_of_tenant_all": {"op": "Scan", "index": "ByTenant", "filter": "tenant = :t", "values": {":t": "{tenant}"},
                             "example": {"tenant": "acme"}}
  }
}') IS NOT NULL AS stored;
SELECT st_put_entity('Order', '{"tenant": "acme", "tier": 2, "day": 20260105, "order_id": "o1", "total": 5}', 'StMulti');
SELECT st_put_entity('Order', '{"tenant": "acme", "tier": 2, "day": 20260104, "order_id": "o2", "total": 7}', 'StMulti') ->> 'ref' AS ref;
SELECT st_put_entity('Note', '{"tenant": "acme", "note_id": "n1", "text": "hello"}', 'StMulti') ->> 'SK' AS sk;
-- the items in the index, in its order (by day), by their key values
SELECT i ->> 'ref' AS ref FROM st_query_index('StMulti', 'ByTenant', '["acme", 2]') AS i;
SELECT st_entity_of(i, 'StMulti') AS entity, count(*) FROM st_scan('StMulti') AS i GROUP BY 1 ORDER BY 1;
-- a ref given by the caller: formed by its template, so refused
SELECT st_put_entity('Order', '{"tenant": "acme", "tier": 2, "day": 1, "order_id": "o3", "ref": "x"}', 'StMulti');
-- a wrongly typed plain key attribute
SELECT st_put_entity('Order', '{"tenant": "acme", "tier": "two", "day": 1, "order_id": "o3"}', 'StMulti');
-- the model's checks: the Scans read Order (it gives every key attribute of
-- the index), not Note; the KEYS_ONLY index holds every key attribute of
-- its key, not the others
SELECT i FROM st_run_pattern('orders_of_tenant', '{"tenant": "acme"}', 'StMulti') AS i;
SELECT name, operation, ok, findings FROM st_check_model('StMulti');

-- The static page's partitions of the index: by both HASH attributes
SELECT * FROM stdesign.studio_partitions('StMulti', 'ByTenant', 'tenant', 100);
SELECT * FROM stdesign.studio_partitions('StMulti', NULL, 'PK', 100);

-- The static page's view of the index: its key attributes first (both
-- HASH attributes, then both RANGE ones), one partition of two items
-- named by both HASH attributes
SELECT substring(h FROM '<thead><tr>(.*?)</tr>') AS header,
       substring(h FROM '<tr class="pkrow"><td class="pk" colspan="99">([^<]*<span class="count">[^<]*)</span>') AS partition,
       substring(h FROM '<tr class="item e[0-9]+" data-entity="Order">(<td></td><td></td><td class="sk">[0-9]+</td>)') AS first_item_keys
  FROM stdesign.studio_view_html('StMulti', 'ByTenant', 'tenant', 'day', st_get_model('StMulti'), 100) AS h;
SELECT st_studio_html('StMulti') LIKE '%<h2>Index ByTenant (GSI, KEYS_ONLY)</h2><table class="agg"><thead><tr><th>tenant</th><th>tier</th><th>day</th><th>ref</th>%' AS in_page;

-- Invalid models.
-- a template for a multi-attribute key attribute, typed N: a single placeholder
SELECT st_set_model('StMulti', '{"entities": {"X": {"keys": {"PK": "X#{a}", "SK": "X", "tier": "T{a}"},
  "attributes": {"a": "S", "tenant": "S", "day": "N", "ref": "S"}}}}');
-- forms ref but has neither a template nor an attribute for day
SELECT st_set_model('StMulti', '{"entities": {"X": {"keys": {"PK": "X#{a}", "SK": "X", "ref": "R#{a}"},
  "attributes": {"a": "S", "tenant": "S", "tier": "N"}}}}');
-- a placeholder naming a key attribute the entity forms
SELECT st_set_model('StMulti', '{"entities": {"X": {"keys": {"PK": "X#{ref}", "SK": "X", "ref": "R#{a}"}}}}');
-- (a plain one is fine: attributes not declared, any)
SELECT st_set_model('StMulti', '{"entities": {"X": {"keys": {"PK": "X#{day}", "SK": "X", "ref": "R#{a}"}}}}') IS NOT NULL AS stored;
-- a placeholder naming the table's key
SELECT st_set_model('StMulti', '{"entities": {"X": {"keys": {"PK": "X#{a}", "SK": "{PK}"}}}}');
-- a Query pattern of the multi-attribute index: not yet
SELECT st_set_model('StMulti', '{"entities": {"X": {"keys": {"PK": "X#{a}", "SK": "X"}, "attributes": {"a": "S"}}},
  "patterns": {"q": {"op": "Query", "index": "ByTenant", "pk": "{a}"}}}');
-- the stored model is the last valid one
SELECT jsonb_object_keys(st_get_model('StMulti') -> 'entities') AS entity;

SELECT st_drop_table('StMulti');
