-- Resource-based policies: PutResourcePolicy, GetResourcePolicy,
-- DeleteResourcePolicy and CreateTable's ResourcePolicy, with DynamoDB's
-- rules and messages; revision ids; who may put, read and delete them (the
-- policies themselves are stored and returned, never evaluated:
-- docs/security.md).

SELECT st_create_table('Policied') IS NOT NULL AS created;
SELECT st_create_gsi('Policied', 'ByOwner', 'owner') IS NOT NULL AS gsi;
\set arn 'arn:aws:dynamodb:local:000000000000:table/Policied'
\set doc '{"Version": "2012-10-17", "Statement": [{"Sid": "read", "Effect": "Allow", "Principal": {"AWS": "arn:aws:iam::000000000000:root"}, "Action": ["dynamodb:GetItem", "dynamodb:Query"], "Resource": ["arn:aws:dynamodb:local:000000000000:table/Policied", "arn:aws:dynamodb:local:000000000000:table/Policied/index/*"]}]}'
CREATE FUNCTION put_policy(arn text, doc text, expected text DEFAULT NULL) RETURNS jsonb LANGUAGE sql AS $$
	SELECT st_api('PutResourcePolicy', jsonb_strip_nulls(jsonb_build_object('ResourceArn', arn, 'Policy', doc, 'ExpectedRevisionId', expected)))
$$;
-- An error's message with the revision ids (times) masked.
CREATE FUNCTION masked(op text, req jsonb) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	RETURN st_api(op, req)::text;
EXCEPTION WHEN OTHERS THEN
	RETURN regexp_replace(SQLERRM, '[0-9]{13,}', '<rev>', 'g');
END $$;

-- No policy yet: Get says so, with the ARN; Delete is no error and has no revision.
SELECT st_api('GetResourcePolicy', jsonb_build_object('ResourceArn', :'arn'));
SELECT st_api('DeleteResourcePolicy', jsonb_build_object('ResourceArn', :'arn'));

-- The model's checks: types, required members, lengths.
SELECT st_api('PutResourcePolicy', '{}');
SELECT st_api('PutResourcePolicy', jsonb_build_object('ResourceArn', :'arn'));
SELECT st_api('PutResourcePolicy', jsonb_build_object('ResourceArn', :'arn', 'Policy', 7));
SELECT st_api('PutResourcePolicy', jsonb_build_object('ResourceArn', :'arn', 'Policy', :'doc', 'ExpectedRevisionId', ''));
SELECT st_api('PutResourcePolicy', jsonb_build_object('ResourceArn', :'arn', 'Policy', :'doc', 'ConfirmRemoveSelfResourceAccess', 'yes'));
SELECT st_api('GetResourcePolicy', jsonb_build_object('ResourceArn', repeat('a', 1284)));
SELECT st_api('GetResourcePolicy', '{"ResourceArn": ["x"]}');
SELECT st_api('DeleteResourcePolicy', jsonb_build_object('ResourceArn', :'arn', 'ExpectedRevisionId', repeat('1', 256)));

-- The ARN, each form in DynamoDB's words: not an ARN, not DynamoDB's,
-- another partition or region, another account, an index (a table's
-- policy covers its indexes), a backup, a missing table, a missing stream.
SELECT st_api('GetResourcePolicy', '{"ResourceArn": "Policied"}');
SELECT st_api('GetResourcePolicy', '{"ResourceArn": "arn:aws:s3:::bucket"}');
SELECT st_api('GetResourcePolicy', '{"ResourceArn": "arn:aws-cn:dynamodb:local:000000000000:table/Policied"}');
SELECT st_api('GetResourcePolicy', '{"ResourceArn": "arn:aws:dynamodb:us-east-1:000000000000:table/Policied"}');
SELECT st_api('GetResourcePolicy', '{"ResourceArn": "arn:aws:dynamodb:local:123456789012:table/Policied"}');
SELECT st_api('PutResourcePolicy', jsonb_build_object('ResourceArn', :'arn' || '/index/ByOwner', 'Policy', :'doc'));
SELECT st_api('GetResourcePolicy', jsonb_build_object('ResourceArn', :'arn' || '/backup/01700000000000-abcdefgh'));
SELECT st_api('GetResourcePolicy', '{"ResourceArn": "arn:aws:dynamodb:local:000000000000:table/"}');
SELECT st_api('GetResourcePolicy', '{"ResourceArn": "arn:aws:dynamodb:local:000000000000:table/Missing"}');
SELECT put_policy('arn:aws:dynamodb:local:000000000000:table/Missing', :'doc');
SELECT st_api('DeleteResourcePolicy', '{"ResourceArn": "arn:aws:dynamodb:local:000000000000:table/Missing"}');
SELECT st_api('GetResourcePolicy', '{"ResourceArn": "arn:aws:dynamodb:local:000000000000:table/POLICIED"}');
SELECT st_api('GetResourcePolicy', jsonb_build_object('ResourceArn', :'arn' || '/stream/2000-01-01T00:00:00.000'));

-- The document, each rule in DynamoDB's words: at most 20480 bytes
-- (whitespace counts), JSON, an object with statements, each with an
-- Effect (Allow or Deny), a Principal, an Action and a Resource, unique Sids.
SELECT put_policy(:'arn', :'doc' || repeat(' ', 20480 - length(:'doc') + 1));
SELECT put_policy(:'arn', '{not json');
SELECT put_policy(:'arn', '');
SELECT put_policy(:'arn', '[]');
SELECT put_policy(:'arn', '{"Version": "2012-10-17", "Statement": "x\u0000"}');
SELECT put_policy(:'arn', '{"Version": "2012-10-17"}');
SELECT put_policy(:'arn', '{"Version": "2012-10-17", "Statement": []}');
SELECT put_policy(:'arn', '{"Statement": [7]}');
SELECT put_policy(:'arn', '{"Statement": {"Principal": "*", "Action": "dynamodb:*", "Resource": "*"}}');
SELECT put_policy(:'arn', '{"Statement": {"Effect": "Maybe", "Principal": "*", "Action": "dynamodb:*", "Resource": "*"}}');
SELECT put_policy(:'arn', '{"Statement": {"Effect": "Deny", "Action": "dynamodb:*", "Resource": "*"}}');
SELECT put_policy(:'arn', '{"Statement": {"Effect": "Deny", "Principal": "*", "Resource": "*"}}');
SELECT put_policy(:'arn', '{"Statement": {"Effect": "Deny", "Principal": "*", "Action": "dynamodb:*"}}');
SELECT put_policy(:'arn', '{"Statement": [{"Sid": "a", "Effect": "Deny", "Principal": "*", "Action": "dynamodb:*", "Resource": "*"},
                                          {"Sid": "a", "Effect": "Deny", "Principal": "*", "Action": "dynamodb:*", "Resource": "*"}]}');
SELECT put_policy(:'arn', repeat('[', 20000) || repeat(']', 20000));
-- Nothing was stored by any of them.
SELECT st_api('GetResourcePolicy', jsonb_build_object('ResourceArn', :'arn'));

-- A policy of exactly 20480 bytes is taken; Get returns it and its
-- revision, the time of the change in epoch milliseconds.
SELECT put_policy(:'arn', :'doc' || repeat(' ', 20480 - length(:'doc'))) AS r1 \gset
SELECT abs((:'r1'::jsonb->>'RevisionId')::numeric - extract(epoch FROM clock_timestamp()) * 1000) < 60000 AS revision_is_now;
SELECT length(g->>'Policy') AS bytes, g->>'RevisionId' = :'r1'::jsonb->>'RevisionId' AS same_revision
  FROM st_api('GetResourcePolicy', jsonb_build_object('ResourceArn', :'arn')) AS g;
-- The same document again (as JSON: whitespace and member order aside) is no change.
SELECT put_policy(:'arn', :'doc') = :'r1'::jsonb AS same_document_same_revision;
-- A different one is a later revision; the stale revision is then refused
-- by Put and Delete, and NO_POLICY too while a policy is there.
SELECT (put_policy(:'arn', replace(:'doc', 'dynamodb:Query', 'dynamodb:Scan'), :'r1'::jsonb->>'RevisionId')->>'RevisionId') AS r2 \gset
SELECT :'r2' > (:'r1'::jsonb->>'RevisionId') AS later;
SELECT masked('PutResourcePolicy', jsonb_build_object('ResourceArn', :'arn', 'Policy', :'doc', 'ExpectedRevisionId', :'r1'::jsonb->>'RevisionId'));
SELECT masked('DeleteResourcePolicy', jsonb_build_object('ResourceArn', :'arn', 'ExpectedRevisionId', :'r1'::jsonb->>'RevisionId'));
SELECT masked('DeleteResourcePolicy', jsonb_build_object('ResourceArn', :'arn', 'ExpectedRevisionId', 'unknown'));
SELECT masked('PutResourcePolicy', jsonb_build_object('ResourceArn', :'arn', 'Policy', :'doc', 'ExpectedRevisionId', 'NO_POLICY'));
SELECT st_api('GetResourcePolicy', jsonb_build_object('ResourceArn', :'arn'))->>'RevisionId' = :'r2' AS still_r2,
       st_api('GetResourcePolicy', jsonb_build_object('ResourceArn', :'arn'))->>'Policy' LIKE '%dynamodb:Scan%' AS second_document;
-- DescribeTable says nothing of policies: nothing suggests they are enforced.
SELECT st_describe_table('Policied')::text ~ 'ResourcePolicy|RevisionId|"Statement"' AS described;

-- Who may: the owner puts and deletes; a role that may read the table reads
-- the policy; others get Postgres's errors; the catalog table is granted to
-- nobody and refuses writes even when granted.
CREATE ROLE policy_reader;
GRANT USAGE ON SCHEMA stdesign, stdesign_data TO policy_reader;
\set VERBOSITY terse
SET ROLE policy_reader;
SELECT st_api('GetResourcePolicy', jsonb_build_object('ResourceArn', :'arn'));
SELECT put_policy(:'arn', :'doc');
SELECT st_api('DeleteResourcePolicy', jsonb_build_object('ResourceArn', :'arn'));
SELECT * FROM stdesign.resource_policies;
RESET ROLE;
GRANT SELECT ON stdesign_data."Policied" TO policy_reader;
GRANT SELECT ON stdesign.tables, stdesign.indexes TO policy_reader;
GRANT SELECT, INSERT, UPDATE, DELETE ON stdesign.resource_policies TO policy_reader;
SET ROLE policy_reader;
SELECT st_api('GetResourcePolicy', jsonb_build_object('ResourceArn', :'arn'))->>'RevisionId' = :'r2' AS reader_reads;
SELECT put_policy(:'arn', '{"Statement": {"Effect": "Allow", "Principal": "*", "Action": "dynamodb:*", "Resource": "*"}}');
SELECT st_api('DeleteResourcePolicy', jsonb_build_object('ResourceArn', :'arn'));
UPDATE stdesign.resource_policies SET policy = '{}';
DELETE FROM stdesign.resource_policies;
RESET ROLE;
\set VERBOSITY default
SELECT st_api('GetResourcePolicy', jsonb_build_object('ResourceArn', :'arn'))->>'RevisionId' = :'r2' AS unchanged;
REVOKE ALL ON stdesign_data."Policied" FROM policy_reader;
REVOKE ALL ON stdesign.resource_policies, stdesign.tables, stdesign.indexes FROM policy_reader;
REVOKE ALL ON SCHEMA stdesign, stdesign_data FROM policy_reader;
DROP ROLE policy_reader;

-- Delete: with the current revision; answers the deletion's revision (later
-- still); then Get finds none and Delete again is no error.
SELECT (st_api('DeleteResourcePolicy', jsonb_build_object('ResourceArn', :'arn', 'ExpectedRevisionId', :'r2'))->>'RevisionId') > :'r2' AS deleted_later;
SELECT st_api('GetResourcePolicy', jsonb_build_object('ResourceArn', :'arn'));
SELECT st_api('DeleteResourcePolicy', jsonb_build_object('ResourceArn', :'arn'));
-- ExpectedRevisionId with no policy there: not found; NO_POLICY is taken by Put.
SELECT st_api('DeleteResourcePolicy', jsonb_build_object('ResourceArn', :'arn', 'ExpectedRevisionId', :'r2'));
SELECT jsonb_object_keys(put_policy(:'arn', :'doc', 'NO_POLICY'));

-- In a read-only transaction the change is refused and nothing changes.
BEGIN READ ONLY;
SELECT put_policy(:'arn', '{"Statement": {"Effect": "Deny", "Principal": "*", "Action": "dynamodb:*", "Resource": "*"}}');
ROLLBACK;
SELECT st_api('GetResourcePolicy', jsonb_build_object('ResourceArn', :'arn'))->>'Policy' = :'doc' AS kept;

-- CreateTable's ResourcePolicy: checked before anything is created, then
-- the table's first policy; CloudFormation's form (PolicyDocument) too.
SELECT st_api('CreateTable', '{"TableName": "PolicyAtCreate", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}], "ResourcePolicy": "{\"Statement\": []}"}');
SELECT st_api('CreateTable', '{"TableName": "PolicyAtCreate", "BillingMode": "PAY_PER_REQUEST",
  "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
  "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}], "ResourcePolicy": 5}');
SELECT count(*) AS none_created FROM stdesign.tables WHERE table_name = 'PolicyAtCreate';
SELECT st_api('CreateTable', jsonb_build_object('TableName', 'PolicyAtCreate', 'BillingMode', 'PAY_PER_REQUEST',
  'AttributeDefinitions', '[{"AttributeName": "id", "AttributeType": "S"}]'::jsonb,
  'KeySchema', '[{"AttributeName": "id", "KeyType": "HASH"}]'::jsonb, 'ResourcePolicy', :'doc'))->'TableDescription'->>'TableStatus' AS created;
SELECT st_api('GetResourcePolicy', '{"ResourceArn": "arn:aws:dynamodb:local:000000000000:table/PolicyAtCreate"}')->>'Policy' = :'doc' AS policy_at_create;
-- kept apart from the stored definition (which roles granted the catalog read)
SELECT definition ? 'ResourcePolicy' AS in_definition FROM stdesign.tables WHERE table_name = 'PolicyAtCreate';
SELECT st_create_table(jsonb_build_object('Resources', jsonb_build_object('T', jsonb_build_object(
  'Type', 'AWS::DynamoDB::Table', 'Properties', jsonb_build_object('TableName', 'PolicyFromTemplate', 'BillingMode', 'PAY_PER_REQUEST',
  'AttributeDefinitions', '[{"AttributeName": "id", "AttributeType": "S"}]'::jsonb,
  'KeySchema', '[{"AttributeName": "id", "KeyType": "HASH"}]'::jsonb,
  'ResourcePolicy', jsonb_build_object('PolicyDocument', :'doc'::jsonb)))))) IS NOT NULL AS template_created;
SELECT (st_api('GetResourcePolicy', '{"ResourceArn": "arn:aws:dynamodb:local:000000000000:table/PolicyFromTemplate"}')->>'Policy')::jsonb = :'doc'::jsonb AS template_policy;

-- A stream's policy is its own; it goes with its stream's table.
SELECT st_stream_enable('Policied')->>'LatestStreamLabel' AS label \gset
SELECT put_policy(:'arn' || '/stream/' || :'label', '{"Statement": {"Effect": "Allow", "Principal": "*", "Action": "dynamodb:GetRecords", "Resource": "*"}}') ? 'RevisionId' AS stream_put;
SELECT (st_api('GetResourcePolicy', jsonb_build_object('ResourceArn', :'arn' || '/stream/' || :'label'))->>'Policy') LIKE '%GetRecords%' AS stream_policy,
       (st_api('GetResourcePolicy', jsonb_build_object('ResourceArn', :'arn'))->>'Policy') = :'doc' AS table_policy_apart;

-- Deleting a table deletes its policies; a table made again has none.
SELECT st_drop_table('Policied') IS NOT NULL AS dropped;
SELECT count(*) AS left_over FROM stdesign.resource_policies WHERE table_name = 'Policied';
SELECT st_create_table('Policied') IS NOT NULL AS created_again;
SELECT st_api('GetResourcePolicy', jsonb_build_object('ResourceArn', :'arn'));

SELECT st_drop_table('Policied') IS NOT NULL, st_drop_table('PolicyAtCreate') IS NOT NULL, st_drop_table('PolicyFromTemplate') IS NOT NULL;
DROP FUNCTION put_policy(text, text, text);
DROP FUNCTION masked(text, jsonb);
