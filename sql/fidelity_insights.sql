-- Contributor Insights: UpdateContributorInsights, DescribeContributorInsights
-- and ListContributorInsights with DynamoDB's rules and messages, per table
-- and per global secondary index; who may change and read them;
-- st_contributor_insights (the counts themselves need the traffic counters,
-- which pg_regress runs without: test/t/008_studio_traffic.pl counts them).

SELECT st_create_table('Insights') IS NOT NULL AS created;
SELECT st_create_gsi('Insights', 'ByOwner', 'owner') IS NOT NULL AS gsi;
SELECT st_create_gsi('Insights', 'ByOwnerDate', 'owner', 'date') IS NOT NULL AS gsi_with_sort_key;
SELECT st_create_table('{"TableName": "InsightsHashOnly", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}]}'::jsonb) IS NOT NULL AS created;
SELECT st_create_table('{"TableName": "InsightsLocal", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "PK", "AttributeType": "S"}, {"AttributeName": "SK", "AttributeType": "S"},
                           {"AttributeName": "d", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"}, {"AttributeName": "SK", "KeyType": "RANGE"}],
  "LocalSecondaryIndexes": [{"IndexName": "ByD", "KeySchema": [{"AttributeName": "PK", "KeyType": "HASH"},
                            {"AttributeName": "d", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "KEYS_ONLY"}}]}'::jsonb) IS NOT NULL AS created;

-- Never enabled: DISABLED, with no rules, no time and no mode.
SELECT st_api('DescribeContributorInsights', '{"TableName": "Insights"}');
SELECT st_api('DescribeContributorInsights', '{"TableName": "Insights", "IndexName": "ByOwner"}');

-- The model's checks, before the table is looked up: the action is
-- required and one of two, the mode one of two, the names by their rules,
-- every member of its type.
SELECT st_api('UpdateContributorInsights', '{"TableName": "Missing"}');
SELECT st_api('UpdateContributorInsights', '{"TableName": "Missing", "ContributorInsightsAction": "START"}');
SELECT st_api('UpdateContributorInsights', '{"TableName": "Missing", "ContributorInsightsAction": "ENABLE", "ContributorInsightsMode": "ALL_KEYS"}');
SELECT st_api('UpdateContributorInsights', '{"TableName": "Missing", "ContributorInsightsAction": "ENABLE", "IndexName": "x"}');
SELECT st_api('UpdateContributorInsights', '{"TableName": "Missing", "ContributorInsightsAction": "ENABLE", "IndexName": "a;b"}');
SELECT st_api('UpdateContributorInsights', '{"TableName": "ab", "ContributorInsightsAction": "ENABLE"}');
SELECT st_api('UpdateContributorInsights', '{"ContributorInsightsAction": "ENABLE"}');
SELECT st_api('UpdateContributorInsights', '{"TableName": "Insights", "ContributorInsightsAction": true}');
SELECT st_api('UpdateContributorInsights', '{"TableName": "Insights", "ContributorInsightsAction": "ENABLE", "ContributorInsightsMode": 1}');
SELECT st_api('UpdateContributorInsights', '{"TableName": ["Insights"], "ContributorInsightsAction": "ENABLE"}');
SELECT st_api('UpdateContributorInsights', '{"TableName": "Insights", "IndexName": {}, "ContributorInsightsAction": "ENABLE"}');
SELECT st_api('DescribeContributorInsights', '{}');
SELECT st_api('DescribeContributorInsights', '{"TableName": "Insights", "IndexName": 7}');
SELECT st_api('DescribeContributorInsights', jsonb_build_object('TableName', 'Insights', 'IndexName', repeat('i', 256)));
-- Then the table, then the index (a local index has no insights of its own).
SELECT st_api('UpdateContributorInsights', '{"TableName": "Missing", "ContributorInsightsAction": "ENABLE"}');
SELECT st_api('DescribeContributorInsights', '{"TableName": "Missing"}');
SELECT st_api('UpdateContributorInsights', '{"TableName": "Insights", "IndexName": "Nope", "ContributorInsightsAction": "ENABLE"}');
SELECT st_api('DescribeContributorInsights', '{"TableName": "Insights", "IndexName": "Nope"}');
SELECT st_api('UpdateContributorInsights', '{"TableName": "InsightsLocal", "IndexName": "ByD", "ContributorInsightsAction": "ENABLE"}');
SELECT st_api('DescribeContributorInsights', '{"TableName": "InsightsLocal", "IndexName": "ByD"}');

-- Enabling answers ENABLING and the mode (ACCESSED_AND_THROTTLED_KEYS unless
-- told); a describe then says ENABLED, with the rules: partition and sort
-- keys, most accessed and most throttled; the time of the change.
SELECT st_api('UpdateContributorInsights', '{"TableName": "Insights", "ContributorInsightsAction": "ENABLE"}');
SELECT d - 'LastUpdateDateTime' - 'ContributorInsightsRuleList' AS described,
       (SELECT jsonb_agg(regexp_replace(r, '-[0-9]+$', '-<ms>')) FROM jsonb_array_elements_text(d->'ContributorInsightsRuleList') r) AS rules,
       jsonb_typeof(d->'LastUpdateDateTime') AS time_type,
       abs((d->>'LastUpdateDateTime')::numeric - extract(epoch FROM now())) < 60 AS time_is_now,
       (d->>'LastUpdateDateTime')::numeric * 1000 = substring(d->'ContributorInsightsRuleList'->>0 FROM '-([0-9]+)$')::numeric AS rules_named_by_time
  FROM st_api('DescribeContributorInsights', '{"TableName": "Insights"}') AS d;
-- The table's ARN serves as its name; the index is still disabled.
SELECT st_api('DescribeContributorInsights', jsonb_build_object('TableName', st_describe_table('Insights')->>'TableArn', 'IndexName', 'ByOwner'));
-- Enabling again with the other mode changes the mode (and its rules:
-- the throttled ones only); the same mode again changes nothing, not even
-- the time.
SELECT st_api('UpdateContributorInsights', '{"TableName": "Insights", "ContributorInsightsAction": "ENABLE", "ContributorInsightsMode": "THROTTLED_KEYS"}');
SELECT insights_updated_at AS first_change FROM stdesign.tables WHERE table_name = 'Insights' \gset
SELECT st_api('UpdateContributorInsights', '{"TableName": "Insights", "ContributorInsightsAction": "ENABLE", "ContributorInsightsMode": "THROTTLED_KEYS"}');
SELECT insights_updated_at = :'first_change' AS time_kept FROM stdesign.tables WHERE table_name = 'Insights';
SELECT (SELECT jsonb_agg(regexp_replace(r, '-[0-9]+$', '-<ms>')) FROM jsonb_array_elements_text(d->'ContributorInsightsRuleList') r) AS rules,
       d->'ContributorInsightsMode' AS mode
  FROM st_api('DescribeContributorInsights', '{"TableName": "Insights"}') AS d;
-- A hash-only table has no sort-key rules.
SELECT st_api('UpdateContributorInsights', '{"TableName": "InsightsHashOnly", "ContributorInsightsAction": "ENABLE"}');
SELECT (SELECT jsonb_agg(regexp_replace(r, '-[0-9]+$', '-<ms>')) FROM jsonb_array_elements_text(d->'ContributorInsightsRuleList') r) AS rules
  FROM st_api('DescribeContributorInsights', '{"TableName": "InsightsHashOnly"}') AS d;
-- Per index: the index's own key schema names its rules.
SELECT st_api('UpdateContributorInsights', '{"TableName": "Insights", "IndexName": "ByOwner", "ContributorInsightsAction": "ENABLE"}');
SELECT st_api('UpdateContributorInsights', '{"TableName": "Insights", "IndexName": "ByOwnerDate", "ContributorInsightsAction": "ENABLE"}');
SELECT d->'ContributorInsightsStatus' AS status,
       (SELECT jsonb_agg(regexp_replace(r, '-[0-9]+$', '-<ms>')) FROM jsonb_array_elements_text(d->'ContributorInsightsRuleList') r) AS rules
  FROM unnest(ARRAY['ByOwner', 'ByOwnerDate']) AS ix,
       st_api('DescribeContributorInsights', jsonb_build_object('TableName', 'Insights', 'IndexName', ix)) AS d;
-- Disabling answers DISABLING (no mode); the mode a DISABLE names is ignored;
-- disabling what is disabled is not an error.  The time is the first
-- DISABLE's, and stays.
SELECT st_api('UpdateContributorInsights', '{"TableName": "Insights", "IndexName": "ByOwnerDate", "ContributorInsightsAction": "DISABLE", "ContributorInsightsMode": "THROTTLED_KEYS"}');
SELECT st_api('UpdateContributorInsights', '{"TableName": "Insights", "IndexName": "ByOwnerDate", "ContributorInsightsAction": "DISABLE"}');
SELECT d - 'LastUpdateDateTime' AS described, d ? 'LastUpdateDateTime' AS has_time
  FROM st_api('DescribeContributorInsights', '{"TableName": "Insights", "IndexName": "ByOwnerDate"}') AS d;

-- ListContributorInsights: every table and its global secondary indexes (not
-- local ones), by table then index name; pages of MaxResults with a
-- NextToken; one table when named.
SELECT st_api('ListContributorInsights', '{}');
SELECT st_api('ListContributorInsights', '{"TableName": "Insights"}');
SELECT st_api('ListContributorInsights', '{"TableName": "InsightsLocal"}');
SELECT st_api('ListContributorInsights', '{"MaxResults": 2}');
SELECT st_api('ListContributorInsights', '{"MaxResults": 2, "NextToken": "Insights#ByOwner"}');
SELECT st_api('ListContributorInsights', '{"MaxResults": 2, "NextToken": "InsightsHashOnly#"}');
SELECT st_api('ListContributorInsights', '{"MaxResults": 100, "NextToken": "InsightsLocal#"}');
-- Walking the pages one at a time meets every row once.
WITH RECURSIVE pages(n, page) AS (
	SELECT 1, st_api('ListContributorInsights', '{"MaxResults": 1}')
	UNION ALL
	SELECT n + 1, st_api('ListContributorInsights', jsonb_build_object('MaxResults', 1, 'NextToken', page->'NextToken'))
	  FROM pages WHERE page ? 'NextToken' AND n < 20
)
SELECT count(*) AS pages, string_agg(concat(page#>>'{ContributorInsightsSummaries,0,TableName}', '/',
                                            page#>>'{ContributorInsightsSummaries,0,IndexName}'), ' ' ORDER BY n) AS rows
  FROM pages;
-- Bad lists: MaxResults above 100 (the model), below 1, of another type; a
-- NextToken that is not one; a table that does not exist.
SELECT st_api('ListContributorInsights', '{"MaxResults": 101}');
SELECT st_api('ListContributorInsights', '{"MaxResults": 0}');
SELECT st_api('ListContributorInsights', '{"MaxResults": -5}');
SELECT st_api('ListContributorInsights', '{"MaxResults": "10"}');
SELECT st_api('ListContributorInsights', '{"MaxResults": 1.5}');
SELECT st_api('ListContributorInsights', '{"MaxResults": 1e30}');
SELECT st_api('ListContributorInsights', '{"NextToken": "nohash"}');
SELECT st_api('ListContributorInsights', '{"NextToken": "#x"}');
SELECT st_api('ListContributorInsights', '{"NextToken": 5}');
SELECT st_api('ListContributorInsights', jsonb_build_object('NextToken', repeat('z', 100000) || '#'));
SELECT st_api('ListContributorInsights', '{"TableName": "Missing"}');
SELECT st_api('ListContributorInsights', '{"TableName": "a;b"}');
-- Through the X-Amz-Target form of the name, as the HTTP endpoint passes it.
SELECT st_api('DynamoDB_20120810.DescribeContributorInsights', '{"TableName": "InsightsHashOnly"}') ->> 'ContributorInsightsStatus' AS status;

-- A deleted index takes its setting with it; one created again under the
-- same name starts disabled.
SELECT st_drop_gsi('Insights', 'ByOwner');
SELECT st_api('DescribeContributorInsights', '{"TableName": "Insights", "IndexName": "ByOwner"}');
SELECT st_create_gsi('Insights', 'ByOwner', 'owner') IS NOT NULL AS gsi;
SELECT st_api('DescribeContributorInsights', '{"TableName": "Insights", "IndexName": "ByOwner"}');

-- Without the traffic counters (pg_regress runs without
-- shared_preload_libraries) st_contributor_insights says so and returns
-- nothing; its arguments are checked first.
SELECT * FROM st_contributor_insights('Insights');
SELECT * FROM st_contributor_insights('Insights', 'ByOwner', 3);
SELECT * FROM st_contributor_insights('Insights', 'Nope');
SELECT * FROM st_contributor_insights('InsightsLocal', 'ByD');
SELECT * FROM st_contributor_insights('Missing');
SELECT * FROM st_contributor_insights(NULL);
SELECT * FROM st_contributor_insights('Insights', NULL, 0);
SELECT * FROM st_contributor_insights('Insights', NULL, -2147483648);
SELECT * FROM st_contributor_insights('Insights', NULL, 2147483647);

-- Who may: only the owner of the table's relation changes the setting (as
-- UpdateTable); anyone describes and lists it (as DescribeTable and
-- ListTables); the counts need SELECT on the relation, as
-- st_partition_traffic's.  A role granted UPDATE on the catalog gains nothing.
CREATE ROLE insights_reader;
GRANT USAGE ON SCHEMA stdesign, stdesign_data TO insights_reader;
GRANT SELECT, UPDATE ON stdesign.tables, stdesign.indexes TO insights_reader;
\set VERBOSITY terse
SET ROLE insights_reader;
SELECT st_api('DescribeContributorInsights', '{"TableName": "Insights"}') ->> 'ContributorInsightsStatus' AS status;
SELECT jsonb_array_length(st_api('ListContributorInsights', '{}') -> 'ContributorInsightsSummaries') AS listed;
SELECT st_api('UpdateContributorInsights', '{"TableName": "Insights", "ContributorInsightsAction": "DISABLE"}');
SELECT st_api('UpdateContributorInsights', '{"TableName": "Insights", "IndexName": "ByOwner", "ContributorInsightsAction": "ENABLE"}');
UPDATE stdesign.tables SET insights_mode = NULL WHERE table_name = 'Insights';
SELECT * FROM st_contributor_insights('Insights');
RESET ROLE;
GRANT SELECT ON stdesign_data."Insights" TO insights_reader;
SET ROLE insights_reader;
SELECT count(*) AS rows FROM st_contributor_insights('Insights');
RESET ROLE;
\set VERBOSITY default
SELECT st_api('DescribeContributorInsights', '{"TableName": "Insights"}') ->> 'ContributorInsightsStatus' AS still;
REVOKE ALL ON stdesign_data."Insights" FROM insights_reader;
REVOKE ALL ON stdesign.tables, stdesign.indexes FROM insights_reader;
REVOKE ALL ON SCHEMA stdesign, stdesign_data FROM insights_reader;
DROP ROLE insights_reader;

-- In a read-only transaction the change is refused and nothing changes.
BEGIN READ ONLY;
SELECT st_api('UpdateContributorInsights', '{"TableName": "Insights", "ContributorInsightsAction": "DISABLE"}');
ROLLBACK;
SELECT st_api('DescribeContributorInsights', '{"TableName": "Insights"}') ->> 'ContributorInsightsStatus' AS still;
-- A change rolls back with its transaction.
BEGIN;
SELECT st_api('UpdateContributorInsights', '{"TableName": "Insights", "ContributorInsightsAction": "DISABLE"}') ->> 'ContributorInsightsStatus' AS status;
ROLLBACK;
SELECT st_api('DescribeContributorInsights', '{"TableName": "Insights"}') ->> 'ContributorInsightsStatus' AS still;

SELECT st_drop_table('Insights'), st_drop_table('InsightsHashOnly'), st_drop_table('InsightsLocal');
SELECT st_api('ListContributorInsights', '{}');
