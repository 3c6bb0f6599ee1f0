-- On-demand backups: CreateBackup, DescribeBackup, ListBackups, DeleteBackup,
-- RestoreTableFromBackup through st_api and the friendly functions, with
-- DynamoDB's shapes and messages; a restore holds the table as it was at
-- the backup, whatever was written after; backups outlive their table;
-- who may back up, see, delete and restore.

-- ARNs and times differ from run to run: shown masked.
CREATE FUNCTION bk_mask(j jsonb) RETURNS jsonb LANGUAGE sql AS $$
	SELECT regexp_replace(regexp_replace(regexp_replace(j::text,
		'/backup/[0-9]{14}-[0-9a-f]{8}', '/backup/<id>', 'g'),
		'"(BackupCreationDateTime|TableCreationDateTime|CreationDateTime|RestoreDateTime|LastUpdateToPayPerRequestDateTime)": [0-9.]+', '"\1": "<time>"', 'g'),
		'"TableId": "[0-9a-f-]+"', '"TableId": "<id>"', 'g')::jsonb
$$;
-- an error whose message holds a backup's ARN, masked the same way
CREATE FUNCTION bk_err(op text, req jsonb) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	PERFORM st_api(op, req);
	RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
	RETURN regexp_replace(SQLERRM, '/backup/[0-9]{14}-[0-9a-f]{8}', '/backup/<id>', 'g');
END $$;

SELECT st_api('CreateTable', '{"TableName": "Music", "BillingMode": "PROVISIONED",
  "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 6},
  "AttributeDefinitions": [{"AttributeName": "Artist", "AttributeType": "S"},
    {"AttributeName": "Song", "AttributeType": "S"}, {"AttributeName": "Year", "AttributeType": "N"},
    {"AttributeName": "Genre", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "Artist", "KeyType": "HASH"}, {"AttributeName": "Song", "KeyType": "RANGE"}],
  "LocalSecondaryIndexes": [{"IndexName": "ByYear", "KeySchema": [{"AttributeName": "Artist", "KeyType": "HASH"},
    {"AttributeName": "Year", "KeyType": "RANGE"}], "Projection": {"ProjectionType": "KEYS_ONLY"}}],
  "GlobalSecondaryIndexes": [{"IndexName": "ByGenre", "KeySchema": [{"AttributeName": "Genre", "KeyType": "HASH"}],
    "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["Year"]},
    "ProvisionedThroughput": {"ReadCapacityUnits": 2, "WriteCapacityUnits": 3}}],
  "Tags": [{"Key": "team", "Value": "a"}]}') IS NOT NULL AS created;
SELECT st_update_ttl('Music', 'expires') IS NOT NULL AS ttl_on;
SELECT count(*) FILTER (WHERE st_put(jsonb_strip_nulls(jsonb_build_object('Artist', 'a' || (i % 7), 'Song', 's' || i, 'Year', 1960 + i % 50,
	'Genre', CASE WHEN i % 3 = 0 THEN 'rock' END, 'Lyrics', repeat('la', i))), 'Music') IS NULL) AS put
  FROM generate_series(1, 200) i;

-- CreateBackup: BackupDetails, AVAILABLE once it answers; the size is the
-- items' by DynamoDB's rules, the same sum DescribeTable gives.
SELECT bk_mask(st_api('CreateBackup', '{"TableName": "Music", "BackupName": "first"}')) AS created;
SELECT st_api('ListBackups', '{"TableName": "Music"}') #>> '{BackupSummaries,0,BackupArn}' AS arn \gset
CREATE TABLE music_at_backup AS SELECT item FROM stdesign_data."Music";
SELECT :'arn' ~ '^arn:aws:dynamodb:local:000000000000:table/Music/backup/[0-9]{14}-[0-9a-f]{8}$' AS arn_shape;
SELECT (st_api('DescribeBackup', jsonb_build_object('BackupArn', :'arn')) #>> '{BackupDescription,BackupDetails,BackupSizeBytes}')
	= (st_describe_table('Music') ->> 'TableSizeBytes') AS size_is_table_size,
	(st_api('DescribeBackup', jsonb_build_object('BackupArn', :'arn')) #>> '{BackupDescription,SourceTableDetails,ItemCount}') AS items;
-- the creation time is the ARN's, in seconds with milliseconds
SELECT (st_api('DescribeBackup', jsonb_build_object('BackupArn', :'arn')) #>> '{BackupDescription,BackupDetails,BackupCreationDateTime}')::numeric * 1000
	= substring(:'arn' from '/backup/([0-9]+)-')::numeric AS time_in_arn;

-- DescribeBackup: the table as it was, its indexes and time to live.
SELECT jsonb_pretty(bk_mask(st_api('DescribeBackup', jsonb_build_object('BackupArn', :'arn'))));

-- Writes after the backup change the table, not the backup.
SELECT st_put('{"Artist": "a1", "Song": "new", "Year": 2024}', 'Music') IS NULL AS put;
SELECT st_delete('a2', 's2', 'Music') IS NULL AS deleted;
SELECT st_update('a3', 's3', 'SET Lyrics = :x', 'Music', "values" => '{":x": "changed"}') ->> 'Lyrics' AS updated;

-- RestoreTableFromBackup: the table of the backup's time, indexes and all.
SELECT jsonb_pretty(bk_mask(st_api('RestoreTableFromBackup',
	jsonb_build_object('BackupArn', :'arn', 'TargetTableName', 'MusicRestored'))));
SELECT count(*) AS restored_items,
	count(*) FILTER (WHERE item ->> 'Song' = '{"S": "new"}') AS has_later_put
  FROM stdesign_data."MusicRestored";
-- the same items as the source at the backup (copied then), none of the later writes
SELECT (SELECT count(*) FROM (SELECT item FROM stdesign_data."MusicRestored"
		EXCEPT ALL SELECT item FROM music_at_backup) d) AS only_in_restored,
	(SELECT count(*) FROM (SELECT item FROM music_at_backup
		EXCEPT ALL SELECT item FROM stdesign_data."MusicRestored") d) AS only_in_source,
	(SELECT count(*) FROM (SELECT item FROM stdesign_data."Music"
		EXCEPT ALL SELECT item FROM stdesign_data."MusicRestored") d) AS changed_since;
SELECT st_get('a2', 's2', 'MusicRestored') ->> 'Song' AS deleted_later_is_back,
	st_get('a3', 's3', 'MusicRestored') ->> 'Lyrics' = repeat('la', 3) AS update_not_seen;
-- the indexes work on the restored table
SELECT count(*) AS by_genre FROM st_query('rock', "table" => 'MusicRestored', index => 'ByGenre');
SELECT count(*) AS by_year FROM st_query('a1', "table" => 'MusicRestored', index => 'ByYear', sk_from => '1990');
-- not restored, as in DynamoDB: tags, time to live
SELECT st_table_tags('MusicRestored') AS restored_tags, st_describe_ttl('MusicRestored') AS restored_ttl;
-- DescribeTable keeps the RestoreSummary
SELECT bk_mask(st_describe_table('MusicRestored') -> 'RestoreSummary') AS restore_summary;

-- Overrides: on demand, without the GSI, without the LSI.
SELECT bk_mask(st_api('RestoreTableFromBackup', jsonb_build_object('BackupArn', :'arn', 'TargetTableName', 'MusicLean',
	'BillingModeOverride', 'PAY_PER_REQUEST', 'GlobalSecondaryIndexOverride', '[]'::jsonb,
	'LocalSecondaryIndexOverride', '[]'::jsonb)) -> 'TableDescription')
	- 'TableSizeBytes' - 'ItemCount' - 'RestoreSummary' AS lean;
SELECT count(*) FROM stdesign_data."MusicLean";
SELECT st_api('RestoreTableFromBackup', jsonb_build_object('BackupArn', :'arn', 'TargetTableName', 'MusicFast',
	'ProvisionedThroughputOverride', '{"ReadCapacityUnits": 50, "WriteCapacityUnits": 60}'::jsonb,
	'SSESpecificationOverride', '{"Enabled": true}'::jsonb)) #> '{TableDescription,ProvisionedThroughput}' AS throughput;
-- an index override naming an attribute the backup has no definition of: CreateTable's error
SELECT st_api('RestoreTableFromBackup', jsonb_build_object('BackupArn', :'arn', 'TargetTableName', 'MusicBad',
	'GlobalSecondaryIndexOverride', '[{"IndexName": "ByMood", "KeySchema": [{"AttributeName": "Mood", "KeyType": "HASH"}],
	  "Projection": {"ProjectionType": "ALL"}, "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}}]'::jsonb));
SELECT st_list_tables() AS tables ORDER BY 1;

-- Restore errors: the target exists; the backup does not.
SELECT bk_err('RestoreTableFromBackup', jsonb_build_object('BackupArn', :'arn', 'TargetTableName', 'Music'));
SELECT st_api('RestoreTableFromBackup', '{"BackupArn": "arn:aws:dynamodb:local:000000000000:table/Music/backup/01576616366715-b4e58d3a", "TargetTableName": "Other"}');
SELECT bk_err('RestoreTableFromBackup', jsonb_build_object('BackupArn', :'arn'));
SELECT st_api('RestoreTableFromBackup', '{"TargetTableName": "Other"}');
SELECT bk_err('RestoreTableFromBackup', jsonb_build_object('BackupArn', :'arn', 'TargetTableName', 'a;b'));
SELECT bk_err('RestoreTableFromBackup', jsonb_build_object('BackupArn', :'arn', 'TargetTableName', 'Other', 'BillingModeOverride', 'FREE'));

-- CreateBackup errors: the model's checks, then the table.
SELECT st_api('CreateBackup', '{"TableName": "Music"}');
SELECT st_api('CreateBackup', '{"BackupName": "bk1"}');
SELECT st_api('CreateBackup', '{"TableName": "Music", "BackupName": "no spaces"}');
SELECT st_api('CreateBackup', '{"TableName": "Music", "BackupName": "ab"}');
SELECT st_api('CreateBackup', jsonb_build_object('TableName', 'Music', 'BackupName', repeat('b', 256)));
SELECT st_api('CreateBackup', '{"TableName": "Music", "BackupName": 5}');
SELECT st_api('CreateBackup', '{"TableName": "Missing", "BackupName": "bk1"}');
SELECT st_create_backup('Missing', 'bk1');
SELECT st_create_backup(NULL, 'bk1');
SELECT st_create_backup('Music', NULL);

-- DescribeBackup and DeleteBackup errors: malformed, forged, too long, absent.
SELECT st_api('DescribeBackup', '{}');
SELECT st_api('DescribeBackup', '{"BackupArn": "short"}');
SELECT st_api('DescribeBackup', '{"BackupArn": 7}');
SELECT st_api('DescribeBackup', jsonb_build_object('BackupArn', repeat('x', 1025)));
SELECT bk_err('DescribeBackup', jsonb_build_object('BackupArn', replace(:'arn', 'local', 'us-east-1')));
SELECT bk_err('DescribeBackup', jsonb_build_object('BackupArn', :'arn' || 'x'));
SELECT st_api('DescribeBackup', '{"BackupArn": "arn:aws:dynamodb:local:000000000000:table/Music/backup/x'' OR ''1''=''1"}');
SELECT st_api('DeleteBackup', '{"BackupArn": "arn:aws:dynamodb:local:000000000000:table/Music/backup/01576616366715-b4e58d3a"}');
SELECT st_delete_backup(NULL);

-- ListBackups: filters, pages, types.
SELECT st_create_backup('Music', 'second') ->> 'BackupName' AS second;
SELECT st_create_backup('arn:aws:dynamodb:local:000000000000:table/MusicLean', 'lean') ->> 'BackupName' AS by_arn;
SELECT jsonb_array_length(st_api('ListBackups', '{}') -> 'BackupSummaries') AS all_backups;
SELECT bk_mask(st_api('ListBackups', '{"TableName": "Music"}')) AS music;
SELECT jsonb_array_length(st_api('ListBackups', '{"TableName": "arn:aws:dynamodb:local:000000000000:table/Music"}') -> 'BackupSummaries') AS by_table_arn;
SELECT jsonb_array_length(st_api('ListBackups', '{"TableName": "Nothing"}') -> 'BackupSummaries') AS no_table;
SELECT jsonb_array_length(st_api('ListBackups', '{"BackupType": "ALL"}') -> 'BackupSummaries') AS type_all,
	jsonb_array_length(st_api('ListBackups', '{"BackupType": "USER"}') -> 'BackupSummaries') AS type_user,
	jsonb_array_length(st_api('ListBackups', '{"BackupType": "SYSTEM"}') -> 'BackupSummaries') AS type_system,
	jsonb_array_length(st_api('ListBackups', '{"BackupType": "AWS_BACKUP"}') -> 'BackupSummaries') AS type_aws_backup;
-- pages of one: each page's LastEvaluatedBackupArn starts the next; the last page has none
SELECT st_api('ListBackups', '{"Limit": 1}') ->> 'LastEvaluatedBackupArn' AS p1 \gset
SELECT st_api('ListBackups', jsonb_build_object('Limit', 1, 'ExclusiveStartBackupArn', :'p1')) ->> 'LastEvaluatedBackupArn' AS p2 \gset
SELECT st_api('ListBackups', jsonb_build_object('Limit', 1, 'ExclusiveStartBackupArn', :'p2')) AS p3 \gset
SELECT :'p1' = :'arn' AS first_page_is_oldest, :'p1' <> :'p2' AS pages_differ,
	NOT (:'p3'::jsonb ? 'LastEvaluatedBackupArn') AS last_page_ends,
	jsonb_array_length(:'p3'::jsonb -> 'BackupSummaries') AS last_page_size;
SELECT jsonb_array_length(st_api('ListBackups', '{"Limit": 3}') -> 'BackupSummaries') AS limit_3,
	st_api('ListBackups', '{"Limit": 3}') ? 'LastEvaluatedBackupArn' AS limit_3_more;
-- time bounds: lower inclusive, upper exclusive
SELECT jsonb_array_length(st_api('ListBackups', jsonb_build_object('TimeRangeLowerBound',
	(st_api('DescribeBackup', jsonb_build_object('BackupArn', :'arn')) #>> '{BackupDescription,BackupDetails,BackupCreationDateTime}')::numeric)) -> 'BackupSummaries') AS from_first,
	jsonb_array_length(st_api('ListBackups', jsonb_build_object('TimeRangeUpperBound',
	(st_api('DescribeBackup', jsonb_build_object('BackupArn', :'arn')) #>> '{BackupDescription,BackupDetails,BackupCreationDateTime}')::numeric)) -> 'BackupSummaries') AS before_first,
	jsonb_array_length(st_api('ListBackups', '{"TimeRangeLowerBound": 4102444800}') -> 'BackupSummaries') AS after_2100;
-- times beyond any timestamp, an ExclusiveStartBackupArn with a time beyond: nothing, no error
SELECT st_api('ListBackups', '{"TimeRangeLowerBound": 1e300}'),
	st_api('ListBackups', '{"TimeRangeLowerBound": 1e400, "TimeRangeUpperBound": -1e400}') AS past_double,
	jsonb_array_length(st_api('ListBackups', '{"TimeRangeUpperBound": 1e300, "TimeRangeLowerBound": -1e300}') -> 'BackupSummaries') AS all_times,
	st_api('ListBackups', '{"ExclusiveStartBackupArn": "arn:aws:dynamodb:local:000000000000:table/Music/backup/99999999999999999999999-00000000"}') AS after_far_future,
	jsonb_array_length(st_api('ListBackups', '{"ExclusiveStartBackupArn": "arn:aws:dynamodb:local:000000000000:table/Music/backup/00000000000000-00000000"}') -> 'BackupSummaries') AS after_epoch;
SELECT st_api('ListBackups', '{"Limit": 0}');
SELECT st_api('ListBackups', '{"Limit": 101}');
SELECT st_api('ListBackups', '{"BackupType": "MINE"}');
SELECT st_api('ListBackups', '{"TimeRangeLowerBound": "yesterday"}');
SELECT st_api('ListBackups', '{"TableName": "a;b"}');

-- Backups outlive their table; a restore brings it back under its name.
SELECT st_api('DeleteTable', '{"TableName": "Music"}') #>> '{TableDescription,TableStatus}' AS dropped;
SELECT jsonb_array_length(st_api('ListBackups', '{"TableName": "Music"}') -> 'BackupSummaries') AS still_listed;
SELECT st_restore_backup(:'arn', 'Music') ->> 'ItemCount' AS back;
SELECT count(*) = (SELECT count(*) FROM music_at_backup) AS same_count FROM stdesign_data."Music";

-- DeleteBackup: DELETED, then gone.
SELECT bk_mask(st_api('DeleteBackup', jsonb_build_object('BackupArn', :'arn')) -> 'BackupDescription' -> 'BackupDetails') AS deleted;
SELECT bk_err('DescribeBackup', jsonb_build_object('BackupArn', :'arn'));
SELECT bk_err('DeleteBackup', jsonb_build_object('BackupArn', :'arn'));
SELECT count(*) AS items_left_of_deleted FROM stdesign.backup_items bi
 WHERE NOT EXISTS (SELECT FROM stdesign.backups b WHERE b.backup_id = bi.backup_id);
-- deleting and restoring in one transaction: the restore sees the backup it locked
BEGIN;
SELECT st_api('ListBackups', '{"TableName": "Music"}') #>> '{BackupSummaries,0,BackupArn}' AS arn2 \gset
SELECT st_restore_backup(:'arn2', 'MusicTwice') ->> 'TableStatus' AS restored;
SELECT st_delete_backup(:'arn2') #>> '{BackupDetails,BackupStatus}' AS deleted_same_transaction;
ROLLBACK;

-- Privileges.  A role with no SELECT on the table may not back it up; the
-- backups of a role are seen, restored and deleted by that role and its
-- members (and superusers) only: to any other it is not found.
CREATE ROLE regress_bk_owner;
CREATE ROLE regress_bk_member IN ROLE regress_bk_owner;
CREATE ROLE regress_bk_other;
GRANT USAGE ON SCHEMA stdesign, stdesign_data TO regress_bk_owner, regress_bk_other;
GRANT CREATE ON SCHEMA stdesign_data TO regress_bk_owner;
GRANT SELECT ON stdesign.tables, stdesign.indexes TO regress_bk_owner, regress_bk_other;
GRANT SELECT ON stdesign_data."MusicLean" TO regress_bk_owner;
SET ROLE regress_bk_other;
SELECT st_create_backup('MusicLean', 'theft');
SELECT count(*) FROM stdesign.backup_items;
SELECT count(*) FROM stdesign.backups;
SELECT jsonb_array_length(st_api('ListBackups', '{}') -> 'BackupSummaries') AS other_sees;
SELECT st_api('ListBackups', '{}') #>> '{BackupSummaries,0,BackupArn}' AS lean_arn;
RESET ROLE;
SELECT st_api('ListBackups', '{"TableName": "MusicLean"}') #>> '{BackupSummaries,0,BackupArn}' AS lean_arn \gset
SET ROLE regress_bk_other;
SELECT bk_err('DescribeBackup', jsonb_build_object('BackupArn', :'lean_arn'));
SELECT bk_err('RestoreTableFromBackup', jsonb_build_object('BackupArn', :'lean_arn', 'TargetTableName', 'Stolen'));
SELECT bk_err('DeleteBackup', jsonb_build_object('BackupArn', :'lean_arn'));
RESET ROLE;
SET ROLE regress_bk_owner;
SELECT st_create_backup('MusicLean', 'mine') #>> '{BackupName}' AS owner_backup;
SELECT jsonb_array_length(st_api('ListBackups', '{}') -> 'BackupSummaries') AS owner_sees;
SELECT st_api('ListBackups', '{}') #>> '{BackupSummaries,0,BackupArn}' AS own_arn \gset
RESET ROLE;
SET ROLE regress_bk_other;
SELECT jsonb_array_length(st_api('ListBackups', '{}') -> 'BackupSummaries') AS other_sees;
SELECT bk_err('RestoreTableFromBackup', jsonb_build_object('BackupArn', :'own_arn', 'TargetTableName', 'Stolen'));
RESET ROLE;
SET ROLE regress_bk_member;
SELECT jsonb_array_length(st_api('ListBackups', '{}') -> 'BackupSummaries') AS member_sees;
RESET ROLE;
SET ROLE regress_bk_owner;
SELECT st_restore_backup(:'own_arn', 'MineRestored') ->> 'ItemCount' AS owner_restores;
SELECT pg_get_userbyid(relowner) AS restored_owner FROM pg_class WHERE oid = '"stdesign_data"."MineRestored"'::regclass;
RESET ROLE;
-- restoring needs CREATE on stdesign_data, as CreateTable does
REVOKE CREATE ON SCHEMA stdesign_data FROM regress_bk_owner;
SET ROLE regress_bk_owner;
SELECT bk_err('RestoreTableFromBackup', jsonb_build_object('BackupArn', :'own_arn', 'TargetTableName', 'MineAgain'));
SELECT st_delete_backup(:'own_arn') #>> '{BackupDetails,BackupStatus}' AS owner_deletes;
RESET ROLE;
-- the catalog refuses direct writes, even granted
GRANT INSERT, DELETE ON stdesign.backups, stdesign.backup_items TO regress_bk_other;
SET ROLE regress_bk_other;
DELETE FROM stdesign.backups;
INSERT INTO stdesign.backup_items VALUES (1, '{}');
RESET ROLE;
-- a trigger on the catalog (TRIGGER granted by mistake) would run as the
-- catalog's owner: CreateBackup copies nothing while there is one
CREATE FUNCTION bk_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	RAISE NOTICE 'trigger ran as %', current_user;
	RETURN NULL;
END $$;
GRANT TRIGGER ON stdesign.backup_items TO regress_bk_owner;
SET ROLE regress_bk_owner;
CREATE TRIGGER bk_trigger AFTER INSERT ON stdesign.backup_items FOR EACH STATEMENT EXECUTE FUNCTION bk_trigger();
SELECT st_create_backup('MusicLean', 'triggered');
RESET ROLE;
DROP TRIGGER bk_trigger ON stdesign.backup_items;
REVOKE TRIGGER ON stdesign.backup_items FROM regress_bk_owner;
DROP FUNCTION bk_trigger();
-- a backup belongs to its role's OID while the role keeps the name it had:
-- a dump restored where OIDs differ (or an OID reused by a new role) hands
-- the backup to nobody but superusers, never to whoever has that OID now
SET ROLE regress_bk_owner;
SELECT st_create_backup('MusicLean', 'pinned') ->> 'BackupArn' AS pinned_arn \gset
SELECT jsonb_array_length(st_api('ListBackups', '{}') -> 'BackupSummaries') AS owner_sees_pinned;
RESET ROLE;
SELECT owner_name FROM stdesign.backups WHERE backup_arn = :'pinned_arn';
UPDATE stdesign.backups SET owner_name = 'regress_bk_someone_else' WHERE backup_arn = :'pinned_arn';
SET ROLE regress_bk_owner;
SELECT jsonb_array_length(st_api('ListBackups', '{}') -> 'BackupSummaries') AS owner_sees_pinned;
SELECT bk_err('DescribeBackup', jsonb_build_object('BackupArn', :'pinned_arn'));
RESET ROLE;
SELECT st_api('DescribeBackup', jsonb_build_object('BackupArn', :'pinned_arn')) #>> '{BackupDescription,BackupDetails,BackupName}' AS superuser_describes;
SELECT st_delete_backup(:'pinned_arn') #>> '{BackupDetails,BackupStatus}' AS superuser_deletes;
\unset pinned_arn
-- a backup outlives its role: after DROP ROLE only superusers see it
SET ROLE regress_bk_member;
SELECT st_create_backup('MusicLean', 'orphan') ->> 'BackupName' AS member_backup;
RESET ROLE;
SET ROLE regress_bk_owner;
SELECT jsonb_array_length(st_api('ListBackups', '{}') -> 'BackupSummaries') AS owner_sees_members;
RESET ROLE;
DROP ROLE regress_bk_member;
SET ROLE regress_bk_other;
SELECT jsonb_array_length(st_api('ListBackups', '{}') -> 'BackupSummaries') AS other_sees_orphan;
RESET ROLE;
SELECT b ->> 'BackupName' AS superuser_sees
  FROM jsonb_array_elements(st_api('ListBackups', '{"TableName": "MusicLean"}') -> 'BackupSummaries') b;

-- ListBackups without Limit: pages of at most 1 MB (API reference), each
-- page's LastEvaluatedBackupArn starting the next, every backup listed once.
SELECT st_create_table(repeat('t', 255)) IS NOT NULL AS long_named;
SELECT count(st_create_backup(repeat('t', 255), repeat('b', 250) || lpad(i::text, 5, '0'))) AS backups
  FROM generate_series(1, 800) i;
SELECT st_api('ListBackups', jsonb_build_object('TableName', repeat('t', 255))) AS page1 \gset
SELECT st_api('ListBackups', jsonb_build_object('TableName', repeat('t', 255),
	'ExclusiveStartBackupArn', :'page1'::jsonb ->> 'LastEvaluatedBackupArn')) AS page2 \gset
SELECT octet_length(:'page1') <= 1024 * 1024 AS page1_within_1mb,
	jsonb_array_length(:'page1'::jsonb -> 'BackupSummaries') < 800 AS page1_partial,
	:'page1'::jsonb ? 'LastEvaluatedBackupArn' AS page1_more,
	NOT (:'page2'::jsonb ? 'LastEvaluatedBackupArn') AS page2_last,
	(SELECT count(DISTINCT b ->> 'BackupArn') FROM (
		SELECT jsonb_array_elements(:'page1'::jsonb -> 'BackupSummaries') b
		UNION ALL SELECT jsonb_array_elements(:'page2'::jsonb -> 'BackupSummaries')) p) AS listed;
SELECT count(st_delete_backup(b ->> 'BackupArn')) AS deleted
  FROM (SELECT jsonb_array_elements(:'page1'::jsonb -> 'BackupSummaries') b
	UNION ALL SELECT jsonb_array_elements(:'page2'::jsonb -> 'BackupSummaries')) p;
\unset page1
\unset page2

SELECT st_drop_table('MineRestored');
DROP OWNED BY regress_bk_owner, regress_bk_other;
DROP ROLE regress_bk_owner, regress_bk_other;
SELECT st_drop_table(t) FROM st_list_tables() t;
SELECT st_delete_backup(b ->> 'BackupArn') IS NOT NULL AS cleaned
  FROM jsonb_array_elements(st_api('ListBackups', '{}') -> 'BackupSummaries') b;
SELECT count(*) AS backup_items_left FROM stdesign.backup_items;
DROP TABLE music_at_backup;
DROP FUNCTION bk_mask(jsonb), bk_err(text, jsonb);
