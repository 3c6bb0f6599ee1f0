-- Every operation of DynamoDB's API today (botocore's model of 2026, the
-- generator's CURRENT_OPERATIONS; docs/operations.md): served, or answered
-- as DynamoDB answers an operation it does not know (UnknownOperationException),
-- by name and by X-Amz-Target.  An empty request changes nothing: each
-- served operation refuses it or only reads.
CREATE FUNCTION answer(op text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	PERFORM st_api(op, '{}');
	RETURN 'served';
EXCEPTION WHEN OTHERS THEN
	RETURN CASE WHEN SQLERRM LIKE 'UnknownOperationException:%' THEN SQLERRM ELSE 'served' END;
END $$;
SELECT op, answer(op) AS by_name, (answer('DynamoDB_20120810.' || op) = 'served') = (answer(op) = 'served') AS by_target_alike
  FROM unnest(ARRAY[
	'BatchExecuteStatement', 'BatchGetItem', 'BatchWriteItem', 'CreateBackup',
	'CreateGlobalTable', 'CreateTable', 'DeleteBackup', 'DeleteItem',
	'DeleteResourcePolicy', 'DeleteTable', 'DescribeBackup', 'DescribeContinuousBackups',
	'DescribeContributorInsights', 'DescribeEndpoints', 'DescribeExport', 'DescribeGlobalTable',
	'DescribeGlobalTableSettings', 'DescribeImport', 'DescribeKinesisStreamingDestination', 'DescribeLimits',
	'DescribeTable', 'DescribeTableReplicaAutoScaling', 'DescribeTimeToLive', 'DisableKinesisStreamingDestination',
	'EnableKinesisStreamingDestination', 'ExecuteStatement', 'ExecuteTransaction', 'ExportTableToPointInTime',
	'GetItem', 'GetResourcePolicy', 'ImportTable', 'ListBackups',
	'ListContributorInsights', 'ListExports', 'ListGlobalTables', 'ListImports',
	'ListTables', 'ListTagsOfResource', 'PutItem', 'PutResourcePolicy',
	'Query', 'RestoreTableFromBackup', 'RestoreTableToPointInTime', 'Scan',
	'SearchVectors', 'TagResource', 'TransactGetItems', 'TransactWriteItems',
	'UntagResource', 'UpdateContinuousBackups', 'UpdateContributorInsights', 'UpdateGlobalTable',
	'UpdateGlobalTableSettings', 'UpdateItem', 'UpdateKinesisStreamingDestination', 'UpdateTable',
	'UpdateTableReplicaAutoScaling', 'UpdateTimeToLive']) AS op
 ORDER BY answer(op) = 'served', op;
DROP FUNCTION answer(text);
