/*-------------------------------------------------------------------------
 *
 * api.c
 *		st_api(operation, request): the dispatch, and the SQL functions
 *		that are st_api operations under a friendlier name (st_batch_get,
 *		st_batch_write).
 *
 *-------------------------------------------------------------------------
 */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"

#include "api.h"
#include "sql_args.h"

typedef struct ApiOperation
{
	const char *name;
	ApiHandler	handler;
	bool		streams;		/* of DynamoDB Streams (DynamoDBStreams_20120810) */
	ApiTextHandler text_handler;	/* its answer as JSON text, or NULL */
} ApiOperation;

static const ApiOperation operations[] = {
	{"PutItem", api_put_item},
	{"GetItem", api_get_item},
	{"UpdateItem", api_update_item},
	{"DeleteItem", api_delete_item},
	{"Query", api_query},
	{"Scan", api_scan},
	{"BatchGetItem", api_batch_get_item},
	{"BatchWriteItem", api_batch_write_item},
	{"TransactWriteItems", api_transact_write_items},
	{"TransactGetItems", api_transact_get_items},
	{"CreateTable", api_create_table},
	{"DeleteTable", api_delete_table},
	{"DescribeTable", api_describe_table},
	{"ListTables", api_list_tables},
	{"UpdateTable", api_update_table},
	{"UpdateTimeToLive", api_update_time_to_live},
	{"DescribeTimeToLive", api_describe_time_to_live},
	{"ExecuteStatement", api_execute_statement},
	{"BatchExecuteStatement", api_batch_execute_statement},
	{"ExecuteTransaction", api_execute_transaction},
	{"TagResource", api_tag_resource},
	{"UntagResource", api_untag_resource},
	{"ListTagsOfResource", api_list_tags_of_resource},
	{"DescribeEndpoints", api_describe_endpoints},
	{"DescribeLimits", api_describe_limits},
	{"DescribeContinuousBackups", api_describe_continuous_backups},
	{"UpdateContinuousBackups", api_update_continuous_backups},
	{"CreateBackup", api_create_backup},
	{"DescribeBackup", api_describe_backup},
	{"ListBackups", api_list_backups},
	{"DeleteBackup", api_delete_backup},
	{"RestoreTableFromBackup", api_restore_table_from_backup},
	{"UpdateContributorInsights", api_update_contributor_insights},
	{"DescribeContributorInsights", api_describe_contributor_insights},
	{"ListContributorInsights", api_list_contributor_insights},
	{"PutResourcePolicy", api_put_resource_policy},
	{"GetResourcePolicy", api_get_resource_policy},
	{"DeleteResourcePolicy", api_delete_resource_policy},
	/* the design studio's own (api_studio.c) */
	{"StDesign_Studio.DescribeTableDefinition", api_studio_describe_table_definition},
	{"StDesign_Studio.GetModel", api_studio_get_model},
	{"StDesign_Studio.SetModel", api_studio_set_model},
	{"StDesign_Studio.CheckModel", api_studio_check_model},
	{"StDesign_Studio.ModelCost", api_studio_model_cost},
	{"StDesign_Studio.RunPattern", api_studio_run_pattern},
	{"StDesign_Studio.Partitions", api_studio_partitions},
	{"StDesign_Studio.HotPartitions", api_studio_hot_partitions},
	{"ListStreams", api_list_streams, true},
	{"DescribeStream", api_describe_stream, true},
	{"GetShardIterator", api_get_shard_iterator, true},
	{"GetRecords", api_get_records, true, api_get_records_text},
};

/*
 * The operation may be given bare ("PutItem") or as the X-Amz-Target header
 * carries it ("DynamoDB_20120810.PutItem", "DynamoDBStreams_20120810.GetRecords":
 * each service's prefix names its own operations only).
 */
static const ApiOperation *
find_operation(const char *op)
{
	int			service = -1;	/* -1: bare; 0: DynamoDB's; 1: DynamoDB Streams' */

	if (strncmp(op, "DynamoDB_20120810.", 18) == 0)
	{
		op += 18;
		service = 0;
	}
	else if (strncmp(op, "DynamoDBStreams_20120810.", 25) == 0)
	{
		op += 25;
		service = 1;
	}
	for (int i = 0; i < (int) lengthof(operations); i++)
		if (strcmp(operations[i].name, op) == 0 &&
			(service < 0 || service == (int) operations[i].streams))
			return &operations[i];
	return NULL;
}

ApiHandler
api_find_operation(const char *op)
{
	const ApiOperation *operation = find_operation(op);

	return operation ? operation->handler : NULL;
}

ApiTextHandler
api_find_text_operation(const char *op)
{
	const ApiOperation *operation = find_operation(op);

	return operation ? operation->text_handler : NULL;
}

Jsonb *
api_call(const char *op, Jsonb *request)
{
	const ApiOperation *operation;

	if (op == NULL || (operation = find_operation(op)) == NULL)
		st_error(ST_ERR_UNKNOWN_OPERATION, "An unknown operation was requested: %s", op ? op : "null");
	if (request == NULL)
		request = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum("{}")));
	api_check_request(request);
	/* the model's checks first, for every operation (api_validate.c) */
	api_validate_request(operation->name, request);
	return operation->handler(request);
}

/* st_api(operation, request) */
PG_FUNCTION_INFO_V1(st_api);
Datum
st_api(PG_FUNCTION_ARGS)
{
	PG_RETURN_JSONB_P(api_call(api_arg_text(fcinfo, 0), api_arg_jsonb(fcinfo, 1)));
}

/*
 * st_api(operation, request text): the request as JSON text, the way an
 * HTTP endpoint receives it (a string literal argument picks this form).
 * jsonb cannot hold U+0000, which DynamoDB accepts in strings and names:
 * such a request is refused with a ValidationException that says why,
 * instead of jsonb's input error.
 */
PG_FUNCTION_INFO_V1(st_api_text);
Datum
st_api_text(PG_FUNCTION_ARGS)
{
	char	   *text = api_arg_text(fcinfo, 1);
	LOCAL_FCINFO(call, 2);

	if (text && st_json_has_nul_escape(text, strlen(text)))
		st_error(ST_ERR_VALIDATION,
				 "One or more parameter values were invalid: the request holds the character U+0000 (\\u0000), which stdesign cannot store");
	InitFunctionCallInfoData(*call, fcinfo->flinfo, 2, InvalidOid, NULL, NULL);
	call->args[0] = fcinfo->args[0];
	call->args[1].value = text ? DirectFunctionCall1(jsonb_in, CStringGetDatum(text)) : (Datum) 0;
	call->args[1].isnull = text == NULL;
	return st_api(call);
}

/* {"RequestItems": items}, or a ValidationException when items is NULL. */
static Jsonb *
request_items_request(Jsonb *items)
{
	JsonbParseState *state = NULL;
	JsonbValue	key;
	JsonbValue	v;

	if (items == NULL)
		st_validation_null("requestItems");
	pushJsonbValue(&state, WJB_BEGIN_OBJECT, NULL);
	key.type = jbvString;
	key.val.string.val = "RequestItems";
	key.val.string.len = 12;
	pushJsonbValue(&state, WJB_KEY, &key);
	v.type = jbvBinary;
	v.val.binary.data = &items->root;
	v.val.binary.len = VARSIZE(items) - VARHDRSZ;
	pushJsonbValue(&state, WJB_VALUE, &v);
	return JsonbValueToJsonb(pushJsonbValue(&state, WJB_END_OBJECT, NULL));
}

/* st_batch_get(request_items): BatchGetItem's RequestItems */
PG_FUNCTION_INFO_V1(st_batch_get);
Datum
st_batch_get(PG_FUNCTION_ARGS)
{
	Jsonb	   *request = request_items_request(api_arg_jsonb(fcinfo, 0));

	api_validate_request("BatchGetItem", request);
	PG_RETURN_JSONB_P(api_batch_get_item(request));
}

/* st_batch_write(request_items): BatchWriteItem's RequestItems */
PG_FUNCTION_INFO_V1(st_batch_write);
Datum
st_batch_write(PG_FUNCTION_ARGS)
{
	Jsonb	   *request = request_items_request(api_arg_jsonb(fcinfo, 0));

	api_validate_request("BatchWriteItem", request);
	PG_RETURN_JSONB_P(api_batch_write_item(request));
}
