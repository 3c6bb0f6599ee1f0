-- The studio's browser test: the trust role, the seeds' e-commerce table
-- (sql/stdesign_seed_ecommerce.sql) owned by it, the seeds' model
-- (docs/studio.md), a few more items, and hostile values.
CREATE EXTENSION IF NOT EXISTS stdesign;
CREATE ROLE studio_user LOGIN;
GRANT USAGE ON SCHEMA stdesign TO studio_user;
GRANT USAGE, CREATE ON SCHEMA stdesign_data TO studio_user;
GRANT SELECT ON stdesign.tables, stdesign.indexes TO studio_user;
SET ROLE studio_user;
\i :seed
SELECT st_set_model('ECommerceTable', $model$
{
  "description": "customers, their orders, the orders' line items",
  "type_attribute": "entity_type",
  "entities": {
    "Customer": {
      "keys": {"PK": "CUST#{customer_id}", "SK": "CUST#{customer_id}"},
      "attributes": {"customer_id": "S", "name": "S", "email": "S", "created_at": "S"}
    },
    "Order": {
      "keys": {"PK": "CUST#{customer_id}", "SK": "ORDER#{order_date}#{order_id}",
               "GSI1PK": "ORDER#{order_id}", "GSI1SK": "STATUS#{status}"},
      "attributes": {"customer_id": "S", "order_id": "S", "order_date": "S",
                     "total": "N", "status": "S", "created_at": "S"}
    },
    "OrderItem": {
      "keys": {"PK": "ORDER#{order_id}", "SK": "ITEM#{sku}",
               "GSI1PK": "PROD#{sku}", "GSI1SK": "ORDER#{order_id}"},
      "attributes": {"order_id": "S", "sku": "S", "quantity": "N", "price": "N", "product_name": "S"}
    }
  },
  "patterns": {
    "get_customer": {"op": "GetItem", "pk": "CUST#{customer_id}", "sk": "CUST#{customer_id}", "rate": 100},
    "orders_for_customer": {"op": "Query", "pk": "CUST#{customer_id}",
                            "sk": {"begins_with": "ORDER#"}, "rate": 50},
    "orders_in_range": {"op": "Query", "pk": "CUST#{customer_id}",
                        "sk": {"between": ["ORDER#{from}", "ORDER#{to}"]}, "rate": 5,
                        "example": {"customer_id": "123", "from": "2026-07-01", "to": "2026-07-31#~"}},
    "order_items": {"op": "Query", "pk": "ORDER#{order_id}", "sk": {"begins_with": "ITEM#"}, "rate": 30},
    "order_status": {"op": "Query", "index": "GSI1", "pk": "ORDER#{order_id}",
                     "sk": {"begins_with": "STATUS#"}, "rate": 10},
    "new_order": {"op": "PutItem", "entity": "Order", "rate": 3}
  }
}
$model$) IS NOT NULL AS model_set;
SELECT count(st_put_entity('Customer', c)) AS customers FROM jsonb_array_elements($j$[
  {"customer_id": "456", "name": "Rahul Rao", "email": "rahul@example.com", "created_at": "2026-02-01T09:00:00Z"},
  {"customer_id": "789", "name": "<img src=x onerror=alert(1)><script>window.injected=1</script>", "email": "\"><b id=injected>x</b>'\"", "created_at": "2026-03-01"}]$j$) AS c;
SELECT count(st_put_entity('Order', o)) AS orders FROM jsonb_array_elements('[
  {"customer_id": "456", "order_id": "004", "order_date": "2026-07-10", "total": 99, "status": "delivered"}]') AS o;
-- a very long value and a hostile attribute name
SELECT st_put(jsonb_build_object('PK', 'CUST#999', 'SK', 'CUST#999', 'entity_type', 'Customer', 'name', repeat('long ', 4000),
	'<script>alert(2)</script>', '"onmouseover="x'), 'ECommerceTable') IS NULL AS hostile_item_new;
-- a GSI with a multi-attribute key (two HASH, two RANGE attributes) and a
-- Query pattern of it
SELECT st_api('CreateTable', '{"TableName": "Tenants", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"},
    {"AttributeName": "tenant", "AttributeType": "S"}, {"AttributeName": "tier", "AttributeType": "N"},
    {"AttributeName": "day", "AttributeType": "N"}, {"AttributeName": "ref", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "GlobalSecondaryIndexes": [{"IndexName": "ByTenant", "Projection": {"ProjectionType": "ALL"},
    "KeySchema": [{"AttributeName": "tenant", "KeyType": "HASH"}, {"AttributeName": "tier", "KeyType": "HASH"},
      {"AttributeName": "day", "KeyType": "RANGE"}, {"AttributeName": "ref", "KeyType": "RANGE"}]}]}') IS NOT NULL AS tenants;
SELECT st_set_model('Tenants', '{
  "entities": {
    "Order": {"keys": {"PK": "TENANT#{tenant}", "SK": "ORDER#{order_id}", "ref": "ORD#{order_id}"},
              "attributes": {"tenant": "S", "tier": "N", "day": "N", "order_id": "S", "total": "N"}}
  },
  "patterns": {
    "orders_of_day": {"op": "Query", "index": "ByTenant", "pk": ["{tenant}", "{tier}"],
                      "sk": ["{day}", {"begins_with": "ORD#"}], "rate": 5}
  }
}') IS NOT NULL AS tenants_model;
SELECT count(st_put_entity('Order', o, 'Tenants')) AS tenant_orders FROM jsonb_array_elements('[
  {"tenant": "acme", "tier": 2, "day": 20260105, "order_id": "o1", "total": 5},
  {"tenant": "acme", "tier": 2, "day": 20260105, "order_id": "o2", "total": 6},
  {"tenant": "acme", "tier": 2, "day": 20260104, "order_id": "o3", "total": 7},
  {"tenant": "acme", "tier": 3, "day": 20260105, "order_id": "o4", "total": 8},
  {"tenant": "globex", "tier": 2, "day": 20260105, "order_id": "o5", "total": 9}]') AS o;
RESET ROLE;
