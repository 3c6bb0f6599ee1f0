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
-- the stored model is the last valid one
SELECT jsonb_object_keys(st_get_model('StMulti') -> 'entities') AS entity;


-- Query patterns of the multi-attribute index: "pk" gives every HASH
-- attribute (an array in key order, or an object by name), "sk" RANGE
-- attributes from the first (each a template for =, or one condition, only
-- on the last one used); they run as Queries of the index, in its order.
SELECT st_set_model('StMulti', '{
  "type_attribute": "entity_type",
  "entities": {
    "Order": {
      "keys": {"PK": "TENANT#{tenant}", "SK": "ORDER#{order_id}", "ref": "ORD#{order_id}"},
      "attributes": {"tenant": "S", "tier": "N", "day": "N", "order_id": "S", "total": "N"},
      "required": ["tenant", "tier", "day"]
    },
    "Invoice": {
      "keys": {"PK": "TENANT#{tenant}", "SK": "INVOICE#{invoice_id}", "ref": "INV#{invoice_id}"},
      "attributes": {"tenant": "S", "tier": "N", "day": "N", "invoice_id": "S"}
    },
    "Note": {
      "keys": {"PK": "TENANT#{tenant}", "SK": "NOTE#{note_id}"},
      "attributes": {"tenant": "S", "note_id": "S", "text": "S"}
    }
  },
  "patterns": {
    "of_tier": {"op": "Query", "index": "ByTenant", "pk": ["{tenant}", "{tier}"], "rate": 10},
    "of_day": {"op": "Query", "index": "ByTenant", "pk": {"tier": "{tier}", "tenant": "{tenant}"},
               "sk": ["{day}"], "example": {"tenant": "acme", "tier": "2", "day": "20260105"}},
    "since_day": {"op": "Query", "index": "ByTenant", "pk": ["acme", "{tier}"],
                  "sk": {"day": {">=": "{from}"}}, "forward": false, "limit": 5},
    "days_between": {"op": "Query", "index": "ByTenant", "pk": ["{tenant}", "{tier}"],
                     "sk": [{"between": ["{from}", "{to}"]}]},
    "orders_of_day": {"op": "Query", "index": "ByTenant", "pk": ["{tenant}", "{tier}"],
                      "sk": ["{day}", {"begins_with": "ORD#"}], "projection": "#r", "names": {"#r": "ref"}},
    "one_order": {"op": "Query", "index": "ByTenant", "pk": ["{tenant}", "{tier}"],
                  "sk": {"day": "{day}", "ref": "ORD#{order_id}"}}
  }
}') IS NOT NULL AS stored;
SELECT st_put_entity('Invoice', '{"tenant": "acme", "tier": 2, "day": 20260105, "invoice_id": "i1"}', 'StMulti') ->> 'ref' AS ref;
SELECT st_put_entity('Order', '{"tenant": "acme", "tier": 3, "day": 20260105, "order_id": "o9", "total": 1}', 'StMulti') ->> 'ref' AS ref;
-- tier 2: o2 (day 20260104), then i1 and o1 (day 20260105, by ref); the
-- KEYS_ONLY index returns its entries (the table's and the index's keys)
SELECT i FROM st_run_pattern('of_tier', '{"tenant": "acme", "tier": 2}', 'StMulti') AS i;
SELECT i ->> 'ref' AS ref FROM st_run_pattern('of_day', '{"tenant": "acme", "tier": "2", "day": 20260105}', 'StMulti') AS i;
SELECT i ->> 'ref' AS ref FROM st_run_pattern('since_day', '{"tier": 2, "from": 20260104}', 'StMulti') AS i;
SELECT i ->> 'ref' AS ref FROM st_run_pattern('since_day', '{"tier": 2, "from": 20260105}', 'StMulti') AS i;
SELECT i ->> 'ref' AS ref FROM st_run_pattern('days_between', '{"tenant": "acme", "tier": 2, "from": 20260101, "to": 20260104}', 'StMulti') AS i;
SELECT i FROM st_run_pattern('orders_of_day', '{"tenant": "acme", "tier": 2, "day": 20260105}', 'StMulti') AS i;
SELECT i FROM st_run_pattern('one_order', '{"tenant": {"S": "acme"}, "tier": {"N": "2"}, "day": {"N": "20260105"}, "order_id": {"S": "o1"}}',
                              'StMulti', typed => true) AS i;
-- another tier, another partition
SELECT i ->> 'ref' AS ref FROM st_run_pattern('of_tier', '{"tenant": "acme", "tier": 3}', 'StMulti') AS i;
-- the same as the Query the pattern stands for
SELECT st_api('Query', '{"TableName": "StMulti", "IndexName": "ByTenant",
  "KeyConditionExpression": "tenant = :t AND tier = :n AND #d = :d AND begins_with(#r, :p)",
  "ExpressionAttributeNames": {"#d": "day", "#r": "ref"},
  "ExpressionAttributeValues": {":t": {"S": "acme"}, ":n": {"N": "2"}, ":d": {"N": "20260105"}, ":p": {"S": "ORD#"}}}') -> 'Items';
-- a parameter of the wrong type for its key attribute, or missing
SELECT st_run_pattern('of_tier', '{"tenant": "acme", "tier": "two"}', 'StMulti');
SELECT st_run_pattern('of_tier', '{"tenant": "acme"}', 'StMulti');
-- the checks: each pattern reads the entities that give every key attribute
-- and whose templates meet its conditions (orders_of_day and one_order:
-- Order, not Invoice), measured with parameters read back from the items
SELECT name, operation, index_name, entities, read_per_call, returned_per_call, ok, findings
  FROM st_check_model('StMulti') WHERE kind = 'pattern' ORDER BY name;
SELECT name, measured_with FROM st_check_model('StMulti') WHERE name IN ('of_day', 'one_order') ORDER BY name;
SELECT pattern, operation, index_name, calls_per_second, read_units, note
  FROM st_model_cost('StMulti') WHERE pattern IS NOT NULL ORDER BY pattern;
-- the static page names every key attribute of their conditions
SELECT substring(h FROM '<tr><td>' || p || '</td><td>Query</td><td>ByTenant</td><td><code>([^<]*)</code>') AS key_condition
  FROM st_studio_html('StMulti') AS h,
       unnest(ARRAY['of_tier', 'of_day', 'since_day', 'days_between', 'orders_of_day', 'one_order']) AS p;

-- Invalid Query patterns of the multi-attribute index, each refused with
-- the Query's own message (DynamoDB's) and what such a Query needs.
\set VERBOSITY default
\set m '{"entities": {"X": {"keys": {"PK": "X#{a}", "SK": "X"}, "attributes": {"a": "S"}}}, "patterns": {"q": '
-- a partition-key attribute missing
SELECT st_set_model('StMulti', (:'m' || '{"op": "Query", "index": "ByTenant", "pk": ["{a}"]}}}')::jsonb);
SELECT st_set_model('StMulti', (:'m' || '{"op": "Query", "index": "ByTenant", "pk": {"tier": "1"}}}}')::jsonb);
SELECT st_set_model('StMulti', (:'m' || '{"op": "Query", "index": "ByTenant", "sk": ["1"]}}}')::jsonb);
SELECT st_set_model('StMulti', (:'m' || '{"op": "Query", "index": "ByTenant", "pk": ["{a}", null]}}}')::jsonb);
-- one template for two partition-key attributes
SELECT st_set_model('StMulti', (:'m' || '{"op": "Query", "index": "ByTenant", "pk": "{a}"}}}')::jsonb);
-- a sort-key attribute skipped
SELECT st_set_model('StMulti', (:'m' || '{"op": "Query", "index": "ByTenant", "pk": ["{a}", "1"], "sk": {"ref": "R"}}}}')::jsonb);
SELECT st_set_model('StMulti', (:'m' || '{"op": "Query", "index": "ByTenant", "pk": ["{a}", "1"], "sk": [null, "R"]}}}')::jsonb);
-- a condition other than = before the last sort-key attribute used
SELECT st_set_model('StMulti', (:'m' || '{"op": "Query", "index": "ByTenant", "pk": ["{a}", "1"], "sk": [{">": "1"}, "R"]}}}')::jsonb);
-- a condition on a partition-key attribute
SELECT st_set_model('StMulti', (:'m' || '{"op": "Query", "index": "ByTenant", "pk": ["{a}", {">": "1"}]}}}')::jsonb);
-- begins_with on a number
SELECT st_set_model('StMulti', (:'m' || '{"op": "Query", "index": "ByTenant", "pk": ["{a}", "1"], "sk": [{"begins_with": "1"}]}}}')::jsonb);
-- a template of an N attribute with literal text
SELECT st_set_model('StMulti', (:'m' || '{"op": "Query", "index": "ByTenant", "pk": ["{a}", "T{a}"]}}}')::jsonb);
-- an unknown condition, a between of one value
SELECT st_set_model('StMulti', (:'m' || '{"op": "Query", "index": "ByTenant", "pk": ["{a}", "1"], "sk": [{"like": "1"}]}}}')::jsonb);
SELECT st_set_model('StMulti', (:'m' || '{"op": "Query", "index": "ByTenant", "pk": ["{a}", "1"], "sk": [{"between": ["1"]}]}}}')::jsonb);
-- a filter naming a key attribute of the index (any of them)
SELECT st_set_model('StMulti', (:'m' || '{"op": "Query", "index": "ByTenant", "pk": ["{a}", "1"], "filter": "#r = :r", "names": {"#r": "ref"}, "values": {":r": "x"}}}}')::jsonb);
-- hostile shapes: too many values, an attribute of another key, wrong JSON types
SELECT st_set_model('StMulti', (:'m' || '{"op": "Query", "index": "ByTenant", "pk": ["{a}", "1", "2"]}}}')::jsonb);
SELECT st_set_model('StMulti', (:'m' || '{"op": "Query", "index": "ByTenant", "pk": ["{a}", "1"], "sk": ["1", "R", "x"]}}}')::jsonb);
SELECT st_set_model('StMulti', (:'m' || '{"op": "Query", "index": "ByTenant", "pk": {"tenant": "{a}", "day": "1"}}}}')::jsonb);
SELECT st_set_model('StMulti', (:'m' || '{"op": "Query", "index": "ByTenant", "pk": ["{a}", "1"], "sk": {"tier": "1"}}}}')::jsonb);
SELECT st_set_model('StMulti', (:'m' || '{"op": "Query", "index": "ByTenant", "pk": 7}}}')::jsonb);
SELECT st_set_model('StMulti', (:'m' || '{"op": "Query", "index": "ByTenant", "pk": ["{a}", 1]}}}')::jsonb);
SELECT st_set_model('StMulti', (:'m' || '{"op": "Query", "index": "ByTenant", "pk": ["{a}", "1"], "sk": [true]}}}')::jsonb);
SELECT st_set_model('StMulti', (:'m' || '{"op": "Query", "index": "ByTenant", "pk": ["{a}", "1"], "sk": [{">": "1", "<": "2"}]}}}')::jsonb);
SELECT st_set_model('StMulti', (:'m' || '{"op": "Query", "index": "ByTenant", "pk": [[], {}]}}}')::jsonb);
SELECT st_set_model('StMulti', (:'m' || '{"op": "Query", "index": "ByTenant", "pk": ["{a}", "{b"]}}}')::jsonb);
SELECT st_set_model('StMulti', (:'m' || '{"op": "Query", "index": "ByTenant", "pk": ["{a}", "1"], "sk": {"=": "1", "ref": "R"}}}}')::jsonb);
SELECT st_set_model('StMulti', (:'m' || '{"op": "Query", "index": "ByTenant", "pk": ["{a}", "1"], "sk": {"ref": {"between": "R"}}}}}')::jsonb);
\set VERBOSITY terse
-- the stored model is still the last valid one
SELECT jsonb_object_keys(st_get_model('StMulti') -> 'patterns') AS pattern;

SELECT st_drop_table('StMulti');

-- One HASH and two RANGE attributes: "pk" may be the lone template, and
-- "sk" a lone template or condition on the first RANGE attribute.
SELECT st_api('CreateTable', '{"TableName": "StMulti2", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"},
    {"AttributeName": "day", "AttributeType": "N"}, {"AttributeName": "n", "AttributeType": "N"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
  "GlobalSecondaryIndexes": [{"IndexName": "ByDay", "Projection": {"ProjectionType": "ALL"},
    "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}, {"AttributeName": "day", "KeyType": "RANGE"},
      {"AttributeName": "n", "KeyType": "RANGE"}]}]}') IS NOT NULL;
SELECT st_set_model('StMulti2', '{"type_attribute": null,
  "entities": {"Event": {"keys": {"PK": "E#{id}", "g": "G#{group}"}, "attributes": {"id": "S", "group": "S", "day": "N", "n": "N"}}},
  "patterns": {"on_day": {"op": "Query", "index": "ByDay", "pk": "G#{group}", "sk": "{day}"},
               "before_day": {"op": "Query", "index": "ByDay", "pk": "G#{group}", "sk": {"<": "{day}"}},
               "day_from_n": {"op": "Query", "index": "ByDay", "pk": ["G#{group}"], "sk": ["{day}", {">=": "{n}"}]}}}') IS NOT NULL AS stored;
SELECT st_put_entity('Event', '{"id": "a", "group": "x", "day": 1, "n": 5}', 'StMulti2') ->> 'g' AS g;
SELECT st_put_entity('Event', '{"id": "b", "group": "x", "day": 2, "n": 1}', 'StMulti2') ->> 'g' AS g;
SELECT st_put_entity('Event', '{"id": "c", "group": "x", "day": 2, "n": 7}', 'StMulti2') ->> 'g' AS g;
SELECT i ->> 'id' AS id FROM st_run_pattern('on_day', '{"group": "x", "day": 2}', 'StMulti2') AS i;
SELECT i ->> 'id' AS id FROM st_run_pattern('before_day', '{"group": "x", "day": 2}', 'StMulti2') AS i;
SELECT i ->> 'id' AS id FROM st_run_pattern('day_from_n', '{"group": "x", "day": 2, "n": 5}', 'StMulti2') AS i;
SELECT name, entities, read_per_call, ok FROM st_check_model('StMulti2') WHERE kind = 'pattern' ORDER BY name;
-- a template of the HASH attribute that Event's template cannot form: it reads Tag
-- (whose g is a plain attribute, any value), and no stored item; a write of
-- an entity whose plain attributes give the whole key of the index, none
-- stored: the least it costs counts the index too (not for Bare, which
-- gives no day or n)
SELECT st_set_model('StMulti2', '{"type_attribute": null,
  "entities": {"Event": {"keys": {"PK": "E#{id}", "g": "G#{group}"}, "attributes": {"id": "S", "group": "S", "day": "N", "n": "N"}},
               "Tag": {"keys": {"PK": "T#{id}"}, "attributes": {"id": "S", "g": "S", "day": "N", "n": "N"}},
               "Bare": {"keys": {"PK": "B#{id}"}, "attributes": {"id": "S", "g": "S"}}},
  "patterns": {"other": {"op": "Query", "index": "ByDay", "pk": "H#{group}"},
               "new_tag": {"op": "PutItem", "entity": "Tag"}, "new_bare": {"op": "PutItem", "entity": "Bare"}}}') IS NOT NULL AS stored;
SELECT name, entities, ok, findings FROM st_check_model('StMulti2') WHERE kind = 'pattern' ORDER BY name;
SELECT pattern, write_units, note FROM st_model_cost('StMulti2') WHERE pattern LIKE 'new%' ORDER BY pattern;
SELECT st_drop_table('StMulti2');
