#!/usr/bin/env python3
"""Generate src/api/api_model.c from DynamoDB's published API model.

DynamoDB checks every request against its API model before anything else:
first each field's JSON type (SerializationException), then the model's
constraints on every field (ValidationException listing every violation).
stdesign does the same from a C table of that model, which this script
writes.  The model is the service-2.json that botocore ships (Debian's
python3-botocore); the generated file is committed, so building stdesign
never needs botocore.  Regenerate with `make api-model`.

usage: gen_api_model.py SERVICE_JSON MODEL_VERSION OUTPUT_C
"""

import json
import sys

# Every pattern the model uses, and the C matcher (api_validate.c) that
# implements it.  A model with a pattern not listed here fails the
# generation, so that a new pattern is never silently left unchecked.
PATTERNS = {
    '[a-zA-Z0-9_.-]+': 'API_PATTERN_NAME',
    '([0-9a-f]{16})+': 'API_PATTERN_HEX16',
    '[A-Za-z0-9][A-Za-z0-9\\-\\_\\.]{0,126}[A-Za-z0-9]': 'API_PATTERN_RULE_NAME',
    '[\\u0020-\\uD7FF\\uE000-\\uFFFD\\uD800\\uDC00-\\uDBFF\\uDFFF\\r\\n\\t]*': 'API_PATTERN_XML_TEXT',
    '[0-9]{12}': 'API_PATTERN_ACCOUNT',
    '^[a-z0-9A-Z]+[\\.\\-\\w]*[a-z0-9A-Z]+$': 'API_PATTERN_BUCKET',
    '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}': 'API_PATTERN_UUID',
    '\\p{Print}+': 'API_PATTERN_PRINT',
    '[\\x20-\\x21\\x23-\\x2B\\x2D-\\x7E]*': 'API_PATTERN_CSV_HEADER',
    '^[^\\$]+$': 'API_PATTERN_NO_DOLLAR',
    '[,;:|\\t ]': 'API_PATTERN_CSV_DELIMITER',
}

# Shapes whose matcher is not the one of their pattern: a TableName that
# takes a table's ARN too (see apply_changes_since_model).
SHAPE_PATTERNS = {
    'TableNameOrArn': 'API_PATTERN_TABLE_NAME_OR_ARN',
}

# DynamoDB lists an enum's values in its messages in its own order, not the
# model's; these are the orders it answers with (observed), where they
# differ from the model's.
ENUM_ORDER = {
    'ReturnValue': ['ALL_NEW', 'UPDATED_OLD', 'ALL_OLD', 'NONE', 'UPDATED_NEW'],
    'ComparisonOperator': ['IN', 'NULL', 'BETWEEN', 'LT', 'NOT_CONTAINS', 'EQ', 'GT',
                           'NOT_NULL', 'NE', 'LE', 'BEGINS_WITH', 'GE', 'CONTAINS'],
    'ScalarAttributeType': ['B', 'N', 'S'],
    'ConditionalOperator': ['OR', 'AND'],
    'Select': ['SPECIFIC_ATTRIBUTES', 'COUNT', 'ALL_ATTRIBUTES', 'ALL_PROJECTED_ATTRIBUTES'],
    'ProjectionType': ['ALL', 'INCLUDE', 'KEYS_ONLY'],
    'AttributeAction': ['ADD', 'DELETE', 'PUT'],
}

KINDS = {
    'structure': 'API_STRUCT',
    'list': 'API_LIST',
    'map': 'API_MAP',
    'string': 'API_STRING',
    'integer': 'API_INTEGER',
    'long': 'API_LONG',
    'double': 'API_DOUBLE',
    'boolean': 'API_BOOLEAN',
    'blob': 'API_BLOB',
    'timestamp': 'API_TIMESTAMP',
}


def c_string(s):
    return '"' + s.replace('\\', '\\\\').replace('"', '\\"') + '"'


def lower_first(name):
    return name[:1].lower() + name[1:]


def apply_changes_since_model(model):
    """DynamoDB's API as it is now, where it changed since the model's version.

    From DynamoDB's current API reference (docs.aws.amazon.com/amazondynamodb/
    latest/APIReference):
    - every TableName of an operation on an existing table, and the table
      keys of BatchGetItem's and BatchWriteItem's RequestItems: "You can also
      provide the Amazon Resource Name (ARN) of the table in this parameter"
      (shape TableArn, length 1 to 1024).  A name keeps the name's rules
      (3 to 255 characters of [a-zA-Z0-9_.-]) and DynamoDB's messages for
      them; a value starting with "arn:" is held to TableArn's length only
      (API_PATTERN_TABLE_NAME_OR_ARN), the ARN itself checked later.
      ExclusiveStartTableName and the global-table names stay names.
    - CreateTable and UpdateTable: DeletionProtectionEnabled (Boolean).
    - PointInTimeRecoverySpecification: RecoveryPeriodInDays (Integer, 1 to
      35).
    - UpdateContributorInsights: ContributorInsightsMode (enum
      ACCESSED_AND_THROTTLED_KEYS, THROTTLED_KEYS).
    - CreateTable and UpdateTable, their GlobalSecondaryIndexes and
      GlobalSecondaryIndexUpdates' Create and Update: OnDemandThroughput
      (MaxReadRequestUnits, MaxWriteRequestUnits) and WarmThroughput
      (ReadUnitsPerSecond, WriteUnitsPerSecond), each a Long without
      bounds in the model (their rules are the operation's, table_admin.c);
      so GlobalSecondaryIndexUpdates' Update no longer requires
      ProvisionedThroughput (it may change only the other two).
    - resource-based policies: PutResourcePolicy, GetResourcePolicy,
      DeleteResourcePolicy and CreateTable's ResourcePolicy;
    - ExecuteStatement's, BatchExecuteStatement's and ExecuteTransaction's
      ReturnValuesOnConditionCheckFailure;
    - the operations of today's API (CURRENT_OPERATIONS), those without an
      input shape here listed without one;
    - a GSI's KeySchema (GlobalSecondaryIndex, CreateGlobalSecondaryIndexAction)
      has no maximum length (botocore's current service-2.json: "Global
      secondary index supports up to 4 partition and up to 4 sort keys";
      the limits are checked by the operation, ops/table_admin.c).  The
      KeySchema of a table and of an LSI keep the maximum of 2 that
      DynamoDB was observed to report with the other violations.
    And where DynamoDB does not answer as the model reads:
    - a structure's members are listed in DynamoDB's order, not the
      model's (validation_order);
    - a tag's Key and Value (TagResource, UntagResource, CreateTable's Tags)
      are checked by DynamoDB's own tag rules and words ("The Tag Key
      provided is invalid, Key: ...", also for a missing or too long one),
      so their lengths and presence are left to the operation
      (api_control.c), not the model.
    Each change is made only where the model lacks it, so a newer model
    passes through unchanged.
    """
    shapes = model['shapes']
    arn = dict(shapes['TableName'])
    shapes['TableNameOrArn'] = arn
    for name, s in shapes.items():
        if not name.endswith('Input') and name not in ('Put', 'Update', 'Delete', 'ConditionCheck', 'Get'):
            continue
        m = s.get('members', {}).get('TableName')
        if m and m['shape'] == 'TableName':
            m['shape'] = 'TableNameOrArn'
    for name in ('BatchGetRequestMap', 'BatchWriteItemRequestMap'):
        if shapes[name]['key']['shape'] == 'TableName':
            shapes[name]['key']['shape'] = 'TableNameOrArn'
    shapes.setdefault('DeletionProtectionEnabled', {'type': 'boolean'})
    for name in ('CreateTableInput', 'UpdateTableInput'):
        shapes[name]['members'].setdefault('DeletionProtectionEnabled', {'shape': 'DeletionProtectionEnabled'})
    shapes.setdefault('RecoveryPeriodInDays', {'type': 'integer', 'min': 1, 'max': 35})
    shapes['PointInTimeRecoverySpecification']['members'].setdefault(
        'RecoveryPeriodInDays', {'shape': 'RecoveryPeriodInDays'})
    shapes.setdefault('ContributorInsightsMode', {'type': 'string',
                                                  'enum': ['ACCESSED_AND_THROTTLED_KEYS', 'THROTTLED_KEYS']})
    shapes['UpdateContributorInsightsInput']['members'].setdefault(
        'ContributorInsightsMode', {'shape': 'ContributorInsightsMode'})
    shapes.setdefault('LongObject', {'type': 'long'})
    shapes.setdefault('OnDemandThroughput', {'type': 'structure', 'members': {
        'MaxReadRequestUnits': {'shape': 'LongObject'}, 'MaxWriteRequestUnits': {'shape': 'LongObject'}}})
    shapes.setdefault('WarmThroughput', {'type': 'structure', 'members': {
        'ReadUnitsPerSecond': {'shape': 'LongObject'}, 'WriteUnitsPerSecond': {'shape': 'LongObject'}}})
    for name in ('CreateTableInput', 'UpdateTableInput', 'GlobalSecondaryIndex',
                 'CreateGlobalSecondaryIndexAction', 'UpdateGlobalSecondaryIndexAction'):
        shapes[name]['members'].setdefault('OnDemandThroughput', {'shape': 'OnDemandThroughput'})
        shapes[name]['members'].setdefault('WarmThroughput', {'shape': 'WarmThroughput'})
    update = shapes['UpdateGlobalSecondaryIndexAction']
    update['required'] = [r for r in update.get('required', []) if r != 'ProvisionedThroughput']
    for name in ('TagKeyString', 'TagValueString'):
        shapes[name].pop('min', None)
        shapes[name].pop('max', None)
    shapes['Tag'].pop('required', None)
    gsi_key_schema = dict(shapes['KeySchema'])
    gsi_key_schema.pop('max', None)
    shapes['GlobalSecondaryIndexKeySchema'] = gsi_key_schema
    for name in ('GlobalSecondaryIndex', 'CreateGlobalSecondaryIndexAction'):
        member = shapes[name]['members']['KeySchema']
        if member['shape'] == 'KeySchema':
            shapes[name]['members']['KeySchema'] = dict(member, shape='GlobalSecondaryIndexKeySchema')
    shapes['KeySchema'].setdefault('max', 2)
    # Resource-based policies (PutResourcePolicy, GetResourcePolicy,
    # DeleteResourcePolicy; CreateTable's ResourcePolicy): ResourceArnString
    # 1 to 1283 characters, PolicyRevisionId 1 to 255, the document a string
    # whose rules (20 KB, JSON) are the operation's (ops/policy_ops.c).
    shapes.setdefault('ResourcePolicy', {'type': 'string'})
    shapes.setdefault('ResourceArnString', {'type': 'string', 'min': 1, 'max': 1283})
    shapes.setdefault('PolicyRevisionId', {'type': 'string', 'min': 1, 'max': 255})
    shapes.setdefault('ConfirmRemoveSelfResourceAccess', {'type': 'boolean'})
    shapes['CreateTableInput']['members'].setdefault('ResourcePolicy', {'shape': 'ResourcePolicy'})
    policy_inputs = {
        'PutResourcePolicy': {'required': ['ResourceArn', 'Policy'], 'members': {
            'ResourceArn': {'shape': 'ResourceArnString'}, 'Policy': {'shape': 'ResourcePolicy'},
            'ExpectedRevisionId': {'shape': 'PolicyRevisionId'},
            'ConfirmRemoveSelfResourceAccess': {'shape': 'ConfirmRemoveSelfResourceAccess'}}},
        'GetResourcePolicy': {'required': ['ResourceArn'], 'members': {
            'ResourceArn': {'shape': 'ResourceArnString'}}},
        'DeleteResourcePolicy': {'required': ['ResourceArn'], 'members': {
            'ResourceArn': {'shape': 'ResourceArnString'}, 'ExpectedRevisionId': {'shape': 'PolicyRevisionId'}}},
    }
    for op, inp in policy_inputs.items():
        shapes.setdefault(op + 'Input', dict(inp, type='structure'))
        model['operations'].setdefault(op, {'name': op, 'input': {'shape': op + 'Input'}})
    # PartiQL's ReturnValuesOnConditionCheckFailure (ALL_OLD, NONE), as the
    # item operations have it.
    for name in ('ExecuteStatementInput', 'ParameterizedStatement', 'BatchStatementRequest'):
        shapes[name]['members'].setdefault('ReturnValuesOnConditionCheckFailure',
                                           {'shape': 'ReturnValuesOnConditionCheckFailure'})
    # Every other operation of today's API: listed without an input, so that
    # the model names them all (api.c serves those it has a handler for; the
    # others are answered as DynamoDB answers an operation it does not know).
    for op in CURRENT_OPERATIONS:
        model['operations'].setdefault(op, {'name': op})
    unknown = sorted(set(model['operations']) - set(CURRENT_OPERATIONS))
    if unknown:
        sys.exit('gen_api_model.py: operations not in CURRENT_OPERATIONS: %s' % ', '.join(unknown))


# DynamoDB's operations as its API reference lists them today (botocore's
# service-2.json of August 2026 has the same 58): the list the generator
# checks the model against, and the one docs/operations.md tells apart.
CURRENT_OPERATIONS = [
    'BatchExecuteStatement', 'BatchGetItem', 'BatchWriteItem', 'CreateBackup', 'CreateGlobalTable',
    'CreateTable', 'DeleteBackup', 'DeleteItem', 'DeleteResourcePolicy', 'DeleteTable', 'DescribeBackup',
    'DescribeContinuousBackups', 'DescribeContributorInsights', 'DescribeEndpoints', 'DescribeExport',
    'DescribeGlobalTable', 'DescribeGlobalTableSettings', 'DescribeImport',
    'DescribeKinesisStreamingDestination', 'DescribeLimits', 'DescribeTable',
    'DescribeTableReplicaAutoScaling', 'DescribeTimeToLive', 'DisableKinesisStreamingDestination',
    'EnableKinesisStreamingDestination', 'ExecuteStatement', 'ExecuteTransaction',
    'ExportTableToPointInTime', 'GetItem', 'GetResourcePolicy', 'ImportTable', 'ListBackups',
    'ListContributorInsights', 'ListExports', 'ListGlobalTables', 'ListImports', 'ListTables',
    'ListTagsOfResource', 'PutItem', 'PutResourcePolicy', 'Query', 'RestoreTableFromBackup',
    'RestoreTableToPointInTime', 'Scan', 'SearchVectors', 'TagResource', 'TransactGetItems',
    'TransactWriteItems', 'UntagResource', 'UpdateContinuousBackups', 'UpdateContributorInsights',
    'UpdateGlobalTable', 'UpdateGlobalTableSettings', 'UpdateItem', 'UpdateKinesisStreamingDestination',
    'UpdateTable', 'UpdateTableReplicaAutoScaling', 'UpdateTimeToLive',
]


def java_string_hash(s):
    """Java's String.hashCode (UTF-16 code units), as a 32-bit unsigned value."""
    h = 0
    units = s.encode('utf-16-be')
    for i in range(0, len(units), 2):
        h = (31 * h + int.from_bytes(units[i:i + 2], 'big')) & 0xffffffff
    return h


# Members of DynamoDB's current API that botocore 1.29 lacks, where they
# make a structure's member map larger than 12 (so 32 buckets, not 16: see
# validation_order); from the structures of @aws-sdk/client-dynamodb
# 3.1169.0 (test/http's lockfile), dist-es/schemas/schemas_0.js.
CURRENT_MEMBER_COUNT = {
    'CreateTableInput': 18,
    'UpdateItemInput': 13,
    'UpdateTableInput': 17,
}


def validation_order(names, count=None):
    """The order DynamoDB lists the violations of a structure's members.

    DynamoDB does not list them in the model's order.  Its answers show
    attributeDefinitions.N.member.attributeType before .attributeName,
    provisionedThroughput.writeCapacityUnits before .readCapacityUnits (also
    inside GlobalSecondaryIndexUpdates and restore overrides),
    timeToLiveSpecification.attributeName before .enabled, keySchema.N.member.
    attributeName before .keyType; GetItem {"TableName": "abc;",
    "ReturnConsumedCapacity": "hi", "AttributesToGet": []} lists
    attributesToGet, returnConsumedCapacity, key, tableName, and a Query
    with ten violations select, indexName, returnConsumedCapacity,
    queryFilter, tableName, conditionalOperator, attributesToGet, limit,
    keyConditions (dynalite's tests, written against DynamoDB).  Every one
    of them is the iteration order of a Java HashMap holding the structure's
    members by their message names: String.hashCode spread as HashMap does,
    16 buckets, doubled while the members pass 3/4 of them (17 members, 32
    buckets), a bucket in insertion order (here the model's, which DynamoDB's
    own model does not always follow).  `count` is the number of members
    DynamoDB's structure has now, when the model's is older.
    """
    cap = 16
    while max(len(names), count or 0) > cap * 3 // 4:
        cap *= 2

    def bucket(name):
        h = java_string_hash(name)
        return (h ^ (h >> 16)) & (cap - 1)
    return sorted(names, key=bucket)


def reachable(model):
    """The shapes the operations' inputs reach, in a stable order."""
    shapes = model['shapes']
    order = []
    seen = set()

    def visit(name):
        if name in seen:
            return
        seen.add(name)
        order.append(name)
        s = shapes[name]
        for m in s.get('members', {}).values():
            visit(m['shape'])
        for k in ('member', 'key', 'value'):
            if k in s:
                visit(s[k]['shape'])

    for op in sorted(model['operations']):
        inp = model['operations'][op].get('input')
        if inp:
            visit(inp['shape'])
    return order


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        model = json.load(f)
    version = sys.argv[2]
    apply_changes_since_model(model)
    meta = model['metadata']
    shapes = model['shapes']
    names = reachable(model)
    index = {n: i for i, n in enumerate(names)}
    members = []
    lines = []
    enums = []

    for n in names:
        s = shapes[n]
        kind = KINDS[s['type']]
        pattern = 'API_PATTERN_NONE'
        if n in SHAPE_PATTERNS:
            pattern = SHAPE_PATTERNS[n]
        elif 'pattern' in s:
            if s['pattern'] not in PATTERNS:
                sys.exit('gen_api_model.py: no matcher for pattern %r of %s' % (s['pattern'], n))
            pattern = PATTERNS[s['pattern']]
        enum_ref = 'NULL'
        if 'enum' in s:
            values = ENUM_ORDER.get(n, s['enum'])
            if sorted(values) != sorted(s['enum']):
                sys.exit('gen_api_model.py: ENUM_ORDER of %s does not match the model' % n)
            enum_ref = 'enum_%d' % len(enums)
            enums.append((enum_ref, values))
        first = len(members)
        required = set(s.get('required', []))
        wires = list(s.get('members', {}))
        by_message = {lower_first(w): w for w in wires}
        wires = [by_message[m] for m in validation_order(list(by_message), CURRENT_MEMBER_COUNT.get(n))]
        for wire in wires:
            m = s['members'][wire]
            members.append((wire, lower_first(wire), index[m['shape']], wire in required))
        sub = index[s['member']['shape']] if 'member' in s else \
            index[s['value']['shape']] if 'value' in s else -1
        key = index[s['key']['shape']] if 'key' in s else -1
        lines.append('\t{%s, %s, %s, %s, %d, %d, %s, %s, %s, %d, %d, %d, %d, %d},' % (
            c_string(n), kind,
            'true' if 'min' in s else 'false', 'true' if 'max' in s else 'false',
            s.get('min', 0), s.get('max', 0),
            pattern, c_string(s['pattern']) if 'pattern' in s else 'NULL',
            enum_ref, len(s.get('enum', [])),
            first, len(s.get('members', {})), sub, key))

    out = []
    out.append('''/*-------------------------------------------------------------------------
 *
 * api_model.c
 *		DynamoDB's API model as C tables: every shape that an operation's
 *		input reaches, with its type and constraints, for api_validate.c.
 *
 * GENERATED by src/api/gen_api_model.py (make api-model): do not edit.
 * Source: botocore's DynamoDB model, service-2.json, API version %s
 * (%s), from %s, with DynamoDB's changes since
 * (apply_changes_since_model in the generator: table ARNs as TableName,
 * DeletionProtectionEnabled, RecoveryPeriodInDays, ContributorInsightsMode,
 * OnDemandThroughput, WarmThroughput, resource-based policies, today's
 * operation list).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "api_model.h"
''' % (meta['apiVersion'], meta['uid'], version))
    for ref, values in enums:
        out.append('static const char *const %s[] = {%s};' % (ref, ', '.join(c_string(v) for v in values)))
    out.append('')
    out.append('const ApiMember api_model_members[] = {')
    for wire, msg, shape, req in members:
        out.append('\t{%s, %d, %s, %d, %s},' % (c_string(wire), len(wire.encode()), c_string(msg), shape,
                                              'true' if req else 'false'))
    out.append('};')
    out.append('')
    out.append('const ApiShape api_model_shapes[] = {')
    out.extend(lines)
    out.append('};')
    out.append('')
    out.append('const ApiOperationModel api_model_operations[] = {')
    for op in sorted(model['operations']):
        inp = model['operations'][op].get('input')
        out.append('\t{%s, %d},' % (c_string(op), index[inp['shape']] if inp else -1))
    out.append('};')
    out.append('')
    out.append('const int	api_model_noperations = lengthof(api_model_operations);')
    most = max(len(shapes[n].get('members', {})) for n in names)
    if most > 32:
        sys.exit('gen_api_model.py: a structure has %d members; raise API_MODEL_MAX_MEMBERS' % most)
    with open(sys.argv[3], 'w') as f:
        f.write('\n'.join(out) + '\n')


if __name__ == '__main__':
    main()
