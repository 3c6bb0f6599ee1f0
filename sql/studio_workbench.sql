-- NoSQL Workbench facets (TableFacets) as the entities of a table's model:
-- imported by st_import_workbench, exported back by st_export_workbench,
-- and round-tripped; every way a facet can be wrong.
\set model `cat test/data/workbench_facets_model.json`
-- FacetBlog's facets become its model; FacetLabels' aliases are only labels
-- (both facets "SongId" / "Metadata"): its table and items are imported,
-- its model is not, with a warning
SELECT jsonb_pretty(st_import_workbench(:'model'));
SELECT st_get_model('FacetLabels') IS NULL AS no_model;
-- <placeholders> become {placeholders}; the attributes are the facet's and
-- the aliases' placeholders, typed by the table's NonKeyAttributes (any,
-- or S for a placeholder, when it has no type there); entity_type among
-- them makes it the type attribute
SELECT jsonb_pretty(st_get_model('FacetBlog')) AS stored_model \gset
\echo :stored_model
-- the facets' sample items (TableData) were written with the table's
SELECT st_entity_of(i, 'FacetBlog') AS entity, i ->> 'SK' AS sk FROM st_scan('FacetBlog') AS i ORDER BY 1, 2;
-- the model works: entities write, the checks run
SELECT st_put_entity('Comment', '{"post_id": "p1", "comment_id": "c2", "body": "Agreed"}', 'FacetBlog') ->> 'PK' AS pk;
SELECT kind, name, ok, findings FROM st_check_model('FacetBlog') ORDER BY kind, name;

-- Exported: each entity a facet, its table key templates the aliases
SELECT st_export_workbench(ARRAY['FacetBlog'], 'Facets') AS exported \gset
SELECT jsonb_pretty(:'exported'::jsonb #> '{DataModel,0,TableFacets}');
-- the same facets as the file: names and aliases exactly, the file's
-- NonKeyAttributes all there (with the aliases' placeholders added)
SELECT o ->> 'FacetName' AS facet,
       e -> 'KeyAttributeAlias' = o -> 'KeyAttributeAlias' AS same_aliases,
       (e -> 'NonKeyAttributes') @> (o -> 'NonKeyAttributes') AS keeps_attributes,
       e -> 'DataAccess' = o -> 'DataAccess' AS same_data_access
  FROM jsonb_array_elements(:'model'::jsonb #> '{DataModel,0,TableFacets}') AS o
  LEFT JOIN jsonb_array_elements(:'exported'::jsonb #> '{DataModel,0,TableFacets}') AS e
    ON e ->> 'FacetName' = o ->> 'FacetName'
 ORDER BY 1;
-- imported again: the same model and the same items
SELECT st_drop_table('FacetBlog');
SELECT st_import_workbench(:'exported') -> 'Tables' AS tables;
SELECT st_get_model('FacetBlog') = :'stored_model'::jsonb AS same_model;
SELECT count(*) AS items FROM st_scan('FacetBlog');
SELECT st_export_workbench(ARRAY['FacetBlog'], 'Facets') #> '{DataModel,0,TableFacets}'
     = :'exported'::jsonb #> '{DataModel,0,TableFacets}' AS same_facets;
-- a model set by hand exports its entities too; index templates, required
-- attributes and patterns have no place in a facet and are left out
SELECT st_set_model('FacetBlog', '{"entities": {
  "User": {"keys": {"PK": "USER#{user_id}", "SK": "PROFILE", "GSI1PK": "EMAIL#{email}"}, "required": ["email"]},
  "Note": {"type_attribute": null, "keys": {"PK": "NOTE#{n}", "SK": "NOTE"}, "attributes": {"n": "N"}}},
  "patterns": {"user": {"op": "GetItem", "pk": "USER#{user_id}", "sk": "PROFILE"}}}') IS NOT NULL AS stored;
SELECT jsonb_pretty(st_export_workbench(ARRAY['FacetBlog']) #> '{DataModel,0,TableFacets}');
-- a table without a model has no facets; one without a sort key, no SortKeyAlias
SELECT st_export_workbench(ARRAY['FacetLabels']) #> '{DataModel,0,TableFacets}' AS no_facets;
SELECT st_import_workbench('{"DataModel": [{"TableName": "FacetHash", "KeyAttributes": {"PartitionKey": {"AttributeName": "id", "AttributeType": "S"}},
  "TableFacets": [{"FacetName": "Thing", "KeyAttributeAlias": {"PartitionKeyAlias": "THING#<thing_id>", "SortKeyAlias": "ignored"},
                  "NonKeyAttributes": ["colour"]}]}]}') -> 'Tables' AS tables;
SELECT st_get_model('FacetHash') AS model;
SELECT st_export_workbench(ARRAY['FacetHash']) #> '{DataModel,0,TableFacets}' AS facets;

-- Bad facets: nothing is created.
\set VERBOSITY terse
SELECT st_import_workbench('{"DataModel": [{"TableName": "Bad", "KeyAttributes": {"PartitionKey": {"AttributeName": "PK", "AttributeType": "S"}},
  "TableFacets": {}}]}');
SELECT st_import_workbench('{"DataModel": [{"TableName": "Bad", "KeyAttributes": {"PartitionKey": {"AttributeName": "PK", "AttributeType": "S"}},
  "TableFacets": [1]}]}');
SELECT st_import_workbench('{"DataModel": [{"TableName": "Bad", "KeyAttributes": {"PartitionKey": {"AttributeName": "PK", "AttributeType": "S"}},
  "TableFacets": [{"KeyAttributeAlias": {"PartitionKeyAlias": "A#<a>"}}]}]}');
SELECT st_import_workbench('{"DataModel": [{"TableName": "Bad", "KeyAttributes": {"PartitionKey": {"AttributeName": "PK", "AttributeType": "S"}},
  "TableFacets": [{"FacetName": "A"}]}]}');
SELECT st_import_workbench('{"DataModel": [{"TableName": "Bad", "KeyAttributes": {"PartitionKey": {"AttributeName": "PK", "AttributeType": "S"}},
  "TableFacets": [{"FacetName": "A", "KeyAttributeAlias": {"PartitionKeyAlias": 7}}]}]}');
SELECT st_import_workbench('{"DataModel": [{"TableName": "Bad", "KeyAttributes": {"PartitionKey": {"AttributeName": "PK", "AttributeType": "S"},
                                                                                 "SortKey": {"AttributeName": "SK", "AttributeType": "S"}},
  "TableFacets": [{"FacetName": "A", "KeyAttributeAlias": {"PartitionKeyAlias": "A#<a>"}}]}]}');
SELECT st_import_workbench('{"DataModel": [{"TableName": "Bad", "KeyAttributes": {"PartitionKey": {"AttributeName": "PK", "AttributeType": "S"}},
  "TableFacets": [{"FacetName": "A", "KeyAttributeAlias": {"PartitionKeyAlias": "A#<a>"}, "NonKeyAttributes": "x"}]}]}');
SELECT st_import_workbench('{"DataModel": [{"TableName": "Bad", "KeyAttributes": {"PartitionKey": {"AttributeName": "PK", "AttributeType": "S"}},
  "TableFacets": [{"FacetName": "A", "KeyAttributeAlias": {"PartitionKeyAlias": "A#<a>"}, "TableData": {}}]}]}');
SELECT st_import_workbench('{"DataModel": [{"TableName": "Bad", "KeyAttributes": {"PartitionKey": {"AttributeName": "PK", "AttributeType": "S"}},
  "TableFacets": [{"FacetName": "A", "KeyAttributeAlias": {"PartitionKeyAlias": "A#<a>"}},
                  {"FacetName": "A", "KeyAttributeAlias": {"PartitionKeyAlias": "B#<b>"}}]}]}');
SELECT st_import_workbench('{"DataModel": [{"TableName": "Bad", "KeyAttributes": {"PartitionKey": {"AttributeName": "PK", "AttributeType": "S"}},
  "TableFacets": [{"FacetName": "A", "KeyAttributeAlias": {"PartitionKeyAlias": "A#<a>"}, "TableData": [{"PK": {"N": "1"}}]}]}]}');
SELECT st_list_tables();
-- a facet the model cannot hold (placeholders that touch, a placeholder
-- that is a key attribute, an empty one): the table without a model
SELECT st_import_workbench('{"DataModel": [{"TableName": "Labels", "KeyAttributes": {"PartitionKey": {"AttributeName": "PK", "AttributeType": "S"}},
  "TableFacets": [{"FacetName": "A", "KeyAttributeAlias": {"PartitionKeyAlias": "<a><b>"}}]}]}') #> '{Tables,0,ModelError}' AS error;
SELECT st_drop_table('Labels');
SELECT st_import_workbench('{"DataModel": [{"TableName": "Labels", "KeyAttributes": {"PartitionKey": {"AttributeName": "PK", "AttributeType": "S"}},
  "TableFacets": [{"FacetName": "A", "KeyAttributeAlias": {"PartitionKeyAlias": "A#<PK>"}}]}]}') #> '{Tables,0,ModelError}' AS error;
SELECT st_drop_table('Labels');
SELECT st_import_workbench('{"DataModel": [{"TableName": "Labels", "KeyAttributes": {"PartitionKey": {"AttributeName": "PK", "AttributeType": "S"}},
  "TableFacets": [{"FacetName": "A", "KeyAttributeAlias": {"PartitionKeyAlias": "A#<>"}}]}]}') #> '{Tables,0,ModelError}' AS error;
SELECT st_get_model('Labels') IS NULL AS no_model;

-- Multi-attribute GSI keys: NoSQL Workbench's data model has one
-- PartitionKey and one SortKey object per KeyAttributes, so an export
-- leaves such a GSI out (a WARNING names it; its key attributes stay
-- described as NonKeyAttributes) and keeps the others; a model whose GSI
-- has arrays there is refused, nothing created.
SELECT st_api('CreateTable', '{"TableName": "WbMulti", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "a", "AttributeType": "S"},
    {"AttributeName": "b", "AttributeType": "N"}, {"AttributeName": "c", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}],
  "GlobalSecondaryIndexes": [
    {"IndexName": "TwoHash", "Projection": {"ProjectionType": "ALL"},
     "KeySchema": [{"AttributeName": "a", "KeyType": "HASH"}, {"AttributeName": "b", "KeyType": "HASH"}]},
    {"IndexName": "TwoRange", "Projection": {"ProjectionType": "ALL"},
     "KeySchema": [{"AttributeName": "a", "KeyType": "HASH"}, {"AttributeName": "b", "KeyType": "RANGE"}, {"AttributeName": "c", "KeyType": "RANGE"}]},
    {"IndexName": "Single", "Projection": {"ProjectionType": "KEYS_ONLY"},
     "KeySchema": [{"AttributeName": "c", "KeyType": "HASH"}, {"AttributeName": "b", "KeyType": "RANGE"}]}]}') IS NOT NULL;
SELECT jsonb_pretty(m #> '{DataModel,0,GlobalSecondaryIndexes}') AS gsis,
       m #> '{DataModel,0,NonKeyAttributes}' AS attrs
  FROM st_export_workbench(ARRAY['WbMulti']) AS m;
SELECT st_drop_table('WbMulti');
SELECT st_import_workbench('{"DataModel": [{"TableName": "WbMulti", "KeyAttributes": {"PartitionKey": {"AttributeName": "PK", "AttributeType": "S"}},
  "GlobalSecondaryIndexes": [{"IndexName": "Single", "KeyAttributes": {"PartitionKey": {"AttributeName": "c", "AttributeType": "S"}}},
    {"IndexName": "TwoHash", "KeyAttributes": {"PartitionKey": [{"AttributeName": "a", "AttributeType": "S"}, {"AttributeName": "b", "AttributeType": "N"}]}}]}]}');
SELECT st_import_workbench('{"DataModel": [{"TableName": "WbMulti", "KeyAttributes": {"PartitionKey": {"AttributeName": "PK", "AttributeType": "S"}},
  "GlobalSecondaryIndexes": [{"IndexName": "TwoRange", "KeyAttributes": {"PartitionKey": {"AttributeName": "a", "AttributeType": "S"},
    "SortKey": [{"AttributeName": "b", "AttributeType": "N"}, {"AttributeName": "c", "AttributeType": "S"}]}}]}]}');
SELECT count(*) FROM stdesign.tables WHERE table_name = 'WbMulti';
\set VERBOSITY default

SELECT st_drop_table(t) FROM unnest(ARRAY['FacetBlog', 'FacetLabels', 'FacetHash', 'Labels']) AS t;
