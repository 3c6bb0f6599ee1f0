#!/usr/bin/env python3
"""A structure-aware fuzzer of stdesign's DynamoDB API.

It walks DynamoDB's API model (botocore's service-2.json, the model
src/api/api_model.c is generated from): for every operation a valid request
on a small table is the base, and every member of it, nested to the leaves
(AttributeValues, list elements, map values, members the base leaves out),
is replaced in turn by JSON null, each wrong JSON type, an empty and an
oversized value, numbers and strings at their edges.  Then, until the time
is up, random combinations of those, and PartiQL statements mutated token by
token with mutated Parameters.  Each request goes through

  - st_api(operation, request), st_partiql and the SQL functions of stream
    consumers (st_stream_*, stream_sql_calls) over psql (many statements per
    psql call, each call inside its own statement and subtransaction), and
  - the HTTP endpoint (trust mode) when a port is given.

Its assertions: the server never crashes (no lost connection, no "terminated
by signal" in the server log) and every error is DynamoDB's
("ExceptionName: message", an HTTP 4xx with a __type), never an internal one
(SQLSTATE XX000, InternalServerError, a 500, "cache lookup failed",
"unrecognized ...") nor a bare Postgres error.

Deterministic for a seed; bounded in time.

usage: api_fuzz.py [--seconds S] [--seed N] [--port P] [--log FILE] [--model FILE]
Environment: FUZZ_SECONDS, FUZZ_SEED; psql connects as PG* variables say.
Prints "api_fuzz: N cases ... 0 failures" and exits non-zero on a failure.
"""

import argparse
import copy
import glob
import http.client
import json
import os
import random
import re
import subprocess
import sys
import time

TABLE = 'FuzzTable'         # the table requests read and write
ADMIN = 'FuzzAdmin'         # the table UpdateTable, TTL and backups change
NEW = 'FuzzNew'             # CreateTable's
GONE = 'FuzzGone'           # DeleteTable's
MULTI = 'FuzzMulti'         # a GSI with a multi-attribute key, and a model with a Query of it

KEY = {'PK': {'S': 'p1'}, 'SK': {'S': 's1'}}

# The design studio's operations (src/api/api_studio.c) and a base request of each.
STUDIO_MODEL = {'entities': {'E': {'keys': {'PK': 'E#{id}', 'SK': 'S#{n}'}}},
                'patterns': {'get_e': {'op': 'GetItem', 'pk': 'E#{id}', 'sk': 'S#{n}'},
                             'scan_e': {'op': 'Scan', 'filter': '#n = :n', 'names': {'#n': 'n'}, 'values': {':n': '{n}'}}}}
# A Query pattern of a GSI whose key has two HASH and two RANGE attributes
# (st_set_model checks its key condition by the Query's rules).
MULTI_MODEL = {'entities': {'E': {'keys': {'PK': 'E#{id}', 'SK': 'S#{n}', 'r': 'R#{n}'},
                                  'attributes': {'id': 'S', 'n': 'S', 't': 'S', 'u': 'N', 'd': 'N'}}},
               'patterns': {'q_multi': {'op': 'Query', 'index': 'ByTU', 'pk': ['{t}', '{u}'],
                                        'sk': ['{d}', {'begins_with': 'R#'}]},
                            'q_named': {'op': 'Query', 'index': 'ByTU', 'pk': {'t': '{t}', 'u': '{u}'},
                                        'sk': {'d': {'between': ['{a}', '{b}']}}}}}
STUDIO_BASES = {
    'StDesign_Studio.DescribeTableDefinition': [{'TableName': TABLE}],
    'StDesign_Studio.GetModel': [{'TableName': TABLE}],
    'StDesign_Studio.SetModel': [{'TableName': TABLE, 'Model': STUDIO_MODEL}, {'TableName': MULTI, 'Model': MULTI_MODEL}],
    'StDesign_Studio.CheckModel': [{'TableName': TABLE}],
    'StDesign_Studio.ModelCost': [{'TableName': TABLE, 'Rates': {'get_e': 2}, 'Prices': 'us-east-1'}],
    'StDesign_Studio.RunPattern': [{'TableName': TABLE, 'Pattern': 'get_e', 'Parameters': {'id': {'S': '1'}, 'n': {'S': '2'}}},
                                   {'TableName': MULTI, 'Pattern': 'q_multi',
                                    'Parameters': {'t': {'S': 'x'}, 'u': {'N': '1'}, 'd': {'N': '2'}}}],
    'StDesign_Studio.Partitions': [{'TableName': TABLE, 'Limit': 5, 'SampleItems': 100}],
    'StDesign_Studio.HotPartitions': [{'TableName': TABLE, 'Top': 5}],
}
ITEM = {'PK': {'S': 'p1'}, 'SK': {'S': 's1'}, 'G': {'S': 'g1'}, 'n': {'N': '1'},
        'l': {'L': [{'S': 'a'}, {'N': '2'}, {'M': {'x': {'NULL': True}}}]},
        'm': {'M': {'x': {'BOOL': True}, 'y': {'SS': ['a', 'b']}}},
        'ss': {'SS': ['a', 'b']}, 'ns': {'NS': ['1', '2.5']}, 'bs': {'BS': ['AAEC']},
        'b': {'B': 'AAEC'}, 'nul': {'NULL': True}, 'exp': {'N': '1700000000'}}


def key(pk, sk):
    return {'PK': {'S': pk}, 'SK': {'S': sk}}


def table_definition(name, gsi=True):
    d = {'TableName': name,
         'AttributeDefinitions': [{'AttributeName': 'PK', 'AttributeType': 'S'},
                                  {'AttributeName': 'SK', 'AttributeType': 'S'},
                                  {'AttributeName': 'G', 'AttributeType': 'S'}],
         'KeySchema': [{'AttributeName': 'PK', 'KeyType': 'HASH'},
                       {'AttributeName': 'SK', 'KeyType': 'RANGE'}],
         'BillingMode': 'PAY_PER_REQUEST'}
    if gsi:
        d['GlobalSecondaryIndexes'] = [{'IndexName': 'GSI1',
                                        'KeySchema': [{'AttributeName': 'G', 'KeyType': 'HASH'},
                                                      {'AttributeName': 'SK', 'KeyType': 'RANGE'}],
                                        'Projection': {'ProjectionType': 'INCLUDE',
                                                       'NonKeyAttributes': ['n']}}]
        d['LocalSecondaryIndexes'] = [{'IndexName': 'LSI1',
                                       'KeySchema': [{'AttributeName': 'PK', 'KeyType': 'HASH'},
                                                     {'AttributeName': 'G', 'KeyType': 'RANGE'}],
                                       'Projection': {'ProjectionType': 'KEYS_ONLY'}}]
    return d


# PartiQL statements and their parameters: the bases of ExecuteStatement,
# BatchExecuteStatement and ExecuteTransaction, and the corpus the token
# mutations start from.
STATEMENTS = [
    ('SELECT * FROM FuzzTable WHERE PK = ? AND SK = ?', [{'S': 'p1'}, {'S': 's1'}]),
    ('SELECT PK, n, l[0], m.x FROM "FuzzTable" WHERE PK = ? AND SK > ? ORDER BY SK DESC',
     [{'S': 'p1'}, {'S': 'a'}]),
    ('SELECT * FROM "FuzzTable"."GSI1" WHERE G = ? AND begins_with(SK, ?)', [{'S': 'g1'}, {'S': 's'}]),
    ('SELECT * FROM FuzzTable WHERE n IN [?, 2, 3] AND contains(l, ?) OR size(m) > ?',
     [{'N': '1'}, {'S': 'a'}, {'N': '0'}]),
    ("INSERT INTO FuzzTable VALUE {'PK': ?, 'SK': ?, 'n': 1, 'l': [1, 'a', {'x': ?}]}",
     [{'S': 'p9'}, {'S': 's9'}, {'NULL': True}]),
    ('UPDATE FuzzTable SET n = n + ? SET l = list_append(l, ?) REMOVE gone '
     'WHERE PK = ? AND SK = ? RETURNING ALL NEW *',
     [{'N': '1'}, {'L': [{'S': 'z'}]}, {'S': 'p1'}, {'S': 's1'}]),
    ("UPDATE FuzzTable SET m.x = ? SET ss = set_add(ss, <<'c'>>) WHERE PK = ? AND SK = ? AND n > ?",
     [{'BOOL': False}, {'S': 'p1'}, {'S': 's1'}, {'N': '0'}]),
    ('DELETE FROM FuzzTable WHERE PK = ? AND SK = ? RETURNING ALL OLD *', [{'S': 'p8'}, {'S': 's8'}]),
    ('EXISTS(SELECT * FROM FuzzTable WHERE PK = ? AND SK = ? AND attribute_exists(n))',
     [{'S': 'p1'}, {'S': 's1'}]),
]


STREAMS_OPS = ('ListStreams', 'DescribeStream', 'GetShardIterator', 'GetRecords')


def bases(arn, backup_arn, stream=None):
    """Valid requests, one or more per operation stdesign serves."""
    put2 = {'TableName': TABLE, 'Item': dict(ITEM, PK={'S': 'p2'})}
    cond = {'ExpressionAttributeNames': {'#n': 'n'}, 'ExpressionAttributeValues': {':v': {'N': '5'}}}
    b = {
        'PutItem': [
            dict(put2, ConditionExpression='attribute_not_exists(#n) OR #n < :v', ReturnValues='ALL_OLD',
                 ReturnConsumedCapacity='INDEXES', ReturnItemCollectionMetrics='SIZE',
                 ReturnValuesOnConditionCheckFailure='ALL_OLD', **cond),
            dict(put2, Expected={'n': {'ComparisonOperator': 'LT', 'AttributeValueList': [{'N': '9'}]},
                                 'm': {'Exists': False}, 'PK': {'Value': {'S': 'p2'}, 'Exists': True}},
                 ConditionalOperator='OR'),
        ],
        'GetItem': [
            {'TableName': TABLE, 'Key': KEY, 'ProjectionExpression': '#n, l[0], m.x, #l[1]',
             'ExpressionAttributeNames': {'#n': 'n', '#l': 'l'}, 'ConsistentRead': True,
             'ReturnConsumedCapacity': 'TOTAL'},
            {'TableName': TABLE, 'Key': KEY, 'AttributesToGet': ['n', 'l']},
        ],
        'UpdateItem': [
            {'TableName': TABLE, 'Key': KEY,
             'UpdateExpression': 'SET #n = #n + :one, l = list_append(l, :l), m.y = if_not_exists(m.y, :ss) '
                                 'REMOVE gone, l[5] ADD ss :ss DELETE ns :ns',
             'ConditionExpression': 'attribute_exists(PK) AND size(l) < :big',
             'ExpressionAttributeNames': {'#n': 'n'},
             'ExpressionAttributeValues': {':one': {'N': '1'}, ':l': {'L': [{'S': 'z'}]},
                                           ':ss': {'SS': ['c']}, ':ns': {'NS': ['1']}, ':big': {'N': '100'}},
             'ReturnValues': 'UPDATED_NEW', 'ReturnConsumedCapacity': 'INDEXES',
             'ReturnItemCollectionMetrics': 'SIZE'},
            {'TableName': TABLE, 'Key': KEY,
             'AttributeUpdates': {'n': {'Action': 'ADD', 'Value': {'N': '1'}}, 'gone': {'Action': 'DELETE'},
                                  'z': {'Action': 'PUT', 'Value': {'L': [{'N': '1'}]}}},
             'Expected': {'n': {'ComparisonOperator': 'NOT_NULL'}}, 'ReturnValues': 'ALL_OLD'},
        ],
        'DeleteItem': [
            {'TableName': TABLE, 'Key': key('p3', 's3'), 'ConditionExpression': 'attribute_not_exists(n) OR n > :z',
             'ExpressionAttributeValues': {':z': {'N': '0'}}, 'ReturnValues': 'ALL_OLD',
             'ReturnValuesOnConditionCheckFailure': 'ALL_OLD'},
            {'TableName': TABLE, 'Key': key('p3', 's3'),
             'Expected': {'n': {'ComparisonOperator': 'BETWEEN', 'AttributeValueList': [{'N': '0'}, {'N': '9'}]}}},
        ],
        'Query': [
            {'TableName': TABLE, 'KeyConditionExpression': 'PK = :p AND begins_with(SK, :s)',
             'FilterExpression': 'n > :z AND NOT contains(l, :s)', 'ProjectionExpression': 'PK, SK, n',
             'ExpressionAttributeValues': {':p': {'S': 'p1'}, ':s': {'S': 's'}, ':z': {'N': '0'}},
             'Limit': 5, 'ScanIndexForward': False, 'ExclusiveStartKey': key('p1', 'r'),
             'Select': 'SPECIFIC_ATTRIBUTES', 'ConsistentRead': True, 'ReturnConsumedCapacity': 'INDEXES'},
            {'TableName': TABLE, 'IndexName': 'GSI1', 'KeyConditionExpression': 'G = :g AND SK BETWEEN :a AND :b',
             'ExpressionAttributeValues': {':g': {'S': 'g1'}, ':a': {'S': 'a'}, ':b': {'S': 'z'}},
             'Select': 'ALL_PROJECTED_ATTRIBUTES', 'ExclusiveStartKey': dict(key('p1', 's0'), G={'S': 'g1'})},
            {'TableName': TABLE, 'KeyConditions': {'PK': {'ComparisonOperator': 'EQ', 'AttributeValueList': [{'S': 'p1'}]},
                                                   'SK': {'ComparisonOperator': 'GE', 'AttributeValueList': [{'S': 'a'}]}},
             'QueryFilter': {'n': {'ComparisonOperator': 'IN', 'AttributeValueList': [{'N': '1'}, {'N': '2'}]}},
             'AttributesToGet': ['PK', 'n'], 'ConditionalOperator': 'AND', 'Select': 'COUNT'},
        ],
        'Scan': [
            {'TableName': TABLE, 'FilterExpression': 'contains(l, :a) OR size(m) > :z OR attribute_type(n, :t)',
             'ExpressionAttributeValues': {':a': {'S': 'a'}, ':z': {'N': '0'}, ':t': {'S': 'N'}},
             'Segment': 0, 'TotalSegments': 2, 'Limit': 10, 'ExclusiveStartKey': KEY, 'Select': 'ALL_ATTRIBUTES'},
            {'TableName': TABLE, 'IndexName': 'LSI1',
             'ScanFilter': {'G': {'ComparisonOperator': 'BEGINS_WITH', 'AttributeValueList': [{'S': 'g'}]},
                            'n': {'ComparisonOperator': 'NOT_CONTAINS', 'AttributeValueList': [{'N': '3'}]}},
             'ConditionalOperator': 'OR', 'AttributesToGet': ['PK']},
        ],
        'BatchGetItem': [
            {'RequestItems': {TABLE: {'Keys': [KEY, key('p4', 's4')], 'ProjectionExpression': 'PK, #n',
                                      'ExpressionAttributeNames': {'#n': 'n'}, 'ConsistentRead': True},
                              arn: {'Keys': [key('p5', 's5')], 'AttributesToGet': ['n']}},
             'ReturnConsumedCapacity': 'TOTAL'},
        ],
        'BatchWriteItem': [
            {'RequestItems': {TABLE: [{'PutRequest': {'Item': dict(ITEM, PK={'S': 'p4'})}},
                                      {'DeleteRequest': {'Key': key('p5', 's5')}}]},
             'ReturnConsumedCapacity': 'INDEXES', 'ReturnItemCollectionMetrics': 'SIZE'},
        ],
        'TransactWriteItems': [
            {'TransactItems': [
                {'Put': dict(put2, Item=dict(ITEM, PK={'S': 'p6'}), ConditionExpression='attribute_not_exists(PK)',
                             ReturnValuesOnConditionCheckFailure='ALL_OLD')},
                {'Update': {'TableName': TABLE, 'Key': KEY, 'UpdateExpression': 'SET n = n + :o',
                            'ExpressionAttributeValues': {':o': {'N': '1'}}}},
                {'Delete': {'TableName': TABLE, 'Key': key('p7', 's7'), 'ConditionExpression': '#n <> :v', **cond}},
                {'ConditionCheck': {'TableName': arn, 'Key': key('p1', 's0'),
                                    'ConditionExpression': 'attribute_not_exists(n)'}}],
             'ClientRequestToken': 'fuzz-token', 'ReturnConsumedCapacity': 'INDEXES',
             'ReturnItemCollectionMetrics': 'SIZE'},
        ],
        'TransactGetItems': [
            {'TransactItems': [{'Get': {'TableName': TABLE, 'Key': KEY, 'ProjectionExpression': '#n, m.x',
                                        'ExpressionAttributeNames': {'#n': 'n'}}},
                               {'Get': {'TableName': arn, 'Key': key('p2', 's1')}}],
             'ReturnConsumedCapacity': 'TOTAL'},
        ],
        'CreateTable': [
            dict(table_definition(NEW), BillingMode='PROVISIONED',
                 ProvisionedThroughput={'ReadCapacityUnits': 5, 'WriteCapacityUnits': 5},
                 GlobalSecondaryIndexes=[dict(table_definition(NEW)['GlobalSecondaryIndexes'][0],
                                              ProvisionedThroughput={'ReadCapacityUnits': 1,
                                                                     'WriteCapacityUnits': 1})],
                 StreamSpecification={'StreamEnabled': True, 'StreamViewType': 'NEW_IMAGE'},
                 SSESpecification={'Enabled': True, 'SSEType': 'KMS', 'KMSMasterKeyId': 'k'},
                 Tags=[{'Key': 'k', 'Value': 'v'}], TableClass='STANDARD', DeletionProtectionEnabled=False,
                 WarmThroughput={'ReadUnitsPerSecond': 13000, 'WriteUnitsPerSecond': 4500}),
            dict(table_definition(NEW), BillingMode='PAY_PER_REQUEST',
                 OnDemandThroughput={'MaxReadRequestUnits': 10, 'MaxWriteRequestUnits': -1},
                 GlobalSecondaryIndexes=[dict(table_definition(NEW)['GlobalSecondaryIndexes'][0],
                                              OnDemandThroughput={'MaxReadRequestUnits': 5},
                                              WarmThroughput={'ReadUnitsPerSecond': 20000})]),
        ],
        'DeleteTable': [{'TableName': GONE}],
        'DescribeTable': [{'TableName': TABLE}],
        'ListTables': [{'ExclusiveStartTableName': 'A', 'Limit': 10}],
        'UpdateTable': [
            {'TableName': ADMIN, 'AttributeDefinitions': [{'AttributeName': 'H', 'AttributeType': 'N'}],
             'GlobalSecondaryIndexUpdates': [
                 {'Create': {'IndexName': 'GSI2', 'KeySchema': [{'AttributeName': 'H', 'KeyType': 'HASH'}],
                             'Projection': {'ProjectionType': 'ALL'}}},
                 {'Update': {'IndexName': 'Nope', 'ProvisionedThroughput': {'ReadCapacityUnits': 1,
                                                                            'WriteCapacityUnits': 1}}},
                 {'Delete': {'IndexName': 'Nope2'}}],
             'BillingMode': 'PAY_PER_REQUEST', 'StreamSpecification': {'StreamEnabled': False},
             'TableClass': 'STANDARD_INFREQUENT_ACCESS', 'DeletionProtectionEnabled': False},
            {'TableName': ADMIN, 'OnDemandThroughput': {'MaxReadRequestUnits': 5, 'MaxWriteRequestUnits': 6},
             'WarmThroughput': {'ReadUnitsPerSecond': 15000},
             'GlobalSecondaryIndexUpdates': [{'Update': {'IndexName': 'GSI1', 'OnDemandThroughput': {
                 'MaxWriteRequestUnits': -1}, 'WarmThroughput': {'WriteUnitsPerSecond': 5000}}}]},
        ],
        'UpdateTimeToLive': [{'TableName': ADMIN, 'TimeToLiveSpecification': {'Enabled': True, 'AttributeName': 'exp'}}],
        'DescribeTimeToLive': [{'TableName': TABLE}],
        'ExecuteStatement': [
            {'Statement': s, 'Parameters': p, 'ConsistentRead': True, 'ReturnConsumedCapacity': 'TOTAL',
             'Limit': 5, 'ReturnValuesOnConditionCheckFailure': 'ALL_OLD'}
            for s, p in STATEMENTS if not s.startswith('EXISTS')],
        'BatchExecuteStatement': [
            {'Statements': [{'Statement': STATEMENTS[0][0], 'Parameters': STATEMENTS[0][1], 'ConsistentRead': True},
                            {'Statement': STATEMENTS[0][0], 'Parameters': [{'S': 'p2'}, {'S': 's1'}]}],
             'ReturnConsumedCapacity': 'TOTAL'},
            {'Statements': [{'Statement': STATEMENTS[4][0], 'Parameters': STATEMENTS[4][1],
                             'ReturnValuesOnConditionCheckFailure': 'ALL_OLD'},
                            {'Statement': STATEMENTS[7][0], 'Parameters': STATEMENTS[7][1]}]},
        ],
        'ExecuteTransaction': [
            {'TransactStatements': [{'Statement': STATEMENTS[5][0], 'Parameters': STATEMENTS[5][1]},
                                    {'Statement': STATEMENTS[8][0], 'Parameters': [{'S': 'p2'}, {'S': 's1'}]}],
             'ClientRequestToken': 'fuzz-tx', 'ReturnConsumedCapacity': 'TOTAL'},
            {'TransactStatements': [{'Statement': STATEMENTS[0][0], 'Parameters': STATEMENTS[0][1]}]},
        ],
        'TagResource': [{'ResourceArn': arn, 'Tags': [{'Key': 'k', 'Value': 'v'}, {'Key': 'k2', 'Value': ''}]}],
        'UntagResource': [{'ResourceArn': arn, 'TagKeys': ['k', 'nope']}],
        'ListTagsOfResource': [{'ResourceArn': arn, 'NextToken': 'x'}],
        'DescribeEndpoints': [{}],
        'DescribeLimits': [{}],
        'DescribeContinuousBackups': [{'TableName': TABLE}],
        'UpdateContinuousBackups': [{'TableName': ADMIN, 'PointInTimeRecoverySpecification': {
            'PointInTimeRecoveryEnabled': True, 'RecoveryPeriodInDays': 7}}],
        'CreateBackup': [{'TableName': TABLE, 'BackupName': 'fuzz-backup'}],
        'DescribeBackup': [{'BackupArn': backup_arn}],
        'ListBackups': [{'TableName': TABLE, 'Limit': 2, 'TimeRangeLowerBound': 0,
                         'TimeRangeUpperBound': 4102444800, 'ExclusiveStartBackupArn': backup_arn,
                         'BackupType': 'ALL'}, {}],
        'DeleteBackup': [{'BackupArn': backup_arn + '0'}],
        'RestoreTableFromBackup': [{'TargetTableName': 'FuzzRestored', 'BackupArn': backup_arn,
                                    'BillingModeOverride': 'PAY_PER_REQUEST',
                                    'GlobalSecondaryIndexOverride': [], 'LocalSecondaryIndexOverride': [],
                                    'SSESpecificationOverride': {'Enabled': False}}],
        'UpdateContributorInsights': [
            {'TableName': ADMIN, 'ContributorInsightsAction': 'ENABLE', 'ContributorInsightsMode': 'THROTTLED_KEYS'},
            {'TableName': arn, 'IndexName': 'GSI1', 'ContributorInsightsAction': 'DISABLE'}],
        'DescribeContributorInsights': [{'TableName': TABLE, 'IndexName': 'GSI1'}, {'TableName': arn}],
        'ListContributorInsights': [{'TableName': TABLE, 'MaxResults': 1, 'NextToken': 'FuzzTable#'}, {}],
        'PutResourcePolicy': [{'ResourceArn': arn, 'ExpectedRevisionId': 'NO_POLICY', 'ConfirmRemoveSelfResourceAccess': True,
                               'Policy': dumps({'Version': '2012-10-17', 'Statement': [{
                                   'Sid': 's', 'Effect': 'Deny', 'Principal': {'AWS': '*'},
                                   'Action': ['dynamodb:GetItem'], 'Resource': [arn, arn + '/index/*']}]})}],
        'GetResourcePolicy': [{'ResourceArn': arn}, {'ResourceArn': arn + '/stream/2000-01-01T00:00:00.000'}],
        'DeleteResourcePolicy': [{'ResourceArn': arn, 'ExpectedRevisionId': '1700000000000'}, {'ResourceArn': arn}],
        # an operation of today's API that stdesign does not serve
        'SearchVectors': [{'TableName': TABLE, 'IndexName': 'v', 'SearchVector': [{'N': '1'}], 'TopK': 1}],
    }
    # DynamoDB Streams (X-Amz-Target DynamoDBStreams_20120810.*) on the fuzz table's stream
    if stream:
        sarn, shard, iterator = stream
        b.update({
            'ListStreams': [{'TableName': TABLE, 'Limit': 5, 'ExclusiveStartStreamArn': sarn}, {}],
            'DescribeStream': [{'StreamArn': sarn, 'Limit': 10, 'ExclusiveStartShardId': shard,
                                'ShardFilter': {'Type': 'CHILD_SHARDS', 'ShardId': shard}}],
            'GetShardIterator': [
                {'StreamArn': sarn, 'ShardId': shard, 'ShardIteratorType': 'AT_SEQUENCE_NUMBER',
                 'SequenceNumber': '000000000000000000001'},
                {'StreamArn': sarn, 'ShardId': shard, 'ShardIteratorType': 'TRIM_HORIZON'}],
            'GetRecords': [{'ShardIterator': iterator, 'Limit': 10}],
        })
    return b


# ---------- the model ----------

def find_model(path):
    candidates = [path, os.environ.get('API_MODEL')]
    candidates += glob.glob('/usr/lib/python3/dist-packages/botocore/data/dynamodb/2012-08-10/service-2.json*')
    try:
        import botocore
        candidates += glob.glob(os.path.join(os.path.dirname(botocore.__file__),
                                             'data/dynamodb/2012-08-10/service-2.json*'))
    except ImportError:
        pass
    for c in candidates:
        if c and os.path.exists(c):
            if c.endswith('.gz'):
                import gzip
                return json.load(gzip.open(c, 'rt'))
            return json.load(open(c))
    sys.exit('api_fuzz: no DynamoDB model found (install python3-botocore or pass --model)')


def streams_model():
    """DynamoDB Streams' model (botocore's dynamodbstreams), or None."""
    candidates = glob.glob('/usr/lib/python3/dist-packages/botocore/data/dynamodbstreams/2012-08-10/service-2.json*')
    try:
        import botocore
        candidates += glob.glob(os.path.join(os.path.dirname(botocore.__file__),
                                             'data/dynamodbstreams/2012-08-10/service-2.json*'))
    except ImportError:
        pass
    for c in candidates:
        if c.endswith('.gz'):
            import gzip
            return json.load(gzip.open(c, 'rt'))
        return json.load(open(c))
    return None


class Model:
    def __init__(self, doc):
        self.shapes = doc['shapes']
        self.ops = {name: op.get('input', {}).get('shape') for name, op in doc['operations'].items()}
        # resource-based policies, which an older model lacks (as src/api/gen_api_model.py adds them)
        for op, members in (('PutResourcePolicy', ['ResourceArn', 'Policy', 'ExpectedRevisionId',
                                                   'ConfirmRemoveSelfResourceAccess']),
                            ('GetResourcePolicy', ['ResourceArn']),
                            ('DeleteResourcePolicy', ['ResourceArn', 'ExpectedRevisionId'])):
            if op not in self.ops:
                kinds = {'ConfirmRemoveSelfResourceAccess': {'type': 'boolean'},
                         'ExpectedRevisionId': {'type': 'string', 'min': 1, 'max': 255},
                         'ResourceArn': {'type': 'string', 'min': 1, 'max': 1283}}
                for m in members:
                    self.shapes.setdefault('Fuzz' + m, kinds.get(m, {'type': 'string'}))
                self.shapes[op + 'Input'] = {'type': 'structure', 'required': members[:2],
                                             'members': {m: {'shape': 'Fuzz' + m} for m in members}}
                self.ops[op] = op + 'Input'
        streams = streams_model()
        if streams:
            # its shapes under names of their own where DynamoDB's has the same name
            for name in STREAMS_OPS:
                shape = streams['operations'][name]['input']['shape']
                self.ops[name] = 'Streams.' + shape
            for name, shape in streams['shapes'].items():
                shape = json.loads(json.dumps(shape))
                for m in shape.get('members', {}).values():
                    m['shape'] = 'Streams.' + m['shape']
                for k in ('member', 'key', 'value'):
                    if k in shape:
                        shape[k]['shape'] = 'Streams.' + shape[k]['shape']
                self.shapes['Streams.' + name] = shape

    def shape(self, name):
        return self.shapes.get(name, {'type': 'string'}) if name else None

    def generate(self, name, depth=0):
        """A plausible value of a shape, for members a base leaves out."""
        s = self.shape(name) or {'type': 'string'}
        t = s.get('type')
        if name in ('AttributeValue',):
            return {'S': 'v'}
        if t == 'structure':
            out = {}
            for m, ms in s.get('members', {}).items():
                if depth < 4 and (m in s.get('required', []) or depth < 2):
                    out[m] = self.generate(ms['shape'], depth + 1)
            return out
        if t == 'list':
            return [] if depth >= 5 else [self.generate(s['member']['shape'], depth + 1)]
        if t == 'map':
            return {} if depth >= 5 else {'k': self.generate(s['value']['shape'], depth + 1)}
        if t in ('integer', 'long'):
            return max(int(s.get('min', 1)), 1)
        if t == 'double':
            return 1.5
        if t == 'boolean':
            return True
        if t == 'blob':
            return 'AAEC'
        if t == 'timestamp':
            return 1700000000
        if 'enum' in s:
            return s['enum'][0]
        if name in ('TableName', 'TableNameOrArn', 'TableArn'):
            return TABLE
        return 'a' * max(int(s.get('min', 3)), 3)


# ---------- mutations ----------

RAW = '\u0001RAW:'          # a string the JSON text carries as a raw number


def raw(text):
    return RAW + text


def dumps(v):
    text = json.dumps(v, separators=(',', ':'))
    return re.sub(r'"\\u0001RAW:([^"]*)"', r'\1', text)


def nest(depth, leaf, av):
    v = leaf
    for _ in range(depth):
        v = {'L': [v]} if av else [v]
    return v


def replacements(node, shape, model, rng):
    """Values to put in place of node: nulls, wrong types, empty, oversized, edges."""
    out = [None, 'x', '', 0, -1, 1.5, True, False, {}, [], [None], {'x': None}, {'S': 'x'}, ['x'],
           raw('1e400'), raw('-0'), raw('99999999999999999999999999'), 'x' * 70000, ' \t\n\u00e9\u2028\ud83d\ude00']
    t = model.shape(shape).get('type') if shape else None
    if t in ('integer', 'long', 'double'):
        out += [2 ** 31, -2 ** 31 - 1, 2 ** 63, -2 ** 63 - 1, raw('1e19'), raw('0.5'), raw('-1e-400'), '1']
    if t == 'string' and 'enum' in model.shape(shape):
        out += [model.shape(shape)['enum'][0].lower(), model.shape(shape)['enum'][0] + ' ']
    if t == 'list' or isinstance(node, list):
        out += [[node[0]] * 150 if node else [None] * 150, ([node[0]] if node else []) + [None],
                [nest(200, None, False)]]
    if t == 'map' or isinstance(node, dict):
        out += [dict(('k%d' % i, node) for i in range(120)), {'': node}, {'\u0000': node},
                nest(60, {'S': 'deep'}, True), dict(node, **{'x' * 70000: {'S': 'v'}}) if isinstance(node, dict) else {}]
    if shape == 'AttributeValue' or (isinstance(node, dict) and len(node) == 1 and
                                     next(iter(node)) in ('S', 'N', 'B', 'SS', 'NS', 'BS', 'M', 'L', 'NULL', 'BOOL')):
        out += [{'N': n} for n in ('NaN', 'Infinity', '-Infinity', '1e126', '1e-131', ' 1', '0x10', '9' * 40, '', '--1', '1e99999')]
        out += [{'S': None}, {'N': 1}, {'B': '!!'}, {'B': ''}, {'SS': []}, {'SS': ['a', 'a']}, {'NS': ['1', '1.0']},
                {'NS': [1]}, {'BS': [None]}, {'L': None}, {'M': None}, {'M': {'a': None}}, {'NULL': False},
                {'NULL': 'true'}, {'BOOL': 'true'}, {'S': 'a', 'N': '1'}, {'Z': 'a'}, {'L': [None]},
                {'M': {'': {'S': 'x'}}}, nest(40, {'S': 'deep'}, True)]
    if isinstance(node, str) and 0 < len(node) < 1000:
        out += [node * 300, node[:1], node.upper(), node + '\u0000', node + '"\'\\', '#' + node, ':' + node]
    return out


def walk(value, shape, model, path, depth, out):
    """Every (path, shape, present) of a request, nested to the leaves."""
    s = model.shape(shape) or {}
    t = s.get('type')
    out.append((path, shape, True))
    if depth > 12:
        return
    if t == 'structure' and isinstance(value, dict):
        members = s.get('members', {})
        for m, ms in members.items():
            if m in value:
                walk(value[m], ms['shape'], model, path + [m], depth + 1, out)
            else:
                out.append((path + [m], ms['shape'], False))
        for k in value:
            if k not in members:
                walk(value[k], None, model, path + [k], depth + 1, out)
    elif t == 'list' and isinstance(value, list):
        for i, v in enumerate(value[:3]):
            walk(v, s['member']['shape'], model, path + [i], depth + 1, out)
    elif t == 'map' and isinstance(value, dict):
        for k in list(value)[:3]:
            walk(value[k], s['value']['shape'], model, path + [k], depth + 1, out)
    elif t is None and isinstance(value, dict):
        for k in list(value)[:3]:
            walk(value[k], None, model, path + [k], depth + 1, out)
    elif t is None and isinstance(value, list):
        for i, v in enumerate(value[:3]):
            walk(v, None, model, path + [i], depth + 1, out)


def get_at(v, path):
    for p in path:
        v = v[p]
    return v


def set_at(v, path, new, delete=False):
    if not path:
        return new
    v = copy.deepcopy(v)
    parent = get_at(v, path[:-1])
    if delete:
        if isinstance(parent, list):
            parent.pop(path[-1])
        else:
            parent.pop(path[-1], None)
    else:
        parent[path[-1]] = new
    return v


TOKEN_RE = re.compile(r"\s+|\"[^\"]*\"|'[^']*'|<<|>>|<>|<=|>=|[()\[\]{},.?=<>*:]|[^\s()\[\]{},.?=<>*:'\"]+")
VOCAB = ['SELECT', 'FROM', 'WHERE', 'AND', 'OR', 'NOT', 'IN', 'BETWEEN', 'IS', 'MISSING', 'NULL', 'INSERT', 'INTO',
         'VALUE', 'UPDATE', 'SET', 'REMOVE', 'DELETE', 'RETURNING', 'ALL', 'NEW', 'OLD', 'MODIFIED', 'EXISTS', 'ORDER',
         'BY', 'ASC', 'DESC', '?', '??', "'", '"', '[', ']', '{', '}', '<<', '>>', '(', ')', ',', '.', '*', '=', '<>',
         '-1e999', '1e400', '99999999999999999999999999999999999999999', "'\\u0000'", '"' + 'x' * 300 + '"',
         'size(', 'contains(', 'begins_with(', 'attribute_type(', 'list_append(', 'set_add(', 'set_delete(',
         'l[99999999999]', 'l[-1]', 'm.x.y.z', '"FuzzTable"."GSI1"', '"FuzzTable"."Nope"', 'FuzzAdmin', 'NoSuchTable',
         '\u00e9', '--', '/*', ';', '\\', '\t']


def mutate_statement(text, rng):
    tokens = TOKEN_RE.findall(text)
    for _ in range(rng.randint(1, 3)):
        op = rng.randrange(6)
        i = rng.randrange(len(tokens)) if tokens else 0
        if op == 0 and tokens:
            del tokens[i]
        elif op == 1 and tokens:
            tokens.insert(i, tokens[i])
        elif op == 2:
            tokens.insert(i, ' ' + rng.choice(VOCAB) + ' ')
        elif op == 3 and len(tokens) > 1:
            j = rng.randrange(len(tokens))
            tokens[i], tokens[j] = tokens[j], tokens[i]
        elif op == 4:
            tokens = tokens[:i]
        else:
            tokens[i:i] = [' ', rng.choice(VOCAB), ' ', rng.choice(VOCAB), ' ']
    return ''.join(tokens)


def systematic_cases(model, base_map):
    """(operation, request) pairs: every member of every base, each replacement."""
    per_op = {}
    rng = random.Random(0)
    for op, reqs in base_map.items():
        shape = model.ops.get(op)
        cases = []
        for req in reqs:
            cases.append((op, req))
            paths = []
            walk(req, shape, model, [], 0, paths)
            for path, sshape, present in paths:
                if not path:
                    cases += [(op, r) for r in (None, [], 'x', 1, [req])]
                    continue
                if present:
                    node = get_at(req, path)
                    cases.append((op, set_at(req, path, None, delete=True)))
                    for r in replacements(node, sshape, model, rng):
                        cases.append((op, set_at(req, path, r)))
                else:
                    cases.append((op, set_at(req, path, model.generate(sshape))))
                    cases += [(op, set_at(req, path, r)) for r in (None, 'x', 1, True, {}, [], [None])]
        per_op[op] = cases
    # st_partiql: each parameter of each statement replaced, typed and plain
    cases = []
    for text, params in STATEMENTS:
        for i in range(len(params)):
            for r in replacements(params[i], 'AttributeValue', model, rng):
                ps = list(params)
                ps[i] = r
                cases.append(('st_partiql', {'Statement': text, 'Parameters': ps, 'typed': True}))
                cases.append(('st_partiql', {'Statement': text, 'Parameters': [p['S'] if 'S' in p else r for p in ps
                                                                               if isinstance(p, dict)] + [r],
                                             'typed': False}))
        cases.append(('st_partiql', {'Statement': text, 'Parameters': None, 'typed': True}))
        cases.append(('st_partiql', {'Statement': text, 'Parameters': {}, 'typed': False}))
    per_op['st_partiql'] = cases
    # the design studio's own operations (StDesign_Studio.*, not in DynamoDB's
    # model): each member of each base replaced by values of every JSON type
    # and of extreme sizes; over st_api only (over HTTP, under trust, they
    # need the studio page's token: test/scripts/studio_live.sh)
    odd = [None, 'x', '', 'x' * 70000, 0, -1, 2 ** 63, 1e300, 2.5, True, {}, [], [None],
           {'S': '<script>'}, {'a': {'b': [1, {'c': None}]}}]
    for op, reqs in STUDIO_BASES.items():
        cases = []
        for req in reqs:
            cases.append((op, req))
            cases += [(op, r) for r in (None, [], 'x', 1)]
            for k in req:
                cases.append((op, {m: v for m, v in req.items() if m != k}))
                cases += [(op, dict(req, **{k: r})) for r in odd]
        per_op[op] = cases
    # the key condition of the multi-attribute Query pattern, deep: its pk
    # and sk, and each of their values, replaced by every odd value and by
    # shapes DynamoDB's rules refuse (missing, skipped, too many, unknown)
    for r in odd + [['{t}'], ['{t}', '{u}', '{x}'], {'t': '{t}'}, {'zz': '1'}, [None, '{u}'],
                    ['{d}', None, 'R'], [{'>': '1'}, 'R'], {'r': 'R'}, {'between': ['1']}]:
        for path in (('pk',), ('sk',), ('pk', 1), ('sk', 0), ('sk', 1)):
            m = copy.deepcopy(MULTI_MODEL)
            pat = m['patterns']['q_multi']
            if len(path) == 1:
                pat[path[0]] = r
            else:
                pat[path[0]][path[1]] = r
            per_op['StDesign_Studio.SetModel'].append(('StDesign_Studio.SetModel', {'TableName': MULTI, 'Model': m}))
    per_op['st_sql'] = [('st_sql', {'Call': c}) for c in stream_sql_calls()]
    per_op['st_sql_query_index'] = [('st_sql', {'Call': c}) for c in query_index_sql_calls()]
    per_op['st_sql_backups_insights'] = [('st_sql', {'Call': c}) for c in backup_insights_sql_calls()]
    # operations of the model that stdesign does not serve: one generated request each, and null
    for op, shape in model.ops.items():
        if op not in per_op and shape:
            gen = model.generate(shape)
            per_op[op] = [(op, gen), (op, {k: None for k in gen})]
    # interleave the operations, so that a short run covers every one
    out = []
    lists = list(per_op.values())
    for i in range(max(len(c) for c in lists)):
        for c in lists:
            if i < len(c):
                out.append(c[i])
    return out


def stream_sql_calls():
    """Calls of the SQL functions of stream consumers (no API model covers
    them) with hostile arguments: NULLs, empty, long and odd names, limits
    and timeouts out of range.  Timeouts stay short: a case must not wait."""
    def lit(v):
        return 'NULL' if v is None else sql_literal(v)
    names = [None, '', 'fz', 'nobody', 'x' * 256, "q'uote", '\u00fc' * 10, 'fz' + '\t']
    tables = [None, TABLE, 'FuzzNone', '', 'y' * 300]
    starts = [None, 'TRIM_HORIZON', 'LATEST', 'AT_SEQUENCE_NUMBER', '', 'L' * 70000]
    maxes = ['NULL', '-1', '0', '1', '1000', '1001', '2147483647', '-2147483648']
    timeouts = ['NULL', "'-1'", '0', '0.001', "'NaN'", "'Infinity'", "'-Infinity'", '1e300', '86401']
    calls = []
    for n in names:
        for t in tables:
            calls.append('st_stream_consumer_create(%s, %s)' % (lit(n), lit(t)))
            for m in maxes:
                calls.append('st_stream_read(%s, %s, %s)' % (lit(n), lit(t), m))
        for st in starts:
            calls.append('st_stream_consumer_create(%s, %s, %s)' % (lit(n), lit(TABLE), lit(st)))
            calls.append('st_stream_consumer_reset(%s, %s)' % (lit(n), lit(st)))
        for tm in timeouts:
            calls.append('st_stream_wait(%s, %s)' % (lit(n), tm))
        calls.append('st_stream_consumer_drop(%s)' % lit(n))
    for t in tables:
        calls.append('st_stream_stats(%s)' % lit(t))
    # st_stream_records: sequence numbers and limits out of range
    seqs = ['NULL', '-1', '0', '1', '9223372036854775807', '-9223372036854775808']
    for t in tables:
        for q in seqs:
            for m in maxes:
                calls.append('st_stream_records(%s, %s, %s)' % (lit(t), q, m))
    # a record's eventID, for any pair of bigints
    for q in seqs:
        calls.append('stdesign.stream_event_id(%s, %s)' % (q, seqs[-1 - seqs.index(q)]))
    # stream mappings: odd tables, functions, sizes, positions, retries, ids
    funcs = [None, "'fz_sink(jsonb)'", "'pg_catalog.jsonb_typeof(jsonb)'", "'pg_catalog.now()'",
             '0', '4294967295', "'pg_catalog.pg_terminate_backend(integer, bigint)'"]
    # ids are uuids: a malformed one is refused by the ::uuid cast in the
    # call itself, before stdesign runs
    ids = [None, '00000000-0000-0000-0000-000000000000', 'ffffffff-ffff-4fff-bfff-ffffffffffff']
    for t in tables:
        for f in funcs:
            for m in maxes:
                calls.append('st_stream_mapping_create(%s, %s::regprocedure, %s)' % (lit(t), f or 'NULL', m))
    for st in starts:
        for r in maxes:
            calls.append("st_stream_mapping_create(%s, 'fz_sink(jsonb)', 10, %s, %s)" % (lit(TABLE), lit(st), r))
    for i in ids:
        for m in maxes:
            calls.append('st_stream_mapping_update(%s::uuid, true, %s, %s, false)' % (lit(i), m, m))
        calls.append('st_stream_mapping_drop(%s::uuid)' % lit(i))
        calls.append('st_stream_dead_letters(%s::uuid)' % lit(i))
        for q in seqs:
            calls.append('st_stream_dead_letter_delete(%s::uuid, %s)' % (lit(i), q))
    calls.append('st_stream_mappings()')
    # the mappings made here, dropped (a later case may not be one of a function)
    calls.append('(SELECT count(st_stream_mapping_drop(mapping)) FROM st_stream_mappings()) d')
    # the consumer the set-up made, back for the next cases
    calls.append("st_stream_consumer_create('fz', %s)" % lit(TABLE))
    return calls


def backup_insights_sql_calls():
    """Calls of the SQL forms of backups and of st_contributor_insights
    (their API operations are fuzzed through the model) with hostile
    arguments: NULLs, empty, long and odd names and ARNs, another role's
    or a made-up backup, counts out of range."""
    def lit(v):
        return 'NULL' if v is None else sql_literal(v)
    tables = [None, TABLE, 'FuzzNone', '', 'y' * 300, "q'uote"]
    names = [None, '', 'ab', 'fuzz-sql', 'n' * 70000, '\u00fc' * 10, 'a b']
    arns = [None, '', 'arn', 'x' * 70000,
            'arn:aws:dynamodb:local:000000000000:table/%s/backup/01700000000000-00000000' % TABLE,
            'arn:aws:dynamodb:local:000000000000:table/%s/backup/../../x' % TABLE]
    indexes = [None, 'GSI1', 'LSI1', 'Nope', '', 'x' * 300]
    tops = ['NULL', '-1', '0', '1', '2147483647', '-2147483648']
    calls = []
    for t in tables:
        for n in names:
            calls.append('st_create_backup(%s, %s)' % (lit(t), lit(n)))
        for ix in indexes:
            for top in tops:
                calls.append('st_contributor_insights(%s, %s, %s)' % (lit(t), lit(ix), top))
    for a in arns:
        calls.append('st_delete_backup(%s)' % lit(a))
        for t in tables:
            calls.append('st_restore_backup(%s, %s)' % (lit(a), lit(t)))
    # the backups made here, deleted (the fuzz table's own base stays)
    calls.append("(SELECT count(st_delete_backup(b ->> 'BackupArn')) FROM jsonb_array_elements("
                 "st_api('ListBackups', '{}') -> 'BackupSummaries') b WHERE b ->> 'BackupName' = 'fuzz-sql') d")
    return calls


def query_index_sql_calls():
    """Calls of st_query_index (no API model covers it) with hostile
    arguments: NULLs, key values of every JSON type and of extreme sizes,
    arrays and objects too long, odd index names, limits out of range, on
    the fuzz table, its GSI and LSI, and tables that do not exist."""
    def lit(v):
        return 'NULL' if v is None else sql_literal(v)
    tables = [None, TABLE, 'FuzzNone', '', 'y' * 300]
    indexes = [None, 'GSI1', 'LSI1', 'Nope', '', 'x' * 300]
    values = [None, '[]', '{}', '"p1"', '1', 'null', '["p1"]', '["g1"]', '[{"S": "p1"}]', '[1]', '[true]',
              '[null]', '[[]]', '[{}]', '["p1", "s1"]', '["p1", "s1", "x", "y", "z", "w", "v", "u", "t"]',
              '{"PK": "p1"}', '{"G": "g1"}', '{"SK": "s1"}', '{"nope": 1}', '{"PK": {"S": "p1"}}',
              json.dumps(['x' * 70000]), json.dumps(['9' * 200]), json.dumps([{'B': '%%'}]), json.dumps([1e300])]
    bounds = [None, '"s"', '1', 'null', '[]', '{}', '{"S": "s"}', '{"N": "1"}', json.dumps('x' * 70000)]
    limits = ['NULL', '-1', '0', '1', '2147483647']
    calls = []
    for t in tables:
        for ix in indexes:
            for v in values:
                calls.append('st_query_index(%s, %s, %s)' % (lit(t), lit(ix), lit(v)))
    for ix in indexes[:3]:
        for v in values:
            for b in bounds:
                calls.append("st_query_index(%s, %s, '[\"p1\"]', %s, sk_prefix => %s)" % (lit(TABLE), lit(ix), lit(v), lit(b)))
                calls.append("st_query_index(%s, %s, %s, sk_from => %s, sk_to => %s, typed => true)"
                             % (lit(TABLE), lit(ix), lit(v), lit(b), lit(b)))
        for lm in limits:
            calls.append("st_query_index(%s, %s, '[\"p1\"]', forward => false, \"limit\" => %s, filter => 'n > :z', "
                         "\"values\" => '{\":z\": 0}', projection => 'PK, n')" % (lit(TABLE), lit(ix), lm))
    return calls


def random_case(model, base_map, rng, sys_cases):
    """A random case: two or three mutations of one base, or a mutated PartiQL statement."""
    kind = rng.randrange(4)
    if kind == 0:
        text, params = rng.choice(STATEMENTS)
        stmt = mutate_statement(text, rng)
        ps = copy.deepcopy(params)
        if ps and rng.random() < 0.5:
            i = rng.randrange(len(ps))
            ps[i] = rng.choice(replacements(ps[i], 'AttributeValue', model, rng))
        if rng.random() < 0.2:
            ps = ps[:-1] if rng.random() < 0.5 else ps + [{'S': 'extra'}]
        op = rng.choice(['ExecuteStatement', 'BatchExecuteStatement', 'ExecuteTransaction', 'st_partiql'])
        if op == 'ExecuteStatement':
            return op, {'Statement': stmt, 'Parameters': ps}
        if op == 'st_partiql':
            return op, {'Statement': stmt, 'Parameters': ps, 'typed': True}
        key_name = 'Statements' if op == 'BatchExecuteStatement' else 'TransactStatements'
        return op, {key_name: [{'Statement': stmt, 'Parameters': ps}] * rng.randint(1, 2)}
    op = rng.choice(sorted(base_map))
    req = rng.choice(base_map[op])
    paths = []
    walk(req, model.ops.get(op), model, [], 0, paths)
    for _ in range(rng.randint(2, 3)):
        path, sshape, present = rng.choice(paths[1:]) if len(paths) > 1 else paths[0]
        try:
            node = get_at(req, path) if present else None
            req = set_at(req, path, rng.choice(replacements(node, sshape, model, rng)
                                                + [model.generate(sshape)]))
        except (KeyError, IndexError, TypeError):
            pass
        paths = []
        walk(req, model.ops.get(op), model, [], 0, paths)
    # oversized values stay oversized, not a request of many megabytes
    if len(dumps(req)) > 1000000:
        return op, rng.choice(base_map[op])
    return op, req


# ---------- judging ----------

DYNAMODB_ERROR = re.compile(r'^[A-Z][A-Za-z]*(Exception|Error): ')
INTERNAL = re.compile(r'XX000|XX001|InternalServerError|cache lookup failed|unrecognized|unexpected|'
                      r'could not|invalid memory alloc|out of memory|stack depth|TRAP|terminated by signal',
                      re.IGNORECASE)


def is_json(text):
    """Is text JSON as Postgres's json input reads it (RFC 8259, strictly)?"""
    try:
        json.loads(text, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
        return True
    except ValueError:
        return False


def judge_sql(result, text=None):
    """None when the outcome is one DynamoDB could give, else why not.
    text: the request as sent; when it is no JSON at all, Postgres's own
    jsonb input refuses it before stdesign runs, as for any jsonb argument
    (over HTTP the same body is stdesign's SerializationException)."""
    if result == 'ok':
        return None
    if text is not None and not is_json(text) and result.startswith('22P02 invalid input syntax for type json'):
        return None
    state, _, message = result.partition(' ')
    if state.startswith('SD') and DYNAMODB_ERROR.match(message) and not message.startswith('InternalServerError'):
        return None
    return result


# ---------- running ----------

SQL_SETUP = """
SET client_min_messages = warning;
SET statement_timeout = '20s';
CREATE FUNCTION pg_temp.fz(op text, req text) RETURNS text LANGUAGE plpgsql AS $f$
BEGIN
    PERFORM st_api(op, req);
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ' ' || SQLERRM;
END $f$;
CREATE FUNCTION pg_temp.fzs(call text) RETURNS text LANGUAGE plpgsql AS $f$
BEGIN
    EXECUTE 'SELECT count(*) FROM ' || call;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ' ' || SQLERRM;
END $f$;
CREATE FUNCTION pg_temp.fzp(stmt text, params text, typed boolean) RETURNS text LANGUAGE plpgsql AS $f$
BEGIN
    PERFORM count(*) FROM st_partiql(stmt, params::jsonb, typed);
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    RETURN SQLSTATE || ' ' || SQLERRM;
END $f$;
"""


def sql_literal(text):
    return "'" + text.replace("'", "''") + "'"


def case_sql(i, op, req):
    if op == 'st_partiql' and '\\u0000' in dumps(req['Parameters']):
        # st_partiql takes jsonb, which cannot hold U+0000: Postgres's cast refuses it before stdesign runs
        req = dict(req, Parameters=json.loads(dumps(req['Parameters']).replace('\\u0000', '')))
    if op == 'st_sql':
        return 'SELECT %d, pg_temp.fzs(%s);' % (i, sql_literal(req['Call']))
    if op == 'st_partiql':
        return 'SELECT %d, pg_temp.fzp(%s, %s, %s);' % (
            i, sql_literal(req['Statement'] if isinstance(req['Statement'], str) else 'x'),
            sql_literal(dumps(req['Parameters'])) if req['Parameters'] is not None else 'NULL',
            'true' if req.get('typed') else 'false')
    text = dumps(req)
    # jsonb cannot hold U+0000: st_api(text) refuses it, as tested elsewhere; keep the rest
    return 'SELECT %d, pg_temp.fz(%s, %s);' % (i, sql_literal(op), sql_literal(text))


def psql(script, timeout):
    return subprocess.run(['psql', '-X', '-q', '-At', '-F', '\x02', '-v', 'ON_ERROR_STOP=0'],
                          input=script, capture_output=True, text=True, timeout=timeout)


def server_up():
    try:
        return psql('SELECT 1;', 30).stdout.strip() == '1'
    except subprocess.TimeoutExpired:
        return False


def run_sql_batch(cases, failures):
    """Run cases [(i, op, req)] in one psql; returns the number run."""
    script = SQL_SETUP + '\n'.join(case_sql(i, op, req) for i, op, req in cases) + '\n'
    try:
        p = psql(script, 600)
    except subprocess.TimeoutExpired:
        failures.append(('sql', cases[0][1], cases[0][2], 'psql timed out on a batch'))
        return len(cases)
    seen = {}
    for line in p.stdout.split('\n'):
        n, sep, result = line.partition('\x02')
        if sep and n.isdigit():
            seen[int(n)] = result
    by_index = {i: (op, req) for i, op, req in cases}
    for i, (op, req) in by_index.items():
        if i in seen:
            sent = dumps(req) if op != 'st_partiql' else \
                (dumps(req['Parameters']) if req['Parameters'] is not None else None)
            why = judge_sql(seen[i], sent)
            if why:
                failures.append(('sql', op, req, why))
    missing = [i for i in by_index if i not in seen]
    if missing:
        first = min(missing)
        op, req = by_index[first]
        lost = 'connection' in p.stderr and ('lost' in p.stderr or 'closed' in p.stderr)
        failures.append(('sql', op, req, 'CRASH: server connection lost' if lost else
                         'no result: ' + p.stderr.strip()[-300:]))
        for _ in range(120):
            if server_up():
                break
            time.sleep(0.5)
        # the cases after the crasher run again in the next batches
        return max(1, first - cases[0][0] + 1)
    return len(cases)


def http_call(conn_box, port, op, body):
    service = 'DynamoDBStreams_20120810.' if op in STREAMS_OPS else 'DynamoDB_20120810.'
    headers = {'Content-Type': 'application/x-amz-json-1.0', 'X-Amz-Target': service + op,
               'Authorization': 'AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20250101/us-east-1/dynamodb/aws4_request, '
                                'SignedHeaders=host, Signature=00'}
    err = None
    for attempt in range(3):
        if attempt == 2:
            time.sleep(1)
        if conn_box[0] is None:
            conn_box[0] = http.client.HTTPConnection('127.0.0.1', port, timeout=60)
        try:
            conn_box[0].request('POST', '/', body=body, headers=headers)
            r = conn_box[0].getresponse()
            data = r.read()
            if r.getheader('Connection', '').lower() == 'close':
                conn_box[0].close()
                conn_box[0] = None
            return r.status, data
        except (OSError, http.client.HTTPException) as e:
            conn_box[0].close()
            conn_box[0] = None
            err = e
    return None, str(err).encode()


def judge_http(status, data):
    if status is None:
        return 'CRASH?: no answer: ' + data.decode(errors='replace')[:200]
    if status == 200:
        return None
    try:
        doc = json.loads(data)
        kind = doc.get('__type', '')
    except ValueError:
        return 'HTTP %d with a body that is not JSON: %r' % (status, data[:200])
    if 400 <= status < 500 and '#' in kind and 'InternalServerError' not in kind:
        return None
    return 'HTTP %d %s' % (status, data[:300].decode(errors='replace'))


RAW_BODIES = [b'', b'{', b'[]', b'null', b'"x"', b'1', b'{"TableName": ', b'{"a": 1, "a": 2}', b'\xff\xfe{}',
              b'{"TableName": "\\ud800"}', b'{"TableName": "\xc3\x28"}', b'{"Item": {"a": {"S": "\\u0000"}}}',
              b'[' * 100000, b'{"a":' * 5000, b' ' * 1000 + b'{}']


def table_names():
    p = psql('SELECT table_name FROM stdesign.tables;', 60)
    return set(ln for ln in p.stdout.split('\n') if ln)


def cleanup(before):
    """Drop the tables the run created (CreateTable's mutations may create a few)."""
    script = 'SET client_min_messages = warning;\n'
    for t in sorted(table_names() - before):
        script += "SELECT st_api('DeleteTable', %s);\n" % sql_literal(json.dumps({'TableName': t}))
    # and the backups of the fuzz tables (CreateBackup's mutations make some)
    script += ("SELECT count(st_delete_backup(b ->> 'BackupArn')) FROM jsonb_array_elements("
               "st_api('ListBackups', '{}') -> 'BackupSummaries') b WHERE b ->> 'TableName' LIKE 'Fuzz%';\n")
    psql(script, 120)


def setup(arn_holder):
    defs = [table_definition(TABLE), table_definition(ADMIN, gsi=False), table_definition(GONE, gsi=False)]
    multi = table_definition(MULTI, gsi=False)
    multi['AttributeDefinitions'] += [{'AttributeName': a, 'AttributeType': ty}
                                      for a, ty in (('t', 'S'), ('u', 'N'), ('d', 'N'), ('r', 'S'))]
    multi['GlobalSecondaryIndexes'] = [{'IndexName': 'ByTU', 'Projection': {'ProjectionType': 'ALL'},
                                        'KeySchema': [{'AttributeName': 't', 'KeyType': 'HASH'},
                                                      {'AttributeName': 'u', 'KeyType': 'HASH'},
                                                      {'AttributeName': 'd', 'KeyType': 'RANGE'},
                                                      {'AttributeName': 'r', 'KeyType': 'RANGE'}]}]
    defs.append(multi)
    script = "SET client_min_messages = warning;\n"
    for d in defs:
        script += "SELECT st_api('CreateTable', %s);\n" % sql_literal(json.dumps(d))
    script += "SELECT st_set_model('%s', %s) IS NOT NULL;\n" % (MULTI, sql_literal(json.dumps(MULTI_MODEL)))
    script += "SELECT st_put_entity('E', '{\"id\": \"1\", \"n\": \"2\", \"t\": \"x\", \"u\": 1, \"d\": 2}', '%s') IS NOT NULL;\n" % MULTI
    items = [ITEM, dict(ITEM, PK={'S': 'p2'}), dict(ITEM, SK={'S': 's0'}), dict(ITEM, PK={'S': 'p8'}, SK={'S': 's8'})]
    for it in items:
        script += "SELECT st_api('PutItem', %s);\n" % sql_literal(json.dumps({'TableName': TABLE, 'Item': it}))
    # requests over HTTP may run as a trust role of their own: let any role use the fuzz tables
    script += ("DO $d$ DECLARE r text; BEGIN FOR r IN SELECT relation_name FROM stdesign.tables "
               "WHERE table_name LIKE 'Fuzz%' LOOP EXECUTE pg_catalog.format("
               "'GRANT ALL ON stdesign_data.%I TO PUBLIC', r); END LOOP; END $d$;\n")
    # a stream and a consumer of the fuzz table, for the stream SQL functions (stream_sql_calls)
    script += "SELECT st_stream_enable('%s', 'NEW_AND_OLD_IMAGES') IS NOT NULL;\n" % TABLE
    script += "SELECT st_stream_consumer_create('fz', '%s') IS NOT NULL;\n" % TABLE
    script += "CREATE OR REPLACE FUNCTION fz_sink(b jsonb) RETURNS void LANGUAGE sql AS 'SELECT';\n"
    # a backup of the fuzz table, for DescribeBackup, ListBackups, RestoreTableFromBackup
    script += "SELECT st_create_backup('%s', 'fuzz-base') ->> 'BackupArn';\n" % TABLE
    script += "SELECT st_api('DescribeTable', '{\"TableName\": \"%s\"}') #>> '{Table,TableArn}';\n" % TABLE
    p = psql(script, 120)
    lines = [ln for ln in p.stdout.split('\n') if ln.startswith('arn:') and '/backup/' not in ln]
    backups = [ln for ln in p.stdout.split('\n') if ln.startswith('arn:') and '/backup/' in ln]
    if not lines or not backups:
        sys.exit('api_fuzz: set-up failed: ' + p.stderr[-2000:])
    arn_holder.append(lines[-1])
    arn_holder.append(backups[-1])
    # a stream on the fuzz table, its shard and an iterator (good for 15 minutes), for the Streams API
    script = ("SET client_min_messages = warning;\n"
              "SELECT st_stream_enable('%s', 'NEW_AND_OLD_IMAGES') IS NOT NULL;\n"
              "SELECT 'stream ' || d->>'StreamArn' || ' ' || (d->'Shards'->0->>'ShardId') FROM ("
              "SELECT st_api('DescribeStream', jsonb_build_object('StreamArn', st_api('DescribeTable', "
              "'{\"TableName\": \"%s\"}')->'Table'->>'LatestStreamArn'))->'StreamDescription' d) x;\n" % (TABLE, TABLE))
    p = psql(script, 120)
    got = [ln.split() for ln in p.stdout.split('\n') if ln.startswith('stream ')]
    if got and len(got[-1]) == 3:
        _, sarn, shard = got[-1]
        p = psql("SELECT 'iterator ' || (st_api('GetShardIterator', %s)->>'ShardIterator');\n" % sql_literal(json.dumps(
            {'StreamArn': sarn, 'ShardId': shard, 'ShardIteratorType': 'TRIM_HORIZON'})), 60)
        its = [ln.split()[1] for ln in p.stdout.split('\n') if ln.startswith('iterator ')]
        if its:
            arn_holder.append((sarn, shard, its[-1]))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--seconds', type=float, default=float(os.environ.get('FUZZ_SECONDS', 60)))
    ap.add_argument('--seed', type=int, default=int(os.environ.get('FUZZ_SEED', 26)))
    ap.add_argument('--port', type=int, default=0, help='the HTTP endpoint (trust mode); none: SQL only')
    ap.add_argument('--log', default='', help="the server's log, checked for crashes")
    ap.add_argument('--model', default='')
    ap.add_argument('--batch', type=int, default=200)
    ap.add_argument('--sql-share', type=float, default=0.5,
                    help='the share of the time spent through psql when a port is given (0: HTTP only)')
    ap.add_argument('--out', default='', help='write failing requests here (JSON lines)')
    args = ap.parse_args()

    model = Model(find_model(args.model))
    log_start = os.path.getsize(args.log) if args.log and os.path.exists(args.log) else 0
    before = table_names()
    arn = []
    setup(arn)
    base_map = bases(arn[0], arn[1], arn[2] if len(arn) > 2 else None)
    systematic = systematic_cases(model, base_map)
    failures = []
    start = time.time()
    sql_budget = args.seconds * (args.sql_share if args.port else 1.0)
    counts = {'sql': 0, 'http': 0}

    def next_cases(stream_rng, position):
        """The position-th case of the stream: the systematic ones first, then random ones."""
        if position < len(systematic):
            return systematic[position]
        return random_case(model, base_map, stream_rng, systematic)

    # SQL: st_api, st_partiql and the stream SQL functions over psql
    pos = 0
    sql_rng = random.Random(args.seed)
    pending = []
    while time.time() - start < sql_budget:
        while len(pending) < args.batch:
            op, req = next_cases(sql_rng, pos)
            pending.append((pos, op, req))
            pos += 1
        done = run_sql_batch(pending, failures)
        counts['sql'] += done
        pending = pending[done:]
    # HTTP: raw bodies, then the stream of cases where SQL left it (so that a
    # bounded run covers more of the systematic cases; the handlers are the same)
    if args.port:
        conn = [None]
        hpos = pos - len(pending)
        http_rng = random.Random(args.seed + 1)
        for body in RAW_BODIES:
            status, data = http_call(conn, args.port, 'PutItem', body)
            why = judge_http(status, data)
            counts['http'] += 1
            if why:
                failures.append(('http', 'PutItem', body[:200].decode(errors='replace'), why))
        while time.time() - start < args.seconds:
            op, req = next_cases(http_rng, hpos)
            hpos += 1
            if op.startswith('StDesign_Studio.'):
                continue
            if op == 'st_sql':
                continue        # SQL functions only: no HTTP operation
            if op == 'st_partiql':
                if not req.get('typed'):
                    continue
                op, req = 'ExecuteStatement', {'Statement': req['Statement'], 'Parameters': req['Parameters']}
            body = dumps(req).encode()
            status, data = http_call(conn, args.port, op, body)
            counts['http'] += 1
            why = judge_http(status, data)
            if why:
                failures.append(('http', op, req, why))
                if status is None:
                    for _ in range(120):
                        if server_up():
                            break
                        time.sleep(0.5)
    elapsed = time.time() - start
    if not server_up():
        failures.append(('sql', '-', None, 'CRASH: the server does not answer at the end'))
    else:
        cleanup(before)
    if args.log and os.path.exists(args.log):
        with open(args.log, errors='replace') as f:
            f.seek(log_start)
            noted = 0
            for line in f:
                if 'terminated by signal' in line or 'was terminated by' in line or 'PANIC' in line:
                    failures.append(('log', '-', None, 'CRASH in the server log: ' + line.strip()[:300]))
                elif failures and noted < 30 and re.search(r'stdesign http|FATAL|WARNING', line):
                    # what the endpoint logged, to tell a lost connection's cause
                    print('log: ' + line.strip()[:300])
                    noted += 1
    if args.out:
        with open(args.out, 'w') as f:
            for via, op, req, why in failures:
                f.write(json.dumps({'via': via, 'op': op, 'request': req, 'why': why}) + '\n')
    seen = set()
    for via, op, req, why in failures:
        sig = (via, op, re.sub(r'\d+', 'N', why)[:80])
        if sig in seen:
            continue
        seen.add(sig)
        text = req if isinstance(req, str) else dumps(req) if req is not None else ''
        print('FAILED  %s %s: %s\n        request: %s' % (via, op, why[:300], text[:400]))
    print('api_fuzz: %d cases (st_api/st_partiql %d, HTTP %d; %d systematic) in %.0f s, seed %d: %d failures'
          % (counts['sql'] + counts['http'], counts['sql'], counts['http'], len(systematic), elapsed,
             args.seed, len(failures)))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
