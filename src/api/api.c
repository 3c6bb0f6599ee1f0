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
};

/*
 * The operation may be given bare ("PutItem") or as the X-Amz-Target header
 * carries it ("DynamoDB_20120810.PutItem").
 */
ApiHandler
api_find_operation(const char *op)
{
	const char *dot = strrchr(op, '.');

	if (dot && strncmp(op, "DynamoDB_20120810.", 18) == 0)
		op = dot + 1;
	for (int i = 0; i < (int) lengthof(operations); i++)
		if (strcmp(operations[i].name, op) == 0)
			return operations[i].handler;
	return NULL;
}

/* st_api(operation, request) */
PG_FUNCTION_INFO_V1(st_api);
Datum
st_api(PG_FUNCTION_ARGS)
{
	char	   *op = arg_text(fcinfo, 0);
	Jsonb	   *request = arg_jsonb(fcinfo, 1);
	ApiHandler	handler;

	if (op == NULL || (handler = api_find_operation(op)) == NULL)
		st_error(ST_ERR_UNKNOWN_OPERATION, "An unknown operation was requested: %s", op ? op : "null");
	if (request == NULL)
		request = DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum("{}")));
	api_check_request(request);
	PG_RETURN_JSONB_P(handler(request));
}

/* {"RequestItems": items}, or a ValidationException when items is NULL. */
static Jsonb *
request_items_request(Jsonb *items)
{
	JsonbParseState *state = NULL;
	JsonbValue	key;
	JsonbValue	v;

	if (items == NULL)
		st_error(ST_ERR_VALIDATION,
				 "1 validation error detected: Value null at 'requestItems' failed to satisfy constraint: Member must not be null");
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
	PG_RETURN_JSONB_P(api_batch_get_item(request_items_request(arg_jsonb(fcinfo, 0))));
}

/* st_batch_write(request_items): BatchWriteItem's RequestItems */
PG_FUNCTION_INFO_V1(st_batch_write);
Datum
st_batch_write(PG_FUNCTION_ARGS)
{
	PG_RETURN_JSONB_P(api_batch_write_item(request_items_request(arg_jsonb(fcinfo, 0))));
}
