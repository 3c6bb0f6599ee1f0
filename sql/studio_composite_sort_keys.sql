-- Design studio: composite sort keys (single-table-design-patterns),
-- REGION#COUNTRY#STATE#CITY, one pattern per level of the hierarchy.
SELECT st_create_table('SalesTable') ->> 'TableName' AS created;
SELECT st_set_model('SalesTable', '{
  "type_attribute": null,
  "entities": {
    "Sale": {
      "keys": {"PK": "SALES#{year}", "SK": "{region}#{country}#{state}#{city}"},
      "attributes": {"year": "S", "region": "S", "country": "S", "state": "S", "city": "S",
                     "revenue": "N", "units": "N"},
      "required": ["revenue"]
    }
  },
  "patterns": {
    "year": {"op": "Query", "pk": "SALES#{year}", "rate": 1},
    "region": {"op": "Query", "pk": "SALES#{year}", "sk": {"begins_with": "{region}#"}, "rate": 5},
    "country": {"op": "Query", "pk": "SALES#{year}", "sk": {"begins_with": "{region}#{country}#"}, "rate": 5},
    "state": {"op": "Query", "pk": "SALES#{year}", "sk": {"begins_with": "{region}#{country}#{state}#"}, "rate": 10},
    "city": {"op": "GetItem", "pk": "SALES#{year}", "sk": "{region}#{country}#{state}#{city}", "rate": 20},
    "cities_after": {"op": "Query", "pk": "SALES#{year}", "sk": {">": "{region}#{country}#{state}#{city}"},
                     "example": {"year": "2026", "region": "NA", "country": "US", "state": "CA", "city": "M"}}
  }
}') IS NOT NULL AS stored;

SELECT e ->> 'SK' AS sk, e ? 'entity_type' AS has_type
  FROM jsonb_array_elements('[
  {"year": "2026", "region": "NA", "country": "US", "state": "CA", "city": "SanFrancisco", "revenue": 50000, "units": 120},
  {"year": "2026", "region": "NA", "country": "US", "state": "CA", "city": "LosAngeles", "revenue": 75000, "units": 200},
  {"year": "2026", "region": "NA", "country": "US", "state": "NY", "city": "NewYork", "revenue": 120000, "units": 350},
  {"year": "2026", "region": "EU", "country": "DE", "state": "BY", "city": "Munich", "revenue": 45000, "units": 90},
  {"year": "2026", "region": "NA", "country": "CA", "state": "ON", "city": "Toronto", "revenue": 30000, "units": 70},
  {"year": "2025", "region": "NA", "country": "US", "state": "CA", "city": "SanFrancisco", "revenue": 1, "units": 1}]') AS s,
       LATERAL st_put_entity('Sale', s, 'SalesTable') AS e;

-- each level of the hierarchy by prefix
SELECT i ->> 'SK' AS sk FROM st_run_pattern('year', '{"year": "2026"}', 'SalesTable') AS i;
SELECT i ->> 'SK' AS sk, i -> 'revenue' AS revenue FROM st_run_pattern('region', '{"year": "2026", "region": "NA"}', 'SalesTable') AS i;
SELECT i ->> 'SK' AS sk FROM st_run_pattern('country', '{"year": "2026", "region": "NA", "country": "US"}', 'SalesTable') AS i;
SELECT i ->> 'SK' AS sk FROM st_run_pattern('state', '{"year": "2026", "region": "NA", "country": "US", "state": "CA"}', 'SalesTable') AS i;
SELECT i ->> 'SK' AS sk FROM st_run_pattern('city', '{"year": "2026", "region": "NA", "country": "US", "state": "CA", "city": "LosAngeles"}', 'SalesTable') AS i;
SELECT count(*) AS south_america FROM st_run_pattern('region', '{"year": "2026", "region": "SA"}', 'SalesTable');
SELECT i ->> 'SK' AS sk FROM st_run_pattern('cities_after', '{"year": "2026", "region": "NA", "country": "US", "state": "CA", "city": "M"}', 'SalesTable') AS i;
-- the same as st_query at each level
SELECT bool_and((SELECT array_agg(i) FROM st_run_pattern('region', jsonb_build_object('year', '2026', 'region', r), 'SalesTable') AS i)
                IS NOT DISTINCT FROM (SELECT array_agg(i) FROM st_query('SALES#2026', r || '#', 'SalesTable') AS i)) AS same
  FROM unnest(ARRAY['NA', 'EU', 'SA']) AS r;
-- an entity without a type attribute is known by its key
SELECT st_entity_of(i, 'SalesTable') AS entity, count(*) FROM st_scan('SalesTable') AS i GROUP BY 1;

SELECT name, operation, entities, read_per_call, returned_per_call, ok, findings FROM st_check_model('SalesTable');
SELECT pattern, calls_per_second, read_units, write_units, on_demand_monthly, provisioned_monthly, note
  FROM st_model_cost('SalesTable');

SELECT st_drop_table('SalesTable');
