/*-------------------------------------------------------------------------
 *
 * http_ops.c
 *		The operations tools call when they connect, beyond st_api's:
 *		ListTagsOfResource, DescribeEndpoints, DescribeLimits and
 *		DescribeContinuousBackups.
 *
 * aws-cli's waiters, dynamodb-admin and the SDKs' helpers call these on
 * their own.  Each answers what is true of stdesign (shapes from DynamoDB's
 * API reference and its service model): no table has tags or backups, and
 * the table must exist.  An operation st_api gains later
 * (src/api) takes precedence over the one here.
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/jsonb.h"

#include "api/json_req.h"
#include "common/st_common.h"
#include "http_server.h"

static Jsonb *
json(const char *text)
{
	return DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(text)));
}

/*
 * ListTagsOfResource: the table of the ARN (as DescribeTable gives it:
 * arn:aws:dynamodb:<region>:<account>:table/<name>) exists and has no tags.
 */
static Jsonb *
http_list_tags_of_resource(Jsonb *request)
{
	char	   *arn = api_jreq_member_text(request, "ResourceArn", "ResourceArn");
	const char *name;
	StringInfoData table;

	if (arn == NULL)
		st_error(ST_ERR_VALIDATION,
				 "1 validation error detected: Value null at 'resourceArn' failed to satisfy constraint: Member must not be null");
	name = strstr(arn, ":table/");
	if (strncmp(arn, "arn:", 4) != 0 || name == NULL || name[7] == '\0' || strchr(name + 7, '/') != NULL)
		st_error(ST_ERR_VALIDATION, "Invalid TableArn: Invalid ResourceArn provided as input %s", arn);
	initStringInfo(&table);
	appendStringInfoString(&table, "{\"TableName\": ");
	escape_json(&table, name + 7);
	appendStringInfoChar(&table, '}');
	(void) api_table(json(table.data));
	return json("{\"Tags\": []}");
}

/* DescribeEndpoints: this server, under the name the client used. */
static Jsonb *
http_describe_endpoints(Jsonb *request)
{
	StringInfoData s;

	initStringInfo(&s);
	appendStringInfoString(&s, "{\"Endpoints\": [{\"Address\": ");
	escape_json(&s, http_request_host ? http_request_host : "localhost");
	appendStringInfoString(&s, ", \"CachePeriodInMinutes\": 1440}]}");
	return json(s.data);
}

/* DescribeLimits: DynamoDB's default quotas (stdesign enforces none of them). */
static Jsonb *
http_describe_limits(Jsonb *request)
{
	return json("{\"AccountMaxReadCapacityUnits\": 80000, \"AccountMaxWriteCapacityUnits\": 80000,"
				" \"TableMaxReadCapacityUnits\": 40000, \"TableMaxWriteCapacityUnits\": 40000}");
}

/*
 * DescribeContinuousBackups: no backups and no point-in-time recovery.  A
 * missing table is TableNotFoundException here, not ResourceNotFound.
 */
static Jsonb *
http_describe_continuous_backups(Jsonb *request)
{
	PG_TRY();
	{
		(void) api_table(request);
	}
	PG_CATCH();
	{
		ErrorData  *edata = CopyErrorData();

		if (strcmp(unpack_sql_state(edata->sqlerrcode), st_exception_sqlstate(ST_ERR_RESOURCE_NOT_FOUND)) != 0)
			PG_RE_THROW();
		/* the transaction is aborted by the caller: only the error changes */
		FlushErrorState();
		st_error(ST_ERR_TABLE_NOT_FOUND, "Table not found: %s",
				 api_jreq_member_text(request, "TableName", "TableName"));
	}
	PG_END_TRY();
	return json("{\"ContinuousBackupsDescription\": {\"ContinuousBackupsStatus\": \"DISABLED\","
				" \"PointInTimeRecoveryDescription\": {\"PointInTimeRecoveryStatus\": \"DISABLED\"}}}");
}

typedef struct HttpOperation
{
	const char *name;
	ApiHandler	handler;
} HttpOperation;

static const HttpOperation http_operations[] = {
	{"ListTagsOfResource", http_list_tags_of_resource},
	{"DescribeEndpoints", http_describe_endpoints},
	{"DescribeLimits", http_describe_limits},
	{"DescribeContinuousBackups", http_describe_continuous_backups},
};

ApiHandler
http_find_operation(const char *op)
{
	ApiHandler	h = api_find_operation(op);

	if (h != NULL)
		return h;
	for (int i = 0; i < (int) lengthof(http_operations); i++)
		if (strcmp(http_operations[i].name, op) == 0)
			return http_operations[i].handler;
	return NULL;
}
